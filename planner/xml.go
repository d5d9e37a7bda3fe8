package planner

import (
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The SQL/XML expressions (PostgreSQL's transformXmlExpr and
// transformXmlSerialize): each is a call of one of exec/funcs' xml Fns
// over its analyzed arguments.

var tXML = exec.T{OID: exec.OIDXML, Typmod: -1}

func (a *analyzer) xmlExpr(x *pg.XmlExpr, sc *scope) (exec.Expr, error) {
	args := func(nodes []*pg.Node, t exec.T, what string) ([]exec.Expr, error) {
		var out []exec.Expr
		for _, n := range nodes {
			e, err := a.expr(n, sc)
			if err != nil {
				return nil, err
			}
			if t.OID != 0 {
				e, err = a.coerce(e, t, what, ExprLocation(n))
			} else if e.Type().OID == exec.OIDUnknown {
				e, err = a.coerce(e, exec.TText, "", ExprLocation(n))
			}
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	call := func(name string, fn exec.Fn, in []exec.Expr, strict bool, t exec.T) exec.Expr {
		return &exec.Call{Name: name, Fn: fn, Args: in, Strict: strict, T: t}
	}
	switch x.Op {
	case pg.XmlExprOp_IS_XMLCONCAT:
		in, err := args(x.Args, tXML, "argument of XMLCONCAT")
		if err != nil {
			return nil, err
		}
		return call("xmlconcat", funcs.XMLConcat, in, false, tXML), nil
	case pg.XmlExprOp_IS_XMLELEMENT, pg.XmlExprOp_IS_XMLFOREST:
		forest := x.Op == pg.XmlExprOp_IS_XMLFOREST
		var names []string
		var values []*pg.Node
		seen := map[string]bool{}
		for _, n := range x.NamedArgs {
			rt := n.GetResTarget()
			name := rt.Name
			if name == "" {
				if rt.Val.GetColumnRef() == nil {
					what := "attribute"
					if forest {
						what = "element"
					}
					return nil, WithPos(pgerr.New(pgerr.SyntaxError, "unnamed XML %s value must be a column reference", what), rt.Location)
				}
				name = columnName(rt.Val)
			}
			name = types.XMLName(name, false)
			if !forest && seen[name] {
				return nil, WithPos(pgerr.New(pgerr.SyntaxError, "XML attribute name %q appears more than once", name), rt.Location)
			}
			seen[name] = true
			names = append(names, name)
			values = append(values, rt.Val)
		}
		in, err := args(append(values, x.Args...), exec.T{}, "")
		if err != nil {
			return nil, err
		}
		types := make([]exec.T, len(in))
		for i, e := range in {
			types[i] = e.Type()
		}
		if forest {
			return call("xmlforest", funcs.XMLForest(names, types), in, false, tXML), nil
		}
		return call("xmlelement", funcs.XMLElement(xmlElementName(x.Name), names, types), in, false, tXML), nil
	case pg.XmlExprOp_IS_XMLPARSE:
		in, err := args(x.Args[:1], exec.TText, "argument of XMLPARSE")
		if err != nil {
			return nil, err
		}
		return call("xmlparse", funcs.XMLParse(x.Xmloption == pg.XmlOptionType_XMLOPTION_DOCUMENT), in, true, tXML), nil
	case pg.XmlExprOp_IS_XMLPI:
		name := xmlElementName(x.Name)
		in, err := args(x.Args, exec.TText, "argument of XMLPI")
		if err != nil {
			return nil, err
		}
		return call("xmlpi", funcs.XMLPI(name, len(in) > 0), in, false, tXML), nil
	case pg.XmlExprOp_IS_XMLROOT:
		doc, err := args(x.Args[:1], tXML, "argument of XMLROOT")
		if err != nil {
			return nil, err
		}
		version, err := args(x.Args[1:2], exec.TText, "argument of XMLROOT")
		if err != nil {
			return nil, err
		}
		// The grammar's XmlStandaloneType: YES, NO, NO VALUE, OMITTED.
		standalone := map[int32]int{0: 1, 1: 0, 2: -1, 3: 2}[x.Args[2].GetAConst().GetIval().GetIval()]
		return call("xmlroot", funcs.XMLRoot(standalone), append(doc, version...), false, tXML), nil
	case pg.XmlExprOp_IS_DOCUMENT:
		in, err := args(x.Args, tXML, "argument of IS DOCUMENT")
		if err != nil {
			return nil, err
		}
		return call("is_document", funcs.XMLIsDocument, in, true, exec.TBool), nil
	}
	return nil, WithPos(pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", x.Op), x.Location)
}

// xmlElementName maps the name XMLELEMENT or XMLPI is given to an XML
// name (map_sql_identifier_to_xml_name).
func xmlElementName(name string) string { return types.XMLName(name, false) }

// xmlSerialize plans XMLSERIALIZE(DOCUMENT | CONTENT x AS type).
func (a *analyzer) xmlSerialize(x *pg.XmlSerialize, sc *scope) (exec.Expr, error) {
	e, err := a.expr(x.Expr, sc)
	if err != nil {
		return nil, err
	}
	if e, err = a.coerce(e, tXML, "argument of XMLSERIALIZE", ExprLocation(x.Expr)); err != nil {
		return nil, err
	}
	t, _, err := a.resolveType(x.TypeName)
	if err != nil {
		return nil, err
	}
	if exec.KindOf(t.OID) != exec.KindText || t.OID == exec.OIDXML {
		return nil, WithPos(pgerr.New(pgerr.CannotCoerce, "cannot cast XMLSERIALIZE result to %s", exec.FormatTypeIn(a.s.Settings(), t.OID, t.Typmod)), x.TypeName.Location)
	}
	s := &exec.Call{Name: "xmlserialize", Fn: funcs.XMLSerialize(x.Xmloption == pg.XmlOptionType_XMLOPTION_DOCUMENT), Args: []exec.Expr{e}, Strict: true, T: exec.TText}
	return a.cast(s, t, true, x.Location)
}

// xmlTable plans XMLTABLE in FROM (transformRangeTableFunc): a scan of
// funcs.XMLTable over the row expression, the document, the namespace
// URIs and the columns' paths and defaults, which may read the items to
// its left.
func (a *analyzer) xmlTable(tf *pg.RangeTableFunc, prefix *scope) (*fromItem, error) {
	lc := &correlation{outer: prefix}
	sc := &scope{corr: lc}
	saved := a.clause
	a.clause = "functions in FROM"
	defer func() { a.clause = saved }()
	arg := func(n *pg.Node, t exec.T, what string) (exec.Expr, error) {
		e, err := a.expr(n, sc)
		if err != nil {
			return nil, err
		}
		return a.coerce(e, t, what, ExprLocation(n))
	}
	rowExpr, err := arg(tf.Rowexpr, exec.TText, "argument of XMLTABLE")
	if err != nil {
		return nil, err
	}
	doc, err := arg(tf.Docexpr, tXML, "argument of XMLTABLE")
	if err != nil {
		return nil, err
	}
	args := []exec.Expr{rowExpr, doc}
	var prefixes []string
	for _, n := range tf.Namespaces {
		rt := n.GetResTarget()
		if rt.Name == "" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "DEFAULT namespace is not supported")
		}
		uri, err := arg(rt.Val, exec.TText, "namespace URI")
		if err != nil {
			return nil, err
		}
		prefixes = append(prefixes, rt.Name)
		args = append(args, uri)
	}
	var cols []funcs.XMLTableColumn
	seen := map[string]bool{}
	ordinality := false
	for _, n := range tf.Columns {
		c := n.GetRangeTableFuncCol()
		if seen[c.Colname] {
			return nil, WithPos(pgerr.New(pgerr.SyntaxError, "column name \"%s\" is not unique", c.Colname), c.Location)
		}
		seen[c.Colname] = true
		col := funcs.XMLTableColumn{Name: c.Colname, NotNull: c.IsNotNull, DefaultArg: -1}
		if c.ForOrdinality {
			if ordinality {
				return nil, WithPos(pgerr.New(pgerr.SyntaxError, "only one FOR ORDINALITY column is allowed"), c.Location)
			}
			ordinality = true
			col.Ordinality, col.T = true, exec.TInt4
			cols = append(cols, col)
			continue
		}
		if col.T, _, err = a.resolveType(c.TypeName); err != nil {
			return nil, err
		}
		path := &pg.Node{Node: &pg.Node_AConst{AConst: &pg.A_Const{Val: &pg.A_Const_Sval{Sval: &pg.String{Sval: c.Colname}}, Location: -1}}}
		if c.Colexpr != nil {
			path = c.Colexpr
		}
		e, err := arg(path, exec.TText, "column path")
		if err != nil {
			return nil, err
		}
		col.PathArg = len(args)
		args = append(args, e)
		if c.Coldefexpr != nil {
			d, err := arg(c.Coldefexpr, col.T, "DEFAULT")
			if err != nil {
				return nil, err
			}
			col.DefaultArg = len(args)
			args = append(args, d)
		}
		cols = append(cols, col)
	}
	srf := funcs.XMLTable(prefixes, cols)
	scan := &exec.FuncScan{Fn: srf, Args: args, Cols: srf.Cols}
	alias := "xmltable"
	var colnames []*pg.Node
	if tf.Alias != nil {
		alias, colnames = tf.Alias.Aliasname, tf.Alias.Colnames
		if len(colnames) > len(cols) {
			return nil, pgerr.New(pgerr.SyntaxError, "XMLTABLE function has %d columns available but %d columns specified", len(cols), len(colnames))
		}
	}
	it, err := leafItem(scan, alias, colnames, nil)
	if err != nil {
		return nil, err
	}
	it.items[0].kind = itemFunction
	lateralItem(it, lc)
	return it, nil
}
