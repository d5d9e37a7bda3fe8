package exec

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// ParseText converts s, in PostgreSQL's text input format, to a Datum of
// type t, with PostgreSQL's errors for bad input.
//
// TODO(types): switch to the exec/types codecs for every type.
func ParseText(t T, s string) (Datum, error) {
	switch KindOf(t.OID) {
	case KindBool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
			return DBool(true), nil
		case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
			return DBool(false), nil
		}
		return Null, invalidInput("boolean", s)
	case KindInt:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		lo, hi, name := intRange(t.OID)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, name)
			}
			return Null, invalidInput(name, s)
		}
		if v < lo || v > hi {
			return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, name)
		}
		return DInt(v), nil
	case KindFloat:
		name := "double precision"
		if t.OID == OIDFloat4 {
			name = "real"
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return Null, pgerr.New(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, name)
			}
			return Null, invalidInput(name, s)
		}
		return DFloat(v), nil
	case KindNumeric:
		d, _, err := apd.NewFromString(strings.TrimSpace(s))
		if err != nil {
			return Null, invalidInput("numeric", s)
		}
		return DNumeric(d), nil
	case KindText:
		return DText(s), nil
	case KindBytes:
		return DBytes(s), nil
	case KindJSON:
		return DJSON(s), nil
	}
	return Null, pgerr.New(pgerr.FeatureNotSupported, "input of type %s is not supported yet", TypeName(t.OID))
}

func invalidInput(typ, s string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", typ, s)
}

// CastFn returns the function converting values of type from to type to,
// or nil if there is no such cast.
func CastFn(from, to T) Fn {
	fk, tk := KindOf(from.OID), KindOf(to.OID)
	switch {
	case from == to || (fk == tk && fk != KindInt && fk != KindFloat && to.Typmod < 0):
		return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
	case tk == KindText:
		return func(env *Env, a []Datum) (Datum, error) {
			return DText(string(AppendText(nil, from, a[0], env.Settings))), nil
		}
	case fk == KindText:
		return func(_ *Env, a []Datum) (Datum, error) { return ParseText(to, a[0].S) }
	case fk == KindInt && tk == KindInt:
		lo, hi, name := intRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			if a[0].I < lo || a[0].I > hi {
				return Null, errIntRange(name)
			}
			return a[0], nil
		}
	case fk == KindInt && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) { return DFloat(float64(a[0].I)), nil }
	case fk == KindInt && tk == KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) { return DNumeric(apd.New(a[0].I, 0)), nil }
	case fk == KindFloat && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) {
			if to.OID == OIDFloat4 {
				f := float32(a[0].F)
				if math.IsInf(float64(f), 0) && !math.IsInf(a[0].F, 0) {
					return Null, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
				}
				return DFloat(float64(f)), nil
			}
			return a[0], nil
		}
	case fk == KindFloat && tk == KindInt:
		lo, hi, name := intRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			f := math.RoundToEven(a[0].F)
			if math.IsNaN(f) || f < float64(lo) || f > float64(hi) {
				return Null, errIntRange(name)
			}
			return DInt(int64(f)), nil
		}
	case fk == KindFloat && tk == KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) {
			d := new(apd.Decimal)
			if _, err := d.SetFloat64(a[0].F); err != nil {
				return Null, err
			}
			return DNumeric(d), nil
		}
	case fk == KindNumeric && tk == KindFloat:
		return func(_ *Env, a []Datum) (Datum, error) {
			f, err := a[0].Numeric().Float64()
			if err != nil {
				return Null, err
			}
			return DFloat(f), nil
		}
	case fk == KindNumeric && tk == KindInt:
		lo, hi, name := intRange(to.OID)
		return func(_ *Env, a []Datum) (Datum, error) {
			d := new(apd.Decimal)
			if _, err := numericCtx.RoundToIntegralValue(d, a[0].Numeric()); err != nil {
				return Null, err
			}
			v, err := d.Int64()
			if err != nil || v < lo || v > hi {
				return Null, errIntRange(name)
			}
			return DInt(v), nil
		}
	case fk == KindNumeric && tk == KindNumeric:
		return func(_ *Env, a []Datum) (Datum, error) { return a[0], nil }
	case fk == KindBool && tk == KindInt:
		return func(_ *Env, a []Datum) (Datum, error) { return DInt(a[0].I), nil }
	case fk == KindInt && tk == KindBool:
		return func(_ *Env, a []Datum) (Datum, error) { return DBool(a[0].I != 0), nil }
	}
	return nil
}
