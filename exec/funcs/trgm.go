package funcs

import (
	"cmp"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// contrib's pg_trgm (CREATE EXTENSION pg_trgm finds it built in): the
// trigrams of a string and the similarities made of them, as PostgreSQL
// 15's trgm_op.c computes them, so that every value and every ordering
// of show_trgm is its.
//
// A string's words are its runs of alphanumeric characters (letters,
// letter numbers and decimal digits of any script, as glibc's iswalpha
// and iswdigit in a UTF-8 locale class them), each lower-cased and
// padded with two spaces in front and one behind; the trigrams are the
// word's windows of three characters. A trigram is three bytes: the
// characters themselves when they are three bytes long (ASCII), else
// the low three bytes of the legacy CRC-32 of their UTF-8 bytes (the
// CRC PostgreSQL used before 9.5, its "normal" table run with the
// "reflected" code). Trigrams sort by their bytes as C's char, which is
// signed on the machines PostgreSQL 15 is built for: a byte from 0x80 up
// sorts before ASCII.
//
// similarity is the shared trigrams over the union of the two sets;
// word_similarity the greatest similarity between the first string's
// set and any extent of the second's trigrams (strict_word_similarity:
// an extent of whole words), computed by PostgreSQL's
// iterate_word_similarity. Results are float4 arithmetic throughout.

// trigram is one trigram as pg_trgm's trgm: three bytes.
type trigram [3]byte

// Trigram bounds, for strict word similarity: the first and last
// trigrams of a word.
const (
	trgmBoundLeft  = 1
	trgmBoundRight = 2
)

// The padding of a word: "  word ".
const (
	trgmLPadding = 2
	trgmRPadding = 1
)

// compareTrigram orders trigrams as CMPTRGM, byte by byte as signed char.
func compareTrigram(a, b trigram) int {
	for i := range a {
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// isTrgmWordChar is ISWORDCHR: t_isalpha or t_isdigit.
func isTrgmWordChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Nl, r)
}

// legacyCRC32 is PostgreSQL's COMP_LEGACY_CRC32 over b, initialized and
// finished: the CRC-32 table indexed by the top byte and shifted left.
func legacyCRC32(b []byte) uint32 {
	crc := ^uint32(0)
	for _, c := range b {
		crc = crc32.IEEETable[byte(crc>>24)^c] ^ crc<<8
	}
	return ^crc
}

// compactTrigram is compact_trigram: the three bytes of an ASCII
// trigram, else the CRC's bytes as they lie in a little-endian uint32.
func compactTrigram(b []byte) trigram {
	if len(b) == 3 {
		return trigram{b[0], b[1], b[2]}
	}
	crc := legacyCRC32(b)
	return trigram{byte(crc), byte(crc >> 8), byte(crc >> 16)}
}

// appendTrigrams appends the trigrams of a padded word, make_trigrams.
func appendTrigrams(dst []trigram, padded string) []trigram {
	var starts [3]int // byte offsets of the window's three characters
	n := 0
	for i := range padded {
		if n < 3 {
			starts[n] = i
			n++
			if n < 3 {
				continue
			}
		} else {
			starts[0], starts[1], starts[2] = starts[1], starts[2], i
		}
		_, size := utf8.DecodeRuneInString(padded[i:])
		dst = append(dst, compactTrigram([]byte(padded[starts[0]:i+size])))
	}
	return dst
}

// trigramsOf returns the trigrams of s word by word, unsorted and with
// repeats (generate_trgm_only), and with bounds set the bound flags of
// each.
func trigramsOf(s string, bounds bool) ([]trigram, []uint8) {
	var out []trigram
	var bnd []uint8
	var buf strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isTrgmWordChar(r) {
			i += size
			continue
		}
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isTrgmWordChar(r) {
				break
			}
			j += size
		}
		buf.Reset()
		buf.WriteString("  ")
		buf.WriteString(strings.ToLower(s[i:j]))
		buf.WriteByte(' ')
		first := len(out)
		out = appendTrigrams(out, buf.String())
		if bounds {
			for len(bnd) < len(out) {
				bnd = append(bnd, 0)
			}
			bnd[first] |= trgmBoundLeft
			bnd[len(out)-1] |= trgmBoundRight
		}
		i = j
	}
	return out, bnd
}

// trigramSet returns the sorted, distinct trigrams of s (generate_trgm).
func trigramSet(s string) []trigram {
	t, _ := trigramsOf(s, false)
	slices.SortFunc(t, compareTrigram)
	return slices.CompactFunc(t, func(a, b trigram) bool { return a == b })
}

