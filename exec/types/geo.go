package types

// Input and output of PostgreSQL's geometric types point, lseg, path, box,
// polygon, line and circle (geo_ops.c's *_in, *_out, *_recv and *_send).
// A value is kept as its canonical bytes, which are exactly its binary
// (send) form: float8 coordinates in big-endian IEEE bits, a path led by
// its closed byte and an int32 count of points, a polygon by the count.
// Keeping the send form makes binary output a copy and lets stored values
// be compared byte for byte.

import (
	"encoding/binary"
	"math"
	"strings"
)

// OIDs of the geometric types and of their arrays.
const (
	OidPoint        Oid = 600
	OidLSeg         Oid = 601
	OidPath         Oid = 602
	OidBox          Oid = 603
	OidPolygon      Oid = 604
	OidLine         Oid = 628
	OidCircle       Oid = 718
	OidPointArray   Oid = 1017
	OidLSegArray    Oid = 1018
	OidPathArray    Oid = 1019
	OidBoxArray     Oid = 1020
	OidPolygonArray Oid = 1027
	OidLineArray    Oid = 629
	OidCircleArray  Oid = 719
)

// IsGeometric reports whether oid is one of the seven geometric types.
func IsGeometric(oid Oid) bool {
	switch oid {
	case OidPoint, OidLSeg, OidPath, OidBox, OidPolygon, OidLine, OidCircle:
		return true
	}
	return false
}

// Point is a point (x,y).
type Point struct{ X, Y float64 }

// LSeg is a line segment between two points.
type LSeg struct{ P [2]Point }

// Box is a rectangle by its upper right and lower left corners.
type Box struct{ High, Low Point }

// Line is the infinite line Ax + By + C = 0.
type Line struct{ A, B, C float64 }

// Circle is a circle by its center and radius.
type Circle struct {
	Center Point
	Radius float64
}

// Path is an open or closed sequence of at least one point.
type Path struct {
	Closed bool
	P      []Point
}

// Polygon is a closed sequence of at least one point, with the bounding
// box PostgreSQL keeps beside them.
type Polygon struct {
	P        []Point
	BoundBox Box
}

// maxGeoPoints bounds the points of a path or polygon as PostgreSQL's
// 1 GB varlena limit does (about 67 million), so that a count read from
// binary input cannot ask for an absurd allocation.
const maxGeoPoints = (1<<30 - 24) / 16

// geoLt and geoGt are float8_lt and float8_gt: NaN sorts above all.
func geoLt(a, b float64) bool { return !math.IsNaN(a) && (math.IsNaN(b) || a < b) }
func geoGt(a, b float64) bool { return !math.IsNaN(b) && (math.IsNaN(a) || a > b) }

// geoScan reads the text of one geometric value, keeping the original
// input and type name for PostgreSQL's error messages.
type geoScan struct {
	s   string
	typ string
}

func (g geoScan) syntax() error { return errSyntax(g.typ, g.s) }

func (g geoScan) at(i int) byte {
	if i < len(g.s) {
		return g.s[i]
	}
	return 0
}

func (g geoScan) skipSpace(i int) int {
	for i < len(g.s) && isSpace(g.s[i]) {
		i++
	}
	return i
}

// single is float8in_internal with an end pointer: a float8 with the
// white space around it.
func (g geoScan) single(i int) (float64, int, error) {
	i = g.skipSpace(i)
	if i == len(g.s) {
		return 0, i, g.syntax()
	}
	v, end, erange := cStrtod(g.s, i, 64)
	if end == i {
		return 0, i, g.syntax()
	}
	if erange {
		return 0, i, &Error{Code: CodeNumericValueOutOfRange,
			Message: "\"" + g.s[i:end] + "\" is out of range for type double precision"}
	}
	return v, g.skipSpace(end), nil
}

// pair is pair_decode: "x,y" or "(x,y)".
func (g geoScan) pair(i int) (Point, int, error) {
	var p Point
	var err error
	i = g.skipSpace(i)
	delim := g.at(i) == '('
	if delim {
		i++
	}
	if p.X, i, err = g.single(i); err != nil {
		return p, i, err
	}
	if g.at(i) != ',' {
		return p, i, g.syntax()
	}
	if p.Y, i, err = g.single(i + 1); err != nil {
		return p, i, err
	}
	if delim {
		if g.at(i) != ')' {
			return p, i, g.syntax()
		}
		i = g.skipSpace(i + 1)
	}
	return p, i, nil
}

