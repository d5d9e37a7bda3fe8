package funcs

import (
	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
)

// pg_trgm's functions and operators over text (trgm.go computes them):
// show_trgm, similarity, word_similarity, strict_word_similarity and
// show_limit; the operators % <% %> <<% %>> against the session's
// thresholds (pg_trgm.similarity_threshold and its two siblings, which
// the session validates and set_limit sets) and the distances <-> <<->
// <->> <<<-> <->>>, with the functions behind them under their pg_proc
// names. The operators over thresholds are stable, not immutable: a
// plan must not fold them with the threshold of its planning.

// trgmSettings returns the session's settings, the defaults without one.
func trgmSettings(env *exec.Env) *types.Settings {
	if env == nil || env.Settings == nil {
		return &types.DefaultSettings
	}
	return env.Settings
}

func float4Datum(f float32) exec.Datum { return exec.DFloat(float64(f)) }

func registerTrgm() {
	tt := []uint32{exec.OIDText, exec.OIDText}
	real := exec.OIDFloat4
	fn := func(name string, ret uint32, immutable bool, f exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: tt, Ret: ret, Strict: true, Immutable: immutable, Fn: f, Extension: "pg_trgm"}
	}
	// word(swap, strict) is word_similarity (strict_: whole words) of
	// the arguments, swapped for the commutators.
	word := func(swap, strict bool) func(a []exec.Datum) float32 {
		return func(a []exec.Datum) float32 {
			if swap {
				return wordSimilarity(a[1].S, a[0].S, strict)
			}
			return wordSimilarity(a[0].S, a[1].S, strict)
		}
	}
	dist := func(sim func(a []exec.Datum) float32) exec.Fn {
		return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return float4Datum(1 - sim(a)), nil }
	}
	op := func(sim func(a []exec.Datum) float32, threshold func(*types.Settings) float64) exec.Fn {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(float64(sim(a)) >= threshold(trgmSettings(env))), nil
		}
	}
	plain := func(a []exec.Datum) float32 { return trigramSimilarity(trigramSet(a[0].S), trigramSet(a[1].S)) }
	simT := func(s *types.Settings) float64 { return s.TrgmSimilarity }
	wordT := func(s *types.Settings) float64 { return s.TrgmWordSimilarity }
	strictT := func(s *types.Settings) float64 { return s.TrgmStrictWordSimilarity }

	exec.Register(
		&exec.Func{Name: "show_limit", Ret: real, Strict: true, Extension: "pg_trgm", Fn: func(env *exec.Env, _ []exec.Datum) (exec.Datum, error) {
			return float4Datum(float32(trgmSettings(env).TrgmSimilarity)), nil
		}},
		&exec.Func{Name: "show_trgm", Args: []uint32{exec.OIDText}, Ret: exec.OIDTextArray, Strict: true, Immutable: true, Extension: "pg_trgm",
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				set := trigramSet(a[0].S)
				elems := make([]exec.Datum, len(set))
				for i, t := range set {
					elems[i] = exec.DText(showTrigram(t))
				}
				arr := &exec.Array{Elem: exec.OIDText, Elems: elems}
				if len(elems) > 0 {
					arr.Dims, arr.Lower = []int32{int32(len(elems))}, []int32{1}
				}
				return exec.DArray(arr), nil
			}},
		fn("similarity", real, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return float4Datum(plain(a)), nil }),
		fn("word_similarity", real, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return float4Datum(word(false, false)(a)), nil
		}),
		fn("strict_word_similarity", real, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return float4Datum(word(false, true)(a)), nil
		}),
		fn("similarity_dist", real, true, dist(plain)),
		fn("similarity_op", exec.OIDBool, false, op(plain, simT)),
		fn("word_similarity_op", exec.OIDBool, false, op(word(false, false), wordT)),
		fn("word_similarity_commutator_op", exec.OIDBool, false, op(word(true, false), wordT)),
		fn("word_similarity_dist_op", real, true, dist(word(false, false))),
		fn("word_similarity_dist_commutator_op", real, true, dist(word(true, false))),
		fn("strict_word_similarity_op", exec.OIDBool, false, op(word(false, true), strictT)),
		fn("strict_word_similarity_commutator_op", exec.OIDBool, false, op(word(true, true), strictT)),
		fn("strict_word_similarity_dist_op", real, true, dist(word(false, true))),
		fn("strict_word_similarity_dist_commutator_op", real, true, dist(word(true, true))),
		// The operators.
		fn("%", exec.OIDBool, false, op(plain, simT)),
		fn("<%", exec.OIDBool, false, op(word(false, false), wordT)),
		fn("%>", exec.OIDBool, false, op(word(true, false), wordT)),
		fn("<<%", exec.OIDBool, false, op(word(false, true), strictT)),
		fn("%>>", exec.OIDBool, false, op(word(true, true), strictT)),
		fn("<->", real, true, dist(plain)),
		fn("<<->", real, true, dist(word(false, false))),
		fn("<->>", real, true, dist(word(true, false))),
		fn("<<<->", real, true, dist(word(false, true))),
		fn("<->>>", real, true, dist(word(true, true))),
	)
}
