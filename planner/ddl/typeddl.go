package ddl

import (
	"context"
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// CREATE TYPE, CREATE DOMAIN, ALTER TYPE, ALTER DOMAIN and DROP of them.
// Types live in the root value under their schema and name.

// typeDDL wraps the work of a type statement in the writable check.
func (a *analyzer) typeDDL(tag string, run func(ctx context.Context) error) planner.Utility {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		if err := run(ctx); err != nil {
			return "", err
		}
		return tag, nil
	}
}

// newTypeName returns the schema and name of a type being created and
// fails if one exists there (types share a namespace with tables, whose
// row types they are).
func (a *analyzer) newTypeName(ctx context.Context, names []string) (string, string, error) {
	schema, name := planner.SplitName(names)
	schema, err := a.creationSchema(ctx, schema, -1)
	if err != nil {
		return "", "", err
	}
	_, ok, err := a.tx.Root().Type(ctx, schema, name)
	if err != nil {
		return "", "", err
	}
	if !ok {
		_, ok, err = a.tx.Root().Table(ctx, schema, name)
	}
	if err != nil {
		return "", "", err
	}
	if ok {
		return "", "", pgerr.New(pgerr.DuplicateObject, "type %q already exists", name)
	}
	return schema, name, nil
}

// ownType gives t, a type being created, the current role as its owner
// and the privileges that role's defaults give new types.
func (a *analyzer) ownType(ctx context.Context, t *sqldef.Type) error {
	t.Owner = planner.NewObjectOwner(a.s)
	var err error
	t.ACL, err = a.initialACL(ctx, t.Owner, t.Schema, sqldef.DefaultTypes)
	return err
}

func (a *analyzer) putType(ctx context.Context, t *sqldef.Type) error {
	root, err := a.tx.Root().PutType(ctx, t)
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// createEnum runs CREATE TYPE ... AS ENUM: labels get the sort orders 1,
// 2, 3 ... as in PostgreSQL.
func (a *analyzer) createEnum(s *pg.CreateEnumStmt) (planner.Utility, error) {
	return a.typeDDL("CREATE TYPE", func(ctx context.Context) error {
		schema, name, err := a.newTypeName(ctx, planner.NameList(s.TypeName))
		if err != nil {
			return err
		}
		t := &sqldef.Type{Schema: schema, Name: name, Kind: 'e', Labels: []sqldef.EnumLabel{}}
		if err := a.ownType(ctx, t); err != nil {
			return err
		}
		for i, v := range planner.NameList(s.Vals) {
			if err := checkLabel(v); err != nil {
				return err
			}
			if slices.ContainsFunc(t.Labels, func(l sqldef.EnumLabel) bool { return l.Label == v }) {
				return pgerr.New(pgerr.InvalidParameterValue, "enum label %q used more than once", v)
			}
			t.Labels = append(t.Labels, sqldef.EnumLabel{Label: v, Sort: float64(i + 1)})
		}
		return a.putType(ctx, t)
	}), nil
}

// checkLabel enforces PostgreSQL's limit on enum labels.
func checkLabel(v string) error {
	if len(v) == 0 || len(v) > planner.NameDataLen-1 {
		return pgerr.New(pgerr.InvalidName, "invalid enum label %q", v).WithDetail("Labels must be %d bytes or less.", planner.NameDataLen-1)
	}
	return nil
}

// createComposite runs CREATE TYPE ... AS (fields).
func (a *analyzer) createComposite(s *pg.CompositeTypeStmt) (planner.Utility, error) {
	return a.typeDDL("CREATE TYPE", func(ctx context.Context) error {
		names := []string{s.Typevar.Relname}
		if s.Typevar.Schemaname != "" {
			names = []string{s.Typevar.Schemaname, s.Typevar.Relname}
		}
		schema, name, err := a.newTypeName(ctx, names)
		if err != nil {
			return err
		}
		t := &sqldef.Type{Schema: schema, Name: name, Kind: 'c', Fields: []sqldef.ViewColumn{}}
		if err := a.ownType(ctx, t); err != nil {
			return err
		}
		for _, n := range s.Coldeflist {
			cd := n.GetColumnDef()
			if slices.ContainsFunc(t.Fields, func(f sqldef.ViewColumn) bool { return f.Name == cd.Colname }) {
				return pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname)
			}
			if err := notPseudoType(cd); err != nil {
				return err
			}
			ft, _, err := a.ResolveType(cd.TypeName)
			if err != nil {
				return err
			}
			if err := a.RequireTypeNameUsage(cd.TypeName); err != nil {
				return err
			}
			t.Fields = append(t.Fields, sqldef.ViewColumn{Name: cd.Colname, Type: ft.OID, Typmod: ft.Typmod, Domain: a.domainName(cd.TypeName)})
		}
		return a.putType(ctx, t)
	}), nil
}

