package funcs

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// The xml functions of PostgreSQL's xml.c. Values are their text
// (exec/types/xml.go checks well-formedness); the SQL/XML expressions
// (XMLELEMENT, XMLFOREST, XMLPI, XMLROOT, XMLPARSE, XMLSERIALIZE, IS
// DOCUMENT, XMLCONCAT) are built by the planner from the Fns here. XPath
// 1.0 is antchfx/xpath's, over documents parsed by antchfx/xmlquery.

func registerXML() {
	X, T, B := exec.OIDXML, exec.OIDText, exec.OIDBool
	fn := func(name string, args []uint32, ret uint32, immutable bool, f exec.Fn) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: immutable, Fn: f}
	}
	wellFormed := func(document func(*exec.Env) bool) exec.Fn {
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			return exec.DBool(types.CheckXML(a[0].S, document(env)) == nil), nil
		}
	}
	exec.Register(
		fn("xmlcomment", []uint32{T}, X, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
			s := a[0].S
			if strings.Contains(s, "--") || strings.HasSuffix(s, "-") {
				return exec.Null, pgerr.New(types.CodeInvalidXMLComment, "invalid XML comment")
			}
			return exec.DText("<!--" + s + "-->"), nil
		}),
		fn("xml_is_well_formed", []uint32{T}, B, false, wellFormed(xmlDocument)),
		fn("xml_is_well_formed_document", []uint32{T}, B, true, wellFormed(func(*exec.Env) bool { return true })),
		fn("xml_is_well_formed_content", []uint32{T}, B, true, wellFormed(func(*exec.Env) bool { return false })),
		fn("text", []uint32{X}, T, true, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return exec.DText(a[0].S), nil }),
		fn("xpath", []uint32{T, X}, exec.OIDXMLArray, true, xpathFn(false)),
		fn("xpath", []uint32{T, X, exec.OIDTextArray}, exec.OIDXMLArray, true, xpathFn(false)),
		fn("xpath_exists", []uint32{T, X}, B, true, xpathFn(true)),
		fn("xpath_exists", []uint32{T, X, exec.OIDTextArray}, B, true, xpathFn(true)),
		fn("xmlexists", []uint32{T, X}, B, true, xpathFn(true)),
	)
	exec.RegisterAgg(&exec.AggFunc{Name: "xmlagg", Args: []uint32{X}, Ret: X, New: func([]exec.T) exec.Accumulator { return &xmlAggAcc{} }})
}

func xmlDocument(env *exec.Env) bool { return env.Settings != nil && env.Settings.XMLDocument }

// xmlAggAcc is xmlagg: the values concatenated as XMLCONCAT does.
type xmlAggAcc struct{ vals []string }

func (a *xmlAggAcc) Add(_ *exec.Env, args []exec.Datum) error {
	a.vals = append(a.vals, args[0].S)
	return nil
}

func (a *xmlAggAcc) Result(*exec.Env) (exec.Datum, error) {
	if len(a.vals) == 0 {
		return exec.Null, nil
	}
	return exec.DText(XMLConcatValues(a.vals)), nil
}

// XMLConcatValues concatenates xml values as XMLCONCAT (xml.c's
// xmlconcat): their declarations are dropped and one is put in front when
// all of them agree on a version, or all say whether they stand alone.
func XMLConcatValues(vals []string) string {
	var body strings.Builder
	version, versionNoValue, standalone := "", false, 1
	for _, v := range vals {
		d, n, _ := types.ParseXMLDecl(v)
		if d.Standalone == 0 && standalone == 1 {
			standalone = 0
		}
		if d.Standalone < 0 {
			standalone = -1
		}
		switch {
		case d.Version == "":
			versionNoValue = true
		case version == "":
			version = d.Version
		case d.Version != version:
			versionNoValue = true
		}
		body.WriteString(v[n:])
	}
	if !versionNoValue || standalone >= 0 {
		if versionNoValue {
			version = ""
		}
		decl, _ := types.AppendXMLDecl(nil, version, standalone)
		return string(decl) + body.String()
	}
	return body.String()
}

