package plpgsql

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Signature is what the interpreter needs of a function's declaration.
type Signature struct {
	Name string
	Args []Arg
	// Declared, for a polymorphic function, lists its input types as
	// declared, Args having the actual types of the calls it is compiled
	// for; the CONTEXT of its errors names the function by them.
	Declared []exec.T
	// Returns is the result type (void, trigger, record included);
	// ReturnsSet marks SETOF and RETURNS TABLE.
	Returns    exec.T
	ReturnsSet bool
	Procedure  bool
	// Inline marks a DO block: run as a procedure, checked as a
	// function returning void.
	Inline bool
	Body   string
	// Composite, when set, reports whether a type name names a composite
	// type: a variable declared of one is a record of its fields.
	Composite func(typeName string) bool
}

// Arg is one argument of a Signature. Mode is 'i', 'o', 'b', 'v' or 't'
// as in pg_proc.proargmodes.
type Arg struct {
	Name string
	T    exec.T
	Mode byte
}

func (a Arg) isInput() bool { return a.Mode == 'i' || a.Mode == 'b' || a.Mode == 'v' }

// inputs returns the arguments a call passes, in order.
func (sig *Signature) inputs() []Arg {
	var out []Arg
	for _, a := range sig.Args {
		if a.isInput() {
			out = append(out, a)
		}
	}
	return out
}

// isComposite reports whether t is a user-defined composite type.
func isComposite(t exec.T) bool {
	cat, array := types.UserCategoryOf(types.Oid(t.OID))
	return cat == types.UserComposite && !array
}
func (a Arg) isOutput() bool { return a.Mode == 'o' || a.Mode == 'b' || a.Mode == 't' }

// IsTrigger reports whether the function is a trigger function.
func (s *Signature) IsTrigger() bool { return s.Returns.OID == OIDTrigger }

// OIDTrigger is the pseudo-type trigger.
const OIDTrigger uint32 = 2279

// Function is a compiled PL/pgSQL function. It is shared by all calls.
type Function struct {
	sig    *Signature
	datums []*datum
	body   *block
	newDno int // trigger functions: NEW and OLD, -1 otherwise
	oldDno int
	found  int // the FOUND variable
	// args maps the function's input arguments to their variables (an
	// unnamed one's is named $n).
	args []int
	// outs are the variables of the OUT arguments, in order.
	outs []int
	// aliases are the body's ALIAS FOR declarations.
	aliases []alias
	// shadowed are the variables, in the order of their declarations,
	// whose names hide an argument's or an enclosing block's variable's.
	shadowed []Shadow
}

// Shadow is a variable whose name hides an argument or a variable of an
// enclosing block: its name and the line of the body that declares it.
type Shadow struct {
	Name string
	Line int
}

// Shadowed returns the variables a block declares that hide an argument
// or a variable of an enclosing block, in the order of their
// declarations: what the shadowed_variables extra check reports when the
// function is created.
func (f *Function) Shadowed() []Shadow { return f.shadowed }

// alias is a declaration name ALIAS FOR target: target is $n (the n-th
// input argument) or a variable's name.
type alias struct {
	name, target string
	line         int
}

// datum is a variable of the function.
type datum struct {
	name    string
	line    int
	typName string // as declared; "" when the type comes from elsewhere
	t       exec.T
	record  bool // a record: NEW, OLD, record or %ROWTYPE variables
	// rowType is the table of a table%ROWTYPE variable.
	rowType string
	isConst bool
	notNull bool
	def     *expr
	// check is the constraints' check of a variable declared with a
	// domain type; checkKnown once it was looked up.
	check      func(*exec.Env, exec.Datum) error
	checkKnown bool
	// field, for a field of a record variable (NEW.x := ...), names it;
	// parent is the record's datum.
	field  string
	parent int
	// row, for an INTO or FOR target list, lists its variables.
	row []int
}

