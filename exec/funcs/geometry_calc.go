package funcs

// The arithmetic of the geometric types, after PostgreSQL's geo_ops.c: its
// fuzzy comparisons within EPSILON, its float8 operations that fail on
// overflow, and the internal routines (closest points, intersections,
// containment) the SQL functions and operators of geometry.go are made of.
// A calc carries the first error of a computation, so that the routines
// read as the C code does and a caller checks once at the end.

import (
	"math"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

type (
	gPoint   = types.Point
	gLSeg    = types.LSeg
	gBox     = types.Box
	gLine    = types.Line
	gCircle  = types.Circle
	gPath    = types.Path
	gPolygon = types.Polygon
)

// epsilon is geo_decls.h's EPSILON.
const epsilon = 1.0e-06

func fpZero(a float64) bool  { return math.Abs(a) <= epsilon }
func fpEq(a, b float64) bool { return a == b || math.Abs(a-b) <= epsilon }
func fpNe(a, b float64) bool { return a != b && math.Abs(a-b) > epsilon }
func fpLt(a, b float64) bool { return a+epsilon < b }
func fpLe(a, b float64) bool { return a <= b+epsilon }
func fpGt(a, b float64) bool { return a > b+epsilon }
func fpGe(a, b float64) bool { return a+epsilon >= b }

// f8lt and f8gt are float8_lt and float8_gt, in which NaN is above all.
func f8lt(a, b float64) bool { return !math.IsNaN(a) && (math.IsNaN(b) || a < b) }
func f8gt(a, b float64) bool { return !math.IsNaN(b) && (math.IsNaN(a) || a > b) }

func f8min(a, b float64) float64 {
	if f8lt(a, b) {
		return a
	}
	return b
}

func f8max(a, b float64) float64 {
	if f8gt(a, b) {
		return a
	}
	return b
}

// calc computes with float8's checked arithmetic, keeping the first error.
type calc struct{ err error }

func (c *calc) keep(v float64, err error) float64 {
	if err != nil && c.err == nil {
		c.err = err
	}
	return v
}

func (c *calc) pl(a, b float64) float64  { return c.keep(types.Float8Pl(a, b)) }
func (c *calc) mi(a, b float64) float64  { return c.keep(types.Float8Mi(a, b)) }
func (c *calc) mul(a, b float64) float64 { return c.keep(types.Float8Mul(a, b)) }
func (c *calc) div(a, b float64) float64 { return c.keep(types.Float8Div(a, b)) }

// fail records err unless an error is already kept.
func (c *calc) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// hypot is pg_hypot: no overflow unless the result is out of range.
func (c *calc) hypot(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN()
	}
	x, y = math.Abs(x), math.Abs(y)
	if x < y {
		x, y = y, x
	}
	if y == 0 {
		return x
	}
	yx := y / x
	r := x * math.Sqrt(1+yx*yx)
	if math.IsInf(r, 0) {
		c.fail(pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow"))
	}
	if r == 0 {
		c.fail(pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow"))
	}
	return r
}

// Points.

func (c *calc) pointDt(a, b gPoint) float64 { return c.hypot(c.mi(a.X, b.X), c.mi(a.Y, b.Y)) }

func (c *calc) pointSl(a, b gPoint) float64 {
	if fpEq(a.X, b.X) {
		return math.Inf(1)
	}
	if fpEq(a.Y, b.Y) {
		return 0
	}
	return c.div(c.mi(a.Y, b.Y), c.mi(a.X, b.X))
}

func (c *calc) pointInvsl(a, b gPoint) float64 {
	if fpEq(a.X, b.X) {
		return 0
	}
	if fpEq(a.Y, b.Y) {
		return math.Inf(1)
	}
	return c.div(c.mi(a.X, b.X), c.mi(b.Y, a.Y))
}

func pointEq(a, b gPoint) bool { return types.PointEq(a, b) }

func (c *calc) pointAdd(a, b gPoint) gPoint { return gPoint{X: c.pl(a.X, b.X), Y: c.pl(a.Y, b.Y)} }
func (c *calc) pointSub(a, b gPoint) gPoint { return gPoint{X: c.mi(a.X, b.X), Y: c.mi(a.Y, b.Y)} }

// pointMul multiplies as complex numbers: a rotation and a scaling.
func (c *calc) pointMul(a, b gPoint) gPoint {
	return gPoint{X: c.mi(c.mul(a.X, b.X), c.mul(a.Y, b.Y)), Y: c.pl(c.mul(a.X, b.Y), c.mul(a.Y, b.X))}
}

func (c *calc) pointDiv(a, b gPoint) gPoint {
	div := c.pl(c.mul(b.X, b.X), c.mul(b.Y, b.Y))
	return gPoint{
		X: c.div(c.pl(c.mul(a.X, b.X), c.mul(a.Y, b.Y)), div),
		Y: c.div(c.mi(c.mul(a.Y, b.X), c.mul(a.X, b.Y)), div),
	}
}

// Lines.

// lineConstruct is line_construct: the line through p of slope m.
func (c *calc) lineConstruct(p gPoint, m float64) gLine {
	l, err := types.LineFromSlope(p, m)
	if err != nil {
		c.fail(err)
	}
	return l
}

func (c *calc) lineSl(l gLine) float64 {
	if fpZero(l.A) {
		return 0
	}
	if fpZero(l.B) {
		return math.Inf(1)
	}
	return c.div(l.A, -l.B)
}

func (c *calc) lineInvsl(l gLine) float64 {
	if fpZero(l.A) {
		return math.Inf(1)
	}
	if fpZero(l.B) {
		return 0
	}
	return c.div(l.B, l.A)
}

// lineInterpt is line_interpt_line: the point where two lines meet, or
// false for parallel (or identical) lines.
func (c *calc) lineInterpt(l1, l2 gLine) (gPoint, bool) {
	var x, y float64
	switch {
	case !fpZero(l1.B):
		if fpEq(l2.A, c.mul(l1.A, c.div(l2.B, l1.B))) {
			return gPoint{}, false
		}
		x = c.div(c.mi(c.mul(l1.B, l2.C), c.mul(l2.B, l1.C)), c.mi(c.mul(l1.A, l2.B), c.mul(l2.A, l1.B)))
		y = c.div(-c.pl(c.mul(l1.A, x), l1.C), l1.B)
	case !fpZero(l2.B):
		if fpEq(l1.A, c.mul(l2.A, c.div(l1.B, l2.B))) {
			return gPoint{}, false
		}
		x = c.div(c.mi(c.mul(l2.B, l1.C), c.mul(l1.B, l2.C)), c.mi(c.mul(l2.A, l1.B), c.mul(l1.A, l2.B)))
		y = c.div(-c.pl(c.mul(l2.A, x), l2.C), l2.B)
	default:
		return gPoint{}, false
	}
	if x == 0 {
		x = 0
	}
	if y == 0 {
		y = 0
	}
	return gPoint{X: x, Y: y}, true
}

func (c *calc) lineContainPoint(l gLine, p gPoint) bool {
	return fpZero(c.pl(c.pl(c.mul(l.A, p.X), c.mul(l.B, p.Y)), l.C))
}

// lineClosept is line_closept_point: the foot of the perpendicular from p
// and its distance, NaN when there is none.
func (c *calc) lineClosept(l gLine, p gPoint) (gPoint, float64) {
	tmp := c.lineConstruct(p, c.lineInvsl(l))
	cp, ok := c.lineInterpt(tmp, l)
	if !ok {
		return p, math.NaN()
	}
	return cp, c.pointDt(cp, p)
}

func (c *calc) lineDistance(l1, l2 gLine) float64 {
	if _, ok := c.lineInterpt(l1, l2); ok {
		return 0
	}
	ratio := 1.0
	switch {
	case !fpZero(l1.A) && !math.IsNaN(l1.A) && !fpZero(l2.A) && !math.IsNaN(l2.A):
		ratio = c.div(l1.A, l2.A)
	case !fpZero(l1.B) && !math.IsNaN(l1.B) && !fpZero(l2.B) && !math.IsNaN(l2.B):
		ratio = c.div(l1.B, l2.B)
	}
	return c.div(math.Abs(c.mi(l1.C, c.mul(ratio, l2.C))), c.hypot(l1.A, l1.B))
}

func (c *calc) lineEq(l1, l2 gLine) bool {
	if math.IsNaN(l1.A) || math.IsNaN(l1.B) || math.IsNaN(l1.C) || math.IsNaN(l2.A) || math.IsNaN(l2.B) || math.IsNaN(l2.C) {
		return f8eq(l1.A, l2.A) && f8eq(l1.B, l2.B) && f8eq(l1.C, l2.C)
	}
	ratio := 1.0
	switch {
	case !fpZero(l2.A):
		ratio = c.div(l1.A, l2.A)
	case !fpZero(l2.B):
		ratio = c.div(l1.B, l2.B)
	case !fpZero(l2.C):
		ratio = c.div(l1.C, l2.C)
	}
	return fpEq(l1.A, c.mul(ratio, l2.A)) && fpEq(l1.B, c.mul(ratio, l2.B)) && fpEq(l1.C, c.mul(ratio, l2.C))
}

func (c *calc) linePerp(l1, l2 gLine) bool {
	switch {
	case fpZero(l1.A):
		return fpZero(l2.B)
	case fpZero(l2.A):
		return fpZero(l1.B)
	case fpZero(l1.B):
		return fpZero(l2.A)
	case fpZero(l2.B):
		return fpZero(l1.A)
	}
	return fpEq(c.div(c.mul(l1.A, l2.A), c.mul(l1.B, l2.B)), -1)
}

// f8eq is float8_eq: NaN equals NaN.
func f8eq(a, b float64) bool {
	if math.IsNaN(a) {
		return math.IsNaN(b)
	}
	return !math.IsNaN(b) && a == b
}

// Line segments.

func (c *calc) lsegSl(s gLSeg) float64    { return c.pointSl(s.P[0], s.P[1]) }
func (c *calc) lsegInvsl(s gLSeg) float64 { return c.pointInvsl(s.P[0], s.P[1]) }

// lsegContainPoint tells colinearity by the triangle inequality.
func (c *calc) lsegContainPoint(s gLSeg, p gPoint) bool {
	return fpEq(c.pointDt(p, s.P[0])+c.pointDt(p, s.P[1]), c.pointDt(s.P[0], s.P[1]))
}

// lsegInterptLine is lseg_interpt_line: where the segment meets the line,
// an endpoint when it is one within EPSILON.
func (c *calc) lsegInterptLine(s gLSeg, l gLine) (gPoint, bool) {
	tmp := c.lineConstruct(s.P[0], c.lsegSl(s))
	ip, ok := c.lineInterpt(tmp, l)
	if !ok || !c.lsegContainPoint(s, ip) {
		return gPoint{}, false
	}
	switch {
	case pointEq(s.P[0], ip):
		ip = s.P[0]
	case pointEq(s.P[1], ip):
		ip = s.P[1]
	}
	return ip, true
}

// lsegInterptLseg is lseg_interpt_lseg.
func (c *calc) lsegInterptLseg(l1, l2 gLSeg) (gPoint, bool) {
	tmp := c.lineConstruct(l2.P[0], c.lsegSl(l2))
	ip, ok := c.lsegInterptLine(l1, tmp)
	if !ok || !c.lsegContainPoint(l2, ip) {
		return gPoint{}, false
	}
	return ip, true
}

// lsegClosePoint is lseg_closept_point: the point of the segment closest
// to p, and its distance.
func (c *calc) lsegClosePoint(s gLSeg, p gPoint) (gPoint, float64) {
	tmp := c.lineConstruct(p, c.pointInvsl(s.P[0], s.P[1]))
	cp, _ := c.lsegCloseLine(s, tmp)
	return cp, c.pointDt(cp, p)
}

// lsegCloseLine is lseg_closept_line.
func (c *calc) lsegCloseLine(s gLSeg, l gLine) (gPoint, float64) {
	if ip, ok := c.lsegInterptLine(s, l); ok {
		return ip, 0
	}
	_, d1 := c.lineClosept(l, s.P[0])
	_, d2 := c.lineClosept(l, s.P[1])
	if d1 < d2 {
		return s.P[0], d1
	}
	return s.P[1], d2
}

// lsegCloseLseg is lseg_closept_lseg: the point of on closest to to.
func (c *calc) lsegCloseLseg(on, to gLSeg) (gPoint, float64) {
	if ip, ok := c.lsegInterptLseg(on, to); ok {
		return ip, 0
	}
	res, dist := c.lsegClosePoint(on, to.P[0])
	if p, d := c.lsegClosePoint(on, to.P[1]); f8lt(d, dist) {
		res, dist = p, d
	}
	if _, d := c.lsegClosePoint(to, on.P[0]); f8lt(d, dist) {
		res, dist = on.P[0], d
	}
	if _, d := c.lsegClosePoint(to, on.P[1]); f8lt(d, dist) {
		res, dist = on.P[1], d
	}
	return res, dist
}

func (c *calc) lsegCenter(s gLSeg) gPoint {
	return gPoint{X: c.div(c.pl(s.P[0].X, s.P[1].X), 2), Y: c.div(c.pl(s.P[0].Y, s.P[1].Y), 2)}
}

// Boxes.

// boxConstruct is box_construct: the box with corners a and b.
func boxConstruct(a, b gPoint) gBox {
	var r gBox
	if f8gt(a.X, b.X) {
		r.High.X, r.Low.X = a.X, b.X
	} else {
		r.High.X, r.Low.X = b.X, a.X
	}
	if f8gt(a.Y, b.Y) {
		r.High.Y, r.Low.Y = a.Y, b.Y
	} else {
		r.High.Y, r.Low.Y = b.Y, a.Y
	}
	return r
}

func (c *calc) boxCn(b gBox) gPoint {
	return gPoint{X: c.div(c.pl(b.High.X, b.Low.X), 2), Y: c.div(c.pl(b.High.Y, b.Low.Y), 2)}
}

func boxOv(a, b gBox) bool {
	return fpLe(a.Low.X, b.High.X) && fpLe(b.Low.X, a.High.X) && fpLe(a.Low.Y, b.High.Y) && fpLe(b.Low.Y, a.High.Y)
}

func (c *calc) boxWd(b gBox) float64 { return c.mi(b.High.X, b.Low.X) }
func (c *calc) boxHt(b gBox) float64 { return c.mi(b.High.Y, b.Low.Y) }
func (c *calc) boxAr(b gBox) float64 { return c.mul(c.boxWd(b), c.boxHt(b)) }

func boxContainPoint(b gBox, p gPoint) bool {
	return b.High.X >= p.X && b.Low.X <= p.X && b.High.Y >= p.Y && b.Low.Y <= p.Y
}

func boxContainBox(a, b gBox) bool {
	return fpGe(a.High.X, b.High.X) && fpLe(a.Low.X, b.Low.X) && fpGe(a.High.Y, b.High.Y) && fpLe(a.Low.Y, b.Low.Y)
}

// boxSides are a box's four sides as box_closept_point walks them: the
// left (low to upper left), top (high to upper left), bottom (low to
// lower right) and right (high to lower right).
func boxSides(b gBox) [4]gLSeg {
	ul := gPoint{X: b.Low.X, Y: b.High.Y}
	lr := gPoint{X: b.High.X, Y: b.Low.Y}
	return [4]gLSeg{{P: [2]gPoint{b.Low, ul}}, {P: [2]gPoint{b.High, ul}}, {P: [2]gPoint{b.Low, lr}}, {P: [2]gPoint{b.High, lr}}}
}

// boxClosePoint is box_closept_point.
func (c *calc) boxClosePoint(b gBox, p gPoint) (gPoint, float64) {
	if boxContainPoint(b, p) {
		return p, 0
	}
	sides := boxSides(b)
	res, dist := c.lsegClosePoint(sides[0], p)
	for _, s := range sides[1:] {
		if cp, d := c.lsegClosePoint(s, p); f8lt(d, dist) {
			res, dist = cp, d
		}
	}
	return res, dist
}

// boxInterptLseg is box_interpt_lseg; want asks for the point (the
// segment's point closest to the box's center), which costs more.
func (c *calc) boxInterptLseg(b gBox, s gLSeg, want bool) (gPoint, bool) {
	lbox := gBox{
		Low:  gPoint{X: f8min(s.P[0].X, s.P[1].X), Y: f8min(s.P[0].Y, s.P[1].Y)},
		High: gPoint{X: f8max(s.P[0].X, s.P[1].X), Y: f8max(s.P[0].Y, s.P[1].Y)},
	}
	if !boxOv(lbox, b) {
		return gPoint{}, false
	}
	var res gPoint
	if want {
		res, _ = c.lsegClosePoint(s, c.boxCn(b))
	}
	if boxContainPoint(b, s.P[0]) || boxContainPoint(b, s.P[1]) {
		return res, true
	}
	for _, side := range boxSides(b) {
		if _, ok := c.lsegInterptLseg(side, s); ok {
			return res, true
		}
	}
	return res, false
}

// boxCloseLseg is box_closept_lseg.
func (c *calc) boxCloseLseg(b gBox, s gLSeg, want bool) (gPoint, float64) {
	if p, ok := c.boxInterptLseg(b, s, want); ok {
		return p, 0
	}
	sides := boxSides(b)
	res, dist := c.lsegCloseLseg(sides[0], s)
	for _, side := range sides[1:] {
		if cp, d := c.lsegCloseLseg(side, s); f8lt(d, dist) {
			res, dist = cp, d
		}
	}
	return res, dist
}

// interLB is inter_lb: does the line cross one of the box's sides?
func (c *calc) interLB(l gLine, b gBox) bool {
	p1 := b.Low
	p2 := gPoint{X: b.Low.X, Y: b.High.Y}
	if _, ok := c.lsegInterptLine(gLSeg{P: [2]gPoint{p1, p2}}, l); ok {
		return true
	}
	p1 = b.High
	if _, ok := c.lsegInterptLine(gLSeg{P: [2]gPoint{p1, p2}}, l); ok {
		return true
	}
	p2 = gPoint{X: b.High.X, Y: b.Low.Y}
	if _, ok := c.lsegInterptLine(gLSeg{P: [2]gPoint{p1, p2}}, l); ok {
		return true
	}
	p1 = b.Low
	_, ok := c.lsegInterptLine(gLSeg{P: [2]gPoint{p1, p2}}, l)
	return ok
}

// Paths and polygons.

// pointInside is point_inside: 0 outside, 1 inside, 2 on the border.
func (c *calc) pointInside(p gPoint, pts []gPoint) int {
	if len(pts) == 0 {
		return 0
	}
	x0, y0 := c.mi(pts[0].X, p.X), c.mi(pts[0].Y, p.Y)
	px, py := x0, y0
	total := 0
	for _, q := range pts[1:] {
		x, y := c.mi(q.X, p.X), c.mi(q.Y, p.Y)
		cross := c.lsegCrossing(x, y, px, py)
		if cross == pointOnPolygon {
			return 2
		}
		total += cross
		px, py = x, y
	}
	cross := c.lsegCrossing(x0, y0, px, py)
	if cross == pointOnPolygon {
		return 2
	}
	if total+cross != 0 {
		return 1
	}
	return 0
}

const pointOnPolygon = math.MaxInt32

// lsegCrossing is lseg_crossing: how the segment from (px,py) to (x,y)
// crosses the positive x axis.
func (c *calc) lsegCrossing(x, y, px, py float64) int {
	if fpZero(y) {
		switch {
		case fpZero(x):
			return pointOnPolygon
		case fpGt(x, 0):
			if fpZero(py) {
				if fpGt(px, 0) {
					return 0
				}
				return pointOnPolygon
			}
			if fpLt(py, 0) {
				return 1
			}
			return -1
		default:
			if fpZero(py) {
				if fpLt(px, 0) {
					return 0
				}
				return pointOnPolygon
			}
			return 0
		}
	}
	ySign := -1
	if fpGt(y, 0) {
		ySign = 1
	}
	switch {
	case fpZero(py):
		if fpLt(px, 0) {
			return 0
		}
		return ySign
	case ySign < 0 && fpLt(py, 0) || ySign > 0 && fpGt(py, 0):
		return 0
	}
	if fpGe(x, 0) && fpGt(px, 0) {
		return 2 * ySign
	}
	if fpLt(x, 0) && fpLe(px, 0) {
		return 0
	}
	z := c.mi(c.mul(c.mi(x, px), y), c.mul(c.mi(y, py), x))
	if fpZero(z) {
		return pointOnPolygon
	}
	if ySign < 0 && fpLt(z, 0) || ySign > 0 && fpGt(z, 0) {
		return 0
	}
	return 2 * ySign
}

// maxPolyDepth bounds the recursion of lsegInsidePoly, as PostgreSQL's
// check_stack_depth does.
const maxPolyDepth = 10000

// lsegInsidePoly is lseg_inside_poly: is the segment (a,b) in the polygon?
func (c *calc) lsegInsidePoly(a, b gPoint, poly *gPolygon, start, depth int) bool {
	if depth > maxPolyDepth {
		c.fail(pgerr.New(pgerr.StatementTooComplex, "stack depth limit exceeded"))
		return false
	}
	if c.err != nil {
		return false
	}
	n := len(poly.P)
	t := gLSeg{P: [2]gPoint{a, b}}
	var s gLSeg
	if start == 0 {
		s.P[0] = poly.P[n-1]
	} else {
		s.P[0] = poly.P[start-1]
	}
	res, intersection := true, false
	for i := start; i < n && res; i++ {
		s.P[1] = poly.P[i]
		if c.lsegContainPoint(s, t.P[0]) {
			if c.lsegContainPoint(s, t.P[1]) {
				return true
			}
			res = c.touchedLsegInsidePoly(t.P[0], t.P[1], s, poly, i+1, depth)
		} else if c.lsegContainPoint(s, t.P[1]) {
			res = c.touchedLsegInsidePoly(t.P[1], t.P[0], s, poly, i+1, depth)
		} else if ip, ok := c.lsegInterptLseg(t, s); ok {
			intersection = true
			res = c.lsegInsidePoly(t.P[0], ip, poly, i+1, depth+1)
			if res {
				res = c.lsegInsidePoly(t.P[1], ip, poly, i+1, depth+1)
			}
		}
		s.P[0] = s.P[1]
	}
	if res && !intersection {
		p := gPoint{X: c.div(c.pl(t.P[0].X, t.P[1].X), 2), Y: c.div(c.pl(t.P[0].Y, t.P[1].Y), 2)}
		res = c.pointInside(p, poly.P) != 0
	}
	return res
}

// touchedLsegInsidePoly is touched_lseg_inside_poly: a is on s, b not.
func (c *calc) touchedLsegInsidePoly(a, b gPoint, s gLSeg, poly *gPolygon, start, depth int) bool {
	t := gLSeg{P: [2]gPoint{a, b}}
	switch {
	case pointEq(a, s.P[0]):
		if c.lsegContainPoint(t, s.P[1]) {
			return c.lsegInsidePoly(b, s.P[1], poly, start, depth+1)
		}
	case pointEq(a, s.P[1]):
		if c.lsegContainPoint(t, s.P[0]) {
			return c.lsegInsidePoly(b, s.P[0], poly, start, depth+1)
		}
	case c.lsegContainPoint(t, s.P[0]):
		return c.lsegInsidePoly(b, s.P[0], poly, start, depth+1)
	case c.lsegContainPoint(t, s.P[1]):
		return c.lsegInsidePoly(b, s.P[1], poly, start, depth+1)
	}
	return true
}

// polyContainPoly is poly_contain_poly.
func (c *calc) polyContainPoly(outer, inner *gPolygon) bool {
	if len(outer.P) == 0 || len(inner.P) == 0 || !boxContainBox(outer.BoundBox, inner.BoundBox) {
		return false
	}
	prev := inner.P[len(inner.P)-1]
	for _, p := range inner.P {
		if !c.lsegInsidePoly(prev, p, outer, 0, 0) {
			return false
		}
		prev = p
	}
	return true
}

// polyOverlap is poly_overlap_internal.
func (c *calc) polyOverlap(a, b *gPolygon) bool {
	if len(a.P) == 0 || len(b.P) == 0 || !boxOv(a.BoundBox, b.BoundBox) {
		return false
	}
	sa := gLSeg{P: [2]gPoint{a.P[len(a.P)-1]}}
	for _, pa := range a.P {
		sa.P[1] = pa
		sb := gLSeg{P: [2]gPoint{b.P[len(b.P)-1]}}
		for _, pb := range b.P {
			sb.P[1] = pb
			if _, ok := c.lsegInterptLseg(sa, sb); ok {
				return true
			}
			sb.P[0] = sb.P[1]
		}
		sa.P[0] = sa.P[1]
	}
	return c.pointInside(a.P[0], b.P) != 0 || c.pointInside(b.P[0], a.P) != 0
}

// plistSame is plist_same: the same points, from any start, either way.
func plistSame(p1, p2 []gPoint) bool {
	n := len(p1)
	for i := 0; i < n; i++ {
		if !pointEq(p2[i], p1[0]) {
			continue
		}
		ii, j := 1, i+1
		for ; ii < n; ii, j = ii+1, j+1 {
			if j >= n {
				j = 0
			}
			if !pointEq(p2[j], p1[ii]) {
				break
			}
		}
		if ii == n {
			return true
		}
		ii, j = 1, i-1
		for ; ii < n; ii, j = ii+1, j-1 {
			if j < 0 {
				j = n - 1
			}
			if !pointEq(p2[j], p1[ii]) {
				break
			}
		}
		if ii == n {
			return true
		}
	}
	return false
}

// distPpoly is dist_ppoly_internal.
func (c *calc) distPpoly(p gPoint, poly *gPolygon) float64 {
	n := len(poly.P)
	if n == 0 || c.pointInside(p, poly.P) != 0 {
		return 0
	}
	_, res := c.lsegClosePoint(gLSeg{P: [2]gPoint{poly.P[0], poly.P[n-1]}}, p)
	for i := 0; i < n-1; i++ {
		if _, d := c.lsegClosePoint(gLSeg{P: [2]gPoint{poly.P[i], poly.P[i+1]}}, p); f8lt(d, res) {
			res = d
		}
	}
	return res
}

// polyToCircle is poly_to_circle: centered on the mean of the points, of
// their mean distance to it.
func (c *calc) polyToCircle(poly *gPolygon) gCircle {
	var r gCircle
	n := float64(len(poly.P))
	for _, p := range poly.P {
		r.Center = c.pointAdd(r.Center, p)
	}
	r.Center.X = c.div(r.Center.X, n)
	r.Center.Y = c.div(r.Center.Y, n)
	for _, p := range poly.P {
		r.Radius = c.pl(r.Radius, c.pointDt(p, r.Center))
	}
	r.Radius = c.div(r.Radius, n)
	return r
}

// pathSegments calls fn with each segment of a path: between successive
// points, and from the last to the first when it is closed. fn returns
// false to stop.
func pathSegments(p *gPath, fn func(s gLSeg) bool) {
	for i := range p.P {
		prev := i - 1
		if i == 0 {
			if !p.Closed {
				continue
			}
			prev = len(p.P) - 1
		}
		if !fn(gLSeg{P: [2]gPoint{p.P[prev], p.P[i]}}) {
			return
		}
	}
}

// distPpath is dist_ppath_internal.
func (c *calc) distPpath(p gPoint, path *gPath) float64 {
	res, have := 0.0, false
	pathSegments(path, func(s gLSeg) bool {
		if _, d := c.lsegClosePoint(s, p); !have || f8lt(d, res) {
			res, have = d, true
		}
		return true
	})
	return res
}

// onPpath is on_ppath.
func (c *calc) onPpath(p gPoint, path *gPath) bool {
	if path.Closed {
		return c.pointInside(p, path.P) != 0
	}
	if len(path.P) == 0 {
		return false
	}
	a := c.pointDt(p, path.P[0])
	for i := 0; i < len(path.P)-1; i++ {
		b := c.pointDt(p, path.P[i+1])
		if fpEq(c.pl(a, b), c.pointDt(path.P[i], path.P[i+1])) {
			return true
		}
		a = b
	}
	return false
}

// boundBox is the bounding box of a path's points (path_inter's).
func boundBox(pts []gPoint) gBox {
	var b gBox
	if len(pts) == 0 {
		return b
	}
	b.High, b.Low = pts[0], pts[0]
	for _, p := range pts[1:] {
		b.High.X = f8max(p.X, b.High.X)
		b.High.Y = f8max(p.Y, b.High.Y)
		b.Low.X = f8min(p.X, b.Low.X)
		b.Low.Y = f8min(p.Y, b.Low.Y)
	}
	return b
}

// Circles.

func (c *calc) circleAr(ci gCircle) float64 { return c.mul(c.mul(ci.Radius, ci.Radius), math.Pi) }

// circlePoly is circle_poly: npts points on the circle.
func (c *calc) circlePoly(npts int64, ci gCircle) gPolygon {
	if fpZero(ci.Radius) {
		c.fail(pgerr.New(pgerr.FeatureNotSupported, "cannot convert circle with radius zero to polygon"))
		return gPolygon{}
	}
	if npts < 2 {
		c.fail(pgerr.New(pgerr.InvalidParameterValue, "must request at least 2 points"))
		return gPolygon{}
	}
	// PostgreSQL's size arithmetic is in int: past it "too many points",
	// past the 1 GB allocation limit a failed allocation.
	if npts > math.MaxInt32/16 {
		c.fail(pgerr.New(pgerr.ProgramLimitExceeded, "too many points requested"))
		return gPolygon{}
	}
	if size := 40 + 16*npts; size > 0x3fffffff {
		c.fail(pgerr.New(pgerr.InternalError, "invalid memory alloc request size %d", size))
		return gPolygon{}
	}
	pts := make([]gPoint, npts)
	step := c.div(2*math.Pi, float64(npts))
	for i := range pts {
		sin, cos := sinCos(c.mul(step, float64(i)))
		pts[i] = gPoint{
			X: c.mi(ci.Center.X, c.mul(ci.Radius, cos)),
			Y: c.pl(ci.Center.Y, c.mul(ci.Radius, sin)),
		}
		if c.err != nil {
			return gPolygon{}
		}
	}
	return types.NewPolygon(pts)
}
