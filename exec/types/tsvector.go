package types

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
)

// Limits of tsvector, as PostgreSQL's ts_type.h defines them.
const (
	TSMaxLexemeBytes = 1<<11 - 1 // MAXSTRLEN: longest lexeme, in bytes
	TSMaxVectorBytes = 1<<20 - 1 // MAXSTRPOS: the lexemes of one tsvector together
	TSMaxPosition    = 1<<14 - 1 // the largest position; larger ones are clamped to it
	TSMaxPositions   = 256       // MAXNUMPOS: positions kept per lexeme
)

// TSPosition is one position of a lexeme with its weight, packed as
// PostgreSQL's WordEntryPos: the position in the low 14 bits, the weight
// in the top two (3 is A, 2 B, 1 C, 0 D).
type TSPosition uint16

// NewTSPosition packs a position (clamped to 1..TSMaxPosition) and a weight.
func NewTSPosition(pos int, weight uint8) TSPosition {
	pos = min(max(pos, 0), TSMaxPosition)
	return TSPosition(uint16(weight&3)<<14 | uint16(pos))
}

// Pos returns the position.
func (p TSPosition) Pos() int { return int(p & TSMaxPosition) }

// Weight returns the weight: 3 for A down to 0 for D.
func (p TSPosition) Weight() uint8 { return uint8(p >> 14) }

// WithWeight returns p with weight w.
func (p TSPosition) WithWeight(w uint8) TSPosition { return p&TSMaxPosition | TSPosition(w&3)<<14 }

// TSLexeme is one lexeme of a tsvector with its positions, in ascending
// order without duplicates (none when the lexeme was given without).
type TSLexeme struct {
	Word string
	Pos  []TSPosition
}

// TSVector is a tsvector: lexemes sorted bytewise (shorter first on a
// common prefix, as PostgreSQL's tsCompareString) without duplicates. A
// TSVector in a Datum is never modified.
type TSVector []TSLexeme

// weightLetters are the weights' letters, D (0) to A (3).
const weightLetters = "DCBA"

// ParseTSVector reads tsvector text input (tsvectorin): lexemes separated
// by spaces, optionally quoted with '...', backslash escaping any
// character, each with optional positions "word:1,3A,5B".
func ParseTSVector(s string) (TSVector, error) {
	p := tsTokenizer{in: s, typ: "tsvector"}
	var v TSVector
	total := 0
	for {
		word, pos, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(word) > TSMaxLexemeBytes {
			return nil, newError(CodeSyntaxError, "word is too long (%d bytes, max %d bytes)", len(word), TSMaxLexemeBytes)
		}
		total += len(word)
		if total > TSMaxVectorBytes {
			return nil, newError(CodeSyntaxError, "string is too long for tsvector (%d bytes, max %d bytes)", total, TSMaxVectorBytes)
		}
		v = append(v, TSLexeme{Word: word, Pos: pos})
	}
	return NormalizeTSVector(v), nil
}

// NormalizeTSVector sorts lexemes, merges duplicates (their positions
// together) and sorts, deduplicates and truncates each lexeme's positions,
// as tsvectorin's uniqueentry does. It reuses v's storage.
func NormalizeTSVector(v TSVector) TSVector {
	slices.SortStableFunc(v, func(a, b TSLexeme) int { return strings.Compare(a.Word, b.Word) })
	out := v[:0]
	for _, l := range v {
		if n := len(out); n > 0 && out[n-1].Word == l.Word {
			out[n-1].Pos = append(out[n-1].Pos, l.Pos...)
			continue
		}
		out = append(out, TSLexeme{Word: l.Word, Pos: append([]TSPosition(nil), l.Pos...)})
	}
	for i := range out {
		out[i].Pos = uniquePositions(out[i].Pos)
	}
	return out
}

// uniquePositions sorts positions and keeps one per position, with the
// highest weight given for it, and at most TSMaxPositions (uniquePos).
func uniquePositions(ps []TSPosition) []TSPosition {
	if len(ps) == 0 {
		return nil
	}
	slices.SortStableFunc(ps, func(a, b TSPosition) int { return cmp.Compare(a.Pos(), b.Pos()) })
	out := ps[:1]
	for _, p := range ps[1:] {
		last := &out[len(out)-1]
		if p.Pos() != last.Pos() {
			if len(out) == TSMaxPositions {
				break
			}
			out = append(out, p)
		} else if p.Weight() > last.Weight() {
			*last = last.WithWeight(p.Weight())
		}
	}
	return out
}