// Compile parses a function's body. Syntax errors fail with 42601, as
// PostgreSQL's check_function_bodies does at CREATE FUNCTION.
func Compile(sig *Signature) (*Function, error) {
	body, aliases := declareAliases(sig.Body)
	body, rowTypes := declareRowTypes(body, sig.Composite)
	js, err := pg.ParsePlPgSqlToJSON(createText(sig, body, bareReturnNext))
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.SyntaxError, "%s", strings.TrimSpace(err.Error()))
	}
	var top []struct {
		F struct {
			NewVarno int       `json:"new_varno"`
			OldVarno int       `json:"old_varno"`
			Datums   []rawNode `json:"datums"`
			Action   rawNode   `json:"action"`
		} `json:"PLpgSQL_function"`
	}
	if err := json.Unmarshal([]byte(js), &top); err != nil || len(top) != 1 {
		return nil, pgerr.New(pgerr.InternalError, "cannot read the PL/pgSQL parse tree of %s: %v", sig.Name, err)
	}
	tf := top[0].F
	f := &Function{sig: sig, newDno: -1, oldDno: -1, found: -1, aliases: aliases}
	for _, d := range tf.Datums {
		dt, err := decodeDatum(d)
		if err != nil {
			return nil, err
		}
		if len(rowTypes) > 0 && dt.record && dt.field == "" && dt.row == nil && dt.name == rowTypes[0].name {
			dt.rowType, dt.typName = rowTypes[0].table, rowTypes[0].table+"%ROWTYPE"
			rowTypes = rowTypes[1:]
		}
		f.datums = append(f.datums, dt)
	}
	if sig.IsTrigger() {
		f.newDno, f.oldDno = tf.NewVarno, tf.OldVarno
	}
	for i, d := range f.datums {
		if d.name == "found" && d.line == 0 {
			f.found = i
			d.t = exec.TBool
		}
	}
	used := map[int]bool{}
	for _, a := range sig.Args {
		dno := -1
		for i, d := range f.datums {
			if a.Name != "" && !used[i] && d.line == 0 && d.name == a.Name && d.field == "" && d.row == nil {
				dno = i
				break
			}
		}
		if dno < 0 && a.isInput() {
			// An unnamed input is read as $n in SQL; its variable,
			// named so, serves ALIAS FOR $n and $n%TYPE.
			dno = len(f.datums)
			f.datums = append(f.datums, &datum{name: "$" + strconv.Itoa(len(f.args)+1), parent: -1})
		}
		if dno >= 0 {
			used[dno] = true
			f.datums[dno].t = a.T
			f.datums[dno].record = a.T.OID == exec.OIDRecord || isComposite(a.T)
		}
		if a.isInput() {
			f.args = append(f.args, dno)
		}
		if a.isOutput() {
			f.outs = append(f.outs, dno)
		}
	}
	c := &compiler{f: f}
	var argNames []string
	for _, a := range sig.Args {
		if a.Name != "" {
			argNames = append(argNames, a.Name)
		}
	}
	c.scopes = [][]string{argNames}
	if f.body, err = c.block(tf.Action, 0); err != nil {
		return nil, err
	}
	return f, nil
}

// aliasDecl is a declaration name ALIAS FOR target, which pg_query's
// parser resolves and then drops (an alias is no variable of its parse
// tree), and which it cannot resolve to an unnamed argument.
var aliasDecl = regexp.MustCompile(`(?i)(^|[;\s])([a-z_][a-z0-9_$]*)\s+alias\s+for\s+(\$[0-9]+|[a-z_][a-z0-9_$]*)\s*;`)

// declareAliases removes body's ALIAS FOR declarations (keeping its line
// numbers) and returns them; Lookup resolves their names.
func declareAliases(body string) (string, []alias) {
	var out []alias
	locs := aliasDecl.FindAllStringSubmatchIndex(body, -1)
	if locs == nil {
		return body, nil
	}
	b := []byte(body)
	for _, m := range locs {
		start := m[3] // after the separator
		out = append(out, alias{
			name:   strings.ToLower(body[m[4]:m[5]]),
			target: strings.ToLower(body[m[6]:m[7]]),
			line:   strings.Count(body[:start], "\n") + 1,
		})
		for i := start; i < m[1]; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b), out
}

// rowTypeDecl is a table%ROWTYPE declaration: pg_query's parser, which
// has no catalog, makes such a variable a scalar and then refuses the
// assignment of its fields (r.x := 1). It is given a record instead,
// and the variable gets the table's columns when a call begins.
var rowTypeDecl = regexp.MustCompile(`(?i)(^|[;\s])([a-z_][a-z0-9_$]*)(\s+)((?:[a-z_][a-z0-9_$]*\.)?[a-z_][a-z0-9_$]*)\s*%\s*rowtype\b`)

type rowTypeVar struct{ name, table string }