// createDomain runs CREATE DOMAIN.
func (a *analyzer) createDomain(s *pg.CreateDomainStmt) (planner.Utility, error) {
	return a.typeDDL("CREATE DOMAIN", func(ctx context.Context) error {
		schema, name, err := a.newTypeName(ctx, planner.NameList(s.Domainname))
		if err != nil {
			return err
		}
		base, over, err := a.domainBase(s.TypeName)
		if err != nil {
			return err
		}
		if err := a.RequireTypeNameUsage(s.TypeName); err != nil {
			return err
		}
		t := &sqldef.Type{Schema: schema, Name: name, Kind: 'd', Base: base.OID, BaseTypmod: base.Typmod}
		if over != nil {
			t.BaseDomain = over.Schema + "." + over.Name
		}
		if err := a.ownType(ctx, t); err != nil {
			return err
		}
		for _, n := range s.Constraints {
			if err := a.addDomainConstraint(t, n.GetConstraint()); err != nil {
				return err
			}
		}
		return a.putType(ctx, t)
	}), nil
}

// domainBase resolves a domain's base type; a domain over a domain takes
// the underlying base type, and returns the domain it is over, whose
// constraints its values pass too.
func (a *analyzer) domainBase(tn *pg.TypeName) (exec.T, *sqldef.Type, error) {
	t, over, _, err := a.ResolveTypeDomain(tn)
	return t, over, err
}

// addDomainConstraint adds a NOT NULL, NULL, DEFAULT or CHECK constraint
// to domain t.
func (a *analyzer) addDomainConstraint(t *sqldef.Type, con *pg.Constraint) error {
	switch con.Contype {
	case pg.ConstrType_CONSTR_NOTNULL:
		t.NotNull = true
	case pg.ConstrType_CONSTR_NULL:
		t.NotNull = false
	case pg.ConstrType_CONSTR_DEFAULT:
		text, err := planner.DeparseExpr(con.RawExpr)
		if err != nil {
			return err
		}
		t.Default = text
	case pg.ConstrType_CONSTR_CHECK:
		if _, err := a.DomainCheckExpr(t, con.RawExpr); err != nil {
			return err
		}
		text, err := planner.DeparseExpr(con.RawExpr)
		if err != nil {
			return err
		}
		name := con.Conname
		if name == "" {
			name = makeObjectName(t.Name, "", "check")
			for i := 1; slices.ContainsFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == name }); i++ {
				name = makeObjectName(t.Name, "", "check"+strconv.Itoa(i))
			}
		} else if slices.ContainsFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == name }) {
			return pgerr.New(pgerr.DuplicateObject, "constraint %q for domain %q already exists", name, t.Name)
		}
		t.Checks = append(t.Checks, sqldef.Check{Name: name, Expr: text, NotValid: con.SkipValidation})
	default:
		return pgerr.New(pgerr.FeatureNotSupported, "this constraint type is not supported for domains yet")
	}
	return nil
}

// findType finds the type names (schema-qualified or along search_path)
// of the kind want ('d' for a domain, 0 for any type).
func (a *analyzer) findType(ctx context.Context, names []string, want byte, missingOK bool) (*sqldef.Type, error) {
	schema, name := planner.SplitName(names)
	t, err := a.LookupType(ctx, schema, name)
	if err != nil {
		return nil, err
	}
	if t == nil {
		if missingOK {
			return nil, nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
	}
	if want == 'd' && t.Kind != 'd' {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a domain", name)
	}
	return t, nil
}

// alterEnum runs ALTER TYPE ... ADD VALUE and RENAME VALUE.
func (a *analyzer) alterEnum(s *pg.AlterEnumStmt) (planner.Utility, error) {
	return a.typeDDL("ALTER TYPE", func(ctx context.Context) error {
		t, err := a.findType(ctx, planner.NameList(s.TypeName), 0, false)
		if err != nil {
			return err
		}
		if t.Kind != 'e' {
			return pgerr.New(pgerr.WrongObjectType, "%q is not an enum", t.Name)
		}
		if s.OldVal != "" {
			return a.renameEnumValue(ctx, t, s.OldVal, s.NewVal)
		}
		if err := checkLabel(s.NewVal); err != nil {
			return err
		}
		if slices.ContainsFunc(t.Labels, func(l sqldef.EnumLabel) bool { return l.Label == s.NewVal }) {
			if s.SkipIfNewValExists {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "enum label %q already exists, skipping", s.NewVal))
				return nil
			}
			return pgerr.New(pgerr.DuplicateObject, "enum label %q already exists", s.NewVal)
		}
		labels, err := insertLabel(t.Labels, s.NewVal, s.NewValNeighbor, s.NewValIsAfter)
		if err != nil {
			return err
		}
		t.Labels = labels
		return a.putType(ctx, t)
	}), nil
}

