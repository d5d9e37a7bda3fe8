package exec

import (
	"cmp"
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec/types"
)

// Kind is how a Datum holds its value. Several SQL types share a kind (int2,
// int4 and int8 are all KindInt); the SQL type of a column or expression is
// known from the plan, not from the Datum.
type Kind uint8

const (
	KindNull       Kind = iota
	KindBool            // I: 0 or 1
	KindInt             // I
	KindFloat           // F
	KindNumeric         // X: *apd.Decimal, never modified once in a Datum
	KindText            // S
	KindBytes           // S: the bytes of a bytea
	KindDate            // I: days since 2000-01-01
	KindTime            // I: microseconds since midnight
	KindTimestamp       // I: microseconds since 2000-01-01 00:00 (UTC for timestamptz)
	KindInterval        // X: Interval
	KindUUID            // S: 16 bytes
	KindJSON            // S: the JSON text (json keeps it as given; jsonb normalised)
	KindArray           // X: *Array
	KindEnum            // S: the label, F: its sort order (enumsortorder), which orders it
	KindRecord          // X: *Record
	KindTSVector        // X: types.TSVector
	KindTSQuery         // X: types.TSQuery
	KindRange           // X: *Range
	KindMultirange      // X: *Multirange
	KindInet            // S: types.InetKey's bytes, whose order is the values' order
	KindTimeTZ          // I: microseconds since midnight, F: the zone, seconds west of UTC
	KindGeometry        // S: the canonical (send) bytes of a point, lseg, path, box, polygon, line or circle
	KindCIText          // S: a citext's string as written; it compares by its lower case (citext.go)
	KindHstore          // X: types.Hstore (hstore.go)
)

// Datum is one SQL value. It is a small struct passed by value: ints,
// floats, bools, dates and timestamps live in it without allocation;
// strings share their bytes; numerics, intervals and arrays point to
// immutable values.
type Datum struct {
	Kind Kind
	I    int64
	F    float64
	S    string
	X    any
}

// Interval is PostgreSQL's interval: months, days and microseconds kept
// apart, as they do not convert into one another exactly.
type Interval = types.Interval

// Array is a possibly multi-dimensional array; Elems are in row-major order.
type Array struct {
	Elem   uint32 // element type OID
	Dims   []int32
	Lower  []int32
	Elems  []Datum
	HasNul bool
}

// Null is the NULL Datum.
var Null = Datum{}

// Constructors for the common kinds.
func DBool(b bool) Datum {
	if b {
		return Datum{Kind: KindBool, I: 1}
	}
	return Datum{Kind: KindBool}
}
func DInt(i int64) Datum                     { return Datum{Kind: KindInt, I: i} }
func DFloat(f float64) Datum                 { return Datum{Kind: KindFloat, F: f} }
func DText(s string) Datum                   { return Datum{Kind: KindText, S: s} }
func DBytes(s string) Datum                  { return Datum{Kind: KindBytes, S: s} }
func DNumeric(d *apd.Decimal) Datum          { return Datum{Kind: KindNumeric, X: d} }
func DInterval(iv Interval) Datum            { return Datum{Kind: KindInterval, X: iv} }
func DDate(days int64) Datum                 { return Datum{Kind: KindDate, I: days} }
func DTime(us int64) Datum                   { return Datum{Kind: KindTime, I: us} }
func DTimestamp(us int64) Datum              { return Datum{Kind: KindTimestamp, I: us} }
func DUUID(b [16]byte) Datum                 { return Datum{Kind: KindUUID, S: string(b[:])} }
func DInet(v types.Inet) Datum               { return Datum{Kind: KindInet, S: types.InetKey(v)} }
func DJSON(text string) Datum                { return Datum{Kind: KindJSON, S: text} }
func DGeometry(canon string) Datum           { return Datum{Kind: KindGeometry, S: canon} }
func DArray(a *Array) Datum                  { return Datum{Kind: KindArray, X: a} }
func DEnum(label string, sort float64) Datum { return Datum{Kind: KindEnum, S: label, F: sort} }
func DRecord(r *Record) Datum                { return Datum{Kind: KindRecord, X: r} }
func DTSVector(v types.TSVector) Datum       { return Datum{Kind: KindTSVector, X: v} }
func DTSQuery(q types.TSQuery) Datum         { return Datum{Kind: KindTSQuery, X: q} }
func (d Datum) Record() *Record              { return d.X.(*Record) }
func (d Datum) TSVector() types.TSVector     { return d.X.(types.TSVector) }
func (d Datum) TSQuery() types.TSQuery       { return d.X.(types.TSQuery) }
func (d Datum) IsNull() bool                 { return d.Kind == KindNull }
func (d Datum) Bool() bool                   { return d.I != 0 }
func (d Datum) Numeric() *apd.Decimal        { return d.X.(*apd.Decimal) }
func (d Datum) Interval() Interval           { return d.X.(Interval) }
func (d Datum) Array() *Array                { return d.X.(*Array) }