// path is path_decode: npts points, in parentheses or (when opentype)
// brackets or bare; it returns whether the points were in brackets.
func (g geoScan) path(i int, opentype bool, pts []Point) (isopen bool, end int, err error) {
	depth := 0
	i = g.skipSpace(i)
	switch g.at(i) {
	case '[':
		if !opentype {
			return false, i, g.syntax()
		}
		isopen = true
		depth++
		i++
	case '(':
		cp := g.skipSpace(i + 1)
		if g.at(cp) == '(' || strings.LastIndexByte(g.s[i:], '(') == 0 {
			depth++
			i = cp
		}
	}
	for k := range pts {
		if pts[k], i, err = g.pair(i); err != nil {
			return isopen, i, err
		}
		if g.at(i) == ',' {
			i++
		}
	}
	for depth > 0 {
		c := g.at(i)
		if c != ')' && !(c == ']' && isopen && depth == 1) {
			return isopen, i, g.syntax()
		}
		depth--
		i = g.skipSpace(i + 1)
	}
	return isopen, i, nil
}

// end fails unless i is the end of the input.
func (g geoScan) end(i int) error {
	if i != len(g.s) {
		return g.syntax()
	}
	return nil
}

// pairCount is pair_count: the points a path or polygon has, from its
// commas, or -1 when their number is even.
func pairCount(s string) int {
	n := strings.Count(s, ",")
	if n%2 == 0 {
		return -1
	}
	return (n + 1) / 2
}

// ParsePoint is point_in: "(x,y)" or "x,y".
func ParsePoint(s string) (Point, error) {
	g := geoScan{s, "point"}
	p, i, err := g.pair(0)
	if err != nil {
		return p, err
	}
	return p, g.end(i)
}

// ParseLSeg is lseg_in: two points, bare or in parentheses or brackets.
func ParseLSeg(s string) (LSeg, error) {
	g := geoScan{s, "lseg"}
	var l LSeg
	_, i, err := g.path(0, true, l.P[:])
	if err != nil {
		return l, err
	}
	return l, g.end(i)
}

// ParseBox is box_in: two opposite corners, stored as upper right and
// lower left.
func ParseBox(s string) (Box, error) {
	g := geoScan{s, "box"}
	var p [2]Point
	_, i, err := g.path(0, false, p[:])
	if err != nil {
		return Box{}, err
	}
	if err := g.end(i); err != nil {
		return Box{}, err
	}
	return orderBox(Box{High: p[0], Low: p[1]}), nil
}

// orderBox swaps a box's coordinates so that High is the upper right
// corner, as box_in and box_recv do.
func orderBox(b Box) Box {
	if geoLt(b.High.X, b.Low.X) {
		b.High.X, b.Low.X = b.Low.X, b.High.X
	}
	if geoLt(b.High.Y, b.Low.Y) {
		b.High.Y, b.Low.Y = b.Low.Y, b.High.Y
	}
	return b
}

// ParsePath is path_in: "[...]" is open, "(...)" or bare closed.
func ParsePath(s string) (Path, error) {
	g := geoScan{s, "path"}
	npts := pairCount(s)
	if npts <= 0 {
		return Path{}, g.syntax()
	}
	i := g.skipSpace(0)
	depth := 0
	// A single leading parenthesis (one that no other follows) wraps the
	// bare list "(1,2,3,4)".
	if g.at(i) == '(' && strings.LastIndexByte(s[i:], '(') == 0 {
		i++
		depth++
	}
	pts := make([]Point, npts)
	isopen, i, err := g.path(i, true, pts)
	if err != nil {
		return Path{}, err
	}
	if depth >= 1 {
		if g.at(i) != ')' {
			return Path{}, g.syntax()
		}
		i = g.skipSpace(i + 1)
	}
	if err := g.end(i); err != nil {
		return Path{}, err
	}
	return Path{Closed: !isopen, P: pts}, nil
}

// ParsePolygon is poly_in.
func ParsePolygon(s string) (Polygon, error) {
	g := geoScan{s, "polygon"}
	npts := pairCount(s)
	if npts <= 0 {
		return Polygon{}, g.syntax()
	}
	pts := make([]Point, npts)
	_, i, err := g.path(0, false, pts)
	if err != nil {
		return Polygon{}, err
	}
	if err := g.end(i); err != nil {
		return Polygon{}, err
	}
	return NewPolygon(pts), nil
}