// insertLabel adds label v to labels, last or next to neighbor, with a
// sort order between its neighbours' so that stored values keep theirs.
func insertLabel(labels []sqldef.EnumLabel, v, neighbor string, after bool) ([]sqldef.EnumLabel, error) {
	if neighbor == "" {
		sort := 1.0
		if n := len(labels); n > 0 {
			sort = labels[n-1].Sort + 1
		}
		return append(labels, sqldef.EnumLabel{Label: v, Sort: sort}), nil
	}
	i := slices.IndexFunc(labels, func(l sqldef.EnumLabel) bool { return l.Label == neighbor })
	if i < 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "%q is not an existing enum label", neighbor)
	}
	if after {
		i++ // insert before the label after the neighbour
	}
	var sort float64
	switch {
	case i == len(labels):
		sort = labels[i-1].Sort + 1
	case i == 0:
		sort = labels[0].Sort - 1
	default:
		sort = (labels[i-1].Sort + labels[i].Sort) / 2
		if sort == labels[i-1].Sort || sort == labels[i].Sort {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "no room for a new label between %q and %q", labels[i-1].Label, labels[i].Label)
		}
	}
	return slices.Insert(labels, i, sqldef.EnumLabel{Label: v, Sort: sort}), nil
}

// alterDomain runs ALTER DOMAIN: SET/DROP DEFAULT, SET/DROP NOT NULL, ADD
// and DROP CONSTRAINT.
func (a *analyzer) alterDomain(s *pg.AlterDomainStmt) (planner.Utility, error) {
	return a.typeDDL("ALTER DOMAIN", func(ctx context.Context) error {
		t, err := a.findType(ctx, planner.NameList(s.TypeName), 'd', false)
		if err != nil {
			return err
		}
		switch s.Subtype {
		case "T":
			t.Default = ""
			if s.Def != nil {
				if t.Default, err = planner.DeparseExpr(s.Def); err != nil {
					return err
				}
			}
		case "N":
			t.NotNull = false
		case "O":
			if err := a.validateDomain(ctx, t, nil, true); err != nil {
				return err
			}
			t.NotNull = true
		case "C":
			con := s.Def.GetConstraint()
			n := len(t.Checks)
			if err := a.addDomainConstraint(t, con); err != nil {
				return err
			}
			if len(t.Checks) > n && !con.SkipValidation {
				if err := a.validateDomain(ctx, t, t.Checks[n:], false); err != nil {
					return err
				}
			}
		case "V":
			i := slices.IndexFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == s.Name })
			if i < 0 {
				return pgerr.New(pgerr.UndefinedObject, "constraint %q of domain %q does not exist", s.Name, t.Name)
			}
			if !t.Checks[i].NotValid {
				return nil
			}
			if err := a.validateDomain(ctx, t, t.Checks[i:i+1], false); err != nil {
				return err
			}
			t.Checks[i].NotValid = false
		case "X":
			i := slices.IndexFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == s.Name })
			if i < 0 {
				if s.MissingOk {
					a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "constraint %q of domain %q does not exist, skipping", s.Name, t.Name))
					return nil
				}
				return pgerr.New(pgerr.UndefinedObject, "constraint %q of domain %q does not exist", s.Name, t.Name)
			}
			t.Checks = slices.Delete(t.Checks, i, i+1)
		default:
			return pgerr.New(pgerr.FeatureNotSupported, "ALTER DOMAIN %s is not supported yet", s.Subtype)
		}
		return a.putType(ctx, t)
	}), nil
}

// indexExpressionUsers returns the index expression columns whose type
// is t, as "index.column" (the name PostgreSQL gives the column).
func (a *analyzer) indexExpressionUsers(ctx context.Context, t *sqldef.Type) ([]string, error) {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return nil, err
	}
	oid := planner.TypeOIDOf(t)
	var out []string
	for _, tb := range tables {
		for _, ix := range tb.Indexes {
			for _, c := range ix.Columns {
				if c.Expr == "" || c.ExprType != oid {
					continue
				}
				n, err := planner.ParseExpr(c.Expr)
				if err != nil {
					return nil, err
				}
				out = append(out, ix.Name+"."+planner.IndexColumnName(n))
			}
		}
	}
	return out, nil
}

