package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// View options: CREATE VIEW ... WITH (security_barrier, security_invoker,
// check_option) and ALTER VIEW ... SET / RESET (...). They are the view's
// reloptions, kept as PostgreSQL lists them; security_invoker makes the
// view's tables read with its reader's privileges and policies instead of
// its owner's (planner/view.go).

// validBoolOption reports whether a boolean option's value is one
// PostgreSQL's parse_bool accepts.
func validBoolOption(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	switch {
	case v == "":
		return false
	case strings.HasPrefix("true", v), strings.HasPrefix("yes", v), v == "on", v == "1":
		return true
	case strings.HasPrefix("false", v), strings.HasPrefix("no", v), v == "off", v == "of", v == "0":
		return true
	}
	return false
}

// boolOptionTrue reports whether a valid boolean option's value is true.
func boolOptionTrue(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	return v != "" && (strings.HasPrefix("true", v) || strings.HasPrefix("yes", v)) || v == "on" || v == "1"
}

// defValue is a DefElem's value as its text; none is "true".
func defValue(d *pg.DefElem) string {
	if d.Arg == nil {
		return "true"
	}
	return planner.DefText(d.Arg)
}

// setViewOptions applies options to v: set, or with reset, removed.
func setViewOptions(v *sqldef.View, opts []*pg.Node, reset bool) error {
	out := slices.Clone(v.Options)
	for _, o := range opts {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		name := strings.ToLower(d.Defname)
		val := defValue(d)
		switch name {
		case "security_barrier", "security_invoker":
			if !reset && !validBoolOption(val) {
				return pgerr.New(pgerr.InvalidParameterValue, "invalid value for boolean option %q: %s", name, val)
			}
		case "check_option":
			if !reset && val != "local" && val != "cascaded" {
				return pgerr.New(pgerr.InvalidParameterValue, "invalid value for enum option %q: %s", name, val).
					WithDetail(`Valid values are "local" and "cascaded".`)
			}
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "unrecognized parameter %q", d.Defname)
		}
		out = slices.DeleteFunc(out, func(o string) bool { return strings.HasPrefix(o, name+"=") })
		if !reset {
			out = append(out, name+"="+val)
		}
		if name == "check_option" {
			switch {
			case reset:
				v.Check = 0
			case val == "local":
				v.Check = 'l'
			default:
				v.Check = 'c'
			}
		}
	}
	if len(out) == 0 {
		out = nil
	}
	v.Options = out
	return nil
}

// alterView runs ALTER VIEW ... SET (...), RESET (...) and OWNER TO.
func (a *analyzer) alterView(s *pg.AlterTableStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		rel, _, err := a.LookupRelation(ctx, s.Relation.Schemaname, s.Relation.Relname)
		if err != nil {
			return "", err
		}
		if rel.Kind == planner.RelNone {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", s.Relation.Relname))
				return "ALTER VIEW", nil
			}
			return "", planner.WithPos(pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", planner.Qualified(s.Relation)), s.Relation.Location)
		}
		if rel.Kind != planner.RelView {
			return "", pgerr.New(pgerr.WrongObjectType, "%q is not a view", s.Relation.Relname)
		}
		au, err := a.Authority()
		if err != nil {
			return "", err
		}
		if !au.Owns(rel.View.Owner) {
			return "", pgerr.New(pgerr.InsufficientPrivilege, "must be owner of view %s", rel.View.Name)
		}
		v := *rel.View
		for _, n := range s.Cmds {
			cmd := n.GetAlterTableCmd()
			switch cmd.Subtype {
			case pg.AlterTableType_AT_SetRelOptions, pg.AlterTableType_AT_ResetRelOptions:
				if err := setViewOptions(&v, cmd.Def.GetList().GetItems(), cmd.Subtype == pg.AlterTableType_AT_ResetRelOptions); err != nil {
					return "", err
				}
			case pg.AlterTableType_AT_ChangeOwner:
				owner, err := a.newOwner(cmd.Newowner, v.Owner)
				if err != nil {
					return "", err
				}
				v.ACL = sqldef.ChangeACLOwner(v.ACL, planner.OwnerOf(v.Owner), owner)
				v.Owner = owner
			case pg.AlterTableType_AT_ColumnDefault:
				i := slices.IndexFunc(v.Columns, func(c sqldef.ViewColumn) bool { return c.Name == cmd.Name })
				if i < 0 {
					return "", pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, v.Name)
				}
				v.Columns = slices.Clone(v.Columns)
				c := &v.Columns[i]
				c.Default = ""
				if cmd.Def != nil {
					if c.Default, err = a.columnDefault(cmd.Def, exec.T{OID: c.Type, Typmod: c.Typmod}, c.Name); err != nil {
						return "", err
					}
				}
			default:
				return "", pgerr.New(pgerr.FeatureNotSupported, "ALTER VIEW %s is not supported yet", cmd.Subtype)
			}
		}
		if v.Check != 0 && rel.View.Check == 0 {
			if err := a.checkOptionAllowed(&v); err != nil {
				return "", err
			}
		}
		root, err := a.tx.Root().PutView(ctx, &v)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "ALTER VIEW", nil
	}, nil
}