// NewPolygon makes the polygon of pts (at least one), computing its
// bounding box as make_bound_box does.
func NewPolygon(pts []Point) Polygon {
	poly := Polygon{P: pts}
	if len(pts) == 0 {
		return poly
	}
	x1, x2 := pts[0].X, pts[0].X
	y1, y2 := pts[0].Y, pts[0].Y
	for _, p := range pts[1:] {
		if geoLt(p.X, x1) {
			x1 = p.X
		}
		if geoGt(p.X, x2) {
			x2 = p.X
		}
		if geoLt(p.Y, y1) {
			y1 = p.Y
		}
		if geoGt(p.Y, y2) {
			y2 = p.Y
		}
	}
	poly.BoundBox = Box{High: Point{x2, y2}, Low: Point{x1, y1}}
	return poly
}

// ParseLine is line_in: "{A,B,C}", or two distinct points on the line.
func ParseLine(s string) (Line, error) {
	g := geoScan{s, "line"}
	i := g.skipSpace(0)
	var l Line
	var err error
	if g.at(i) == '{' {
		if l.A, i, err = g.single(i + 1); err != nil {
			return l, err
		}
		if g.at(i) != ',' {
			return l, g.syntax()
		}
		if l.B, i, err = g.single(i + 1); err != nil {
			return l, err
		}
		if g.at(i) != ',' {
			return l, g.syntax()
		}
		if l.C, i, err = g.single(i + 1); err != nil {
			return l, err
		}
		if g.at(i) != '}' {
			return l, g.syntax()
		}
		if err := g.end(g.skipSpace(i + 1)); err != nil {
			return l, err
		}
		if geoZero(l.A) && geoZero(l.B) {
			return l, newError(CodeInvalidTextRepresentation, "invalid line specification: A and B cannot both be zero")
		}
		return l, nil
	}
	var seg LSeg
	if _, i, err = g.path(i, true, seg.P[:]); err != nil {
		return l, err
	}
	if err := g.end(i); err != nil {
		return l, err
	}
	if PointEq(seg.P[0], seg.P[1]) {
		return l, newError(CodeInvalidTextRepresentation, "invalid line specification: must be two distinct points")
	}
	return LineFromPoints(seg.P[0], seg.P[1])
}

// ParseCircle is circle_in: "<(x,y),r>", "((x,y),r)", "(x,y),r" or
// "x,y,r"; the radius may be NaN but not negative.
func ParseCircle(s string) (Circle, error) {
	g := geoScan{s, "circle"}
	var c Circle
	var err error
	i := g.skipSpace(0)
	depth := 0
	switch g.at(i) {
	case '<':
		depth++
		i++
	case '(':
		// Two left parentheses: the first one encloses the circle.
		if cp := g.skipSpace(i + 1); g.at(cp) == '(' {
			depth++
			i = cp
		}
	}
	if c.Center, i, err = g.pair(i); err != nil {
		return c, err
	}
	if g.at(i) == ',' {
		i++
	}
	if c.Radius, i, err = g.single(i); err != nil {
		return c, err
	}
	if c.Radius < 0 {
		return c, g.syntax()
	}
	for depth > 0 {
		if ch := g.at(i); ch != ')' && !(ch == '>' && depth == 1) {
			return c, g.syntax()
		}
		depth--
		i = g.skipSpace(i + 1)
	}
	return c, g.end(i)
}

// geoEpsilon is geo_decls.h's EPSILON, the tolerance of the fuzzy
// comparisons of the geometric types.
const geoEpsilon = 1.0e-06

func geoZero(a float64) bool { return math.Abs(a) <= geoEpsilon }

func geoFPEq(a, b float64) bool { return a == b || math.Abs(a-b) <= geoEpsilon }

// PointEq is point_eq_point: equal within EPSILON, or exactly when a
// coordinate is NaN.
func PointEq(a, b Point) bool {
	if math.IsNaN(a.X) || math.IsNaN(a.Y) || math.IsNaN(b.X) || math.IsNaN(b.Y) {
		return floatEqNaN(a.X, b.X) && floatEqNaN(a.Y, b.Y)
	}
	return geoFPEq(a.X, b.X) && geoFPEq(a.Y, b.Y)
}