// typeUsers returns the columns whose type is t or an array of it, as
// "table.column".
func (a *analyzer) typeUsers(ctx context.Context, t *sqldef.Type) ([]string, error) {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return nil, err
	}
	oid := planner.TypeOIDOf(t)
	arr := exec.ArrayType(exec.T{OID: oid}).OID
	var out []string
	for _, tb := range tables {
		for _, c := range tb.Columns {
			if c.Dropped {
				continue
			}
			if (t.Kind == 'd' && c.Domain == t.Schema+"."+t.Name) || (t.Kind != 'd' && (c.Type == oid || (arr != 0 && c.Type == arr))) {
				out = append(out, tb.Name+"."+c.Name)
			}
		}
	}
	types, err := a.tx.Root().Types(ctx)
	if err != nil {
		return nil, err
	}
	for _, ct := range types {
		for _, f := range ct.Fields {
			if f.Type == oid || (arr != 0 && f.Type == arr) {
				out = append(out, ct.Name+"."+f.Name)
			}
		}
	}
	return out, nil
}

// dropTypes runs DROP TYPE and DROP DOMAIN. Types in use by columns fail
// with 2BP01 unless CASCADE, which is not supported yet for them.
func (a *analyzer) dropTypes(ctx context.Context, s *pg.DropStmt) (string, error) {
	defer a.collectCascades()()
	domain := s.RemoveType == pg.ObjectType_OBJECT_DOMAIN
	tag, what := "DROP TYPE", "type"
	if domain {
		tag, what = "DROP DOMAIN", "domain"
	}
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetTypeName().GetNames())
		want := byte(0)
		if domain {
			want = 'd'
		}
		t, err := a.findType(ctx, names, want, s.MissingOk)
		if err != nil {
			return "", err
		}
		if t == nil {
			_, name := planner.SplitName(names)
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", what, name))
			continue
		}
		if au, err := a.Authority(); err != nil {
			return "", err
		} else if !au.Owns(t.Owner) {
			return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s", t.Name)
		}
		if err := a.dropRangesOver(ctx, t, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if err := a.dropCastsOfType(ctx, t, s.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return "", err
		}
		if s.Behavior == pg.DropBehavior_DROP_CASCADE {
			over, err := a.domainsOver(ctx, t)
			if err != nil {
				return "", err
			}
			for _, d := range over {
				a.cascaded("type " + d.Name)
				drop := &pg.DropStmt{RemoveType: pg.ObjectType_OBJECT_DOMAIN, Behavior: s.Behavior,
					Objects: []*pg.Node{{Node: &pg.Node_TypeName{TypeName: &pg.TypeName{Names: []*pg.Node{pg.MakeStrNode(d.Schema), pg.MakeStrNode(d.Name)}}}}}}
				if _, err := a.dropTypes(ctx, drop); err != nil {
					return "", err
				}
			}
			if err := a.dropTypeColumns(ctx, t); err != nil {
				return "", err
			}
		}
		users, err := a.typeUsers(ctx, t)
		if err != nil {
			return "", err
		}
		typed, err := a.typedTables(ctx, t)
		if err != nil {
			return "", err
		}
		over, err := a.domainsOver(ctx, t)
		if err != nil {
			return "", err
		}
		if len(users) == 0 && s.Behavior == pg.DropBehavior_DROP_CASCADE {
			if len(typed) > 0 {
				if err := a.dropCascadedTables(ctx, typed); err != nil {
					return "", err
				}
				typed = nil
			}
		}
		if len(users) > 0 || len(typed) > 0 || len(over) > 0 {
			e := pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop type %s because other objects depend on it", t.Name)
			var lines []string
			for _, d := range over {
				lines = append(lines, "type "+d.Name+" depends on type "+t.Name)
			}
			for _, tb := range typed {
				lines = append(lines, "table "+tb.Name+" depends on type "+t.Name)
			}
			for _, u := range users {
				lines = append(lines, "column "+lastPart(u)+" of "+tableOrType(ctx, a, u)+" "+firstPart(u)+" depends on type "+t.Name)
			}
			detail := strings.Join(lines, "\n")
			return "", e.WithDetail("%s", detail).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		root, err := a.tx.Root().DropType(ctx, t.Schema, t.Name)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	return tag, nil
}

func firstPart(s string) string {
	for i := range s {
		if s[i] == '.' {
			return s[:i]
		}
	}
	return s
}

func lastPart(s string) string { return s[len(firstPart(s))+1:] }

// tableOrType says whether the owner of column u is a table or a
// composite type, as PostgreSQL's dependency messages do.
func tableOrType(ctx context.Context, a *analyzer, u string) string {
	if t, _ := a.LookupType(ctx, "", firstPart(u)); t != nil {
		return "composite type"
	}
	return "table"
}

// renameType runs ALTER TYPE ... RENAME TO and ALTER DOMAIN ... RENAME
// TO. Columns of an enum or composite type store its OID, which follows
// its name: they are not rewritten, so renaming a type in use fails.
func (a *analyzer) renameType(ctx context.Context, names []string, newName string) error {
	t, err := a.findType(ctx, names, 0, false)
	if err != nil {
		return err
	}
	if _, _, err := a.newTypeName(ctx, []string{t.Schema, newName}); err != nil {
		return err
	}
	if t.Kind != 'd' {
		users, err := a.typeUsers(ctx, t)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return pgerr.New(pgerr.FeatureNotSupported, "cannot rename type %s while columns use it", t.Name)
		}
	}
	root, err := a.tx.Root().DropType(ctx, t.Schema, t.Name)
	if err != nil {
		return err
	}
	t.Name = newName
	if root, err = root.PutType(ctx, t); err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// renameEnumValue runs ALTER TYPE ... RENAME VALUE. Stored values and
// index keys carry their label next to their sort order (so that they
// decode without the catalog), so the rows of every table with a column
// that may hold the enum are rewritten with the new label; the ordering,
// which is by sort order, does not change.
func (a *analyzer) renameEnumValue(ctx context.Context, t *sqldef.Type, from, to string) error {
	i := slices.IndexFunc(t.Labels, func(l sqldef.EnumLabel) bool { return l.Label == from })
	if i < 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "%q is not an existing enum label", from)
	}
	if slices.ContainsFunc(t.Labels, func(l sqldef.EnumLabel) bool { return l.Label == to }) {
		return pgerr.New(pgerr.DuplicateObject, "enum label %q already exists", to)
	}
	if err := checkLabel(to); err != nil {
		return err
	}
	sort := t.Labels[i].Sort
	t.Labels[i].Label = to
	if err := a.putType(ctx, t); err != nil {
		return err
	}
	enum := planner.TypeOIDOf(t)
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	for _, def := range tables {
		if err := a.relabelTable(ctx, def, enum, sort, to); err != nil {
			return err
		}
	}
	return nil
}