// calcSimilarity is CALCSML, in float4.
func calcSimilarity(count, len1, len2 int) float32 {
	return float32(count) / float32(len1+len2-count)
}

// trigramSimilarity is cnt_sml over two sorted sets: 0 when either is
// empty.
func trigramSimilarity(a, b []trigram) float32 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	count := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := compareTrigram(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			i, j, count = i+1, j+1, count+1
		}
	}
	return calcSimilarity(count, len(a), len(b))
}

// wordSimilarity is calc_word_similarity(s1, s2): how well s1's trigrams
// match the best extent of s2's (of whole words when strict).
func wordSimilarity(s1, s2 string, strict bool) float32 {
	t1, _ := trigramsOf(s1, false)
	t2, bounds := trigramsOf(s2, strict)
	// Number the distinct trigrams of both; found marks those of s1.
	type posTrgm struct {
		t   trigram
		idx int // -1 for s1's
	}
	all := make([]posTrgm, 0, len(t1)+len(t2))
	for _, t := range t1 {
		all = append(all, posTrgm{t, -1})
	}
	for i, t := range t2 {
		all = append(all, posTrgm{t, i})
	}
	slices.SortFunc(all, func(a, b posTrgm) int {
		if c := compareTrigram(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	trg2indexes := make([]int, len(t2))
	found := make([]bool, len(all))
	ulen1, j := 0, 0
	for i, p := range all {
		if i > 0 && p.t != all[i-1].t {
			if found[j] {
				ulen1++
			}
			j++
		}
		if p.idx >= 0 {
			trg2indexes[p.idx] = j
		} else {
			found[j] = true
		}
	}
	if len(all) > 0 && found[j] {
		ulen1++
	}
	return iterateWordSimilarity(trg2indexes, found, ulen1, strict, bounds)
}

// iterateWordSimilarity is iterate_word_similarity, without its early
// exit at a threshold (the operators compare the maximum, which passes
// the threshold exactly when the early exit would have).
func iterateWordSimilarity(trg2indexes []int, found []bool, ulen1 int, strict bool, bounds []uint8) float32 {
	lastpos := make([]int, len(found))
	for i := range lastpos {
		lastpos[i] = -1
	}
	ulen2, count, lower := 0, 0, -1
	if strict {
		lower = 0
	}
	var smlrMax float32
	for i, trgindex := range trg2indexes {
		if lower >= 0 || found[trgindex] {
			if lastpos[trgindex] < 0 {
				ulen2++
				if found[trgindex] {
					count++
				}
			}
			lastpos[trgindex] = i
		}
		isUpper := found[trgindex]
		if strict {
			isUpper = bounds[i]&trgmBoundRight != 0
		}
		if !isUpper {
			continue
		}
		upper := i
		if lower == -1 {
			lower, ulen2 = i, 1
		}
		smlrCur := calcSimilarity(count, ulen1, ulen2)
		// Try the lower bounds up to the upper one for a greater
		// similarity.
		tmpCount, tmpUlen2, prevLower := count, ulen2, lower
		for tmpLower := lower; tmpLower <= upper; tmpLower++ {
			if !strict || bounds[tmpLower]&trgmBoundLeft != 0 {
				if s := calcSimilarity(tmpCount, ulen1, tmpUlen2); s > smlrCur {
					smlrCur, ulen2, lower, count = s, tmpUlen2, tmpLower, tmpCount
				}
			}
			if t := trg2indexes[tmpLower]; lastpos[t] == tmpLower {
				tmpUlen2--
				if found[t] {
					tmpCount--
				}
			}
		}
		smlrMax = max(smlrMax, smlrCur)
		for tmpLower := prevLower; tmpLower < lower; tmpLower++ {
			if t := trg2indexes[tmpLower]; lastpos[t] == tmpLower {
				lastpos[t] = -1
			}
		}
	}
	return smlrMax
}

// showTrigram is one element of show_trgm: the three characters when
// they are ASCII letters, digits or spaces, else the hexadecimal of the
// three bytes.
func showTrigram(t trigram) string {
	printable := func(c byte) bool {
		return c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	if printable(t[0]) && printable(t[1]) && printable(t[2]) {
		return string(t[:])
	}
	return fmt.Sprintf("0x%06x", uint32(t[0])<<16|uint32(t[1])<<8|uint32(t[2]))
}
