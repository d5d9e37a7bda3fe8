package funcs

// The functions and operators of the geometric types point, lseg, path,
// box, polygon, line and circle (PostgreSQL's geo_ops.c): constructors
// and conversions, measures, the position operators (<<, &&, @>, ...),
// distances (<->), intersections and closest points. An operator is also
// callable by the name of its pg_proc function (box_above, dist_pb, ...).

import (
	"math"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

func dPoint(p gPoint) exec.Datum     { return exec.DGeometry(types.EncodePoint(p)) }
func dLSeg(s gLSeg) exec.Datum       { return exec.DGeometry(types.EncodeLSeg(s)) }
func dBox(b gBox) exec.Datum         { return exec.DGeometry(types.EncodeBox(b)) }
func dLine(l gLine) exec.Datum       { return exec.DGeometry(types.EncodeLine(l)) }
func dCircle(c gCircle) exec.Datum   { return exec.DGeometry(types.EncodeCircle(c)) }
func dPath(p gPath) exec.Datum       { return exec.DGeometry(types.EncodePath(p)) }
func dPolygon(p gPolygon) exec.Datum { return exec.DGeometry(types.EncodePolygon(p)) }

func aPoint(d exec.Datum) gPoint   { return types.DecodePoint(d.S) }
func aLSeg(d exec.Datum) gLSeg     { return types.DecodeLSeg(d.S) }
func aBox(d exec.Datum) gBox       { return types.DecodeBox(d.S) }
func aLine(d exec.Datum) gLine     { return types.DecodeLine(d.S) }
func aCircle(d exec.Datum) gCircle { return types.DecodeCircle(d.S) }
func aPath(d exec.Datum) gPath     { return types.DecodePath(d.S) }
func aPolygon(d exec.Datum) gPolygon {
	return types.DecodePolygon(d.S)
}

// geoFn computes a result with c, which holds its first error.
type geoFn func(c *calc, a []exec.Datum) exec.Datum

// geoError makes an error of package types a PostgreSQL error.
func geoError(err error) error {
	if te, ok := err.(*types.Error); ok {
		return pgerr.New(pgerr.Code(te.Code), "%s", te.Message)
	}
	return err
}

func registerGeometry() {
	const (
		P, S, PA, B, PG, L, C = exec.OIDPoint, exec.OIDLSeg, exec.OIDPath, exec.OIDBox, exec.OIDPolygon, exec.OIDLine, exec.OIDCircle
		F, BO, I4             = exec.OIDFloat8, exec.OIDBool, exec.OIDInt4
	)
	mk := func(name string, args []uint32, ret uint32, f geoFn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
				var c calc
				d := f(&c, a)
				if c.err != nil {
					return exec.Null, geoError(c.err)
				}
				return d, nil
			}}
	}
	// reg registers f as the operator op and the function proc (either
	// may be empty).
	reg := func(op, proc string, args []uint32, ret uint32, f geoFn) {
		if op != "" {
			exec.Register(mk(op, args, ret, f))
		}
		if proc != "" {
			exec.Register(mk(proc, args, ret, f))
		}
	}
	boolean := func(b bool) exec.Datum { return exec.DBool(b) }
	float := func(f float64) exec.Datum { return exec.DFloat(f) }
	// nanNull is a closest point, NULL when the distance is NaN.
	nanNull := func(p gPoint, d float64) exec.Datum {
		if math.IsNaN(d) {
			return exec.Null
		}
		return dPoint(p)
	}

	// Points.
	pp := func(op, proc string, f func(c *calc, a, b gPoint) bool) {
		reg(op, proc, []uint32{P, P}, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, aPoint(a[0]), aPoint(a[1]))) })
	}
	pp("<<", "point_left", func(_ *calc, a, b gPoint) bool { return fpLt(a.X, b.X) })
	pp(">>", "point_right", func(_ *calc, a, b gPoint) bool { return fpGt(a.X, b.X) })
	pp("|>>", "point_above", func(_ *calc, a, b gPoint) bool { return fpGt(a.Y, b.Y) })
	pp(">^", "", func(_ *calc, a, b gPoint) bool { return fpGt(a.Y, b.Y) })
	pp("<<|", "point_below", func(_ *calc, a, b gPoint) bool { return fpLt(a.Y, b.Y) })
	pp("<^", "", func(_ *calc, a, b gPoint) bool { return fpLt(a.Y, b.Y) })
	pp("?|", "point_vert", func(_ *calc, a, b gPoint) bool { return fpEq(a.X, b.X) })
	pp("", "isvertical", func(_ *calc, a, b gPoint) bool { return fpEq(a.X, b.X) })
	pp("?-", "point_horiz", func(_ *calc, a, b gPoint) bool { return fpEq(a.Y, b.Y) })
	pp("", "ishorizontal", func(_ *calc, a, b gPoint) bool { return fpEq(a.Y, b.Y) })
	pp("~=", "point_eq", func(_ *calc, a, b gPoint) bool { return pointEq(a, b) })
	pp("<>", "point_ne", func(_ *calc, a, b gPoint) bool { return !pointEq(a, b) })
	ppp := func(op, proc string, f func(c *calc, a, b gPoint) gPoint) {
		reg(op, proc, []uint32{P, P}, P, func(c *calc, a []exec.Datum) exec.Datum { return dPoint(f(c, aPoint(a[0]), aPoint(a[1]))) })
	}
	ppp("+", "point_add", (*calc).pointAdd)
	ppp("-", "point_sub", (*calc).pointSub)
	ppp("*", "point_mul", (*calc).pointMul)
	ppp("/", "point_div", (*calc).pointDiv)
	reg("<->", "point_distance", []uint32{P, P}, F, func(c *calc, a []exec.Datum) exec.Datum { return float(c.pointDt(aPoint(a[0]), aPoint(a[1]))) })
	reg("", "slope", []uint32{P, P}, F, func(c *calc, a []exec.Datum) exec.Datum { return float(c.pointSl(aPoint(a[0]), aPoint(a[1]))) })
	reg("", "point", []uint32{F, F}, P, func(_ *calc, a []exec.Datum) exec.Datum { return dPoint(gPoint{X: a[0].F, Y: a[1].F}) })

	// Line segments.
	reg("", "lseg", []uint32{P, P}, S, func(_ *calc, a []exec.Datum) exec.Datum {
		return dLSeg(gLSeg{P: [2]gPoint{aPoint(a[0]), aPoint(a[1])}})
	})
	lsegLen := func(c *calc, a []exec.Datum) exec.Datum { s := aLSeg(a[0]); return float(c.pointDt(s.P[0], s.P[1])) }
	reg("@-@", "lseg_length", []uint32{S}, F, lsegLen)
	reg("", "length", []uint32{S}, F, lsegLen)
	ss := func(op, proc string, f func(c *calc, a, b gLSeg) bool) {
		reg(op, proc, []uint32{S, S}, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, aLSeg(a[0]), aLSeg(a[1]))) })
	}
	ss("?#", "lseg_intersect", func(c *calc, a, b gLSeg) bool { _, ok := c.lsegInterptLseg(a, b); return ok })
	parallel := func(c *calc, a, b gLSeg) bool { return fpEq(c.lsegSl(a), c.lsegSl(b)) }
	ss("?||", "lseg_parallel", parallel)
	ss("", "isparallel", parallel)
	perp := func(c *calc, a, b gLSeg) bool { return fpEq(c.lsegSl(a), c.lsegInvsl(b)) }
	ss("?-|", "lseg_perp", perp)
	ss("", "isperp", perp)
	ss("=", "lseg_eq", func(_ *calc, a, b gLSeg) bool { return pointEq(a.P[0], b.P[0]) && pointEq(a.P[1], b.P[1]) })
	ss("<>", "lseg_ne", func(_ *calc, a, b gLSeg) bool { return !pointEq(a.P[0], b.P[0]) || !pointEq(a.P[1], b.P[1]) })
	byLen := func(cmp func(a, b float64) bool) func(c *calc, a, b gLSeg) bool {
		return func(c *calc, a, b gLSeg) bool { return cmp(c.pointDt(a.P[0], a.P[1]), c.pointDt(b.P[0], b.P[1])) }
	}
	ss("<", "lseg_lt", byLen(fpLt))
	ss("<=", "lseg_le", byLen(fpLe))
	ss(">", "lseg_gt", byLen(fpGt))
	ss(">=", "lseg_ge", byLen(fpGe))
	s1 := func(op, proc string, f func(s gLSeg) bool) {
		reg(op, proc, []uint32{S}, BO, func(_ *calc, a []exec.Datum) exec.Datum { return boolean(f(aLSeg(a[0]))) })
	}
	s1("?|", "lseg_vertical", func(s gLSeg) bool { return fpEq(s.P[0].X, s.P[1].X) })
	s1("", "isvertical", func(s gLSeg) bool { return fpEq(s.P[0].X, s.P[1].X) })
	s1("?-", "lseg_horizontal", func(s gLSeg) bool { return fpEq(s.P[0].Y, s.P[1].Y) })
	s1("", "ishorizontal", func(s gLSeg) bool { return fpEq(s.P[0].Y, s.P[1].Y) })
	reg("<->", "lseg_distance", []uint32{S, S}, F, func(c *calc, a []exec.Datum) exec.Datum {
		_, d := c.lsegCloseLseg(aLSeg(a[0]), aLSeg(a[1]))
		return float(d)
	})
	lsegCenter := func(c *calc, a []exec.Datum) exec.Datum { return dPoint(c.lsegCenter(aLSeg(a[0]))) }
	reg("@@", "lseg_center", []uint32{S}, P, lsegCenter)
	reg("", "point", []uint32{S}, P, lsegCenter)
	reg("#", "lseg_interpt", []uint32{S, S}, P, func(c *calc, a []exec.Datum) exec.Datum {
		if p, ok := c.lsegInterptLseg(aLSeg(a[0]), aLSeg(a[1])); ok {
			return dPoint(p)
		}
		return exec.Null
	})

	// Lines.
	reg("", "line", []uint32{P, P}, L, func(c *calc, a []exec.Datum) exec.Datum {
		p1, p2 := aPoint(a[0]), aPoint(a[1])
		if pointEq(p1, p2) {
			c.fail(pgerr.New(pgerr.InvalidParameterValue, "invalid line specification: must be two distinct points"))
			return exec.Null
		}
		return dLine(c.lineConstruct(p1, c.pointSl(p1, p2)))
	})
	ll := func(op, proc string, f func(c *calc, a, b gLine) bool) {
		reg(op, proc, []uint32{L, L}, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, aLine(a[0]), aLine(a[1]))) })
	}
	ll("?#", "line_intersect", func(c *calc, a, b gLine) bool { _, ok := c.lineInterpt(a, b); return ok })
	lineParallel := func(c *calc, a, b gLine) bool { _, ok := c.lineInterpt(a, b); return !ok }
	ll("?||", "line_parallel", lineParallel)
	ll("", "isparallel", lineParallel)
	ll("?-|", "line_perp", (*calc).linePerp)
	ll("", "isperp", (*calc).linePerp)
	ll("=", "line_eq", (*calc).lineEq)
	l1 := func(op, proc string, f func(l gLine) bool) {
		reg(op, proc, []uint32{L}, BO, func(_ *calc, a []exec.Datum) exec.Datum { return boolean(f(aLine(a[0]))) })
	}
	l1("?|", "line_vertical", func(l gLine) bool { return fpZero(l.B) })
	l1("", "isvertical", func(l gLine) bool { return fpZero(l.B) })
	l1("?-", "line_horizontal", func(l gLine) bool { return fpZero(l.A) })
	l1("", "ishorizontal", func(l gLine) bool { return fpZero(l.A) })
	reg("<->", "line_distance", []uint32{L, L}, F, func(c *calc, a []exec.Datum) exec.Datum { return float(c.lineDistance(aLine(a[0]), aLine(a[1]))) })
	reg("#", "line_interpt", []uint32{L, L}, P, func(c *calc, a []exec.Datum) exec.Datum {
		if p, ok := c.lineInterpt(aLine(a[0]), aLine(a[1])); ok {
			return dPoint(p)
		}
		return exec.Null
	})

	// Boxes.
	bb := func(op, proc string, f func(c *calc, a, b gBox) bool) {
		reg(op, proc, []uint32{B, B}, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, aBox(a[0]), aBox(a[1]))) })
	}
	bb("~=", "box_same", func(_ *calc, a, b gBox) bool { return pointEq(a.High, b.High) && pointEq(a.Low, b.Low) })
	bb("&&", "box_overlap", func(_ *calc, a, b gBox) bool { return boxOv(a, b) })
	bb("?#", "", func(_ *calc, a, b gBox) bool { return boxOv(a, b) })
	bb("<<", "box_left", func(_ *calc, a, b gBox) bool { return fpLt(a.High.X, b.Low.X) })
	bb("&<", "box_overleft", func(_ *calc, a, b gBox) bool { return fpLe(a.High.X, b.High.X) })
	bb(">>", "box_right", func(_ *calc, a, b gBox) bool { return fpGt(a.Low.X, b.High.X) })
	bb("&>", "box_overright", func(_ *calc, a, b gBox) bool { return fpGe(a.Low.X, b.Low.X) })
	bb("<<|", "box_below", func(_ *calc, a, b gBox) bool { return fpLt(a.High.Y, b.Low.Y) })
	bb("&<|", "box_overbelow", func(_ *calc, a, b gBox) bool { return fpLe(a.High.Y, b.High.Y) })
	bb("|>>", "box_above", func(_ *calc, a, b gBox) bool { return fpGt(a.Low.Y, b.High.Y) })
	bb("|&>", "box_overabove", func(_ *calc, a, b gBox) bool { return fpGe(a.Low.Y, b.Low.Y) })
	bb("<@", "box_contained", func(_ *calc, a, b gBox) bool { return boxContainBox(b, a) })
	bb("@>", "box_contain", func(_ *calc, a, b gBox) bool { return boxContainBox(a, b) })
	bb("<^", "box_below_eq", func(_ *calc, a, b gBox) bool { return fpLe(a.High.Y, b.Low.Y) })
	bb(">^", "box_above_eq", func(_ *calc, a, b gBox) bool { return fpGe(a.Low.Y, b.High.Y) })
	byArea := func(cmp func(a, b float64) bool) func(c *calc, a, b gBox) bool {
		return func(c *calc, a, b gBox) bool { return cmp(c.boxAr(a), c.boxAr(b)) }
	}
	bb("<", "box_lt", byArea(fpLt))
	bb(">", "box_gt", byArea(fpGt))
	bb("=", "box_eq", byArea(fpEq))
	bb("<=", "box_le", byArea(fpLe))
	bb(">=", "box_ge", byArea(fpGe))
	b1f := func(proc string, f func(c *calc, b gBox) float64) {
		reg("", proc, []uint32{B}, F, func(c *calc, a []exec.Datum) exec.Datum { return float(f(c, aBox(a[0]))) })
	}
	b1f("area", (*calc).boxAr)
	b1f("width", (*calc).boxWd)
	b1f("height", (*calc).boxHt)
	reg("<->", "box_distance", []uint32{B, B}, F, func(c *calc, a []exec.Datum) exec.Datum {
		return float(c.pointDt(c.boxCn(aBox(a[0])), c.boxCn(aBox(a[1]))))
	})
	boxCenter := func(c *calc, a []exec.Datum) exec.Datum { return dPoint(c.boxCn(aBox(a[0]))) }
	reg("@@", "box_center", []uint32{B}, P, boxCenter)
	reg("", "center", []uint32{B}, P, boxCenter)
	reg("", "point", []uint32{B}, P, boxCenter)
	reg("#", "box_intersect", []uint32{B, B}, B, func(_ *calc, a []exec.Datum) exec.Datum {
		b1, b2 := aBox(a[0]), aBox(a[1])
		if !boxOv(b1, b2) {
			return exec.Null
		}
		return dBox(gBox{
			High: gPoint{X: f8min(b1.High.X, b2.High.X), Y: f8min(b1.High.Y, b2.High.Y)},
			Low:  gPoint{X: f8max(b1.Low.X, b2.Low.X), Y: f8max(b1.Low.Y, b2.Low.Y)},
		})
	})
	diagonal := func(_ *calc, a []exec.Datum) exec.Datum {
		b := aBox(a[0])
		return dLSeg(gLSeg{P: [2]gPoint{b.High, b.Low}})
	}
	reg("", "diagonal", []uint32{B}, S, diagonal)
	reg("", "lseg", []uint32{B}, S, diagonal)
	reg("", "box", []uint32{P, P}, B, func(_ *calc, a []exec.Datum) exec.Datum { return dBox(boxConstruct(aPoint(a[0]), aPoint(a[1]))) })
	reg("", "box", []uint32{P}, B, func(_ *calc, a []exec.Datum) exec.Datum { p := aPoint(a[0]); return dBox(gBox{High: p, Low: p}) })
	reg("", "bound_box", []uint32{B, B}, B, func(_ *calc, a []exec.Datum) exec.Datum {
		b1, b2 := aBox(a[0]), aBox(a[1])
		return dBox(gBox{
			High: gPoint{X: f8max(b1.High.X, b2.High.X), Y: f8max(b1.High.Y, b2.High.Y)},
			Low:  gPoint{X: f8min(b1.Low.X, b2.Low.X), Y: f8min(b1.Low.Y, b2.Low.Y)},
		})
	})
	bp := func(op, proc string, f func(c *calc, b gBox, p gPoint) gBox) {
		reg(op, proc, []uint32{B, P}, B, func(c *calc, a []exec.Datum) exec.Datum { return dBox(f(c, aBox(a[0]), aPoint(a[1]))) })
	}
	bp("+", "box_add", func(c *calc, b gBox, p gPoint) gBox {
		return gBox{High: c.pointAdd(b.High, p), Low: c.pointAdd(b.Low, p)}
	})
	bp("-", "box_sub", func(c *calc, b gBox, p gPoint) gBox {
		return gBox{High: c.pointSub(b.High, p), Low: c.pointSub(b.Low, p)}
	})
	bp("*", "box_mul", func(c *calc, b gBox, p gPoint) gBox { return boxConstruct(c.pointMul(b.High, p), c.pointMul(b.Low, p)) })
	bp("/", "box_div", func(c *calc, b gBox, p gPoint) gBox { return boxConstruct(c.pointDiv(b.High, p), c.pointDiv(b.Low, p)) })

	// Paths.
	reg("", "area", []uint32{PA}, F, func(c *calc, a []exec.Datum) exec.Datum {
		p := aPath(a[0])
		if !p.Closed {
			return exec.Null
		}
		area := 0.0
		for i := range p.P {
			j := (i + 1) % len(p.P)
			area = c.pl(area, c.mul(p.P[i].X, p.P[j].Y))
			area = c.mi(area, c.mul(p.P[i].Y, p.P[j].X))
		}
		return float(c.div(math.Abs(area), 2))
	})
	pathN := func(_ *calc, a []exec.Datum) exec.Datum { return exec.DInt(int64(len(aPath(a[0]).P))) }
	reg("#", "path_npoints", []uint32{PA}, I4, pathN)
	reg("", "npoints", []uint32{PA}, I4, pathN)
	reg("", "isclosed", []uint32{PA}, BO, func(_ *calc, a []exec.Datum) exec.Datum { return boolean(aPath(a[0]).Closed) })
	reg("", "isopen", []uint32{PA}, BO, func(_ *calc, a []exec.Datum) exec.Datum { return boolean(!aPath(a[0]).Closed) })
	setClosed := func(closed bool) geoFn {
		return func(_ *calc, a []exec.Datum) exec.Datum {
			p := aPath(a[0])
			p.Closed = closed
			return dPath(p)
		}
	}
	reg("", "pclose", []uint32{PA}, PA, setClosed(true))
	reg("", "popen", []uint32{PA}, PA, setClosed(false))
	byCount := func(op, proc string, cmp func(a, b int) bool) {
		reg(op, proc, []uint32{PA, PA}, BO, func(_ *calc, a []exec.Datum) exec.Datum {
			return boolean(cmp(len(aPath(a[0]).P), len(aPath(a[1]).P)))
		})
	}
	byCount("<", "path_n_lt", func(a, b int) bool { return a < b })
	byCount(">", "path_n_gt", func(a, b int) bool { return a > b })
	byCount("=", "path_n_eq", func(a, b int) bool { return a == b })
	byCount("<=", "path_n_le", func(a, b int) bool { return a <= b })
	byCount(">=", "path_n_ge", func(a, b int) bool { return a >= b })
	reg("?#", "path_inter", []uint32{PA, PA}, BO, func(c *calc, a []exec.Datum) exec.Datum {
		p1, p2 := aPath(a[0]), aPath(a[1])
		if !boxOv(boundBox(p1.P), boundBox(p2.P)) {
			return boolean(false)
		}
		found := false
		pathSegments(&p1, func(s1 gLSeg) bool {
			pathSegments(&p2, func(s2 gLSeg) bool {
				_, found = c.lsegInterptLseg(s1, s2)
				return !found
			})
			return !found
		})
		return boolean(found)
	})
	reg("<->", "path_distance", []uint32{PA, PA}, F, func(c *calc, a []exec.Datum) exec.Datum {
		p1, p2 := aPath(a[0]), aPath(a[1])
		res, have := 0.0, false
		pathSegments(&p1, func(s1 gLSeg) bool {
			pathSegments(&p2, func(s2 gLSeg) bool {
				if _, d := c.lsegCloseLseg(s1, s2); !have || f8lt(d, res) {
					res, have = d, true
				}
				return true
			})
			return true
		})
		if !have {
			return exec.Null
		}
		return float(res)
	})
	pathLen := func(c *calc, a []exec.Datum) exec.Datum {
		p := aPath(a[0])
		res := 0.0
		pathSegments(&p, func(s gLSeg) bool {
			res = c.pl(res, c.pointDt(s.P[0], s.P[1]))
			return true
		})
		return float(res)
	}
	reg("@-@", "path_length", []uint32{PA}, F, pathLen)
	reg("", "length", []uint32{PA}, F, pathLen)
	reg("+", "path_add", []uint32{PA, PA}, PA, func(c *calc, a []exec.Datum) exec.Datum {
		p1, p2 := aPath(a[0]), aPath(a[1])
		if p1.Closed || p2.Closed {
			return exec.Null
		}
		if len(p1.P)+len(p2.P) > math.MaxInt32/16 {
			c.fail(pgerr.New(pgerr.ProgramLimitExceeded, "too many points requested"))
			return exec.Null
		}
		pts := make([]gPoint, 0, len(p1.P)+len(p2.P))
		return dPath(gPath{P: append(append(pts, p1.P...), p2.P...)})
	})
	pathPt := func(op, proc string, f func(c *calc, a, b gPoint) gPoint) {
		reg(op, proc, []uint32{PA, P}, PA, func(c *calc, a []exec.Datum) exec.Datum {
			p, pt := aPath(a[0]), aPoint(a[1])
			for i := range p.P {
				p.P[i] = f(c, p.P[i], pt)
			}
			return dPath(p)
		})
	}
	pathPt("+", "path_add_pt", (*calc).pointAdd)
	pathPt("-", "path_sub_pt", (*calc).pointSub)
	pathPt("*", "path_mul_pt", (*calc).pointMul)
	pathPt("/", "path_div_pt", (*calc).pointDiv)
	reg("", "polygon", []uint32{PA}, PG, func(c *calc, a []exec.Datum) exec.Datum {
		p := aPath(a[0])
		if !p.Closed {
			c.fail(pgerr.New(pgerr.InvalidParameterValue, "open path cannot be converted to polygon"))
			return exec.Null
		}
		return dPolygon(types.NewPolygon(p.P))
	})

	// Polygons.
	pgpg := func(op, proc string, f func(c *calc, a, b *gPolygon) bool) {
		reg(op, proc, []uint32{PG, PG}, BO, func(c *calc, a []exec.Datum) exec.Datum {
			p1, p2 := aPolygon(a[0]), aPolygon(a[1])
			return boolean(f(c, &p1, &p2))
		})
	}
	pgpg("<<", "poly_left", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.High.X < b.BoundBox.Low.X })
	pgpg("&<", "poly_overleft", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.High.X <= b.BoundBox.High.X })
	pgpg(">>", "poly_right", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.Low.X > b.BoundBox.High.X })
	pgpg("&>", "poly_overright", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.Low.X >= b.BoundBox.Low.X })
	pgpg("<<|", "poly_below", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.High.Y < b.BoundBox.Low.Y })
	pgpg("&<|", "poly_overbelow", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.High.Y <= b.BoundBox.High.Y })
	pgpg("|>>", "poly_above", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.Low.Y > b.BoundBox.High.Y })
	pgpg("|&>", "poly_overabove", func(_ *calc, a, b *gPolygon) bool { return a.BoundBox.Low.Y >= b.BoundBox.Low.Y })
	pgpg("~=", "poly_same", func(_ *calc, a, b *gPolygon) bool { return len(a.P) == len(b.P) && plistSame(a.P, b.P) })
	pgpg("&&", "poly_overlap", (*calc).polyOverlap)
	pgpg("@>", "poly_contain", (*calc).polyContainPoly)
	pgpg("<@", "poly_contained", func(c *calc, a, b *gPolygon) bool { return c.polyContainPoly(b, a) })
	reg("<->", "poly_distance", []uint32{PG, PG}, F, func(c *calc, a []exec.Datum) exec.Datum {
		p1, p2 := aPolygon(a[0]), aPolygon(a[1])
		if c.polyOverlap(&p1, &p2) {
			return float(0)
		}
		res, have := 0.0, false
		c1, c2 := gPath{Closed: true, P: p1.P}, gPath{Closed: true, P: p2.P}
		pathSegments(&c1, func(s1 gLSeg) bool {
			pathSegments(&c2, func(s2 gLSeg) bool {
				if _, d := c.lsegCloseLseg(s1, s2); !have || f8lt(d, res) {
					res, have = d, true
				}
				return true
			})
			return true
		})
		if !have {
			return exec.Null
		}
		return float(res)
	})
	polyN := func(_ *calc, a []exec.Datum) exec.Datum { return exec.DInt(int64(len(aPolygon(a[0]).P))) }
	reg("#", "poly_npoints", []uint32{PG}, I4, polyN)
	reg("", "npoints", []uint32{PG}, I4, polyN)
	polyCenter := func(c *calc, a []exec.Datum) exec.Datum {
		p := aPolygon(a[0])
		return dPoint(c.polyToCircle(&p).Center)
	}
	reg("@@", "poly_center", []uint32{PG}, P, polyCenter)
	reg("", "point", []uint32{PG}, P, polyCenter)
	reg("", "box", []uint32{PG}, B, func(_ *calc, a []exec.Datum) exec.Datum { return dBox(aPolygon(a[0]).BoundBox) })
	reg("", "polygon", []uint32{B}, PG, func(_ *calc, a []exec.Datum) exec.Datum {
		b := aBox(a[0])
		return dPolygon(gPolygon{P: []gPoint{b.Low, {X: b.Low.X, Y: b.High.Y}, b.High, {X: b.High.X, Y: b.Low.Y}}})
	})
	reg("", "path", []uint32{PG}, PA, func(_ *calc, a []exec.Datum) exec.Datum {
		return dPath(gPath{Closed: true, P: aPolygon(a[0]).P})
	})
	reg("", "circle", []uint32{PG}, C, func(c *calc, a []exec.Datum) exec.Datum {
		p := aPolygon(a[0])
		return dCircle(c.polyToCircle(&p))
	})

	// Circles.
	cc := func(op, proc string, f func(c *calc, a, b gCircle) bool) {
		reg(op, proc, []uint32{C, C}, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, aCircle(a[0]), aCircle(a[1]))) })
	}
	cc("~=", "circle_same", func(_ *calc, a, b gCircle) bool {
		return (math.IsNaN(a.Radius) && math.IsNaN(b.Radius) || fpEq(a.Radius, b.Radius)) && pointEq(a.Center, b.Center)
	})
	cc("&&", "circle_overlap", func(c *calc, a, b gCircle) bool {
		return fpLe(c.pointDt(a.Center, b.Center), c.pl(a.Radius, b.Radius))
	})
	cc("&<", "circle_overleft", func(c *calc, a, b gCircle) bool {
		return fpLe(c.pl(a.Center.X, a.Radius), c.pl(b.Center.X, b.Radius))
	})
	cc("<<", "circle_left", func(c *calc, a, b gCircle) bool {
		return fpLt(c.pl(a.Center.X, a.Radius), c.mi(b.Center.X, b.Radius))
	})
	cc(">>", "circle_right", func(c *calc, a, b gCircle) bool {
		return fpGt(c.mi(a.Center.X, a.Radius), c.pl(b.Center.X, b.Radius))
	})
	cc("&>", "circle_overright", func(c *calc, a, b gCircle) bool {
		return fpGe(c.mi(a.Center.X, a.Radius), c.mi(b.Center.X, b.Radius))
	})
	cc("<@", "circle_contained", func(c *calc, a, b gCircle) bool {
		return fpLe(c.pointDt(a.Center, b.Center), c.mi(b.Radius, a.Radius))
	})
	cc("@>", "circle_contain", func(c *calc, a, b gCircle) bool {
		return fpLe(c.pointDt(a.Center, b.Center), c.mi(a.Radius, b.Radius))
	})
	cc("<<|", "circle_below", func(c *calc, a, b gCircle) bool {
		return fpLt(c.pl(a.Center.Y, a.Radius), c.mi(b.Center.Y, b.Radius))
	})
	cc("|>>", "circle_above", func(c *calc, a, b gCircle) bool {
		return fpGt(c.mi(a.Center.Y, a.Radius), c.pl(b.Center.Y, b.Radius))
	})
	cc("&<|", "circle_overbelow", func(c *calc, a, b gCircle) bool {
		return fpLe(c.pl(a.Center.Y, a.Radius), c.pl(b.Center.Y, b.Radius))
	})
	cc("|&>", "circle_overabove", func(c *calc, a, b gCircle) bool {
		return fpGe(c.mi(a.Center.Y, a.Radius), c.mi(b.Center.Y, b.Radius))
	})
	byCircleArea := func(cmp func(a, b float64) bool) func(c *calc, a, b gCircle) bool {
		return func(c *calc, a, b gCircle) bool { return cmp(c.circleAr(a), c.circleAr(b)) }
	}
	cc("=", "circle_eq", byCircleArea(fpEq))
	cc("<>", "circle_ne", byCircleArea(fpNe))
	cc("<", "circle_lt", byCircleArea(fpLt))
	cc(">", "circle_gt", byCircleArea(fpGt))
	cc("<=", "circle_le", byCircleArea(fpLe))
	cc(">=", "circle_ge", byCircleArea(fpGe))
	cp := func(op, proc string, f func(c *calc, ci gCircle, p gPoint) gCircle) {
		reg(op, proc, []uint32{C, P}, C, func(c *calc, a []exec.Datum) exec.Datum { return dCircle(f(c, aCircle(a[0]), aPoint(a[1]))) })
	}
	cp("+", "circle_add_pt", func(c *calc, ci gCircle, p gPoint) gCircle {
		return gCircle{Center: c.pointAdd(ci.Center, p), Radius: ci.Radius}
	})
	cp("-", "circle_sub_pt", func(c *calc, ci gCircle, p gPoint) gCircle {
		return gCircle{Center: c.pointSub(ci.Center, p), Radius: ci.Radius}
	})
	cp("*", "circle_mul_pt", func(c *calc, ci gCircle, p gPoint) gCircle {
		center := c.pointMul(ci.Center, p)
		return gCircle{Center: center, Radius: c.mul(ci.Radius, c.hypot(p.X, p.Y))}
	})
	cp("/", "circle_div_pt", func(c *calc, ci gCircle, p gPoint) gCircle {
		center := c.pointDiv(ci.Center, p)
		return gCircle{Center: center, Radius: c.div(ci.Radius, c.hypot(p.X, p.Y))}
	})
	c1f := func(proc string, f func(c *calc, ci gCircle) float64) {
		reg("", proc, []uint32{C}, F, func(c *calc, a []exec.Datum) exec.Datum { return float(f(c, aCircle(a[0]))) })
	}
	c1f("area", (*calc).circleAr)
	c1f("diameter", func(c *calc, ci gCircle) float64 { return c.mul(ci.Radius, 2) })
	c1f("radius", func(_ *calc, ci gCircle) float64 { return ci.Radius })
	reg("<->", "circle_distance", []uint32{C, C}, F, func(c *calc, a []exec.Datum) exec.Datum {
		c1, c2 := aCircle(a[0]), aCircle(a[1])
		return float(nonNegative(c.mi(c.pointDt(c1.Center, c2.Center), c.pl(c1.Radius, c2.Radius))))
	})
	circleCenter := func(_ *calc, a []exec.Datum) exec.Datum { return dPoint(aCircle(a[0]).Center) }
	reg("@@", "circle_center", []uint32{C}, P, circleCenter)
	reg("", "center", []uint32{C}, P, circleCenter)
	reg("", "point", []uint32{C}, P, circleCenter)
	reg("", "circle", []uint32{P, F}, C, func(_ *calc, a []exec.Datum) exec.Datum {
		return dCircle(gCircle{Center: aPoint(a[0]), Radius: a[1].F})
	})
	reg("", "box", []uint32{C}, B, func(c *calc, a []exec.Datum) exec.Datum {
		ci := aCircle(a[0])
		delta := c.div(ci.Radius, math.Sqrt2)
		return dBox(gBox{
			High: gPoint{X: c.pl(ci.Center.X, delta), Y: c.pl(ci.Center.Y, delta)},
			Low:  gPoint{X: c.mi(ci.Center.X, delta), Y: c.mi(ci.Center.Y, delta)},
		})
	})
	reg("", "circle", []uint32{B}, C, func(c *calc, a []exec.Datum) exec.Datum {
		b := aBox(a[0])
		center := c.boxCn(b)
		return dCircle(gCircle{Center: center, Radius: c.pointDt(center, b.High)})
	})
	reg("", "polygon", []uint32{I4, C}, PG, func(c *calc, a []exec.Datum) exec.Datum {
		p := c.circlePoly(a[0].I, aCircle(a[1]))
		if c.err != nil {
			return exec.Null
		}
		return dPolygon(p)
	})
	reg("", "polygon", []uint32{C}, PG, func(c *calc, a []exec.Datum) exec.Datum {
		p := c.circlePoly(12, aCircle(a[0]))
		if c.err != nil {
			return exec.Null
		}
		return dPolygon(p)
	})

	// Between types: distances, closest points, containment.
	dist := func(proc string, args []uint32, f func(c *calc, a, b exec.Datum) float64) {
		reg("<->", proc, args, F, func(c *calc, a []exec.Datum) exec.Datum { return float(f(c, a[0], a[1])) })
	}
	ptLine := func(c *calc, p, l exec.Datum) float64 { _, d := c.lineClosept(aLine(l), aPoint(p)); return d }
	dist("dist_pl", []uint32{P, L}, ptLine)
	dist("dist_lp", []uint32{L, P}, func(c *calc, l, p exec.Datum) float64 { return ptLine(c, p, l) })
	ptSeg := func(c *calc, p, s exec.Datum) float64 { _, d := c.lsegClosePoint(aLSeg(s), aPoint(p)); return d }
	dist("dist_ps", []uint32{P, S}, ptSeg)
	dist("dist_sp", []uint32{S, P}, func(c *calc, s, p exec.Datum) float64 { return ptSeg(c, p, s) })
	ptPath := func(c *calc, p, pa exec.Datum) float64 { path := aPath(pa); return c.distPpath(aPoint(p), &path) }
	dist("dist_ppath", []uint32{P, PA}, ptPath)
	dist("dist_pathp", []uint32{PA, P}, func(c *calc, pa, p exec.Datum) float64 { return ptPath(c, p, pa) })
	ptBox := func(c *calc, p, b exec.Datum) float64 { _, d := c.boxClosePoint(aBox(b), aPoint(p)); return d }
	dist("dist_pb", []uint32{P, B}, ptBox)
	dist("dist_bp", []uint32{B, P}, func(c *calc, b, p exec.Datum) float64 { return ptBox(c, p, b) })
	segLine := func(c *calc, s, l exec.Datum) float64 { _, d := c.lsegCloseLine(aLSeg(s), aLine(l)); return d }
	dist("dist_sl", []uint32{S, L}, segLine)
	dist("dist_ls", []uint32{L, S}, func(c *calc, l, s exec.Datum) float64 { return segLine(c, s, l) })
	segBox := func(c *calc, s, b exec.Datum) float64 { _, d := c.boxCloseLseg(aBox(b), aLSeg(s), false); return d }
	dist("dist_sb", []uint32{S, B}, segBox)
	dist("dist_bs", []uint32{B, S}, func(c *calc, b, s exec.Datum) float64 { return segBox(c, s, b) })
	circlePoly := func(c *calc, ci, pg exec.Datum) float64 {
		circle, poly := aCircle(ci), aPolygon(pg)
		return nonNegative(c.mi(c.distPpoly(circle.Center, &poly), circle.Radius))
	}
	dist("dist_cpoly", []uint32{C, PG}, circlePoly)
	dist("dist_polyc", []uint32{PG, C}, func(c *calc, pg, ci exec.Datum) float64 { return circlePoly(c, ci, pg) })
	ptPoly := func(c *calc, p, pg exec.Datum) float64 { poly := aPolygon(pg); return c.distPpoly(aPoint(p), &poly) }
	dist("dist_ppoly", []uint32{P, PG}, ptPoly)
	dist("dist_polyp", []uint32{PG, P}, func(c *calc, pg, p exec.Datum) float64 { return ptPoly(c, p, pg) })
	ptCircle := func(c *calc, p, ci exec.Datum) float64 {
		circle := aCircle(ci)
		return nonNegative(c.mi(c.pointDt(aPoint(p), circle.Center), circle.Radius))
	}
	dist("dist_pc", []uint32{P, C}, ptCircle)
	dist("dist_cpoint", []uint32{C, P}, func(c *calc, ci, p exec.Datum) float64 { return ptCircle(c, p, ci) })

	reg("##", "close_pl", []uint32{P, L}, P, func(c *calc, a []exec.Datum) exec.Datum {
		return nanNull(c.lineClosept(aLine(a[1]), aPoint(a[0])))
	})
	reg("##", "close_ps", []uint32{P, S}, P, func(c *calc, a []exec.Datum) exec.Datum {
		return nanNull(c.lsegClosePoint(aLSeg(a[1]), aPoint(a[0])))
	})
	reg("##", "close_pb", []uint32{P, B}, P, func(c *calc, a []exec.Datum) exec.Datum {
		return nanNull(c.boxClosePoint(aBox(a[1]), aPoint(a[0])))
	})
	reg("##", "close_lseg", []uint32{S, S}, P, func(c *calc, a []exec.Datum) exec.Datum {
		l1, l2 := aLSeg(a[0]), aLSeg(a[1])
		if c.lsegSl(l1) == c.lsegSl(l2) {
			return exec.Null
		}
		return nanNull(c.lsegCloseLseg(l2, l1))
	})
	reg("##", "close_sb", []uint32{S, B}, P, func(c *calc, a []exec.Datum) exec.Datum {
		return nanNull(c.boxCloseLseg(aBox(a[1]), aLSeg(a[0]), true))
	})
	reg("##", "close_ls", []uint32{L, S}, P, func(c *calc, a []exec.Datum) exec.Datum {
		l, s := aLine(a[0]), aLSeg(a[1])
		if c.lsegSl(s) == c.lineSl(l) {
			return exec.Null
		}
		return nanNull(c.lsegCloseLine(s, l))
	})

	on := func(op, proc string, args []uint32, f func(c *calc, a, b exec.Datum) bool) {
		reg(op, proc, args, BO, func(c *calc, a []exec.Datum) exec.Datum { return boolean(f(c, a[0], a[1])) })
	}
	on("<@", "on_pl", []uint32{P, L}, func(c *calc, p, l exec.Datum) bool { return c.lineContainPoint(aLine(l), aPoint(p)) })
	on("<@", "on_ps", []uint32{P, S}, func(c *calc, p, s exec.Datum) bool { return c.lsegContainPoint(aLSeg(s), aPoint(p)) })
	on("<@", "on_pb", []uint32{P, B}, func(_ *calc, p, b exec.Datum) bool { return boxContainPoint(aBox(b), aPoint(p)) })
	on("@>", "box_contain_pt", []uint32{B, P}, func(_ *calc, b, p exec.Datum) bool { return boxContainPoint(aBox(b), aPoint(p)) })
	onPath := func(c *calc, p, pa exec.Datum) bool { path := aPath(pa); return c.onPpath(aPoint(p), &path) }
	on("<@", "on_ppath", []uint32{P, PA}, onPath)
	on("@>", "path_contain_pt", []uint32{PA, P}, func(c *calc, pa, p exec.Datum) bool { return onPath(c, p, pa) })
	on("<@", "on_sl", []uint32{S, L}, func(c *calc, s, l exec.Datum) bool {
		seg, line := aLSeg(s), aLine(l)
		return c.lineContainPoint(line, seg.P[0]) && c.lineContainPoint(line, seg.P[1])
	})
	on("<@", "on_sb", []uint32{S, B}, func(_ *calc, s, b exec.Datum) bool {
		seg, box := aLSeg(s), aBox(b)
		return boxContainPoint(box, seg.P[0]) && boxContainPoint(box, seg.P[1])
	})
	on("?#", "inter_sl", []uint32{S, L}, func(c *calc, s, l exec.Datum) bool { _, ok := c.lsegInterptLine(aLSeg(s), aLine(l)); return ok })
	on("?#", "inter_sb", []uint32{S, B}, func(c *calc, s, b exec.Datum) bool {
		_, ok := c.boxInterptLseg(aBox(b), aLSeg(s), false)
		return ok
	})
	on("?#", "inter_lb", []uint32{L, B}, func(c *calc, l, b exec.Datum) bool { return c.interLB(aLine(l), aBox(b)) })
	inPoly := func(c *calc, p, pg exec.Datum) bool {
		poly := aPolygon(pg)
		return c.pointInside(aPoint(p), poly.P) != 0
	}
	on("<@", "pt_contained_poly", []uint32{P, PG}, inPoly)
	on("@>", "poly_contain_pt", []uint32{PG, P}, func(c *calc, pg, p exec.Datum) bool { return inPoly(c, p, pg) })
	inCircle := func(c *calc, p, ci exec.Datum) bool {
		circle := aCircle(ci)
		return c.pointDt(circle.Center, aPoint(p)) <= circle.Radius
	}
	on("<@", "pt_contained_circle", []uint32{P, C}, inCircle)
	on("@>", "circle_contain_pt", []uint32{C, P}, func(c *calc, ci, p exec.Datum) bool { return inCircle(c, p, ci) })
}

// nonNegative is a distance of overlapping shapes: 0, not less.
func nonNegative(d float64) float64 {
	if d < 0 {
		return 0
	}
	return d
}