// floatEqNaN is float8_eq: NaN equals NaN.
func floatEqNaN(a, b float64) bool {
	if math.IsNaN(a) {
		return math.IsNaN(b)
	}
	return !math.IsNaN(b) && a == b
}

// PointSlope is point_sl: infinite for a vertical pair (or one point).
func PointSlope(a, b Point) (float64, error) {
	if geoFPEq(a.X, b.X) {
		return math.Inf(1), nil
	}
	if geoFPEq(a.Y, b.Y) {
		return 0, nil
	}
	dy, err := Float8Mi(a.Y, b.Y)
	if err != nil {
		return 0, err
	}
	dx, err := Float8Mi(a.X, b.X)
	if err != nil {
		return 0, err
	}
	return Float8Div(dy, dx)
}

// LineFromPoints is line_construct(pt1, point_sl(pt1, pt2)).
func LineFromPoints(a, b Point) (Line, error) {
	m, err := PointSlope(a, b)
	if err != nil {
		return Line{}, err
	}
	return LineFromSlope(a, m)
}

// LineFromSlope is line_construct: the line through p of slope m.
func LineFromSlope(p Point, m float64) (Line, error) {
	switch {
	case math.IsInf(m, 0):
		return Line{A: -1, B: 0, C: p.X}, nil
	case m == 0:
		return Line{A: 0, B: -1, C: p.Y}, nil
	}
	mx, err := Float8Mul(m, p.X)
	if err != nil {
		return Line{}, err
	}
	c, err := Float8Mi(p.Y, mx)
	if err != nil {
		return Line{}, err
	}
	if c == 0 {
		c = 0 // no -0
	}
	return Line{A: m, B: -1, C: c}, nil
}

// Float8 arithmetic with PostgreSQL's overflow and underflow errors
// (float.h's float8_pl, float8_mi, float8_mul, float8_div).

var (
	errFloatOverflow  = &Error{Code: CodeNumericValueOutOfRange, Message: "value out of range: overflow"}
	errFloatUnderflow = &Error{Code: CodeNumericValueOutOfRange, Message: "value out of range: underflow"}
	errDivByZero      = &Error{Code: "22012", Message: "division by zero"}
)

// Float8Pl is float8_pl.
func Float8Pl(a, b float64) (float64, error) {
	r := a + b
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow
	}
	return r, nil
}

// Float8Mi is float8_mi.
func Float8Mi(a, b float64) (float64, error) {
	r := a - b
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow
	}
	return r, nil
}

// Float8Mul is float8_mul.
func Float8Mul(a, b float64) (float64, error) {
	r := a * b
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return 0, errFloatOverflow
	}
	if r == 0 && a != 0 && b != 0 {
		return 0, errFloatUnderflow
	}
	return r, nil
}

// Float8Div is float8_div.
func Float8Div(a, b float64) (float64, error) {
	if b == 0 && !math.IsNaN(a) {
		return 0, errDivByZero
	}
	r := a / b
	if math.IsInf(r, 0) && !math.IsInf(a, 0) {
		return 0, errFloatOverflow
	}
	if r == 0 && a != 0 && !math.IsInf(b, 0) {
		return 0, errFloatUnderflow
	}
	return r, nil
}

// ParseGeometry reads the text of a value of geometric type oid and
// returns its canonical bytes.
func ParseGeometry(oid Oid, s string) (string, error) {
	switch oid {
	case OidPoint:
		p, err := ParsePoint(s)
		return EncodePoint(p), err
	case OidLSeg:
		l, err := ParseLSeg(s)
		return EncodeLSeg(l), err
	case OidBox:
		b, err := ParseBox(s)
		return EncodeBox(b), err
	case OidPath:
		p, err := ParsePath(s)
		if err != nil {
			return "", err
		}
		return EncodePath(p), nil
	case OidPolygon:
		p, err := ParsePolygon(s)
		if err != nil {
			return "", err
		}
		return EncodePolygon(p), nil
	case OidLine:
		l, err := ParseLine(s)
		return EncodeLine(l), err
	case OidCircle:
		c, err := ParseCircle(s)
		return EncodeCircle(c), err
	}
	return "", newError(CodeInternalError, "type %d is not geometric", oid)
}

