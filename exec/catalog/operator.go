package catalog

import (
	"slices"
	"strconv"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// pg_operator: the user-defined operators (CREATE OPERATOR). The
// built-in ones are functions of the registry with no rows here, as
// psql's \do lists only those of schemas other than pg_catalog. A
// commutator or negator named before it exists has a row all the same,
// a shell without a function or result, as PostgreSQL makes one.

func init() {
	define("pg_catalog", "pg_operator", OIDPgOperator, 'r', `oid:oid oprname:name oprnamespace:oid oprowner:oid oprkind:char
		oprcanmerge:boolean oprcanhash:boolean oprleft:oid oprright:oid oprresult:oid oprcom:oid
		oprnegate:oid oprcode:regproc oprrest:regproc oprjoin:regproc`, pgOperator)
}

// kindUserOperator is mixed into the OIDs of user operators.
const kindUserOperator = 'O'

// OperatorOID returns the OID of user operator op.
func OperatorOID(op *sqldef.Function) uint32 {
	l, r := op.Operands()
	return exec.ObjectOID(kindUserOperator, op.Schema, op.Name+"("+strconv.FormatUint(uint64(l), 10)+","+strconv.FormatUint(uint64(r), 10)+")")
}

// Operators returns the root value's operators, read on first use.
func (s *Snapshot) Operators() ([]*sqldef.Function, error) {
	if !s.opsRead {
		ops, err := s.Src.Root.Operators(s.Src.Ctx)
		if err != nil {
			return nil, err
		}
		s.ops, s.opsRead = ops, true
	}
	return s.ops, nil
}

// catalogOperators returns the operators pg_operator lists: the user
// operators, then the shells of the commutators and negators they name
// that do not exist, once each.
func (s *Snapshot) catalogOperators() ([]*sqldef.Function, error) {
	ops, err := s.Operators()
	if err != nil {
		return nil, err
	}
	out := slices.Clip(ops)
	shell := func(ref string, left, right uint32, owner string) {
		if ref == "" || linkedOperator(out, ref, left, right) != 0 {
			return
		}
		schema, name, _ := strings.Cut(ref, ".")
		var args []sqldef.FuncArg
		if left != 0 {
			args = append(args, sqldef.FuncArg{Type: left, Mode: 'i'})
		}
		args = append(args, sqldef.FuncArg{Type: right, Mode: 'i'})
		out = append(out, &sqldef.Function{Schema: schema, Name: name, Kind: 'o', Args: args, Owner: owner, Operator: &sqldef.Operator{}})
	}
	for _, op := range ops {
		if op.Operator == nil {
			continue
		}
		left, right := op.Operands()
		shell(op.Operator.Commutator, right, left, op.Owner)
		shell(op.Operator.Negator, left, right, op.Owner)
	}
	return out, nil
}

// OperatorByOID returns the user operator, or shell, with OID oid.
func (s *Snapshot) OperatorByOID(oid uint32) (*sqldef.Function, bool) {
	ops, err := s.catalogOperators()
	if err != nil {
		return nil, false
	}
	for _, op := range ops {
		if OperatorOID(op) == oid {
			return op, true
		}
	}
	return nil, false
}

// OperatorVisible reports whether op is found by its name and operand
// types alone: its schema is the first of the search path with an
// operator of that signature (pg_operator_is_visible).
func (s *Snapshot) OperatorVisible(op *sqldef.Function) bool {
	ops, _ := s.catalogOperators()
	l, r := op.Operands()
	for _, sc := range s.path() {
		for _, o := range ops {
			if ol, or := o.Operands(); o.Schema == sc && o.Name == op.Name && ol == l && or == r {
				return OperatorOID(o) == OperatorOID(op) // a shell is made anew each time
			}
		}
	}
	return false
}

// linkedOperator returns the OID of the operator that ref
// ("schema.name") names over left and right, 0 if there is none.
func linkedOperator(ops []*sqldef.Function, ref string, left, right uint32) uint32 {
	schema, name, _ := strings.Cut(ref, ".")
	for _, o := range ops {
		if ol, or := o.Operands(); o.Schema == schema && o.Name == name && ol == left && or == right {
			return OperatorOID(o)
		}
	}
	return 0
}

// operandOID is the pg_type OID of an operator's operand: a domain's own
// rather than its base type's.
func operandOID(a sqldef.FuncArg) uint32 {
	if a.Domain != "" {
		schema, name, _ := strings.Cut(a.Domain, ".")
		return exec.TypeOID(TypeCategory('d'), schema, name)
	}
	return a.Type
}

// operatorProc is the regproc of the function op stands for: a user
// function's (named with its schema unless visible), or a built-in
// overload's.
func (s *Snapshot) operatorProc(op *sqldef.Function) exec.Datum {
	schema, name, _ := strings.Cut(op.Operator.Proc, ".")
	if name == "" {
		return dProc("") // a shell's
	}
	if schema == "pg_catalog" {
		for i, f := range exec.Overloads(name) {
			if slices.Equal(f.Args, op.InputTypes()) {
				return exec.DRegOID(BuiltinProcOID(name, i), name)
			}
		}
		return dProc(name)
	}
	fs, _ := s.Functions()
	for _, f := range fs {
		if f.Schema == schema && f.Name == name && slices.Equal(f.InputTypes(), op.InputTypes()) {
			shown := name
			if !s.FunctionVisible(f) {
				shown = schema + "." + name
			}
			return exec.DRegOID(FunctionOID(f), shown)
		}
	}
	return dProc("")
}

func pgOperator(s *Snapshot) ([]exec.Row, error) {
	ops, err := s.catalogOperators()
	if err != nil {
		return nil, err
	}
	var out []exec.Row
	for _, op := range ops {
		if op.Operator == nil {
			continue
		}
		left, right := op.Operands()
		kind, lt, rt := byte('b'), uint32(0), uint32(0)
		if op.IsPrefix() {
			kind, rt = 'l', operandOID(op.Args[0])
		} else {
			lt, rt = operandOID(op.Args[0]), operandOID(op.Args[1])
		}
		// A link one side declared shows on both, as PostgreSQL's
		// OperatorUpd makes it when the second operator is created.
		com := linkedOperator(ops, op.Operator.Commutator, right, left)
		neg := linkedOperator(ops, op.Operator.Negator, left, right)
		self := op.Schema + "." + op.Name
		for _, o := range ops {
			if o.Operator == nil {
				continue
			}
			ol, or := o.Operands()
			if com == 0 && o.Operator.Commutator == self && ol == right && or == left {
				com = OperatorOID(o)
			}
			if neg == 0 && o.Operator.Negator == self && ol == left && or == right && o != op {
				neg = OperatorOID(o)
			}
		}
		result := op.Returns
		if op.ReturnsDomain != "" {
			result = operandOID(sqldef.FuncArg{Domain: op.ReturnsDomain})
		}
		owner := s.tableOwner(op.Schema)
		if op.Owner != "" {
			owner = op.Owner
		}
		out = append(out, exec.Row{
			dOID(OperatorOID(op)), dText(op.Name), dOID(NamespaceOID(op.Schema)), dOID(RoleOID(owner)), dChar(kind),
			dBool(op.Operator.Merges), dBool(op.Operator.Hashes), dOID(lt), dOID(rt), dOID(result), dOID(com),
			dOID(neg), s.operatorProc(op), dProc(op.Operator.Restrict), dProc(op.Operator.Join),
		})
	}
	return out, nil
}

// operandTypeName names an operator's operand in SQL text: its domain,
// qualified, or its type.
func operandTypeName(a sqldef.FuncArg, name TypeNamer) string {
	if a.Domain != "" {
		schema, dom, _ := strings.Cut(a.Domain, ".")
		return QuoteIdent(schema) + "." + QuoteIdent(dom)
	}
	return routineTypeName(a.Type, name)
}

// qualifiedOperator is OPERATOR(schema.name) for ref, "schema.name".
func qualifiedOperator(ref string) string {
	schema, name, _ := strings.Cut(ref, ".")
	return "OPERATOR(" + QuoteIdent(schema) + "." + name + ")"
}

// OperatorDef is the CREATE OPERATOR statement that makes op, with its
// function and the operators it links to schema-qualified.
func OperatorDef(op *sqldef.Function, name TypeNamer) string {
	if op.Operator == nil {
		return ""
	}
	o := op.Operator
	schema, fn, _ := strings.Cut(o.Proc, ".")
	opts := []string{"FUNCTION = " + QuoteIdent(schema) + "." + QuoteIdent(fn)}
	if !op.IsPrefix() && len(op.Args) == 2 {
		opts = append(opts, "LEFTARG = "+operandTypeName(op.Args[0], name))
	}
	if n := len(op.Args); n > 0 {
		opts = append(opts, "RIGHTARG = "+operandTypeName(op.Args[n-1], name))
	}
	if o.Commutator != "" {
		opts = append(opts, "COMMUTATOR = "+qualifiedOperator(o.Commutator))
	}
	if o.Negator != "" {
		opts = append(opts, "NEGATOR = "+qualifiedOperator(o.Negator))
	}
	if o.Restrict != "" {
		opts = append(opts, "RESTRICT = "+o.Restrict)
	}
	if o.Join != "" {
		opts = append(opts, "JOIN = "+o.Join)
	}
	if o.Hashes {
		opts = append(opts, "HASHES")
	}
	if o.Merges {
		opts = append(opts, "MERGES")
	}
	return "CREATE OPERATOR " + QuoteIdent(op.Schema) + "." + op.Name + " (" + strings.Join(opts, ", ") + ");"
}

// OperatorDropSQL is the DROP OPERATOR statement that drops op.
func OperatorDropSQL(op *sqldef.Function, name TypeNamer) string {
	left := "NONE"
	if !op.IsPrefix() && len(op.Args) == 2 {
		left = operandTypeName(op.Args[0], name)
	}
	right := ""
	if n := len(op.Args); n > 0 {
		right = operandTypeName(op.Args[n-1], name)
	}
	return "DROP OPERATOR " + QuoteIdent(op.Schema) + "." + op.Name + " (" + left + ", " + right + ");"
}
