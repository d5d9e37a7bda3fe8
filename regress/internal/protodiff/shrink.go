package protodiff

import "slices"

// Shrink reduces seq, which showed the difference d, to a smaller
// sequence that still shows the same difference (see same), by delta
// debugging:
// first whole steps are dropped, in halves, quarters, ... down to single
// steps, then single messages within the steps that remain (never the
// last of a step, which is what makes the server answer). It runs the
// sequence at most maxRuns times and returns the smallest sequence found
// with its result; reproduced is false when seq itself no longer shows
// the difference (a flaky one).
func (r *Runner) Shrink(seq Sequence, d *Diff, maxRuns int) (small Sequence, res Result, reproduced bool, err error) {
	runs := 0
	// test runs cand and reports whether it still shows the difference.
	test := func(cand []Step) (bool, error) {
		if runs >= maxRuns {
			return false, nil
		}
		runs++
		got, err := r.Run(Sequence{Seed: seq.Seed, Steps: cand})
		if err != nil {
			return false, err
		}
		if same(d, got) {
			res = got
			return true, nil
		}
		return false, nil
	}
	steps := slices.Clone(seq.Steps)
	if ok, err := test(steps); !ok || err != nil {
		return seq, res, false, err
	}

	// Drop chunks of steps (ddmin on the complements).
	for n := 2; len(steps) >= 2 && runs < maxRuns; {
		chunk := (len(steps) + n - 1) / n
		reduced := false
		for start := 0; start < len(steps); start += chunk {
			cand := slices.Concat(steps[:start], steps[min(start+chunk, len(steps)):])
			ok, err := test(cand)
			if err != nil {
				return seq, res, true, err
			}
			if ok {
				steps, n, reduced = cand, max(n-1, 2), true
				break
			}
		}
		if !reduced {
			if n >= len(steps) {
				break
			}
			n = min(2*n, len(steps))
		}
	}

	// Drop single messages, keeping each step's last.
	for i := 0; i < len(steps) && runs < maxRuns; i++ {
		for j := len(steps[i].Msgs) - 2; j >= 0 && runs < maxRuns; j-- {
			cand := slices.Clone(steps)
			cand[i] = Step{Msgs: slices.Delete(slices.Clone(steps[i].Msgs), j, j+1)}
			ok, err := test(cand)
			if err != nil {
				return seq, res, true, err
			}
			if ok {
				steps = cand
			}
		}
	}
	return Sequence{Seed: seq.Seed, Steps: steps}, res, true, nil
}

// same reports whether got shows the difference d again: a difference
// of the same signature (the category and the differing pair of
// messages), so that shrinking does not drift to another difference of
// the same category.
func same(d *Diff, got Result) bool {
	g := got.Diff
	if d.Category == CatText {
		g = got.Text
	}
	return g != nil && g.Signature() == d.Signature()
}