// relabelTable rewrites the rows of table def whose values of enum type
// enum have sort order sort with label to; a table without a column that
// may hold the enum is left alone.
func (a *analyzer) relabelTable(ctx context.Context, def *sqldef.Table, enum uint32, sort float64, to string) error {
	var cols []int
	for i, c := range def.Columns {
		if !c.Dropped && funcs.MayHoldEnum(exec.T{OID: c.Type, Typmod: c.Typmod}, enum) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 || def.Partitioned() {
		return nil
	}
	t, _, err := a.tx.Table(ctx, def.Schema, def.Name)
	if err != nil {
		return err
	}
	nd := *def
	nd.Columns = slices.Clone(def.Columns)
	for _, i := range cols {
		c := &nd.Columns[i]
		if c.Missing != nil {
			ct := exec.T{OID: c.Type, Typmod: c.Typmod}
			if v, ok := funcs.RelabelEnum(t.Cols[i].Missing, ct, enum, sort, to); ok {
				c.Missing = exec.EncodeMissing(ct, v)
			}
		}
	}
	ndef, err := a.tx.Rewrite(ctx, t, &nd, func(row exec.Row) (exec.Row, error) {
		out := row
		for _, i := range cols {
			if i >= len(row) {
				continue
			}
			if v, ok := funcs.RelabelEnum(row[i], t.Cols[i].Type, enum, sort, to); ok {
				if &out[0] == &row[0] {
					out = slices.Clone(row)
				}
				out[i] = v
			}
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	return a.putTable(ctx, ndef)
}

// validateDomain checks the stored values of dom's columns against new
// constraints: checks, and NOT NULL when notNull.
func (a *analyzer) validateDomain(ctx context.Context, dom *sqldef.Type, checks []sqldef.Check, notNull bool) error {
	compiled, err := a.DomainChecks(&sqldef.Type{Name: dom.Name, Base: dom.Base, BaseTypmod: dom.BaseTypmod, Checks: checks})
	if err != nil {
		return err
	}
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	// The columns of dom and of the domains over it.
	domains := map[string]bool{dom.Schema + "." + dom.Name: true}
	for more := []*sqldef.Type{dom}; len(more) > 0; more = more[1:] {
		over, err := a.domainsOver(ctx, more[0])
		if err != nil {
			return err
		}
		for _, d := range over {
			domains[d.Schema+"."+d.Name] = true
		}
		more = append(more, over...)
	}
	derived, err := a.typesWithDomains(ctx, domains)
	if err != nil {
		return err
	}
	env := a.env(ctx)
	for _, def := range tables {
		t, _, err := a.tx.Table(ctx, def.Schema, def.Name)
		if err != nil {
			return err
		}
		for _, c := range t.Cols {
			if !c.Dropped && (derived[c.Type.OID] || derived[exec.ElemType(c.Type).OID]) {
				// A composite type with an attribute of the domain (or
				// an array of one): PostgreSQL checks no values of
				// types derived from the domain, and refuses.
				return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type %q because column \"%s.%s\" uses it", dom.Name, def.Name, c.Name)
			}
			if c.Dropped || !domains[c.Domain] {
				continue
			}
			if c.DomainArray {
				// PostgreSQL checks no values of types derived from
				// the domain, and refuses instead.
				return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type %q because column \"%s.%s\" uses it", dom.Name, def.Name, c.Name)
			}
			var bad error
			err := a.tx.EachRow(ctx, t, func(row exec.Row) error {
				v := row[c.Pos]
				switch {
				case v.IsNull() && notNull:
					bad = pgerr.New(pgerr.NotNullViolation, "column %q of table %q contains null values", c.Name, def.Name)
				case !v.IsNull() && exec.CheckDomainValue(env, dom.Name, compiled, v) != nil:
					bad = pgerr.New(pgerr.CheckViolation, "column %q of table %q contains values that violate the new constraint", c.Name, def.Name)
				default:
					return nil
				}
				return errStop
			})
			if err != nil && err != errStop {
				return err
			}
			if bad != nil {
				return bad
			}
		}
	}
	return nil
}

// typesWithDomains returns the OIDs of the composite types with an
// attribute of one of domains (schema.name), directly or through another
// such composite type or an array of one, and of the range types over
// one of domains.
func (a *analyzer) typesWithDomains(ctx context.Context, domains map[string]bool) (map[uint32]bool, error) {
	all, err := a.tx.Root().Types(ctx)
	if err != nil {
		return nil, err
	}
	out := map[uint32]bool{}
	for changed := true; changed; {
		changed = false
		for _, t := range all {
			oid := planner.TypeOIDOf(t)
			if t.Kind == 'r' && domains[t.SubtypeDomain] && !out[oid] {
				out[oid], changed = true, true
			}
			if t.Kind != 'c' || out[oid] {
				continue
			}
			for _, f := range t.Fields {
				ft := exec.T{OID: f.Type, Typmod: f.Typmod}
				if domains[f.Domain] || out[f.Type] || out[exec.ElemType(ft).OID] {
					out[oid], changed = true, true
					break
				}
			}
		}
	}
	return out, nil
}

// alterCompositeType runs ALTER TYPE ... ADD | DROP | ALTER ATTRIBUTE on a
// composite type. A type a table's column or another type's attribute
// uses is not changed: its stored values would have to be; PostgreSQL
// refuses that for ALTER ATTRIBUTE ... TYPE with the error used here, and
// rewrites the values for ADD and DROP, which is not supported yet.
func (a *analyzer) alterCompositeType(s *pg.AlterTableStmt) (planner.Utility, error) {
	return a.typeDDL("ALTER TYPE", func(ctx context.Context) error {
		t, err := a.compositeTypeOf(ctx, s.Relation)
		if err != nil {
			return err
		}
		users, err := a.typeUsers(ctx, t)
		if err != nil {
			return err
		}
		if len(users) == 0 {
			// An index expression of the type holds its values too.
			if users, err = a.indexExpressionUsers(ctx, t); err != nil {
				return err
			}
		}
		if len(users) > 0 {
			for _, n := range s.Cmds {
				if n.GetAlterTableCmd().Subtype == pg.AlterTableType_AT_AlterColumnType {
					return pgerr.New(pgerr.FeatureNotSupported, "cannot alter type %q because column %q uses it", t.Name, users[0])
				}
			}
			return pgerr.New(pgerr.FeatureNotSupported, "cannot change the attributes of type %q while column %q uses it", t.Name, users[0])
		}
		cascade := false
		for _, n := range s.Cmds {
			cascade = cascade || n.GetAlterTableCmd().Behavior == pg.DropBehavior_DROP_CASCADE
		}
		typed, err := a.typedTablesOf(ctx, t, cascade)
		if err != nil {
			return err
		}
		nt := *t
		nt.Fields = slices.Clone(t.Fields)
		field := func(name string) int {
			return slices.IndexFunc(nt.Fields, func(f sqldef.ViewColumn) bool { return f.Name == name })
		}
		for _, n := range s.Cmds {
			cmd := n.GetAlterTableCmd()
			switch cmd.Subtype {
			case pg.AlterTableType_AT_AddColumn:
				cd := cmd.Def.GetColumnDef()
				if field(cd.Colname) >= 0 {
					return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", cd.Colname, t.Name)
				}
				ft, err := a.attributeType(cd.TypeName)
				if err != nil {
					return err
				}
				nt.Fields = append(nt.Fields, sqldef.ViewColumn{Name: cd.Colname, Type: ft.OID, Typmod: ft.Typmod, Domain: a.domainName(cd.TypeName)})
			case pg.AlterTableType_AT_DropColumn:
				i := field(cmd.Name)
				if i < 0 {
					if cmd.MissingOk {
						a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "column %q of relation %q does not exist, skipping", cmd.Name, t.Name))
						continue
					}
					return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, t.Name)
				}
				nt.Fields = slices.Delete(nt.Fields, i, i+1)
			case pg.AlterTableType_AT_AlterColumnType:
				i := field(cmd.Name)
				if i < 0 {
					return pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, t.Name)
				}
				ft, err := a.attributeType(cmd.Def.GetColumnDef().TypeName)
				if err != nil {
					return err
				}
				nt.Fields[i].Type, nt.Fields[i].Typmod = ft.OID, ft.Typmod
			default:
				return pgerr.New(pgerr.WrongObjectType, "ALTER action %s cannot be performed on a type", strings.TrimPrefix(cmd.Subtype.String(), "AT_"))
			}
		}
		if err := a.putType(ctx, &nt); err != nil {
			return err
		}
		return a.alterTypedTables(ctx, typed, func(tb *exec.Table) error {
			for _, n := range s.Cmds {
				if err := a.alterInherited(ctx, tb, n.GetAlterTableCmd(), true, true); err != nil {
					return err
				}
				var err error
				if tb, _, err = a.tx.Table(ctx, tb.Def.Schema, tb.Def.Name); err != nil {
					return err
				}
			}
			return nil
		})
	}), nil
}