// fieldAssign is the assignment of a record's field, r.x := ...: the
// parser refuses it for a record variable (it knows only NEW's and
// OLD's fields), so it is given r/*.x*/ := ..., an assignment of r
// whose text (which keeps the comment) names the field (assignField).
var (
	fieldAssign = regexp.MustCompile(`(?i)(^|;|\bthen|\belse|\bloop|\bbegin)(\s*)([a-z_][a-z0-9_$]*)\.([a-z_][a-z0-9_$]*)(\s*):=`)
	fieldMarker = regexp.MustCompile(`^\s*[a-zA-Z_][a-zA-Z0-9_$]*/\*\.([a-zA-Z_][a-zA-Z0-9_$]*)\*/\s*:=`)
)

// compositeDecl is a declaration of a variable of a named type, which
// for a composite type the parser treats as %ROWTYPE's (see rowTypeDecl).
var compositeDecl = regexp.MustCompile(`(?i)(^|[;\s])([a-z_][a-z0-9_$]*)(\s+)((?:[a-z_][a-z0-9_$]*\.)?[a-z_][a-z0-9_$]*)(\s*;)`)

// declareRowTypes rewrites body's %ROWTYPE declarations, and those of
// composite types (as composite tells them), as records and returns them,
// in order, and marks the assignments of records' fields.
func declareRowTypes(body string, composite func(string) bool) (string, []rowTypeVar) {
	if composite != nil {
		body = declareComposites(body, composite)
	}
	var vars []rowTypeVar
	out := rowTypeDecl.ReplaceAllStringFunc(body, func(m string) string {
		sm := rowTypeDecl.FindStringSubmatch(m)
		vars = append(vars, rowTypeVar{name: strings.ToLower(sm[2]), table: sm[4]})
		return sm[1] + sm[2] + sm[3] + "record"
	})
	out = fieldAssign.ReplaceAllString(out, "${1}${2}${3}/*.${4}*/${5}:=")
	return out, vars
}

// declareComposites spells the declarations of composite-typed variables
// in body's first DECLARE section as %ROWTYPE ones, which
// declareRowTypes reads.
func declareComposites(body string, composite func(string) bool) string {
	lower := strings.ToLower(body)
	start := strings.Index(lower, "declare")
	end := strings.Index(lower, "begin")
	if start < 0 || end < start {
		return body
	}
	section := compositeDecl.ReplaceAllStringFunc(body[start:end], func(m string) string {
		sm := compositeDecl.FindStringSubmatch(m)
		if !composite(sm[4]) {
			return m
		}
		return sm[1] + sm[2] + sm[3] + sm[4] + "%rowtype" + sm[5]
	})
	return body[:start] + section + body[end:]
}

// assignField returns the field an assignment's text marks (see
// fieldAssign), "" for none.
func assignField(e *expr) string {
	if e == nil {
		return ""
	}
	if m := fieldMarker.FindStringSubmatch(e.text); m != nil {
		return strings.ToLower(m[1])
	}
	return ""
}

// createText is the CREATE FUNCTION statement pg_query's PL/pgSQL parser
// reads: RETURNS TABLE columns become OUT arguments, which it knows.
//
// pg_query's parser does not know the OUT arguments of a set-returning
// function, and refuses their bare RETURN NEXT; it is given a NULL to
// return, which a function with OUT arguments reads as none.
func createText(sig *Signature, body string, fix *regexp.Regexp) string {
	var b strings.Builder
	b.WriteString("CREATE FUNCTION f(")
	for i, a := range sig.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		switch a.Mode {
		case 'o', 't':
			b.WriteString("OUT ")
		case 'b':
			b.WriteString("INOUT ")
		case 'v':
			b.WriteString("VARIADIC ")
		}
		if a.Name != "" {
			b.WriteString(quoteIdent(a.Name) + " ")
		}
		b.WriteString(typeText(a.T))
	}
	b.WriteString(") RETURNS ")
	if sig.ReturnsSet {
		b.WriteString("SETOF ")
	}
	switch {
	case sig.Procedure:
		b.WriteString("void")
	case sig.IsTrigger():
		b.WriteString("trigger")
	default:
		b.WriteString(typeText(sig.Returns))
	}
	tag := "$plpgsql$"
	for strings.Contains(body, tag) {
		tag = "$" + tag[1:len(tag)-1] + "x$"
	}
	if sig.ReturnsSet && sig.hasOutputs() {
		body = fix.ReplaceAllString(body, "${1} NULL;")
	}
	b.WriteString(" LANGUAGE plpgsql AS " + tag + body + tag)
	return b.String()
}