// Inet returns an inet or cidr value.
func (d Datum) Inet() types.Inet {
	v, err := types.InetFromKey(d.S)
	if err != nil {
		panic(err) // a Datum of KindInet holds InetKey's bytes
	}
	return v
}

// DTimeTZ is a time with time zone; Datum.TimeTZ reads one back.
func DTimeTZ(t types.TimeTZ) Datum {
	return Datum{Kind: KindTimeTZ, I: int64(t.Time), F: float64(t.Zone)}
}

func (d Datum) TimeTZ() types.TimeTZ {
	return types.TimeTZ{Time: types.Time(d.I), Zone: int32(d.F)}
}

// Compare orders two non-NULL Datums of the same kind as PostgreSQL's
// default btree operator class does (C collation for text; NaN above every
// other float or numeric, -0 equal to 0). NULLs sort last.
func Compare(a, b Datum) int {
	if a.Kind == KindNull || b.Kind == KindNull {
		switch {
		case a.Kind == b.Kind:
			return 0
		case a.Kind == KindNull:
			return 1
		}
		return -1
	}
	switch a.Kind {
	case KindBool, KindInt, KindDate, KindTime, KindTimestamp:
		return cmp.Compare(a.I, b.I)
	case KindFloat:
		return compareFloat(a.F, b.F)
	case KindNumeric:
		return compareNumeric(a.Numeric(), b.Numeric())
	case KindText, KindBytes, KindUUID, KindJSON, KindInet, KindGeometry:
		return cmp.Compare(a.S, b.S)
	case KindInterval:
		return CompareInterval(a.Interval(), b.Interval())
	case KindTimeTZ:
		return types.CompareTimeTZ(a.TimeTZ(), b.TimeTZ())
	case KindArray:
		return compareArray(a.Array(), b.Array())
	case KindEnum:
		return cmp.Compare(a.F, b.F)
	case KindRecord:
		return compareRecord(a.Record(), b.Record())
	case KindTSVector:
		return types.CompareTSVector(a.TSVector(), b.TSVector())
	case KindTSQuery:
		return types.CompareTSQuery(a.TSQuery(), b.TSQuery())
	case KindRange:
		return compareRange(a.Range(), b.Range())
	case KindMultirange:
		return compareMultirange(a.Multirange(), b.Multirange())
	case KindCIText:
		return CompareCIText(a.S, b.S)
	case KindHstore:
		return types.CompareHstore(a.Hstore(), b.Hstore())
	}
	return 0
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

func compareNumeric(a, b *apd.Decimal) int {
	an, bn := a.Form == apd.NaN, b.Form == apd.NaN
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return a.Cmp(b)
}

// CompareInterval orders intervals by their span with a month as 30 days
// and a day as 24 hours, as PostgreSQL does: each span is normalised to
// whole days and a remainder of microseconds in [0, one day).
func CompareInterval(a, b Interval) int {
	const dayUs = 86_400_000_000
	span := func(iv Interval) (days, rem int64) {
		days = int64(iv.Months)*30 + int64(iv.Days) + iv.Micros/dayUs
		rem = iv.Micros % dayUs
		if rem < 0 {
			days, rem = days-1, rem+dayUs
		}
		return days, rem
	}
	ad, ar := span(a)
	bd, br := span(b)
	if c := cmp.Compare(ad, bd); c != 0 {
		return c
	}
	return cmp.Compare(ar, br)
}

func compareArray(a, b *Array) int {
	for i := 0; i < len(a.Elems) && i < len(b.Elems); i++ {
		if c := Compare(a.Elems[i], b.Elems[i]); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(len(a.Elems), len(b.Elems)); c != 0 {
		return c
	}
	// Then, as PostgreSQL's array_cmp: by number of dimensions, their
	// lengths, their lower bounds.
	if c := cmp.Compare(len(a.Dims), len(b.Dims)); c != 0 {
		return c
	}
	if c := slicesCompare(a.Dims, b.Dims); c != 0 {
		return c
	}
	return slicesCompare(a.Lower, b.Lower)
}

func slicesCompare(a, b []int32) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// Equal reports whether two Datums are equal under Compare; NULL equals
// nothing, not even NULL (use IsNotDistinct for that).
func Equal(a, b Datum) bool {
	if a.Kind == KindNull || b.Kind == KindNull {
		return false
	}
	if a.Kind == KindText || a.Kind == KindBytes {
		return a.S == b.S
	}
	return Compare(a, b) == 0
}
