package sortkey

import "math"

// Canonical NaN bit patterns: what every NaN encodes as and decodes to.
const (
	canonicalNaN64 uint64 = 0x7FF8000000000000
	canonicalNaN32 uint32 = 0x7FC00000
)

// AppendFloat64 appends a float8 in PostgreSQL order:
// -Inf < negatives < -0 = 0 < positives < +Inf < NaN. -0 encodes as 0 and
// every NaN as one canonical NaN.
func AppendFloat64(dst []byte, f float64, o Order) []byte {
	u := math.Float64bits(f)
	switch {
	case f == 0:
		u = 0
	case f != f:
		u = canonicalNaN64
	}
	if u>>63 != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return appendUint64(dst, tagFloat8, u, o)
}

// DecodeFloat64 decodes a float8 column from the front of b. It never
// returns -0 or a NaN other than the canonical one (bits 0x7FF8000000000000),
// and rejects their encodings as not canonical.
func DecodeFloat64(b []byte, o Order) (rest []byte, f float64, null bool, err error) {
	u, rest, null, err := decodeUint64(b, tagFloat8, o, 0)
	if err != nil || null {
		return rest, 0, null, err
	}
	if u>>63 != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	f = math.Float64frombits(u)
	if u == 1<<63 || f != f && u != canonicalNaN64 {
		return nil, 0, false, corrupt("float8: non-canonical bits %#016x", u)
	}
	return rest, f, false, nil
}

// AppendFloat32 appends a float4 in the order of AppendFloat64.
func AppendFloat32(dst []byte, f float32, o Order) []byte {
	u := math.Float32bits(f)
	switch {
	case f == 0:
		u = 0
	case f != f:
		u = canonicalNaN32
	}
	if u>>31 != 0 {
		u = ^u
	} else {
		u |= 1 << 31
	}
	return appendUint32(dst, tagFloat4, u, o)
}

// DecodeFloat32 decodes a float4 column from the front of b. It never
// returns -0 or a NaN other than the canonical one (bits 0x7FC00000).
func DecodeFloat32(b []byte, o Order) (rest []byte, f float32, null bool, err error) {
	u, rest, null, err := decodeUint32(b, tagFloat4, o, 0)
	if err != nil || null {
		return rest, 0, null, err
	}
	if u>>31 != 0 {
		u &^= 1 << 31
	} else {
		u = ^u
	}
	f = math.Float32frombits(u)
	if u == 1<<31 || f != f && u != canonicalNaN32 {
		return nil, 0, false, corrupt("float4: non-canonical bits %#08x", u)
	}
	return rest, f, false, nil
}
