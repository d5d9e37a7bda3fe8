package sortkey

// fixedLen is the payload length of each fixed-width tag (0 for the others).
var fixedLen = [...]int{
	tagBool:        1,
	tagInt2:        2,
	tagInt4:        4,
	tagInt8:        8,
	tagFloat4:      4,
	tagFloat8:      8,
	tagDate:        4,
	tagTime:        8,
	tagTimestamp:   8,
	tagTimestampTZ: 8,
	tagInterval:    10,
	tagUUID:        16,
	tagNumeric:     0,
	tagText:        0,
	tagBytea:       0,
}

// Split cuts the first column off the key b without knowing its type or
// Order: col is that column's encoding (header included) and rest the
// columns after it, both subslices of b. A NULL column is the single byte
// 0x00 or 0xFF. Split checks the structure it needs to find the end of the
// column, not that the payload is canonical; the typed decoders check that.
// It lets callers copy the trailing primary-key columns out of an index key,
// or compare a key column by column, without decoding values.
func Split(b []byte) (col, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, corrupt("split: empty key")
	}
	h := b[0]
	if h == nullFirst || h == nullLast {
		return b[:1], b[1:], nil
	}
	var m byte
	if h >= 0x80 {
		m = 0xFF
	}
	tag := h ^ m
	var n int
	switch {
	case int(tag) < len(fixedLen) && fixedLen[tag] > 0:
		n = fixedLen[tag]
		if len(b)-1 < n {
			return nil, nil, corrupt("split: %s truncated", tagNames[tag])
		}
	case tag == tagText || tag == tagBytea:
		n, err = skipBytes(b[1:], m)
	case tag == tagNumeric:
		n, err = skipNumeric(b[1:], m)
	default:
		return nil, nil, corrupt("split: unknown header byte %#02x", h)
	}
	if err != nil {
		return nil, nil, err
	}
	return b[:1+n], b[1+n:], nil
}