// XMLConcat is XMLCONCAT(x, ...): NULLs are skipped, all NULL is NULL.
func XMLConcat(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	var vals []string
	for _, d := range a {
		if !d.IsNull() {
			vals = append(vals, d.S)
		}
	}
	if len(vals) == 0 {
		return exec.Null, nil
	}
	return exec.DText(XMLConcatValues(vals)), nil
}

// XMLValue maps an SQL value to XML text as xml.c's
// map_sql_value_to_xml_value: arrays become <element> children, xml is
// kept, booleans, dates and timestamps take XML Schema's forms, bytea is
// base64 or hex (xmlbinary), and the rest is its text output, escaped
// when escape is set.
func XMLValue(env *exec.Env, t exec.T, d exec.Datum, escape bool) (string, error) {
	if exec.IsArrayType(t.OID) && d.Kind == exec.KindArray {
		et := exec.ElemType(t)
		var b strings.Builder
		for _, e := range d.Array().Elems {
			if e.IsNull() {
				continue
			}
			s, err := XMLValue(env, et, e, true)
			if err != nil {
				return "", err
			}
			b.WriteString("<element>")
			b.WriteString(s)
			b.WriteString("</element>")
		}
		return b.String(), nil
	}
	var s string
	switch t.OID {
	case exec.OIDXML:
		return d.S, nil
	case exec.OIDBool:
		s = strconv.FormatBool(d.Bool())
	case exec.OIDDate:
		if d.I == math.MinInt32 || d.I == math.MaxInt32 {
			return "", pgerr.New(pgerr.DatetimeValueOutOfRange, "date out of range").WithDetail("XML does not support infinite date values.")
		}
		s = string(types.AppendDate(nil, types.Date(d.I), nil))
	case exec.OIDTimestamp, exec.OIDTimestampTZ:
		if d.I == math.MinInt64 || d.I == math.MaxInt64 {
			return "", pgerr.New(pgerr.DatetimeValueOutOfRange, "timestamp out of range").WithDetail("XML does not support infinite timestamp values.")
		}
		s = strings.Replace(string(exec.AppendText(nil, t, d, isoSettings(env))), " ", "T", 1)
		if t.OID == exec.OIDTimestampTZ {
			if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
				s += ":00" // XML Schema's zone is ±hh:mm
			}
		}
	case exec.OIDBytea:
		if env.Settings != nil && env.Settings.XMLBinaryHex {
			s = strings.ToUpper(hex.EncodeToString([]byte(d.S)))
		} else {
			s = base64.StdEncoding.EncodeToString([]byte(d.S))
		}
	default:
		s = string(exec.AppendText(nil, t, d, env.Settings))
	}
	if escape {
		s = types.EscapeXML(s)
	}
	return s, nil
}

// isoSettings are the session's settings with DateStyle ISO, which XML's
// date and time forms start from.
func isoSettings(env *exec.Env) *exec.Settings {
	st := types.DefaultSettings
	if env.Settings != nil {
		st = *env.Settings
	}
	st.DateStyle = types.DateStyleISO
	return &st
}

// XMLElement returns XMLELEMENT(NAME name, XMLATTRIBUTES(...), content...)
// over arguments of types argTypes: the attributes' values first (named
// attrNames), then the content.
func XMLElement(name string, attrNames []string, argTypes []exec.T) exec.Fn {
	return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var b strings.Builder
		b.WriteByte('<')
		b.WriteString(name)
		for i, an := range attrNames {
			if a[i].IsNull() {
				continue
			}
			v, err := XMLValue(env, argTypes[i], a[i], false)
			if err != nil {
				return exec.Null, err
			}
			b.WriteByte(' ')
			b.WriteString(an)
			b.WriteString(`="`)
			b.WriteString(types.EscapeXMLAttr(v))
			b.WriteByte('"')
		}
		content := false
		for i := len(attrNames); i < len(a); i++ {
			if a[i].IsNull() {
				continue
			}
			v, err := XMLValue(env, argTypes[i], a[i], true)
			if err != nil {
				return exec.Null, err
			}
			if !content {
				b.WriteByte('>')
				content = true
			}
			b.WriteString(v)
		}
		if !content {
			b.WriteString("/>")
		} else {
			b.WriteString("</")
			b.WriteString(name)
			b.WriteByte('>')
		}
		return exec.DText(b.String()), nil
	}
}

