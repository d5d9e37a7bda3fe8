package tuple

import (
	"encoding/binary"
	"math"
)

// AppendBool appends a bool payload: one byte, 0 or 1.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// DecodeBool decodes a bool payload.
func DecodeBool(b []byte) (bool, error) {
	if len(b) != 1 || b[0] > 1 {
		return false, corrupt("bool payload %x", b)
	}
	return b[0] == 1, nil
}

// AppendInt16 appends an int16 payload: 2 bytes little-endian.
func AppendInt16(dst []byte, v int16) []byte {
	return binary.LittleEndian.AppendUint16(dst, uint16(v))
}

// DecodeInt16 decodes an int16 payload.
func DecodeInt16(b []byte) (int16, error) {
	if len(b) != 2 {
		return 0, corrupt("int16 payload of %d bytes", len(b))
	}
	return int16(binary.LittleEndian.Uint16(b)), nil
}

// AppendInt32 appends an int32 payload: 4 bytes little-endian. Dates (days
// since 2000-01-01) use it too.
func AppendInt32(dst []byte, v int32) []byte {
	return binary.LittleEndian.AppendUint32(dst, uint32(v))
}

// DecodeInt32 decodes an int32 payload.
func DecodeInt32(b []byte) (int32, error) {
	if len(b) != 4 {
		return 0, corrupt("int32 payload of %d bytes", len(b))
	}
	return int32(binary.LittleEndian.Uint32(b)), nil
}

// AppendInt64 appends an int64 payload: 8 bytes little-endian. Times and
// timestamps (microseconds) use it too.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(v))
}

// DecodeInt64 decodes an int64 payload.
func DecodeInt64(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, corrupt("int64 payload of %d bytes", len(b))
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

// AppendFloat32 appends a float32 payload: its IEEE bits, 4 bytes
// little-endian, so -0 and every NaN payload are kept exactly.
func AppendFloat32(dst []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
}

// DecodeFloat32 decodes a float32 payload.
func DecodeFloat32(b []byte) (float32, error) {
	if len(b) != 4 {
		return 0, corrupt("float32 payload of %d bytes", len(b))
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

// AppendFloat64 appends a float64 payload: its IEEE bits, 8 bytes
// little-endian, so -0 and every NaN payload are kept exactly.
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

// DecodeFloat64 decodes a float64 payload.
func DecodeFloat64(b []byte) (float64, error) {
	if len(b) != 8 {
		return 0, corrupt("float64 payload of %d bytes", len(b))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// AppendInterval appends an interval payload: 16 bytes little-endian,
// micros (8), days (4), months (4), the order of PostgreSQL's binary format.
// The fields are kept apart exactly: '1 mon' and '30 days' stay distinct.
func AppendInterval(dst []byte, months, days int32, micros int64) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(micros))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(days))
	return binary.LittleEndian.AppendUint32(dst, uint32(months))
}

// DecodeInterval decodes an interval payload.
func DecodeInterval(b []byte) (months, days int32, micros int64, err error) {
	if len(b) != 16 {
		return 0, 0, 0, corrupt("interval payload of %d bytes", len(b))
	}
	micros = int64(binary.LittleEndian.Uint64(b))
	days = int32(binary.LittleEndian.Uint32(b[8:]))
	months = int32(binary.LittleEndian.Uint32(b[12:]))
	return months, days, micros, nil
}