// renameAttribute runs ALTER TYPE ... RENAME ATTRIBUTE.
func (a *analyzer) renameAttribute(ctx context.Context, s *pg.RenameStmt) error {
	t, err := a.compositeTypeOf(ctx, s.Relation)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(t.Fields, func(f sqldef.ViewColumn) bool { return f.Name == s.Subname })
	if i < 0 {
		return pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", s.Subname)
	}
	if slices.ContainsFunc(t.Fields, func(f sqldef.ViewColumn) bool { return f.Name == s.Newname }) {
		return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", s.Newname, t.Name)
	}
	typed, err := a.typedTablesOf(ctx, t, s.Behavior == pg.DropBehavior_DROP_CASCADE)
	if err != nil {
		return err
	}
	nt := *t
	nt.Fields = slices.Clone(t.Fields)
	nt.Fields[i].Name = s.Newname
	if err := a.putType(ctx, &nt); err != nil {
		return err
	}
	return a.alterTypedTables(ctx, typed, func(tb *exec.Table) error {
		return a.renameColumnInherited(ctx, tb.Def, s.Subname, s.Newname, true, true)
	})
}

// compositeTypeOf returns the composite type an ALTER TYPE names as its
// relation, which the current role must own; a name no type has is a
// relation that does not exist, as PostgreSQL words it.
func (a *analyzer) compositeTypeOf(ctx context.Context, rv *pg.RangeVar) (*sqldef.Type, error) {
	t, err := a.LookupType(ctx, rv.Schemaname, rv.Relname)
	if err != nil {
		return nil, err
	}
	if t == nil {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(rv))
	}
	if t.Kind != 'c' {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a composite type", t.Name)
	}
	au, err := a.Authority()
	if err != nil {
		return nil, err
	}
	if !au.Owns(t.Owner) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of type %s", t.Name)
	}
	return t, nil
}