// XMLForest returns XMLFOREST(value AS name, ...): an element per value
// that is not NULL; NULL when all are.
func XMLForest(names []string, argTypes []exec.T) exec.Fn {
	return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		var b strings.Builder
		any := false
		for i, d := range a {
			if d.IsNull() {
				continue
			}
			v, err := XMLValue(env, argTypes[i], d, true)
			if err != nil {
				return exec.Null, err
			}
			any = true
			b.WriteString("<" + names[i] + ">" + v + "</" + names[i] + ">")
		}
		if !any {
			return exec.Null, nil
		}
		return exec.DText(b.String()), nil
	}
}

// CheckXMLPITarget refuses the processing instruction targets XML
// reserves (xml.c's xmlpi).
func CheckXMLPITarget(target string) error {
	if strings.EqualFold(target, "xml") {
		return pgerr.New(types.CodeInvalidXMLPI, "invalid XML processing instruction").
			WithDetail("XML processing instruction target name cannot be \"%s\".", target)
	}
	return nil
}

// XMLPI returns XMLPI(NAME target [, content]).
func XMLPI(target string, hasArg bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := CheckXMLPITarget(target); err != nil {
			return exec.Null, err
		}
		if !hasArg {
			return exec.DText("<?" + target + "?>"), nil
		}
		if a[0].IsNull() {
			return exec.Null, nil
		}
		s := strings.TrimLeft(a[0].S, " \t\r\n")
		if strings.Contains(s, "?>") {
			return exec.Null, pgerr.New(types.CodeInvalidXMLPI, "invalid XML processing instruction").
				WithDetail("XML processing instruction cannot contain \"?>\".")
		}
		if s == "" {
			return exec.DText("<?" + target + "?>"), nil
		}
		return exec.DText("<?" + target + " " + s + "?>"), nil
	}
}

// XMLRoot returns XMLROOT(x, VERSION v | NO VALUE [, STANDALONE ...]):
// standalone is 1 (YES), 0 (NO), -1 (NO VALUE) or 2 (not given: kept).
func XMLRoot(standalone int) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].IsNull() {
			return exec.Null, nil
		}
		d, n, _ := types.ParseXMLDecl(a[0].S)
		version := ""
		if !a[1].IsNull() {
			version = a[1].S
		}
		sa := standalone
		if sa == 2 {
			sa = d.Standalone
		}
		decl, _ := types.AppendXMLDecl(nil, version, sa)
		return exec.DText(string(decl) + a[0].S[n:]), nil
	}
}

// XMLParse returns XMLPARSE(DOCUMENT | CONTENT text).
func XMLParse(document bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if err := types.ParseXML(a[0].S, document); err != nil {
			return exec.Null, err
		}
		return exec.DText(a[0].S), nil
	}
}

// XMLIsDocument is x IS DOCUMENT.
func XMLIsDocument(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
	return exec.DBool(types.XMLIsDocument(a[0].S)), nil
}

// XMLSerialize returns XMLSERIALIZE(DOCUMENT | CONTENT x AS text): with
// DOCUMENT, x must be one.
func XMLSerialize(document bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if document && !types.XMLIsDocument(a[0].S) {
			return exec.Null, pgerr.New(types.CodeNotAnXMLDocument, "not an XML document")
		}
		return exec.DText(a[0].S), nil
	}
}

// xpathFn is xpath(expr, doc [, namespaces]) (the matches as xml[]) and,
// with exists, xpath_exists and XMLEXISTS (whether there is a match).
func xpathFn(exists bool) exec.Fn {
	return func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		if a[0].S == "" {
			return exec.Null, pgerr.New(pgerr.DataException, "empty XPath expression")
		}
		ns := map[string]string{}
		if len(a) > 2 {
			arr := a[2].Array()
			if len(arr.Elems) > 0 && (len(arr.Dims) != 2 || arr.Dims[1] != 2) {
				return exec.Null, pgerr.New(pgerr.DataException, "invalid array for XML namespace mapping").
					WithDetail("Array must be two-dimensional with length of the second axis equal to 2.")
			}
			for i := 0; i+1 < len(arr.Elems); i += 2 {
				if arr.Elems[i].IsNull() || arr.Elems[i+1].IsNull() {
					return exec.Null, pgerr.New(pgerr.NullValueNotAllowed, "neither namespace name nor URI may be null")
				}
				ns[arr.Elems[i].S] = arr.Elems[i+1].S
			}
		}
		items, err := XPath(a[0].S, a[1].S, ns)
		if err != nil {
			return exec.Null, err
		}
		if exists {
			return exec.DBool(len(items) > 0), nil
		}
		out := make([]exec.Datum, len(items))
		for i, s := range items {
			out[i] = exec.DText(s)
		}
		return exec.NewArray(exec.OIDXML, out), nil
	}
}