// returnNextValue finds the expression of the RETURN NEXT on line of body.
func returnNextValue(body string, line int) *expr {
	lines := strings.SplitAfter(body, "\n")
	if line < 1 || line > len(lines) {
		return nil
	}
	m := returnNextExpr.FindStringSubmatch(strings.Join(lines[line-1:], ""))
	if m == nil {
		return nil
	}
	return &expr{text: strings.TrimSpace(m[1]), line: line}
}

var returnNextExpr = regexp.MustCompile(`(?is)\breturn\s+next\s+([^;]+);`)

var bareReturnNext = regexp.MustCompile(`(?i)\b(return\s+next)\s*;`)

func (s *Signature) hasOutputs() bool {
	for _, a := range s.Args {
		if a.isOutput() {
			return true
		}
	}
	return false
}

func typeText(t exec.T) string {
	switch t.OID {
	case OIDTrigger:
		return "trigger"
	case exec.OIDRecord:
		return "record"
	case exec.OIDVoid:
		return "void"
	}
	switch cat, _ := types.UserCategoryOf(types.Oid(t.OID)); {
	case isComposite(t):
		// The parser reads the text only: it would not know a user
		// type's name, and a composite is a record to it.
		return "record"
	case cat != 0:
		return "text"
	}
	return exec.TypeName(t.OID)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// rawNode is a parse tree node: one key, the node type, and its fields.
type rawNode map[string]json.RawMessage

func (n rawNode) kind() (string, json.RawMessage) {
	for k, v := range n {
		return k, v
	}
	return "", nil
}

type jsonExpr struct {
	E *struct {
		Query string `json:"query"`
	} `json:"PLpgSQL_expr"`
}

func (j *jsonExpr) compile(line int) *expr {
	if j == nil || j.E == nil {
		return nil
	}
	return &expr{text: j.E.Query, line: line}
}

func decodeDatum(n rawNode) (*datum, error) {
	k, v := n.kind()
	switch k {
	case "PLpgSQL_var":
		var d struct {
			Refname  string `json:"refname"`
			Lineno   int    `json:"lineno"`
			Datatype struct {
				T struct {
					Typname string `json:"typname"`
				} `json:"PLpgSQL_type"`
			} `json:"datatype"`
			Isconst bool      `json:"isconst"`
			Notnull bool      `json:"notnull"`
			Default *jsonExpr `json:"default_val"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		dt := &datum{name: d.Refname, line: d.Lineno, isConst: d.Isconst, notNull: d.Notnull, def: d.Default.compile(d.Lineno), parent: -1}
		if tn := strings.TrimSpace(d.Datatype.T.Typname); tn != "UNKNOWN" {
			dt.typName = tn
			if strings.EqualFold(tn, "record") || strings.HasSuffix(strings.ToLower(tn), "%rowtype") {
				dt.record = true
			}
		}
		return dt, nil
	case "PLpgSQL_rec":
		var d struct {
			Refname string `json:"refname"`
			Lineno  int    `json:"lineno"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		return &datum{name: d.Refname, line: d.Lineno, record: true, parent: -1}, nil
	case "PLpgSQL_recfield":
		var d struct {
			Fieldname   string `json:"fieldname"`
			Recparentno int    `json:"recparentno"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		return &datum{field: d.Fieldname, parent: d.Recparentno}, nil
	case "PLpgSQL_row":
		d, err := decodeRow(v)
		if err != nil {
			return nil, err
		}
		return &datum{name: "(row)", row: d, parent: -1}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "PL/pgSQL variables of kind %s are not supported yet", k)
}

func decodeRow(v json.RawMessage) ([]int, error) {
	var d struct {
		Fields []struct {
			Varno int `json:"varno"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(v, &d); err != nil {
		return nil, err
	}
	out := make([]int, len(d.Fields))
	for i, f := range d.Fields {
		out[i] = f.Varno
	}
	return out, nil
}

// compiler turns the parse tree's statements into stmts.
type compiler struct {
	f *Function
	// scopes are the names visible in the block being compiled: the
	// arguments', then each enclosing block's declarations.
	scopes [][]string
}

// declare records the variables block b declares as a scope of the
// blocks inside it, and those that shadow an outer name.
func (c *compiler) declare(b *block) {
	var names []string
	for _, dno := range b.declared {
		name := c.f.datums[dno].name
		for _, scope := range c.scopes {
			if slices.Contains(scope, name) {
				c.f.shadowed = append(c.f.shadowed, Shadow{Name: name, Line: c.f.datums[dno].line})
				break
			}
		}
		names = append(names, name)
	}
	c.scopes = append(c.scopes, names)
}

// target resolves an INTO or FOR target: a PLpgSQL_row's variables, or
// one record's.
func (c *compiler) target(n rawNode, line int) ([]int, error) {
	k, v := n.kind()
	switch k {
	case "PLpgSQL_row":
		return decodeRow(v)
	case "PLpgSQL_rec":
		var d struct {
			Dno int `json:"dno"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		return []int{d.Dno}, nil
	case "PLpgSQL_var":
		var d struct {
			Refname string `json:"refname"`
			Lineno  int    `json:"lineno"`
		}
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, err
		}
		for i := len(c.f.datums) - 1; i >= 0; i-- {
			if dt := c.f.datums[i]; dt.name == d.Refname && dt.line == d.Lineno {
				return []int{i}, nil
			}
		}
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "PL/pgSQL target %s is not supported yet (line %d)", k, line)
}

func (c *compiler) stmts(list []rawNode, prevLine int) ([]stmt, error) {
	var out []stmt
	for _, n := range list {
		s, err := c.stmt(n, prevLine)
		if err != nil {
			return nil, err
		}
		prevLine = s.lineNo()
		out = append(out, s)
	}
	return out, nil
}

// block compiles a BEGIN ... END block; prevLine is the line of the
// statement before it, so that the variables declared between the two
// are the block's own.
func (c *compiler) block(n rawNode, prevLine int) (*block, error) {
	_, v := n.kind()
	var b struct {
		Lineno     int       `json:"lineno"`
		Label      string    `json:"label"`
		Body       []rawNode `json:"body"`
		Exceptions *struct {
			B struct {
				List []struct {
					E struct {
						Conditions []struct {
							C struct {
								Condname string `json:"condname"`
							} `json:"PLpgSQL_condition"`
						} `json:"conditions"`
						Action []rawNode `json:"action"`
					} `json:"PLpgSQL_exception"`
				} `json:"exc_list"`
			} `json:"PLpgSQL_exception_block"`
		} `json:"exceptions"`
	}
	if err := json.Unmarshal(v, &b); err != nil {
		return nil, err
	}
	out := &block{line: b.Lineno, label: b.Label}
	for i, d := range c.f.datums {
		if d.line > prevLine && d.line <= b.Lineno && d.field == "" && d.row == nil && d.typName != "" {
			out.declared = append(out.declared, i)
		}
	}
	c.declare(out)
	defer func() { c.scopes = c.scopes[:len(c.scopes)-1] }()
	var err error
	if out.body, err = c.stmts(b.Body, b.Lineno); err != nil {
		return nil, err
	}
	if b.Exceptions != nil {
		for _, h := range b.Exceptions.B.List {
			var hd handler
			for _, cond := range h.E.Conditions {
				hd.conditions = append(hd.conditions, strings.ToLower(cond.C.Condname))
			}
			if hd.body, err = c.stmts(h.E.Action, b.Lineno); err != nil {
				return nil, err
			}
			out.handlers = append(out.handlers, hd)
		}
		for i, d := range c.f.datums {
			if (d.name == "sqlstate" || d.name == "sqlerrm") && d.isConst && d.line >= b.Lineno {
				if d.name == "sqlstate" && out.sqlstate == 0 {
					out.sqlstate = i
				} else if d.name == "sqlerrm" && out.sqlerrm == 0 {
					out.sqlerrm = i
				}
			}
		}
	}
	return out, nil
}

type jsonCaseWhen struct {
	W struct {
		Lineno int       `json:"lineno"`
		Expr   *jsonExpr `json:"expr"`
		Stmts  []rawNode `json:"stmts"`
	} `json:"PLpgSQL_case_when"`
}

// stmtFields holds the fields of every statement kind the interpreter
// runs; each kind reads its own.
type stmtFields struct {
	Lineno    int       `json:"lineno"`
	Label     string    `json:"label"`
	Varno     int       `json:"varno"`
	Expr      *jsonExpr `json:"expr"`
	Cond      *jsonExpr `json:"cond"`
	ThenBody  []rawNode `json:"then_body"`
	ElseBody  []rawNode `json:"else_body"`
	ElsifList []struct {
		E struct {
			Lineno int       `json:"lineno"`
			Cond   *jsonExpr `json:"cond"`
			Stmts  []rawNode `json:"stmts"`
		} `json:"PLpgSQL_if_elsif"`
	} `json:"elsif_list"`
	Body      []rawNode      `json:"body"`
	Var       rawNode        `json:"var"`
	Lower     *jsonExpr      `json:"lower"`
	Upper     *jsonExpr      `json:"upper"`
	Step      *jsonExpr      `json:"step"`
	Reverse   bool           `json:"reverse"`
	Query     *jsonExpr      `json:"query"`
	Dynquery  *jsonExpr      `json:"dynquery"`
	IsExit    bool           `json:"is_exit"`
	Slice     int            `json:"slice"`
	TExpr     *jsonExpr      `json:"t_expr"`
	TVarno    int            `json:"t_varno"`
	WhenList  []jsonCaseWhen `json:"case_when_list"`
	HaveElse  bool           `json:"have_else"`
	ElseStmts []rawNode      `json:"else_stmts"`
	ElogLevel int            `json:"elog_level"`
	Condname  string         `json:"condname"`
	Message   string         `json:"message"`
	Params    []*jsonExpr    `json:"params"`
	Options   []struct {
		O struct {
			OptType int       `json:"opt_type"`
			Expr    *jsonExpr `json:"expr"`
		} `json:"PLpgSQL_raise_option"`
	} `json:"options"`
	Sqlstmt   *jsonExpr `json:"sqlstmt"`
	Into      bool      `json:"into"`
	Strict    bool      `json:"strict"`
	Target    rawNode   `json:"target"`
	DiagItems []struct {
		D struct {
			Kind   string `json:"kind"`
			Target int    `json:"target"`
		} `json:"PLpgSQL_diag_item"`
	} `json:"diag_items"`
	IsStacked bool `json:"is_stacked"`
}

func (c *compiler) exprs(list []*jsonExpr, line int) []*expr {
	out := make([]*expr, len(list))
	for i, e := range list {
		out[i] = e.compile(line)
	}
	return out
}

func (c *compiler) stmt(n rawNode, prevLine int) (stmt, error) {
	k, v := n.kind()
	switch k {
	case "PLpgSQL_stmt_block":
		return c.block(n, prevLine)
	case "PLpgSQL_stmt_assert":
		var a struct {
			Lineno  int       `json:"lineno"`
			Cond    *jsonExpr `json:"cond"`
			Message *jsonExpr `json:"message"`
		}
		if err := json.Unmarshal(v, &a); err != nil {
			return nil, err
		}
		return &assertStmt{line: a.Lineno, cond: a.Cond.compile(a.Lineno), message: a.Message.compile(a.Lineno)}, nil
	}
	var f stmtFields
	if err := json.Unmarshal(v, &f); err != nil {
		return nil, err
	}
	line := f.Lineno
	var err error
	switch k {
	case "PLpgSQL_stmt_assign":
		e := f.Expr.compile(line)
		return &assignStmt{line: line, dno: f.Varno, field: assignField(e), subscripts: assignSubscripts(e), value: assignValue(e)}, nil
	case "PLpgSQL_stmt_if":
		s := &ifStmt{line: line}
		s.conds = append(s.conds, f.Cond.compile(line))
		body, err := c.stmts(f.ThenBody, line)
		if err != nil {
			return nil, err
		}
		s.bodies = append(s.bodies, body)
		for _, e := range f.ElsifList {
			s.conds = append(s.conds, e.E.Cond.compile(e.E.Lineno))
			body, err := c.stmts(e.E.Stmts, e.E.Lineno)
			if err != nil {
				return nil, err
			}
			s.bodies = append(s.bodies, body)
		}
		if s.elseBody, err = c.stmts(f.ElseBody, line); err != nil {
			return nil, err
		}
		return s, nil
	case "PLpgSQL_stmt_case":
		s := &caseStmt{line: line, value: f.TExpr.compile(line), dno: f.TVarno, hasElse: f.HaveElse}
		for _, w := range f.WhenList {
			body, err := c.stmts(w.W.Stmts, w.W.Lineno)
			if err != nil {
				return nil, err
			}
			s.whens = append(s.whens, w.W.Expr.compile(w.W.Lineno))
			s.bodies = append(s.bodies, body)
		}
		if s.elseBody, err = c.stmts(f.ElseStmts, line); err != nil {
			return nil, err
		}
		return s, nil
	case "PLpgSQL_stmt_loop", "PLpgSQL_stmt_while":
		s := &loopStmt{line: line, label: f.Label, cond: f.Cond.compile(line)}
		s.body, err = c.stmts(f.Body, line)
		return s, err
	case "PLpgSQL_stmt_fori":
		target, err := c.target(f.Var, line)
		if err != nil {
			return nil, err
		}
		s := &forIntStmt{line: line, label: f.Label, dno: target[0], lower: f.Lower.compile(line), upper: f.Upper.compile(line), step: f.Step.compile(line), reverse: f.Reverse}
		c.f.datums[s.dno].t = exec.TInt4
		s.body, err = c.stmts(f.Body, line)
		return s, err
	case "PLpgSQL_stmt_fors", "PLpgSQL_stmt_dynfors":
		target, err := c.target(f.Var, line)
		if err != nil {
			return nil, err
		}
		s := &forQueryStmt{line: line, label: f.Label, target: target, query: f.Query.compile(line), dynamic: k == "PLpgSQL_stmt_dynfors", params: c.exprs(f.Params, line)}
		s.body, err = c.stmts(f.Body, line)
		return s, err
	case "PLpgSQL_stmt_foreach_a":
		s := &foreachStmt{line: line, label: f.Label, dno: f.Varno, array: f.Expr.compile(line), slice: f.Slice}
		s.body, err = c.stmts(f.Body, line)
		return s, err
	case "PLpgSQL_stmt_exit":
		return &exitStmt{line: line, exit: f.IsExit, label: f.Label, cond: f.Cond.compile(line)}, nil
	case "PLpgSQL_stmt_return":
		value := f.Expr.compile(line)
		if line != 0 {
			if err := c.checkReturn(value != nil); err != nil {
				return nil, err
			}
		}
		// The parser ends every body with a RETURN of its own, at line
		// 0: control falling off the end reaches it.
		return &returnStmt{line: line, value: value, implicit: line == 0 && value == nil}, nil
	case "PLpgSQL_stmt_return_next":
		value := f.Expr.compile(line)
		switch {
		case value != nil && c.f.sig.hasOutputs() && strings.EqualFold(value.text, "NULL"):
			value = nil // see createText
		case value == nil && !c.f.sig.hasOutputs():
			value = returnNextValue(c.f.sig.Body, line) // pg_query drops a lone variable
		}
		return &returnNextStmt{line: line, value: value}, nil
	case "PLpgSQL_stmt_return_query":
		q := f.Query.compile(line)
		dyn := q == nil
		if dyn {
			q = f.Dynquery.compile(line)
		}
		return &returnQueryStmt{line: line, query: q, dynamic: dyn, params: c.exprs(f.Params, line)}, nil
	case "PLpgSQL_stmt_raise":
		s := &raiseStmt{line: line, level: f.ElogLevel, condname: f.Condname, message: f.Message, params: c.exprs(f.Params, line)}
		for _, o := range f.Options {
			s.options = append(s.options, raiseOption{kind: o.O.OptType, value: o.O.Expr.compile(line)})
		}
		return s, nil
	case "PLpgSQL_stmt_execsql":
		s := &execStmt{line: line, query: f.Sqlstmt.compile(line), strict: f.Strict}
		if f.Into {
			if s.into, err = c.target(f.Target, line); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "PLpgSQL_stmt_dynexecute":
		s := &dynExecStmt{line: line, query: f.Query.compile(line), strict: f.Strict, params: c.exprs(f.Params, line)}
		if f.Into {
			if s.into, err = c.target(f.Target, line); err != nil {
				return nil, err
			}
		}
		return s, nil
	case "PLpgSQL_stmt_perform":
		return &performStmt{line: line, query: f.Expr.compile(line)}, nil
	case "PLpgSQL_stmt_call":
		s := &callStmt{line: line, query: f.Expr.compile(line)}
		if s.query != nil {
			s.args = callArgNames(s.query.text)
		}
		return s, nil
	case "PLpgSQL_stmt_getdiag":
		s := &getDiagStmt{line: line, stacked: f.IsStacked}
		for _, d := range f.DiagItems {
			s.items = append(s.items, diagItem{kind: d.D.Kind, dno: d.D.Target})
		}
		return s, nil
	case "PLpgSQL_stmt_commit", "PLpgSQL_stmt_rollback":
		return &unsupportedStmt{line: line, what: strings.ToUpper(strings.TrimPrefix(k, "PLpgSQL_stmt_"))}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "PL/pgSQL statement %s is not supported yet", strings.TrimPrefix(k, "PLpgSQL_"))
}

// checkReturn makes PostgreSQL's checks of a RETURN, with a value or
// not, against what the function returns (pl_gram.y's make_return_stmt):
// a set, void or OUT parameters take none, anything else one.
func (c *compiler) checkReturn(hasValue bool) error {
	sig := c.f.sig
	var msg string
	switch {
	case sig.ReturnsSet:
		if hasValue {
			return pgerr.New(pgerr.DatatypeMismatch, "RETURN cannot have a parameter in function returning set").
				WithHint("Use RETURN NEXT or RETURN QUERY.")
		}
	case sig.hasOutputs():
		msg = "RETURN cannot have a parameter in function with OUT parameters"
	case sig.Procedure && !sig.Inline:
		msg = "RETURN cannot have a parameter in a procedure"
	case sig.Procedure, sig.Returns.OID == exec.OIDVoid || sig.Returns.OID == 0:
		msg = "RETURN cannot have a parameter in function returning void"
	default:
		if !hasValue {
			return pgerr.New(pgerr.SyntaxError, "missing expression at or near \";\"")
		}
	}
	if hasValue && msg != "" {
		return pgerr.New(pgerr.DatatypeMismatch, "%s", msg)
	}
	return nil
}

// assignValue strips the target of an assignment's text ("x := a + 1"
// arrives whole): what follows the first := or = outside quotes.
func assignValue(e *expr) *expr {
	if e == nil {
		return nil
	}
	s := e.text
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			if j := strings.IndexByte(s[i+1:], '"'); j >= 0 {
				i += j + 1
			}
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ':':
			if depth == 0 && i+1 < len(s) && s[i+1] == '=' {
				return &expr{text: strings.TrimSpace(s[i+2:]), line: e.line}
			}
		case '=':
			if depth == 0 {
				return &expr{text: strings.TrimSpace(s[i+1:]), line: e.line}
			}
		}
	}
	return e
}

// subscript is one subscript of an assignment's target: x[hi], or a slice
// bound pair x[lo:hi] where either bound may be missing (nil).
type subscript struct {
	lo, hi *expr
	slice  bool
}

// assignSubscripts returns the subscripts of an assignment to array
// elements or slices, x[i][j] := ... or x[1:2] := ...; nil when the
// target has none.
func assignSubscripts(e *expr) []subscript {
	if e == nil {
		return nil
	}
	s := e.text
	var subs []subscript
	depth, start, colon := 0, -1, -1
	part := func(a, b int) *expr {
		if t := strings.TrimSpace(s[a:b]); t != "" {
			return &expr{text: t, line: e.line}
		}
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			if j := strings.IndexByte(s[i+1:], s[i]); j >= 0 {
				i += j + 1
			}
		case '(':
			depth++
		case ')':
			depth--
		case '[':
			if depth == 0 {
				start, colon = i+1, -1
			}
			depth++
		case ']':
			depth--
			if depth == 0 && start >= 0 {
				if colon >= 0 {
					subs = append(subs, subscript{lo: part(start, colon), hi: part(colon+1, i), slice: true})
				} else {
					subs = append(subs, subscript{hi: part(start, i)})
				}
				start = -1
			}
		case ':':
			if depth == 1 && start >= 0 && !strings.HasPrefix(s[i:], "::") && (i == 0 || s[i-1] != ':') {
				colon = i
			}
			if depth == 0 && i+1 < len(s) && s[i+1] == '=' {
				return subs
			}
		case '=':
			if depth == 0 {
				return subs
			}
		}
	}
	return nil
}

func (f *Function) String() string { return fmt.Sprintf("PL/pgSQL function %s", f.sig.Name) }
