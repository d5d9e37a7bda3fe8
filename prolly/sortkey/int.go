package sortkey

import "encoding/binary"

// AppendBool appends b in order o: false < true.
func AppendBool(dst []byte, v bool, o Order) []byte {
	m := o.mask()
	var x byte
	if v {
		x = 1
	}
	return append(dst, tagBool^m, x^m)
}

// DecodeBool decodes a bool column from the front of b.
func DecodeBool(b []byte, o Order) (rest []byte, v bool, null bool, err error) {
	p, rest, null, err := fixed(b, tagBool, o, 1)
	if err != nil || null {
		return rest, false, null, err
	}
	switch p[0] ^ o.mask() {
	case 0:
		return rest, false, false, nil
	case 1:
		return rest, true, false, nil
	}
	return nil, false, false, corrupt("bool: payload %#02x", p[0])
}

// AppendInt16 appends an int2 in order o.
func AppendInt16(dst []byte, v int16, o Order) []byte {
	return appendUint16(dst, tagInt2, uint16(v)^1<<15, o)
}

// DecodeInt16 decodes an int2 column from the front of b.
func DecodeInt16(b []byte, o Order) (rest []byte, v int16, null bool, err error) {
	u, rest, null, err := decodeUint16(b, tagInt2, o, 1<<15)
	return rest, int16(u), null, err
}

// AppendInt32 appends an int4 in order o.
func AppendInt32(dst []byte, v int32, o Order) []byte {
	return appendUint32(dst, tagInt4, uint32(v)^1<<31, o)
}

// DecodeInt32 decodes an int4 column from the front of b.
func DecodeInt32(b []byte, o Order) (rest []byte, v int32, null bool, err error) {
	u, rest, null, err := decodeUint32(b, tagInt4, o, 1<<31)
	return rest, int32(u), null, err
}

// AppendInt64 appends an int8 in order o.
func AppendInt64(dst []byte, v int64, o Order) []byte {
	return appendUint64(dst, tagInt8, uint64(v)^1<<63, o)
}

// DecodeInt64 decodes an int8 column from the front of b.
func DecodeInt64(b []byte, o Order) (rest []byte, v int64, null bool, err error) {
	u, rest, null, err := decodeUint64(b, tagInt8, o, 1<<63)
	return rest, int64(u), null, err
}

// AppendDate appends a date: days since 2000-01-01, with PostgreSQL's
// -infinity and infinity as math.MinInt32 and math.MaxInt32.
func AppendDate(dst []byte, days int32, o Order) []byte {
	return appendUint32(dst, tagDate, uint32(days)^1<<31, o)
}

// DecodeDate decodes a date column from the front of b.
func DecodeDate(b []byte, o Order) (rest []byte, days int32, null bool, err error) {
	u, rest, null, err := decodeUint32(b, tagDate, o, 1<<31)
	return rest, int32(u), null, err
}

// AppendTime appends a time of day in microseconds since midnight.
func AppendTime(dst []byte, micros int64, o Order) []byte {
	return appendUint64(dst, tagTime, uint64(micros)^1<<63, o)
}

// DecodeTime decodes a time column from the front of b.
func DecodeTime(b []byte, o Order) (rest []byte, micros int64, null bool, err error) {
	u, rest, null, err := decodeUint64(b, tagTime, o, 1<<63)
	return rest, int64(u), null, err
}

// AppendTimestamp appends a timestamp (without time zone) in microseconds
// since 2000-01-01 00:00:00, with -infinity and infinity as math.MinInt64
// and math.MaxInt64.
func AppendTimestamp(dst []byte, micros int64, o Order) []byte {
	return appendUint64(dst, tagTimestamp, uint64(micros)^1<<63, o)
}

// DecodeTimestamp decodes a timestamp column from the front of b.
func DecodeTimestamp(b []byte, o Order) (rest []byte, micros int64, null bool, err error) {
	u, rest, null, err := decodeUint64(b, tagTimestamp, o, 1<<63)
	return rest, int64(u), null, err
}

// AppendTimestampTZ appends a timestamptz in microseconds since
// 2000-01-01 00:00:00 UTC, with -infinity and infinity as math.MinInt64 and
// math.MaxInt64.
func AppendTimestampTZ(dst []byte, micros int64, o Order) []byte {
	return appendUint64(dst, tagTimestampTZ, uint64(micros)^1<<63, o)
}