// attributeType resolves the type of a composite type's attribute, which
// the current role must be allowed to use.
func (a *analyzer) attributeType(tn *pg.TypeName) (exec.T, error) {
	t, _, err := a.ResolveType(tn)
	if err == nil {
		err = a.RequireTypeNameUsage(tn)
	}
	return t, err
}

// arrayElementDomain returns the domain whose array type tn names
// (domain[]), or nil.
func (a *analyzer) arrayElementDomain(tn *pg.TypeName) *sqldef.Type {
	if len(tn.ArrayBounds) == 0 {
		return nil
	}
	_, dom, _, err := a.ResolveTypeDomain(&pg.TypeName{Names: tn.Names, Typmods: tn.Typmods, Location: tn.Location})
	if err != nil {
		return nil
	}
	return dom
}

// domainsOver returns the domains declared over t: over domain t itself,
// or over type t or its array type.
func (a *analyzer) domainsOver(ctx context.Context, t *sqldef.Type) ([]*sqldef.Type, error) {
	all, err := a.tx.Root().Types(ctx)
	if err != nil {
		return nil, err
	}
	oid := planner.TypeOIDOf(t)
	arr := exec.ArrayType(exec.T{OID: oid}).OID
	var out []*sqldef.Type
	for _, d := range all {
		if d.Kind != 'd' {
			continue
		}
		if t.Kind == 'd' && d.BaseDomain == t.Schema+"."+t.Name ||
			t.Kind != 'd' && d.BaseDomain == "" && (d.Base == oid || arr != 0 && d.Base == arr) {
			out = append(out, d)
		}
	}
	return out, nil
}

