package types

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MaxDim is PostgreSQL's MAXDIM, the largest number of array dimensions.
const MaxDim = 6

const maxArraySize = 134217727 // MaxAllocSize / sizeof(Datum)

// ArrayDim is one dimension of an array: its length and lower bound.
type ArrayDim struct {
	Len   int32
	Lower int32
}

// Array is an array of elements of type T in row-major order. An empty
// array has no Dims and no Elems. Nulls is nil when no element is NULL,
// else it has one entry per element, true for NULL (the element itself is
// then the zero value).
type Array[T any] struct {
	Dims  []ArrayDim
	Elems []T
	Nulls []bool
}

// IsNull reports whether element i is NULL.
func (a *Array[T]) IsNull(i int) bool { return a.Nulls != nil && a.Nulls[i] }

// ElemCodec tells the array codecs how to read and write one element of
// type T. The functions may close over session settings and typmods.
type ElemCodec[T any] struct {
	Oid          Oid  // element type OID, written in the binary header
	Delim        byte // typdelim; ',' for every type here
	AppendText   func(dst []byte, v T) []byte
	ParseText    func(s string) (T, error)
	AppendBinary func(dst []byte, v T) []byte
	ParseBinary  func(b []byte) (T, error)
}

func errMalformedArray(s, detail string) error {
	return &Error{Code: CodeInvalidTextRepresentation, Message: fmt.Sprintf("malformed array literal: \"%s\"", s), Detail: detail}
}

func arrayIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// AppendArray appends array_out's text: `{1,2,NULL}`, `{{1,2},{3,4}}`,
// `[0:1]={a,b}` when a lower bound is not 1, elements in double quotes when
// they are empty, NULL, or contain braces, quotes, backslashes, the
// delimiter or white space.
func AppendArray[T any](dst []byte, a *Array[T], c *ElemCodec[T]) []byte {
	if len(a.Dims) == 0 || len(a.Elems) == 0 {
		return append(dst, '{', '}')
	}
	delim := c.Delim
	if delim == 0 {
		delim = ','
	}
	for _, d := range a.Dims {
		if d.Lower != 1 {
			for _, d := range a.Dims {
				dst = append(dst, '[')
				dst = AppendInt(dst, int64(d.Lower))
				dst = append(dst, ':')
				dst = AppendInt(dst, int64(d.Lower)+int64(d.Len)-1)
				dst = append(dst, ']')
			}
			dst = append(dst, '=')
			break
		}
	}
	var scratch []byte
	idx := 0
	var rec func(level int) []byte
	rec = func(level int) []byte {
		dst = append(dst, '{')
		for k := int32(0); k < a.Dims[level].Len; k++ {
			if k > 0 {
				dst = append(dst, delim)
			}
			if level+1 < len(a.Dims) {
				rec(level + 1)
				continue
			}
			if a.IsNull(idx) {
				dst = append(dst, "NULL"...)
			} else {
				scratch = c.AppendText(scratch[:0], a.Elems[idx])
				dst = appendArrayElem(dst, scratch, delim)
			}
			idx++
		}
		dst = append(dst, '}')
		return dst
	}
	return rec(0)
}

func appendArrayElem(dst, v []byte, delim byte) []byte {
	quote := len(v) == 0 || (len(v) == 4 && (v[0]|0x20) == 'n' && (v[1]|0x20) == 'u' && (v[2]|0x20) == 'l' && (v[3]|0x20) == 'l')
	if !quote {
		for _, ch := range v {
			if ch == '"' || ch == '\\' || ch == '{' || ch == '}' || ch == delim || arrayIsSpace(ch) {
				quote = true
				break
			}
		}
	}
	if !quote {
		return append(dst, v...)
	}
	dst = append(dst, '"')
	for _, ch := range v {
		if ch == '"' || ch == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, ch)
	}
	return append(dst, '"')
}

