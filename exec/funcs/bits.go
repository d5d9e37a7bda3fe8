package funcs

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// registerBits registers the operators and functions of bit strings (bit
// and bit varying, PostgreSQL's varbit.c). Values are their text form,
// one '0' or '1' per bit (types/bit.go), so comparisons are the text's.
func registerBits() {
	V, Bit := exec.OIDVarbit, exec.OIDBit
	B, I4, I8 := exec.OIDBool, exec.OIDInt4, exec.OIDInt8
	fn := func(name string, args []uint32, ret uint32, f func(a []exec.Datum) (exec.Datum, error)) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return f(a) }}
	}
	bits := func(s string, err error) (exec.Datum, error) {
		if err != nil {
			return exec.Null, bitError(err)
		}
		return exec.DText(s), nil
	}
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		op := op
		for _, t := range []uint32{Bit, V} {
			exec.Register(fn(op, []uint32{t, t}, B, func(a []exec.Datum) (exec.Datum, error) {
				c := strings.Compare(a[0].S, a[1].S)
				return exec.DBool(map[string]bool{"=": c == 0, "<>": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]), nil
			}))
		}
	}
	for _, t := range []uint32{Bit, V} {
		t := t
		exec.Register(
			fn("bitcmp", []uint32{t, t}, I4, func(a []exec.Datum) (exec.Datum, error) {
				return exec.DInt(int64(strings.Compare(a[0].S, a[1].S))), nil
			}),
			fn("~", []uint32{t}, t, func(a []exec.Datum) (exec.Datum, error) { return exec.DText(types.BitNot(a[0].S)), nil }),
			fn("<<", []uint32{t, I4}, t, func(a []exec.Datum) (exec.Datum, error) { return exec.DText(types.BitShift(a[0].S, a[1].I)), nil }),
			fn(">>", []uint32{t, I4}, t, func(a []exec.Datum) (exec.Datum, error) { return exec.DText(types.BitShift(a[0].S, -a[1].I)), nil }),
			fn("length", []uint32{t}, I4, func(a []exec.Datum) (exec.Datum, error) { return exec.DInt(int64(len(a[0].S))), nil }),
			fn("bit_length", []uint32{t}, I4, func(a []exec.Datum) (exec.Datum, error) { return exec.DInt(int64(len(a[0].S))), nil }),
			fn("octet_length", []uint32{t}, I4, func(a []exec.Datum) (exec.Datum, error) {
				return exec.DInt(int64((len(a[0].S) + 7) / 8)), nil
			}),
			fn("bit_count", []uint32{t}, I8, func(a []exec.Datum) (exec.Datum, error) {
				return exec.DInt(int64(strings.Count(a[0].S, "1"))), nil
			}),
			fn("get_bit", []uint32{t, I4}, I4, func(a []exec.Datum) (exec.Datum, error) {
				if a[1].I < 0 || a[1].I >= int64(len(a[0].S)) {
					return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "bit index %d out of valid range (0..%d)", a[1].I, len(a[0].S)-1)
				}
				return exec.DInt(int64(a[0].S[a[1].I] - '0')), nil
			}),
			fn("set_bit", []uint32{t, I4, I4}, t, func(a []exec.Datum) (exec.Datum, error) {
				if a[1].I < 0 || a[1].I >= int64(len(a[0].S)) {
					return exec.Null, pgerr.New(pgerr.ArraySubscriptError, "bit index %d out of valid range (0..%d)", a[1].I, len(a[0].S)-1)
				}
				if a[2].I != 0 && a[2].I != 1 {
					return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "new bit must be 0 or 1")
				}
				b := []byte(a[0].S)
				b[a[1].I] = '0' + byte(a[2].I)
				return exec.DText(string(b)), nil
			}),
		)
		for _, op := range []byte{'&', '|', '#'} {
			op := op
			exec.Register(fn(string(op), []uint32{t, t}, t, func(a []exec.Datum) (exec.Datum, error) {
				return bits(types.BitLogic(op, a[0].S, a[1].S))
			}))
		}
		for _, name := range []string{"bit_and", "bit_or", "bit_xor"} {
			name := name
			exec.RegisterAgg(&exec.AggFunc{Name: name, Args: []uint32{t}, Ret: t, New: func([]exec.T) exec.Accumulator { return &bitStringAcc{op: name} }})
		}
	}
	exec.Register(
		fn("||", []uint32{V, V}, V, func(a []exec.Datum) (exec.Datum, error) { return exec.DText(a[0].S + a[1].S), nil }),
		fn("position", []uint32{V, V}, I4, func(a []exec.Datum) (exec.Datum, error) {
			if a[1].S == "" {
				return exec.DInt(1), nil
			}
			return exec.DInt(int64(strings.Index(a[0].S, a[1].S) + 1)), nil
		}),
		fn("substring", []uint32{V, I4}, V, func(a []exec.Datum) (exec.Datum, error) {
			return exec.DText(bitSubstring(a[0].S, a[1].I, int64(len(a[0].S)))), nil
		}),
		fn("substring", []uint32{V, I4, I4}, V, func(a []exec.Datum) (exec.Datum, error) {
			if a[2].I < 0 {
				return exec.Null, pgerr.New(pgerr.SubstringError, "negative substring length not allowed")
			}
			return exec.DText(bitSubstring(a[0].S, a[1].I, a[2].I)), nil
		}),
		fn("overlay", []uint32{V, V, I4, I4}, V, func(a []exec.Datum) (exec.Datum, error) {
			return exec.DText(bitOverlay(a[0].S, a[1].S, a[2].I, a[3].I)), nil
		}),
		fn("overlay", []uint32{V, V, I4}, V, func(a []exec.Datum) (exec.Datum, error) {
			return exec.DText(bitOverlay(a[0].S, a[1].S, a[2].I, int64(len(a[1].S)))), nil
		}),
		fn("bit", []uint32{I4, I4}, Bit, func(a []exec.Datum) (exec.Datum, error) {
			return exec.DText(types.IntToBits(a[0].I, 32, int(a[1].I))), nil
		}),
		fn("bit", []uint32{I8, I4}, Bit, func(a []exec.Datum) (exec.Datum, error) {
			return exec.DText(types.IntToBits(a[0].I, 64, int(a[1].I))), nil
		}),
	)
}

