package exec

import (
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Router sends the rows written to a partitioned table to its leaf
// partitions, as PostgreSQL's tuple routing does: the first partition
// whose bound holds the row's key, else the default partition.
type Router struct {
	Table    *Table // the partitioned table, for errors
	Strategy byte   // sqldef.PartitionRange, List or Hash
	// Key are the key columns' positions in the rows routed (the layout
	// of the statement's table, not necessarily of Table) and Types
	// their types. Exprs, when the key has expressions, computes those
	// (where it has an entry, Key's is unused) over the rows routed.
	Key   []int
	Exprs []Expr
	Types []T
	Parts []RoutePart
	// KeyNames is the key as errors print it: a, lower(b).
	KeyNames string
}

// RoutePart is one partition of a Router: its bound and where rows in it
// go, a sub-partitioned table's Router or a leaf, by its index in
// Modify.Members.
type RoutePart struct {
	Bound PartBound
	Sub   *Router
	Leaf  int
}

// PartBound is a partition bound with its values decoded to the key's types.
type PartBound struct {
	Default bool
	// In are a list partition's values; InNull whether it holds NULL.
	In     []Datum
	InNull bool
	// From and To bound a range partition: From <= key < To.
	From, To []BoundDatum
	// A hash partition holds the keys whose hash modulo Modulus is
	// Remainder.
	Modulus, Remainder uint64
}

// BoundDatum is a value of a range bound, or MINVALUE or MAXVALUE (Kind
// sqldef.BoundMinValue or BoundMaxValue).
type BoundDatum struct {
	D    Datum
	Kind byte
}

// DecodeBound decodes a stored bound for a key of types.
func DecodeBound(b *sqldef.PartitionBound, types []T) (PartBound, error) {
	out := PartBound{Default: b.Default, Modulus: uint64(b.Modulus), Remainder: uint64(b.Remainder)}
	for _, v := range b.In {
		if v.Kind == sqldef.BoundNull {
			out.InNull = true
			continue
		}
		d, err := ParseText(types[0], v.Text, nil)
		if err != nil {
			return PartBound{}, err
		}
		out.In = append(out.In, d)
	}
	var err error
	if out.From, err = decodeRangeBound(b.From, types); err != nil {
		return PartBound{}, err
	}
	out.To, err = decodeRangeBound(b.To, types)
	return out, err
}

func decodeRangeBound(vals []sqldef.BoundValue, types []T) ([]BoundDatum, error) {
	var out []BoundDatum
	for i, v := range vals {
		bd := BoundDatum{Kind: v.Kind}
		if v.Kind == 0 {
			d, err := ParseText(types[i], v.Text, nil)
			if err != nil {
				return nil, err
			}
			bd.D = d
		}
		out = append(out, bd)
	}
	return out, nil
}

// CompareRangeBound orders a range bound against a key: negative when the
// bound is below it. The first MINVALUE or MAXVALUE decides, whatever
// follows it.
func CompareRangeBound(bound []BoundDatum, key []Datum) int {
	for i, b := range bound {
		switch b.Kind {
		case sqldef.BoundMinValue:
			return -1
		case sqldef.BoundMaxValue:
			return 1
		}
		if c := Compare(b.D, key[i]); c != 0 {
			return c
		}
	}
	return 0
}

// Holds reports whether a partition of this bound holds a row with key
// (a default partition's bound holds nothing by itself).
func (b *PartBound) Holds(strategy byte, key []Datum, types []T) bool {
	switch {
	case b.Default:
		return false
	case strategy == sqldef.PartitionList:
		if key[0].IsNull() {
			return b.InNull
		}
		for _, d := range b.In {
			if Compare(d, key[0]) == 0 {
				return true
			}
		}
		return false
	case strategy == sqldef.PartitionHash:
		return b.Modulus > 0 && PartitionHash(key, types)%b.Modulus == b.Remainder
	}
	for _, d := range key {
		if d.IsNull() {
			return false // only a default partition holds NULL range keys
		}
	}
	return CompareRangeBound(b.From, key) <= 0 && CompareRangeBound(b.To, key) > 0
}

// HoldsAmong is Holds for a partition whose parent's other partitions
// have the bounds siblings: a default partition holds the keys none of
// them does. Siblings may include b itself, since a default bound holds
// nothing.
func (b *PartBound) HoldsAmong(siblings []PartBound, strategy byte, key []Datum, types []T) bool {
	if !b.Default {
		return b.Holds(strategy, key, types)
	}
	for i := range siblings {
		if siblings[i].Holds(strategy, key, types) {
			return false
		}
	}
	return true
}

// partitionKey gathers the key values of row into buf: the columns at
// positions key, or where exprs has an expression, its value.
func partitionKey(env *Env, key []int, exprs []Expr, row Row, buf []Datum) ([]Datum, error) {
	buf = buf[:0]
	for i, pos := range key {
		if i < len(exprs) && exprs[i] != nil {
			d, err := exprs[i].Eval(env, row)
			if err != nil {
				return nil, err
			}
			buf = append(buf, d)
			continue
		}
		buf = append(buf, row[pos])
	}
	return buf, nil
}

// Route returns the Members index of the leaf partition row goes to, or
// fails with 23514 when no partition holds it.
func (r *Router) Route(env *Env, row Row, buf []Datum) (int, error) {
	key, err := partitionKey(env, r.Key, r.Exprs, row, buf)
	if err != nil {
		return -1, err
	}
	def := -1
	for i := range r.Parts {
		p := &r.Parts[i]
		if p.Bound.Default {
			def = i
			continue
		}
		if p.Bound.Holds(r.Strategy, key, r.Types) {
			return r.leaf(env, p, row, buf)
		}
	}
	if def >= 0 {
		return r.leaf(env, &r.Parts[def], row, buf)
	}
	return -1, pgerr.New(pgerr.CheckViolation, "no partition of relation %q found for row", r.Table.Def.Name).
		WithDetail("Partition key of the failing row contains (%s) = (%s).", r.KeyNames, r.keyText(key))
}

func (r *Router) leaf(env *Env, p *RoutePart, row Row, buf []Datum) (int, error) {
	if p.Sub != nil {
		return p.Sub.Route(env, row, buf)
	}
	return p.Leaf, nil
}

func (r *Router) keyText(key []Datum) string {
	var b []byte
	for i, d := range key {
		if i > 0 {
			b = append(b, ", "...)
		}
		if d.IsNull() {
			b = append(b, "null"...)
			continue
		}
		b = AppendText(b, r.Types[i], d, nil)
	}
	return string(b)
}

// PartitionCheck is the partition constraint of a partition written to
// directly: at each level up to the root, the bound it (or its ancestor)
// has in its parent. Key positions are in the partition's own layout.
type PartitionCheck struct {
	Levels []CheckLevel
}

// CheckLevel is one level of a PartitionCheck. Siblings are the bounds
// of the other partitions of the same parent, which a default partition's
// rows must not fall in.
type CheckLevel struct {
	Strategy byte
	Key      []int
	Exprs    []Expr // as a Router's
	Types    []T
	Bound    PartBound
	Siblings []PartBound
}

// check fails with 23514 if row is outside the partition.
func (c *PartitionCheck) check(env *Env, t *Table, row Row) error {
	in, err := c.Holds(env, row)
	if err != nil {
		return err
	}
	if !in {
		return pgerr.New(pgerr.CheckViolation, "new row for relation %q violates partition constraint", t.Def.Name).
			WithDetail("Failing row contains %s.", formatRow(t, row)).WithTable(t.Def.Schema, t.Def.Name)
	}
	return nil
}

// Holds reports whether row, in the partition's layout, lies within it.
func (c *PartitionCheck) Holds(env *Env, row Row) (bool, error) {
	var buf [8]Datum
	for _, l := range c.Levels {
		key, err := partitionKey(env, l.Key, l.Exprs, row, buf[:0])
		if err != nil {
			return false, err
		}
		if !l.Bound.HoldsAmong(l.Siblings, l.Strategy, key, l.Types) {
			return false, nil
		}
	}
	return true, nil
}

// PartitionHash is PostgreSQL's hash of a partition key
// (compute_partition_hash_value): each non-NULL value's extended hash
// with the partition seed, combined. Integer and text keys hash as in
// PostgreSQL, so rows land in the same hash partitions; other types hash
// their text form.
func PartitionHash(key []Datum, types []T) uint64 {
	const seed = 0x7A5B22367996DCFD
	var h uint64
	for i, d := range key {
		if d.IsNull() {
			continue
		}
		var v uint64
		switch types[i].OID {
		case OIDInt2, OIDInt4:
			v = hashUint32Extended(uint32(d.I), seed)
		case OIDInt8:
			lo, hi := uint32(d.I), uint32(d.I>>32)
			if d.I >= 0 {
				lo ^= hi
			} else {
				lo ^= ^hi
			}
			v = hashUint32Extended(lo, seed)
		case OIDText, OIDVarchar, OIDBpchar:
			v = hashBytesExtended([]byte(d.S), seed)
		default:
			v = hashBytesExtended(AppendText(nil, types[i], d, nil), seed)
		}
		h ^= v + 0x49a0f4dd15e5a8e3 + (h << 54) + (h >> 7) // hash_combine64
	}
	return h
}

func rot(x uint32, k uint) uint32 { return x<<k | x>>(32-k) }

// jenkinsMix and jenkinsFinal are Bob Jenkins' lookup3 mix() and final(),
// which PostgreSQL's hash_any uses.
func jenkinsMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= rot(c, 4)
	c += b
	b -= a
	b ^= rot(a, 6)
	a += c
	c -= b
	c ^= rot(b, 8)
	b += a
	a -= c
	a ^= rot(c, 16)
	c += b
	b -= a
	b ^= rot(a, 19)
	a += c
	c -= b
	c ^= rot(b, 4)
	b += a
	return a, b, c
}

func jenkinsFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return a, b, c
}

// hashUint32Extended is PostgreSQL's hash_uint32_extended.
func hashUint32Extended(k uint32, seed uint64) uint64 {
	a := uint32(0x9e3779b9 + 4 + 3923095)
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = jenkinsMix(a, b, c)
	}
	a += k
	_, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// hashBytesExtended is PostgreSQL's hash_any_extended on a little-endian
// machine.
func hashBytesExtended(k []byte, seed uint64) uint64 {
	a := uint32(0x9e3779b9) + uint32(len(k)) + 3923095
	b, c := a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = jenkinsMix(a, b, c)
	}
	word := func(p []byte) uint32 {
		return uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16 | uint32(p[3])<<24
	}
	for len(k) >= 12 {
		a += word(k)
		b += word(k[4:])
		c += word(k[8:])
		a, b, c = jenkinsMix(a, b, c)
		k = k[12:]
	}
	// The last bytes; c's low byte is left for the length.
	n := len(k)
	for i := n - 1; i >= 0; i-- {
		switch {
		case i >= 8:
			c += uint32(k[i]) << (8 * (i - 7))
		case i >= 4:
			b += uint32(k[i]) << (8 * (i - 4))
		default:
			a += uint32(k[i]) << (8 * i)
		}
	}
	_, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}