// ParseArray is array_in: an optional dimension decoration `[lo:hi]...=`,
// then nested braces. Elements are de-quoted and passed to c.ParseText;
// unquoted NULL (any case) is a NULL element.
func ParseArray[T any](s string, c *ElemCodec[T]) (Array[T], error) {
	var a Array[T]
	delim := c.Delim
	if delim == 0 {
		delim = ','
	}
	var dims [MaxDim]int
	var lbound [MaxDim]int
	ndim := 0
	p := 0
	for {
		for p < len(s) && arrayIsSpace(s[p]) {
			p++
		}
		if p >= len(s) || s[p] != '[' {
			break
		}
		p++
		if ndim >= MaxDim {
			return a, newError(CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim+1, MaxDim)
		}
		q := p
		for q < len(s) && (isDigit(s[q]) || s[q] == '-' || s[q] == '+') {
			q++
		}
		if q == p {
			return a, errMalformedArray(s, "\"[\" must introduce explicitly-specified array dimensions.")
		}
		if q < len(s) && s[q] == ':' {
			lbound[ndim] = atoi(s[p:q])
			p = q + 1
			for q = p; q < len(s) && (isDigit(s[q]) || s[q] == '-' || s[q] == '+'); q++ {
			}
			if q == p {
				return a, errMalformedArray(s, "Missing array dimension value.")
			}
		} else {
			lbound[ndim] = 1
		}
		if q >= len(s) || s[q] != ']' {
			return a, errMalformedArray(s, "Missing \"]\" after array dimensions.")
		}
		ub := atoi(s[p:q])
		p = q + 1
		if ub < lbound[ndim] {
			return a, newError(CodeArraySubscriptError, "upper bound cannot be less than lower bound")
		}
		dims[ndim] = ub - lbound[ndim] + 1
		ndim++
	}
	if ndim == 0 {
		if p >= len(s) || s[p] != '{' {
			return a, errMalformedArray(s, "Array value must start with \"{\" or dimension information.")
		}
		var err error
		ndim, err = arrayCount(s, p, &dims, delim)
		if err != nil {
			return a, err
		}
		for i := 0; i < ndim; i++ {
			lbound[i] = 1
		}
	} else {
		if p >= len(s) || s[p] != '=' {
			return a, errMalformedArray(s, "Missing \"=\" after array dimensions.")
		}
		p++
		for p < len(s) && arrayIsSpace(s[p]) {
			p++
		}
		if p >= len(s) || s[p] != '{' {
			return a, errMalformedArray(s, "Array contents must start with \"{\".")
		}
		var braces [MaxDim]int
		nb, err := arrayCount(s, p, &braces, delim)
		if err != nil {
			return a, err
		}
		if nb != ndim {
			return a, errMalformedArray(s, "Specified array dimensions do not match array contents.")
		}
		for i := 0; i < ndim; i++ {
			if dims[i] != braces[i] {
				return a, errMalformedArray(s, "Specified array dimensions do not match array contents.")
			}
		}
	}
	if ndim == 0 {
		return a, nil
	}
	nitems, err := arrayNItems(dims[:ndim], lbound[:ndim])
	if err != nil {
		return a, err
	}
	a.Dims = make([]ArrayDim, ndim)
	for i := 0; i < ndim; i++ {
		a.Dims[i] = ArrayDim{Len: int32(dims[i]), Lower: int32(lbound[i])}
	}
	if err := readArrayStr(s, p, nitems, dims[:ndim], delim, c, &a); err != nil {
		return Array[T]{}, err
	}
	return a, nil
}