// AppendTSVector appends the text form of v (tsvectorout): quoted lexemes
// with ' and \ doubled, positions after a colon with weights A to C as
// letters.
func AppendTSVector(dst []byte, v TSVector) []byte {
	for i, l := range v {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = appendTSQuoted(dst, l.Word)
		for j, p := range l.Pos {
			if j == 0 {
				dst = append(dst, ':')
			} else {
				dst = append(dst, ',')
			}
			dst = AppendInt(dst, int64(p.Pos()))
			if w := p.Weight(); w != 0 {
				dst = append(dst, weightLetters[w])
			}
		}
	}
	return dst
}

// appendTSQuoted appends word in single quotes, doubling quotes and
// backslashes, as tsvectorout and tsqueryout print a lexeme.
func appendTSQuoted(dst []byte, word string) []byte {
	dst = append(dst, '\'')
	for i := 0; i < len(word); i++ {
		if c := word[i]; c == '\'' || c == '\\' {
			dst = append(dst, c)
		}
		dst = append(dst, word[i])
	}
	return append(dst, '\'')
}

// TSVectorSize is the size PostgreSQL's tsvector of v occupies (its
// VARSIZE): a header, a 4-byte entry per lexeme, and the lexemes each
// followed, when it has positions, by a 2-aligned count and the positions.
// tsvector's order compares it first.
func TSVectorSize(v TSVector) int {
	data := 0
	for _, l := range v {
		data += len(l.Word)
		if len(l.Pos) > 0 {
			data += data & 1
			data += 2 + 2*len(l.Pos)
		}
	}
	return 8 + 4*len(v) + data
}

// CompareTSVector orders tsvectors as PostgreSQL's tsvector_cmp: by size,
// then number of lexemes, then lexeme by lexeme (one with positions before
// one without; then the words; then more positions first; then each
// position and weight, larger first).
func CompareTSVector(a, b TSVector) int {
	if c := cmp.Compare(TSVectorSize(a), TSVectorSize(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	for i := range a {
		la, lb := a[i], b[i]
		if ha, hb := len(la.Pos) > 0, len(lb.Pos) > 0; ha != hb {
			if ha {
				return -1
			}
			return 1
		}
		if c := strings.Compare(la.Word, lb.Word); c != 0 {
			return c
		}
		if c := cmp.Compare(len(lb.Pos), len(la.Pos)); c != 0 {
			return c
		}
		for j := range la.Pos {
			if c := cmp.Compare(lb.Pos[j].Pos(), la.Pos[j].Pos()); c != 0 {
				return c
			}
			if c := cmp.Compare(lb.Pos[j].Weight(), la.Pos[j].Weight()); c != 0 {
				return c
			}
		}
	}
	return 0
}

// AppendTSVectorBinary appends v in tsvector_send's format: the number of
// lexemes, then each lexeme NUL-terminated, its number of positions and
// the positions, all big-endian.
func AppendTSVectorBinary(dst []byte, v TSVector) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(v)))
	for _, l := range v {
		dst = append(dst, l.Word...)
		dst = append(dst, 0)
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(l.Pos)))
		for _, p := range l.Pos {
			dst = binary.BigEndian.AppendUint16(dst, uint16(p))
		}
	}
	return dst
}

// ParseTSVectorBinary reads tsvector_recv's format, which must hold
// lexemes in order without duplicates and positions in order, as
// PostgreSQL checks.
func ParseTSVectorBinary(b []byte) (TSVector, error) {
	if len(b) < 4 {
		return nil, errInsufficientData
	}
	n := binary.BigEndian.Uint32(b)
	b = b[4:]
	if n > uint32(len(b))/3 {
		return nil, errBinary("invalid size of tsvector")
	}
	v := make(TSVector, 0, n)
	for range n {
		end := strings.IndexByte(string(b), 0)
		if end < 0 || len(b) < end+3 {
			return nil, errInsufficientData
		}
		word := string(b[:end])
		if len(word) > TSMaxLexemeBytes {
			return nil, errBinary("invalid tsvector: lexeme too long")
		}
		if len(v) > 0 && strings.Compare(v[len(v)-1].Word, word) >= 0 {
			return nil, errBinary("invalid tsvector: lexemes are not in ascending order")
		}
		npos := int(binary.BigEndian.Uint16(b[end+1:]))
		b = b[end+3:]
		if npos > TSMaxPositions {
			return nil, errBinary("unexpected number of tsvector positions")
		}
		if len(b) < 2*npos {
			return nil, errInsufficientData
		}
		var pos []TSPosition
		for j := range npos {
			p := TSPosition(binary.BigEndian.Uint16(b[2*j:]))
			if j > 0 && p.Pos() <= pos[j-1].Pos() {
				return nil, errBinary("position information is misordered")
			}
			pos = append(pos, p)
		}
		b = b[2*npos:]
		v = append(v, TSLexeme{Word: word, Pos: pos})
	}
	if len(b) != 0 {
		return nil, errExtraData
	}
	return v, nil
}