// dropTypeColumns drops, for DROP TYPE or DOMAIN ... CASCADE, the table
// columns of type t or an array of it, as PostgreSQL's dependencies do:
// a column in a table's partition key takes the table with it. A column
// of a domain over t goes with the domain.
func (a *analyzer) dropTypeColumns(ctx context.Context, t *sqldef.Type) error {
	tables, err := a.tx.Root().Tables(ctx)
	if err != nil {
		return err
	}
	oid := planner.TypeOIDOf(t)
	arr := exec.ArrayType(exec.T{OID: oid}).OID
	uses := func(c sqldef.Column) bool {
		if c.Dropped {
			return false
		}
		if t.Kind == 'd' {
			return c.Domain == t.Schema+"."+t.Name
		}
		return c.Domain == "" && (c.Type == oid || (arr != 0 && c.Type == arr))
	}
	// Tables whose partition key reads such a column go first, whole:
	// their partitions go with them.
	type column struct{ schema, table, name string }
	var cols []column
	for _, pass := range []bool{true, false} {
		for _, tb := range tables {
			for _, c := range tb.Columns {
				if !uses(c) {
					continue
				}
				inKey := checkNotPartitionKey(tb, c.Name, "drop") != nil
				if inKey != pass {
					continue
				}
				cur, ok, err := a.tx.Table(ctx, tb.Schema, tb.Name)
				if err != nil {
					return err
				}
				if !ok {
					continue // gone with a table dropped above
				}
				if inKey {
					if err := a.dropCascadedTables(ctx, []*sqldef.Table{cur.Def}); err != nil {
						return err
					}
					break
				}
				cols = append(cols, column{tb.Schema, tb.Name, c.Name})
			}
		}
	}
	for _, c := range cols {
		cur, ok, err := a.tx.Table(ctx, c.schema, c.table)
		if err != nil {
			return err
		}
		if !ok || planner.ColumnIndex(cur.Def, c.name) < 0 {
			continue // gone with its table, or with its parent's column
		}
		a.cascaded("column " + c.name + " of table " + c.table)
		cmd := &pg.AlterTableCmd{Subtype: pg.AlterTableType_AT_DropColumn, Name: c.name, Behavior: pg.DropBehavior_DROP_CASCADE}
		if err := a.alterInherited(ctx, cur, cmd, true, true); err != nil {
			return err
		}
	}
	return nil
}

// renameDomainConstraint runs ALTER DOMAIN ... RENAME CONSTRAINT.
func (a *analyzer) renameDomainConstraint(ctx context.Context, s *pg.RenameStmt) error {
	t, err := a.findType(ctx, planner.NameList(s.Object.GetList().GetItems()), 'd', false)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == s.Subname })
	if i < 0 {
		return pgerr.New(pgerr.UndefinedObject, "constraint %q for domain %q does not exist", s.Subname, t.Name)
	}
	if slices.ContainsFunc(t.Checks, func(c sqldef.Check) bool { return c.Name == s.Newname }) {
		return pgerr.New(pgerr.DuplicateObject, "constraint %q for domain %q already exists", s.Newname, t.Name)
	}
	t.Checks = slices.Clone(t.Checks)
	t.Checks[i].Name = s.Newname
	return a.putType(ctx, t)
}