// arrayNItems is ArrayGetNItems plus ArrayCheckBounds.
func arrayNItems(dims, lbound []int) (int, error) {
	if len(dims) == 0 {
		return 0, nil
	}
	n := int64(1)
	for i := range dims {
		if dims[i] < 0 || n*int64(dims[i]) > maxArraySize {
			return 0, newError(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", maxArraySize)
		}
		n *= int64(dims[i])
	}
	for i := range dims {
		if int64(dims[i])+int64(lbound[i]) > math.MaxInt32 {
			return 0, newError(CodeProgramLimitExceeded, "array lower bound is too large: %d", lbound[i])
		}
	}
	return int(n), nil
}

// array parse states of ArrayCount
const (
	apsNoLevel = iota
	apsLevelStarted
	apsElemStarted
	apsElemCompleted
	apsQuotedElemStarted
	apsQuotedElemCompleted
	apsElemDelimited
	apsLevelCompleted
	apsLevelDelimited
)

// arrayCount is PostgreSQL 15's ArrayCount: it checks the brace structure of
// s[p:] and finds the dimensions; 0 dimensions means an empty array.
func arrayCount(s string, p int, dim *[MaxDim]int, delim byte) (int, error) {
	str := s[p:] // PostgreSQL's ArrayCount reports the literal from its "{"
	nestLevel := 0
	ndim := 1
	var temp, nelemsLast [MaxDim]int
	var nelems [MaxDim]int
	for i := range nelems {
		nelems[i] = 1
		dim[i] = 0
	}
	inQuotes := false
	eoArray := false
	empty := true
	state := apsNoLevel
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	unexpected := func(c byte) error {
		return errMalformedArray(str, fmt.Sprintf("Unexpected \"%c\" character.", c))
	}
	for !eoArray {
		itemDone := false
		for !itemDone {
			if state == apsElemStarted || state == apsQuotedElemStarted {
				empty = false
			}
			c := at(p)
			switch {
			case p >= len(s):
				return 0, errMalformedArray(str, "Unexpected end of input.")
			case c == '\\':
				if state != apsLevelStarted && state != apsElemStarted && state != apsQuotedElemStarted && state != apsElemDelimited {
					return 0, unexpected('\\')
				}
				if state != apsQuotedElemStarted {
					state = apsElemStarted
				}
				if p+1 < len(s) {
					p++
				} else {
					return 0, errMalformedArray(str, "Unexpected end of input.")
				}
			case c == '"':
				if state != apsLevelStarted && state != apsQuotedElemStarted && state != apsElemDelimited {
					return 0, errMalformedArray(str, "Unexpected array element.")
				}
				inQuotes = !inQuotes
				if inQuotes {
					state = apsQuotedElemStarted
				} else {
					state = apsQuotedElemCompleted
				}
			case c == '{' && !inQuotes:
				if state != apsNoLevel && state != apsLevelStarted && state != apsLevelDelimited {
					return 0, unexpected('{')
				}
				state = apsLevelStarted
				if nestLevel >= MaxDim {
					return 0, newError(CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", nestLevel+1, MaxDim)
				}
				temp[nestLevel] = 0
				nestLevel++
				if ndim < nestLevel {
					ndim = nestLevel
				}
			case c == '}' && !inQuotes:
				if state != apsElemStarted && state != apsElemCompleted && state != apsQuotedElemCompleted &&
					state != apsLevelCompleted && !(nestLevel == 1 && state == apsLevelStarted) {
					return 0, unexpected('}')
				}
				state = apsLevelCompleted
				if nestLevel == 0 {
					return 0, errMalformedArray(str, "Unmatched \"}\" character.")
				}
				nestLevel--
				if nelemsLast[nestLevel] != 0 && nelems[nestLevel] != nelemsLast[nestLevel] {
					return 0, errMalformedArray(str, "Multidimensional arrays must have sub-arrays with matching dimensions.")
				}
				nelemsLast[nestLevel] = nelems[nestLevel]
				nelems[nestLevel] = 1
				if nestLevel == 0 {
					eoArray = true
					itemDone = true
				} else {
					temp[nestLevel-1]++
				}
			case !inQuotes && c == delim:
				if state != apsElemStarted && state != apsElemCompleted && state != apsQuotedElemCompleted && state != apsLevelCompleted {
					return 0, unexpected(delim)
				}
				if state == apsLevelCompleted {
					state = apsLevelDelimited
				} else {
					state = apsElemDelimited
				}
				itemDone = true
				if nestLevel == 0 {
					return 0, unexpected(delim)
				}
				nelems[nestLevel-1]++
			case !inQuotes && !arrayIsSpace(c) && c != '{' && c != '}':
				if state != apsLevelStarted && state != apsElemStarted && state != apsElemDelimited {
					return 0, errMalformedArray(str, "Unexpected array element.")
				}
				state = apsElemStarted
			}
			if !itemDone {
				p++
			}
		}
		temp[ndim-1]++
		p++
	}
	for ; p < len(s); p++ {
		if !arrayIsSpace(s[p]) {
			return 0, errMalformedArray(str, "Junk after closing right brace.")
		}
	}
	if empty {
		return 0, nil
	}
	for i := 0; i < ndim; i++ {
		dim[i] = temp[i]
	}
	return ndim, nil
}

// readArrayStr is ReadArrayStr: it splits s[p:] into elements, removes
// quoting, and parses them.
func readArrayStr[T any](s string, p int, nitems int, dims []int, delim byte, c *ElemCodec[T], a *Array[T]) error {
	ndim := len(dims)
	prod := make([]int, ndim)
	prod[ndim-1] = 1
	for i := ndim - 2; i >= 0; i-- {
		prod[i] = prod[i+1] * dims[i+1]
	}
	var indx [MaxDim]int
	a.Elems = make([]T, nitems)
	nulls := make([]bool, nitems)
	for i := range nulls {
		nulls[i] = true
	}
	hasNull := false
	nestLevel := 0
	inQuotes := false
	eoArray := false
	buf := make([]byte, 0, 32)
	malformed := &Error{Code: CodeInvalidTextRepresentation, Message: fmt.Sprintf("malformed array literal: \"%s\"", s)}
	for !eoArray {
		itemDone := false
		leadingSpace := true
		hasQuoting := false
		i := -1
		buf = buf[:0]
		end := 0
		for !itemDone {
			if p >= len(s) {
				return malformed
			}
			ch := s[p]
			switch {
			case ch == '\\':
				p++
				if p >= len(s) {
					return malformed
				}
				buf = append(buf, s[p])
				p++
				leadingSpace = false
				end = len(buf)
				hasQuoting = true
			case ch == '"':
				inQuotes = !inQuotes
				if inQuotes {
					leadingSpace = false
				} else {
					end = len(buf)
				}
				hasQuoting = true
				p++
			case ch == '{' && !inQuotes:
				if nestLevel >= ndim {
					return malformed
				}
				nestLevel++
				indx[nestLevel-1] = 0
				p++
			case ch == '}' && !inQuotes:
				if nestLevel == 0 {
					return malformed
				}
				if i == -1 {
					i = offset0(indx[:ndim], prod)
				}
				indx[nestLevel-1] = 0
				nestLevel--
				if nestLevel == 0 {
					eoArray = true
					itemDone = true
				} else {
					indx[nestLevel-1]++
				}
				p++
			case inQuotes:
				buf = append(buf, ch)
				p++
			case ch == delim:
				if i == -1 {
					i = offset0(indx[:ndim], prod)
				}
				itemDone = true
				indx[ndim-1]++
				p++
			case arrayIsSpace(ch):
				if !leadingSpace {
					buf = append(buf, ch)
				}
				p++
			default:
				buf = append(buf, ch)
				p++
				leadingSpace = false
				end = len(buf)
			}
		}
		item := buf[:end]
		if i < 0 || i >= nitems {
			return malformed
		}
		if !hasQuoting && len(item) == 4 && (item[0]|0x20) == 'n' && (item[1]|0x20) == 'u' && (item[2]|0x20) == 'l' && (item[3]|0x20) == 'l' {
			nulls[i] = true
			hasNull = true
			continue
		}
		v, err := c.ParseText(string(item))
		if err != nil {
			return err
		}
		a.Elems[i] = v
		nulls[i] = false
	}
	for _, n := range nulls {
		if n {
			hasNull = true
		}
	}
	if hasNull {
		a.Nulls = nulls
	}
	return nil
}

func offset0(indx []int, prod []int) int {
	off := 0
	for i := range indx {
		off += indx[i] * prod[i]
	}
	return off
}

// AppendArrayBinary appends array_send's format: int32 ndim, int32 has-null
// flag, uint32 element OID, ndim × (int32 length, int32 lower bound), then
// each element as int32 length (-1 for NULL) and its binary form.
func AppendArrayBinary[T any](dst []byte, a *Array[T], c *ElemCodec[T]) []byte {
	ndim := len(a.Dims)
	if len(a.Elems) == 0 {
		ndim = 0
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(ndim))
	hasNull := uint32(0)
	for _, n := range a.Nulls {
		if n {
			hasNull = 1
			break
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, hasNull)
	dst = binary.BigEndian.AppendUint32(dst, uint32(c.Oid))
	if ndim == 0 {
		return dst
	}
	for _, d := range a.Dims {
		dst = binary.BigEndian.AppendUint32(dst, uint32(d.Len))
		dst = binary.BigEndian.AppendUint32(dst, uint32(d.Lower))
	}
	for i := range a.Elems {
		if a.IsNull(i) {
			dst = binary.BigEndian.AppendUint32(dst, 0xFFFFFFFF)
			continue
		}
		lenAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = c.AppendBinary(dst, a.Elems[i])
		binary.BigEndian.PutUint32(dst[lenAt:], uint32(len(dst)-lenAt-4))
	}
	return dst
}

// ParseArrayBinary is array_recv.
func ParseArrayBinary[T any](b []byte, c *ElemCodec[T]) (Array[T], error) {
	var a Array[T]
	if len(b) < 12 {
		return a, errInsufficientData
	}
	ndim := int32(binary.BigEndian.Uint32(b))
	flags := int32(binary.BigEndian.Uint32(b[4:]))
	elemOid := Oid(binary.BigEndian.Uint32(b[8:]))
	b = b[12:]
	if ndim < 0 {
		return a, errBinary("invalid number of dimensions: %d", ndim)
	}
	if ndim > MaxDim {
		return a, newError(CodeProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", ndim, MaxDim)
	}
	if flags != 0 && flags != 1 {
		return a, errBinary("invalid array flags")
	}
	if elemOid != c.Oid {
		return a, newError("42804", "binary data has array element type %d instead of expected %d", elemOid, c.Oid)
	}
	if len(b) < int(ndim)*8 {
		return a, errInsufficientData
	}
	dims := make([]int, ndim)
	lbs := make([]int, ndim)
	for i := 0; i < int(ndim); i++ {
		dims[i] = int(int32(binary.BigEndian.Uint32(b)))
		lbs[i] = int(int32(binary.BigEndian.Uint32(b[4:])))
		b = b[8:]
	}
	nitems, err := arrayNItems(dims, lbs)
	if err != nil {
		return a, err
	}
	if nitems == 0 {
		if len(b) != 0 {
			return a, errExtraData
		}
		return a, nil
	}
	if nitems > len(b)/4 {
		return a, errInsufficientData
	}
	a.Dims = make([]ArrayDim, ndim)
	for i := range dims {
		a.Dims[i] = ArrayDim{Len: int32(dims[i]), Lower: int32(lbs[i])}
	}
	a.Elems = make([]T, nitems)
	for i := 0; i < nitems; i++ {
		if len(b) < 4 {
			return Array[T]{}, errInsufficientData
		}
		n := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if n < -1 || int(n) > len(b) {
			return Array[T]{}, errBinary("insufficient data left in message")
		}
		if n == -1 {
			if a.Nulls == nil {
				a.Nulls = make([]bool, nitems)
			}
			a.Nulls[i] = true
			continue
		}
		v, err := c.ParseBinary(b[:n])
		if err != nil {
			if err == errExtraData {
				return Array[T]{}, errBinary("improper binary format in array element %d", i+1)
			}
			return Array[T]{}, err
		}
		a.Elems[i] = v
		b = b[n:]
	}
	if len(b) != 0 {
		return Array[T]{}, errExtraData
	}
	return a, nil
}
