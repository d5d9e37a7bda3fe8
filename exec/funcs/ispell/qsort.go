package ispell

// pgQsort sorts a the way PostgreSQL's qsort (pg_qsort, Bentley and
// McIlroy's quicksort with a check for sorted input) does. It is not
// stable, and the order it leaves equal elements in is visible: duplicate
// words merge their flags in that order, affixes with the same replacement
// are tried in it, and of two compound flags with the same name the lookup
// finds the one it finds. Sorting with the same algorithm makes these
// orders PostgreSQL's.
func pgQsort[T any](a []T, cmp func(x, y *T) int) {
	for {
		n := len(a)
		if n < 7 {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(&a[l-1], &a[l]) > 0; l-- {
					a[l], a[l-1] = a[l-1], a[l]
				}
			}
			return
		}
		sorted := true
		for m := 1; m < n; m++ {
			if cmp(&a[m-1], &a[m]) > 0 {
				sorted = false
				break
			}
		}
		if sorted {
			return
		}
		m := n / 2
		if n > 7 {
			l, r := 0, n-1
			if n > 40 {
				d := n / 8
				l = med3(a, l, l+d, l+2*d, cmp)
				m = med3(a, m-d, m, m+d, cmp)
				r = med3(a, r-2*d, r-d, r, cmp)
			}
			m = med3(a, l, m, r, cmp)
		}
		a[0], a[m] = a[m], a[0]
		pa, pb, pc, pd := 1, 1, n-1, n-1
		for {
			for pb <= pc {
				r := cmp(&a[pb], &a[0])
				if r > 0 {
					break
				}
				if r == 0 {
					a[pa], a[pb] = a[pb], a[pa]
					pa++
				}
				pb++
			}
			for pb <= pc {
				r := cmp(&a[pc], &a[0])
				if r < 0 {
					break
				}
				if r == 0 {
					a[pc], a[pd] = a[pd], a[pc]
					pd--
				}
				pc--
			}
			if pb > pc {
				break
			}
			a[pb], a[pc] = a[pc], a[pb]
			pb++
			pc--
		}
		d1 := min(pa, pb-pa)
		swapRange(a, 0, pb-d1, d1)
		d1 = min(pd-pc, n-pd-1)
		swapRange(a, pb, n-d1, d1)
		d1 = pb - pa
		d2 := pd - pc
		// The partitions are disjoint, so which is sorted first does not
		// change the result; recursing on the smaller bounds the depth.
		if d1 <= d2 {
			if d1 > 1 {
				pgQsort(a[:d1], cmp)
			}
			if d2 <= 1 {
				return
			}
			a = a[n-d2:]
		} else {
			if d2 > 1 {
				pgQsort(a[n-d2:], cmp)
			}
			if d1 <= 1 {
				return
			}
			a = a[:d1]
		}
	}
}

// med3 is the index of the median of a[i], a[j] and a[k], chosen with the
// comparisons pg_qsort makes.
func med3[T any](a []T, i, j, k int, cmp func(x, y *T) int) int {
	if cmp(&a[i], &a[j]) < 0 {
		if cmp(&a[j], &a[k]) < 0 {
			return j
		}
		if cmp(&a[i], &a[k]) < 0 {
			return k
		}
		return i
	}
	if cmp(&a[j], &a[k]) > 0 {
		return j
	}
	if cmp(&a[i], &a[k]) < 0 {
		return i
	}
	return k
}

// swapRange exchanges a[i:i+n] and a[j:j+n] element by element, front to
// back, as pg_qsort's vector swap does.
func swapRange[T any](a []T, i, j, n int) {
	for k := 0; k < n; k++ {
		a[i+k], a[j+k] = a[j+k], a[i+k]
	}
}