// bitError turns a types.Error into the SQL error it stands for.
func bitError(err error) error {
	if te, ok := err.(*types.Error); ok {
		return pgerr.New(pgerr.Code(te.Code), "%s", te.Message)
	}
	return err
}

// bitSubstring is substring(bits FROM from FOR n), positions from 1; a
// start before 1 shortens what is taken, as for text.
func bitSubstring(s string, from, n int64) string {
	end := from + n
	if n > int64(len(s)) || end < from {
		end = int64(len(s)) + 1 // FOR past the end, or an overflow
	}
	from = max(from, 1)
	end = min(end, int64(len(s))+1)
	if from >= end {
		return ""
	}
	return s[from-1 : end-1]
}

// bitOverlay is overlay(bits PLACING sub FROM from FOR n).
func bitOverlay(s, sub string, from, n int64) string {
	return bitSubstring(s, 1, from-1) + sub + bitSubstring(s, from+n, int64(len(s)))
}

// bitStringAcc is bit_and, bit_or or bit_xor over bit strings.
type bitStringAcc struct {
	op  string
	v   string
	any bool
}

func (a *bitStringAcc) Add(_ *exec.Env, args []exec.Datum) error {
	if !a.any {
		a.v, a.any = args[0].S, true
		return nil
	}
	op := map[string]byte{"bit_and": '&', "bit_or": '|', "bit_xor": '#'}[a.op]
	v, err := types.BitLogic(op, a.v, args[0].S)
	if err != nil {
		return bitError(err)
	}
	a.v = v
	return nil
}

func (a *bitStringAcc) Result(*exec.Env) (exec.Datum, error) {
	if !a.any {
		return exec.Null, nil
	}
	return exec.DText(a.v), nil
}
