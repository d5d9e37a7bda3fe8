package planner

import (
	"strconv"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// regCast builds a cast to or from an OID alias type; ok is false when
// neither side is one.
func (a *analyzer) regCast(e exec.Expr, t exec.T, loc int32) (exec.Expr, bool, error) {
	from := e.Type()
	s := a.s
	switch {
	case from.OID == t.OID:
		return e, true, nil
	case exec.IsRegType(t.OID) && (exec.KindOf(from.OID) == exec.KindText || from.OID == exec.OIDUnknown):
		if c, ok := e.(*exec.Const); ok {
			if c.D.IsNull() {
				return &exec.Const{D: exec.Null, T: t}, true, nil
			}
			d, err := s.RegIn(&exec.Env{Ctx: a.ctx, Txn: a.tx, Settings: s.Settings(), Session: s}, t.OID, c.D.S)
			if err != nil {
				if pe, ok := err.(*pgerr.Error); ok {
					return nil, true, WithPos(pe, loc)
				}
				return nil, true, err
			}
			return &exec.Const{D: d, T: t}, true, nil
		}
		return &exec.Call{Name: "cast", Args: []exec.Expr{e}, Strict: true, T: t, Fn: func(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
			return s.RegIn(env, t.OID, args[0].S)
		}}, true, nil
	case exec.IsRegType(t.OID) && exec.KindOf(from.OID) == exec.KindInt:
		return &exec.Call{Name: "cast", Args: []exec.Expr{e}, Strict: true, T: t, Fn: func(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
			oid := uint32(args[0].I)
			name, err := s.RegOut(env, t.OID, oid)
			return exec.DRegOID(oid, name), err
		}}, true, nil
	case exec.IsRegType(from.OID) && exec.KindOf(t.OID) == exec.KindText:
		return &exec.Call{Name: "cast", Args: []exec.Expr{e}, Strict: true, T: t, Fn: func(env *exec.Env, args []exec.Datum) (exec.Datum, error) {
			if args[0].S != "" {
				return exec.DText(args[0].S), nil
			}
			name, err := s.RegOut(env, from.OID, uint32(args[0].I))
			if name == "" {
				name = strconv.FormatInt(args[0].I, 10)
			}
			return exec.DText(name), err
		}}, true, nil
	case exec.IsRegType(from.OID) && exec.KindOf(t.OID) == exec.KindInt:
		return &exec.Call{Name: "cast", Args: []exec.Expr{e}, Strict: true, T: t, Fn: func(_ *exec.Env, args []exec.Datum) (exec.Datum, error) {
			return exec.DInt(args[0].I), nil
		}}, true, nil
	}
	return nil, false, nil
}