// AppendGeometry appends the text output of a value of geometric type
// oid held as canonical bytes; extraFloatDigits is as for AppendFloat8.
func AppendGeometry(dst []byte, oid Oid, v string, extraFloatDigits int) []byte {
	switch oid {
	case OidPoint:
		return appendPair(append(dst, '('), DecodePoint(v), extraFloatDigits, ')')
	case OidLSeg:
		l := DecodeLSeg(v)
		return appendPoints(dst, '[', l.P[:], ']', extraFloatDigits)
	case OidBox:
		b := DecodeBox(v)
		return appendPoints(dst, 0, []Point{b.High, b.Low}, 0, extraFloatDigits)
	case OidPath:
		p := DecodePath(v)
		if p.Closed {
			return appendPoints(dst, '(', p.P, ')', extraFloatDigits)
		}
		return appendPoints(dst, '[', p.P, ']', extraFloatDigits)
	case OidPolygon:
		return appendPoints(dst, '(', decodePoints(v, 4), ')', extraFloatDigits)
	case OidLine:
		l := DecodeLine(v)
		dst = append(dst, '{')
		dst = AppendFloat8(dst, l.A, extraFloatDigits)
		dst = append(dst, ',')
		dst = AppendFloat8(dst, l.B, extraFloatDigits)
		dst = append(dst, ',')
		dst = AppendFloat8(dst, l.C, extraFloatDigits)
		return append(dst, '}')
	case OidCircle:
		c := DecodeCircle(v)
		dst = appendPair(append(dst, '<', '('), c.Center, extraFloatDigits, ')')
		dst = append(dst, ',')
		dst = AppendFloat8(dst, c.Radius, extraFloatDigits)
		return append(dst, '>')
	}
	return dst
}

// appendPair appends "x,y" and then close.
func appendPair(dst []byte, p Point, efd int, close byte) []byte {
	dst = AppendFloat8(dst, p.X, efd)
	dst = append(dst, ',')
	dst = AppendFloat8(dst, p.Y, efd)
	return append(dst, close)
}

// appendPoints is path_encode: "(x,y),..." between open and close
// (none when 0).
func appendPoints(dst []byte, open byte, pts []Point, close byte, efd int) []byte {
	if open != 0 {
		dst = append(dst, open)
	}
	for i, p := range pts {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendPair(append(dst, '('), p, efd, ')')
	}
	if close != 0 {
		dst = append(dst, close)
	}
	return dst
}

// ParseGeometryBinary is the receive function of geometric type oid; it
// returns the canonical bytes.
func ParseGeometryBinary(oid Oid, b []byte) (string, error) {
	r := geoReader{b: b}
	switch oid {
	case OidPoint:
		p := r.point()
		return r.done(EncodePoint(p))
	case OidLSeg:
		l := LSeg{P: [2]Point{r.point(), r.point()}}
		return r.done(EncodeLSeg(l))
	case OidBox:
		bx := Box{High: r.point(), Low: r.point()}
		return r.done(EncodeBox(orderBox(bx)))
	case OidLine:
		l := Line{A: r.float(), B: r.float(), C: r.float()}
		if r.err == nil && geoZero(l.A) && geoZero(l.B) {
			return "", errBinary("invalid line specification: A and B cannot both be zero")
		}
		return r.done(EncodeLine(l))
	case OidCircle:
		c := Circle{Center: r.point(), Radius: r.float()}
		if r.err == nil && c.Radius < 0 {
			return "", errBinary("invalid radius in external \"circle\" value")
		}
		return r.done(EncodeCircle(c))
	case OidPath:
		closed := r.byte()
		n := r.int32()
		if r.err == nil && (n <= 0 || n >= maxGeoPoints) {
			return "", errBinary("invalid number of points in external \"path\" value")
		}
		pts := r.points(int(n))
		return r.done(EncodePath(Path{Closed: closed != 0, P: pts}))
	case OidPolygon:
		n := r.int32()
		if r.err == nil && (n <= 0 || n >= maxGeoPoints) {
			return "", errBinary("invalid number of points in external \"polygon\" value")
		}
		pts := r.points(int(n))
		return r.done(EncodePolygon(Polygon{P: pts}))
	}
	return "", newError(CodeInternalError, "type %d is not geometric", oid)
}

// geoReader reads a binary message, remembering the first shortfall.
type geoReader struct {
	b   []byte
	err error
}