// DecodeTimestampTZ decodes a timestamptz column from the front of b.
func DecodeTimestampTZ(b []byte, o Order) (rest []byte, micros int64, null bool, err error) {
	u, rest, null, err := decodeUint64(b, tagTimestampTZ, o, 1<<63)
	return rest, int64(u), null, err
}

// AppendUUID appends a uuid; uuids compare as 16 unsigned bytes.
func AppendUUID(dst []byte, u [16]byte, o Order) []byte {
	m := o.mask()
	dst = append(dst, tagUUID^m)
	n := len(dst)
	dst = append(dst, u[:]...)
	if m != 0 {
		complement(dst[n:])
	}
	return dst
}

// DecodeUUID decodes a uuid column from the front of b.
func DecodeUUID(b []byte, o Order) (rest []byte, u [16]byte, null bool, err error) {
	p, rest, null, err := fixed(b, tagUUID, o, 16)
	if err != nil || null {
		return rest, u, null, err
	}
	copy(u[:], p)
	if o.mask() != 0 {
		complement(u[:])
	}
	return rest, u, false, nil
}

// appendUint16 appends header tag and the big-endian u, complemented for
// DESC. Callers have already made u order-preserving as unsigned.
func appendUint16(dst []byte, tag byte, u uint16, o Order) []byte {
	m := o.mask()
	return binary.BigEndian.AppendUint16(append(dst, tag^m), u^uint16(m)*0x0101)
}

// appendUint32 is appendUint16 for 32 bits.
func appendUint32(dst []byte, tag byte, u uint32, o Order) []byte {
	m := o.mask()
	return binary.BigEndian.AppendUint32(append(dst, tag^m), u^uint32(m)*0x01010101)
}

// appendUint64 is appendUint16 for 64 bits.
func appendUint64(dst []byte, tag byte, u uint64, o Order) []byte {
	m := o.mask()
	return binary.BigEndian.AppendUint64(append(dst, tag^m), u^uint64(m)*0x0101010101010101)
}

// decodeUint16 reads what appendUint16 wrote and XORs x into the value
// (x = 1<<15 undoes the sign flip of an int2). NULLs and errors give 0.
func decodeUint16(b []byte, tag byte, o Order, x uint16) (u uint16, rest []byte, null bool, err error) {
	if m := o.mask(); len(b) > 2 && b[0] == tag^m { // the common case first
		return binary.BigEndian.Uint16(b[1:]) ^ uint16(m)*0x0101 ^ x, b[3:], false, nil
	}
	p, rest, null, err := fixedSlow(b, tag, o, 2)
	if err != nil || null {
		return 0, rest, null, err
	}
	return binary.BigEndian.Uint16(p) ^ uint16(o.mask())*0x0101 ^ x, rest, false, nil
}

// decodeUint32 is decodeUint16 for 32 bits.
func decodeUint32(b []byte, tag byte, o Order, x uint32) (u uint32, rest []byte, null bool, err error) {
	if m := o.mask(); len(b) > 4 && b[0] == tag^m { // the common case first
		return binary.BigEndian.Uint32(b[1:]) ^ uint32(m)*0x01010101 ^ x, b[5:], false, nil
	}
	p, rest, null, err := fixedSlow(b, tag, o, 4)
	if err != nil || null {
		return 0, rest, null, err
	}
	return binary.BigEndian.Uint32(p) ^ uint32(o.mask())*0x01010101 ^ x, rest, false, nil
}

// decodeUint64 is decodeUint16 for 64 bits.
func decodeUint64(b []byte, tag byte, o Order, x uint64) (u uint64, rest []byte, null bool, err error) {
	if m := o.mask(); len(b) > 8 && b[0] == tag^m { // the common case first
		return binary.BigEndian.Uint64(b[1:]) ^ uint64(m)*0x0101010101010101 ^ x, b[9:], false, nil
	}
	p, rest, null, err := fixedSlow(b, tag, o, 8)
	if err != nil || null {
		return 0, rest, null, err
	}
	return binary.BigEndian.Uint64(p) ^ uint64(o.mask())*0x0101010101010101 ^ x, rest, false, nil
}