// XPath evaluates an XPath 1.0 expression over the document doc, its
// prefixes bound by ns, and returns the result as xml.c's xpath does: the
// nodes of a node set serialized, or the one value a boolean, number or
// string expression gives.
func XPath(expr, doc string, ns map[string]string) ([]string, error) {
	if types.CheckXML(doc, true) != nil {
		return nil, pgerr.New(types.CodeInvalidXMLDocument, "could not parse XML document")
	}
	_, n, _ := types.ParseXMLDecl(doc)
	root, err := xmlquery.Parse(strings.NewReader(doc[n:]))
	if err != nil || badNamespace(root) {
		return nil, pgerr.New(types.CodeInvalidXMLDocument, "could not parse XML document")
	}
	var x *xpath.Expr
	if len(ns) > 0 {
		x, err = xpath.CompileWithNS(expr, ns)
	} else {
		x, err = xpath.Compile(expr)
	}
	if err != nil {
		return nil, pgerr.New(pgerr.InternalError, "invalid XPath expression")
	}
	switch v := x.Evaluate(xmlquery.CreateXPathNavigator(root)).(type) {
	case bool:
		return []string{strconv.FormatBool(v)}, nil
	case float64:
		return []string{xpathNumber(v)}, nil
	case string:
		return []string{types.EscapeXML(v)}, nil
	case *xpath.NodeIterator:
		var out []string
		for v.MoveNext() {
			nav := v.Current()
			switch nav.NodeType() {
			case xpath.AttributeNode, xpath.TextNode:
				out = append(out, types.EscapeXML(nav.Value()))
			default:
				cur, ok := nav.(*xmlquery.NodeNavigator)
				if !ok {
					continue
				}
				var b strings.Builder
				dumpXMLNode(&b, cur.Current(), true)
				out = append(out, b.String())
			}
		}
		return out, nil
	}
	return nil, nil
}

// xpathNumber formats an XPath number as libxml's
// xmlXPathCastNumberToString.
func xpathNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// dumpXMLNode serializes n as libxml's xmlNodeDump of a copy of it: an
// element taken out of its document declares the namespaces it and its
// descendants use from their ancestors, after its own declarations.
func dumpXMLNode(b *strings.Builder, n *xmlquery.Node, top bool) {
	switch n.Type {
	case xmlquery.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			dumpXMLNode(b, c, false)
		}
	case xmlquery.TextNode:
		b.WriteString(types.EscapeXML(n.Data))
	case xmlquery.CharDataNode:
		b.WriteString("<![CDATA[" + n.Data + "]]>")
	case xmlquery.CommentNode:
		b.WriteString("<!--" + n.Data + "-->")
	case xmlquery.ProcessingInstruction, xmlquery.DeclarationNode:
		if n.ProcInst != nil && n.ProcInst.Inst != "" {
			b.WriteString("<?" + n.Data + " " + n.ProcInst.Inst + "?>")
		} else {
			b.WriteString("<?" + n.Data + "?>")
		}
	case xmlquery.ElementNode:
		b.WriteByte('<')
		b.WriteString(qualifiedName(n))
		for _, a := range n.Attr {
			if isNamespaceDecl(a) {
				writeAttr(b, a)
			}
		}
		if top {
			for _, d := range inheritedNamespaces(n) {
				writeAttr(b, d)
			}
		}
		for _, a := range n.Attr {
			if !isNamespaceDecl(a) {
				writeAttr(b, a)
			}
		}
		if n.FirstChild == nil {
			b.WriteString("/>")
			return
		}
		b.WriteByte('>')
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			dumpXMLNode(b, c, false)
		}
		b.WriteString("</" + qualifiedName(n) + ">")
	}
}