func (r *geoReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = errInsufficientData
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *geoReader) float() float64 {
	if v := r.take(8); v != nil {
		return math.Float64frombits(binary.BigEndian.Uint64(v))
	}
	return 0
}

func (r *geoReader) point() Point { return Point{r.float(), r.float()} }

func (r *geoReader) byte() byte {
	if v := r.take(1); v != nil {
		return v[0]
	}
	return 0
}

func (r *geoReader) int32() int32 {
	if v := r.take(4); v != nil {
		return int32(binary.BigEndian.Uint32(v))
	}
	return 0
}

// points reads n points, checking first that the message holds them.
func (r *geoReader) points(n int) []Point {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n*16 {
		r.err = errInsufficientData
		return nil
	}
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = r.point()
	}
	return pts
}

func (r *geoReader) done(v string) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	if len(r.b) != 0 {
		return "", errExtraData
	}
	return v, nil
}

// Canonical bytes of each type, and back. The decoders never fail: they
// read what the encoders wrote (a short value reads as zeros).

func appendF(dst []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(f))
}

func appendPt(dst []byte, p Point) []byte { return appendF(appendF(dst, p.X), p.Y) }

func getF(s string, off int) float64 {
	if off+8 > len(s) {
		return 0
	}
	var u uint64
	for i := 0; i < 8; i++ {
		u = u<<8 | uint64(s[off+i])
	}
	return math.Float64frombits(u)
}

func getPt(s string, off int) Point { return Point{getF(s, off), getF(s, off+8)} }

// EncodePoint returns the canonical bytes of p.
func EncodePoint(p Point) string { return string(appendPt(make([]byte, 0, 16), p)) }

// DecodePoint reads canonical bytes of a point.
func DecodePoint(s string) Point { return getPt(s, 0) }

// EncodeLSeg returns the canonical bytes of l.
func EncodeLSeg(l LSeg) string {
	return string(appendPt(appendPt(make([]byte, 0, 32), l.P[0]), l.P[1]))
}

// DecodeLSeg reads canonical bytes of an lseg.
func DecodeLSeg(s string) LSeg { return LSeg{P: [2]Point{getPt(s, 0), getPt(s, 16)}} }

// EncodeBox returns the canonical bytes of b.
func EncodeBox(b Box) string {
	return string(appendPt(appendPt(make([]byte, 0, 32), b.High), b.Low))
}

// DecodeBox reads canonical bytes of a box.
func DecodeBox(s string) Box { return Box{High: getPt(s, 0), Low: getPt(s, 16)} }

// EncodeLine returns the canonical bytes of l.
func EncodeLine(l Line) string {
	return string(appendF(appendF(appendF(make([]byte, 0, 24), l.A), l.B), l.C))
}

// DecodeLine reads canonical bytes of a line.
func DecodeLine(s string) Line { return Line{getF(s, 0), getF(s, 8), getF(s, 16)} }

// EncodeCircle returns the canonical bytes of c.
func EncodeCircle(c Circle) string {
	return string(appendF(appendPt(make([]byte, 0, 24), c.Center), c.Radius))
}

// DecodeCircle reads canonical bytes of a circle.
func DecodeCircle(s string) Circle { return Circle{Center: getPt(s, 0), Radius: getF(s, 16)} }

// EncodePath returns the canonical bytes of p.
func EncodePath(p Path) string {
	b := make([]byte, 0, 5+16*len(p.P))
	if p.Closed {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.P)))
	for _, pt := range p.P {
		b = appendPt(b, pt)
	}
	return string(b)
}

// DecodePath reads canonical bytes of a path.
func DecodePath(s string) Path {
	if len(s) == 0 {
		return Path{}
	}
	return Path{Closed: s[0] != 0, P: decodePoints(s, 5)}
}

// EncodePolygon returns the canonical bytes of p.
func EncodePolygon(p Polygon) string {
	b := make([]byte, 0, 4+16*len(p.P))
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.P)))
	for _, pt := range p.P {
		b = appendPt(b, pt)
	}
	return string(b)
}

// DecodePolygon reads canonical bytes of a polygon.
func DecodePolygon(s string) Polygon { return NewPolygon(decodePoints(s, 4)) }

// decodePoints reads the points that follow the header of a path or
// polygon.
func decodePoints(s string, off int) []Point {
	if len(s) < off {
		return nil
	}
	n := (len(s) - off) / 16
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = getPt(s, off+16*i)
	}
	return pts
}