func qualifiedName(n *xmlquery.Node) string {
	if n.Prefix != "" {
		return n.Prefix + ":" + n.Data
	}
	return n.Data
}

func isNamespaceDecl(a xmlquery.Attr) bool {
	return a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns"
}

func writeAttr(b *strings.Builder, a xmlquery.Attr) {
	b.WriteByte(' ')
	if a.Name.Space != "" {
		b.WriteString(a.Name.Space + ":")
	}
	b.WriteString(a.Name.Local + `="` + types.EscapeXMLAttr(a.Value) + `"`)
}

// inheritedNamespaces returns the declarations, made by n's ancestors, of
// the prefixes n and its descendants use, in the order of first use.
func inheritedNamespaces(n *xmlquery.Node) []xmlquery.Attr {
	scope := map[string]string{} // prefix -> URI declared above n
	for p := n.Parent; p != nil; p = p.Parent {
		for _, a := range p.Attr {
			if !isNamespaceDecl(a) {
				continue
			}
			prefix := a.Name.Local
			if a.Name.Space == "" {
				prefix = ""
			}
			if _, ok := scope[prefix]; !ok {
				scope[prefix] = a.Value
			}
		}
	}
	var out []xmlquery.Attr
	done := map[string]bool{}
	var walk func(m *xmlquery.Node, declared map[string]bool)
	walk = func(m *xmlquery.Node, declared map[string]bool) {
		if m.Type != xmlquery.ElementNode {
			return
		}
		here, cloned := declared, false
		for _, a := range m.Attr {
			if !isNamespaceDecl(a) {
				continue
			}
			if !cloned {
				here, cloned = maps.Clone(declared), true // this element's declarations reach only its subtree
			}
			if a.Name.Space == "" {
				here[""] = true
			} else {
				here[a.Name.Local] = true
			}
		}
		use := func(prefix string) {
			uri, ok := scope[prefix]
			if !ok || here[prefix] || done[prefix] {
				return
			}
			done[prefix] = true
			if prefix == "" {
				out = append(out, xmlquery.Attr{Name: xml.Name{Local: "xmlns"}, Value: uri})
			} else {
				out = append(out, xmlquery.Attr{Name: xml.Name{Space: "xmlns", Local: prefix}, Value: uri})
			}
		}
		if m.NamespaceURI != "" || m.Prefix != "" {
			use(m.Prefix)
		}
		for _, a := range m.Attr {
			if !isNamespaceDecl(a) && a.Name.Space != "" {
				use(a.Name.Space)
			}
		}
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			walk(c, here)
		}
	}
	walk(n, map[string]bool{})
	return out
}

// XMLTableColumn is a column of XMLTABLE: FOR ORDINALITY, or a value
// found by a path (argument PathArg of the scan) with an optional
// default (argument DefaultArg, -1 for none).
type XMLTableColumn struct {
	Name       string
	T          exec.T
	Ordinality bool
	NotNull    bool
	PathArg    int
	DefaultArg int
}

// XMLTable returns the rows of XMLTABLE (xml.c's XmlTable routines): its
// arguments are the row expression, the document, the namespace URIs
// (bound to prefixes), then the columns' paths and defaults. A row per
// node the row expression finds; a column's path is evaluated at the
// row's node and its value read as the column's type.
func XMLTable(prefixes []string, cols []XMLTableColumn) *exec.SRF {
	rcols := make([]exec.ResultColumn, len(cols))
	for i, c := range cols {
		rcols[i] = exec.ResultColumn{Name: c.Name, T: c.T}
	}
	return &exec.SRF{Cols: rcols, NullArgs: true, Rows: func(env *exec.Env, a []exec.Datum) ([]exec.Row, error) {
		if a[1].IsNull() {
			return nil, nil
		}
		if a[0].IsNull() {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "row path filter must not be empty string")
		}
		ns := map[string]string{}
		for i, p := range prefixes {
			ns[p] = a[2+i].S
		}
		compile := func(expr string) (*xpath.Expr, error) {
			if expr == "" {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "column path filter must not be empty string")
			}
			x, err := xpath.CompileWithNS(expr, ns)
			if err != nil {
				return nil, pgerr.New(pgerr.InternalError, "invalid XPath expression")
			}
			return x, nil
		}
		if a[0].S == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "row path filter must not be empty string")
		}
		rowExpr, err := compile(a[0].S)
		if err != nil {
			return nil, err
		}
		colExprs := make([]*xpath.Expr, len(cols))
		for i, c := range cols {
			if c.Ordinality {
				continue
			}
			if a[c.PathArg].IsNull() {
				return nil, pgerr.New(pgerr.NullValueNotAllowed, "column filter expression must not be null").WithDetail("Filter for column \"%s\" is null.", c.Name)
			}
			if colExprs[i], err = compile(a[c.PathArg].S); err != nil {
				return nil, err
			}
		}
		_, n, _ := types.ParseXMLDecl(a[1].S)
		root, err := xmlquery.Parse(strings.NewReader(a[1].S[n:]))
		if err != nil {
			return nil, pgerr.New(types.CodeInvalidXMLContent, "could not parse XML document")
		}
		it, ok := rowExpr.Evaluate(xmlquery.CreateXPathNavigator(root)).(*xpath.NodeIterator)
		if !ok {
			return nil, pgerr.New(pgerr.DataException, "XPath expression for a row must return a node set")
		}
		var rows []exec.Row
		for ord := int64(1); it.MoveNext(); ord++ {
			row := make(exec.Row, len(cols))
			for i, c := range cols {
				if c.Ordinality {
					row[i] = exec.DInt(ord)
					continue
				}
				s, found, err := xmlTableValue(colExprs[i], it.Current().Copy(), c.T.OID == exec.OIDXML)
				if err != nil {
					return nil, err
				}
				switch {
				case found:
					if row[i], err = exec.ParseText(c.T, s, env.Settings); err != nil {
						return nil, err
					}
				case c.DefaultArg >= 0:
					row[i] = a[c.DefaultArg]
				}
				if row[i].IsNull() && c.NotNull {
					return nil, pgerr.New(pgerr.NotNullViolation, "null is not allowed in column \"%s\"", c.Name)
				}
			}
			rows = append(rows, row)
		}
		return rows, nil
	}}
}

// xmlTableValue evaluates a column's path at a row's node: the text of the
// node it finds (serialized when the column is xml, where several nodes
// are concatenated), or the value of a scalar expression.
func xmlTableValue(x *xpath.Expr, nav xpath.NodeNavigator, asXML bool) (string, bool, error) {
	switch v := x.Evaluate(nav).(type) {
	case bool:
		return strconv.FormatBool(v), true, nil
	case float64:
		return xpathNumber(v), true, nil
	case string:
		if asXML {
			return types.EscapeXML(v), true, nil
		}
		return v, true, nil
	case *xpath.NodeIterator:
		var parts []string
		for v.MoveNext() {
			cur := v.Current()
			if !asXML {
				parts = append(parts, cur.Value())
				continue
			}
			switch cur.NodeType() {
			case xpath.AttributeNode, xpath.TextNode:
				parts = append(parts, types.EscapeXML(cur.Value()))
			default:
				if qn, ok := cur.(*xmlquery.NodeNavigator); ok {
					var b strings.Builder
					dumpXMLNode(&b, qn.Current(), true)
					parts = append(parts, b.String())
				}
			}
		}
		if len(parts) == 0 {
			return "", false, nil
		}
		if len(parts) > 1 && !asXML {
			return "", false, pgerr.New(pgerr.CardinalityViolation, "more than one value returned by column XPath expression")
		}
		return strings.Join(parts, ""), true, nil
	}
	return "", false, nil
}

// badNamespace reports a namespace declaration whose value cannot be a
// URI reference, which libxml refuses when it parses for XPath.
func badNamespace(n *xmlquery.Node) bool {
	for c := n; c != nil; c = c.NextSibling {
		for _, a := range c.Attr {
			if isNamespaceDecl(a) && strings.ContainsAny(a.Value, "<>\"{}|^` ") {
				return true
			}
		}
		if c.FirstChild != nil && badNamespace(c.FirstChild) {
			return true
		}
	}
	return false
}
