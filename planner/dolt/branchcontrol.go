package dolt

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// dolt_branch_control and dolt_branch_namespace_control show the branch
// permissions (versioning.BranchControl) and take INSERT, UPDATE and
// DELETE from those who administer the entries' database and branch
// patterns (Session.EditBranchControl). An INSERT of an entry that exists
// for the same database, branch, user and host sets its permissions.

// branchControlCols are dolt_branch_control's columns, Doltgres's; the
// namespace table has all but permissions.
var branchControlCols = []exec.VirtualColumn{
	{Name: "database", Type: exec.TText}, {Name: "branch", Type: exec.TText},
	{Name: "user", Type: exec.TText}, {Name: "host", Type: exec.TText}, {Name: "permissions", Type: exec.TText},
}

// branchAccessRow is an entry as a row.
func branchAccessRow(e versioning.BranchAccess) exec.Row {
	return exec.Row{exec.DText(e.Database), exec.DText(e.Branch), exec.DText(e.User), exec.DText(e.Host), exec.DText(strings.Join(e.Permissions, ","))}
}

// rowText is a row's column i, "" for NULL.
func rowText(r exec.Row, i int) string {
	if i >= len(r) || r[i].IsNull() {
		return ""
	}
	return r[i].S
}

// accessOf reads an entry from a row, checking its permissions.
func accessOf(r exec.Row) (versioning.BranchAccess, error) {
	e := versioning.BranchAccess{Database: rowText(r, 0), Branch: rowText(r, 1), User: rowText(r, 2), Host: rowText(r, 3)}
	for _, p := range strings.Split(strings.ToLower(rowText(r, 4)), ",") {
		switch p = strings.TrimSpace(p); p {
		case "admin", "write", "read":
			e.Permissions = append(e.Permissions, p)
		case "":
		default:
			return e, pgerr.New(pgerr.InvalidTextRepresentation, "invalid branch permission %q: use admin, write or read", p)
		}
	}
	return e, nil
}

func namespaceOf(r exec.Row) versioning.BranchNamespace {
	return versioning.BranchNamespace{Database: rowText(r, 0), Branch: rowText(r, 1), User: rowText(r, 2), Host: rowText(r, 3)}
}

func sameEntry(a, b versioning.BranchAccess) bool {
	return a.Database == b.Database && a.Branch == b.Branch && a.User == b.User && a.Host == b.Host
}

func denied(what string, r exec.Row) error {
	vals := make([]string, len(r))
	for i := range r {
		vals[i] = rowText(r, i)
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "cannot %s the row [%s]", what, strings.Join(vals, ", ")).
		WithHint("Only a superuser, or a user with admin on a pattern covering the row's database and branch, may change it.")
}

// accessWriter writes dolt_branch_control.
type accessWriter struct{ s session }

func (w accessWriter) InsertRow(env *exec.Env, row exec.Row) error {
	e, err := accessOf(row)
	if err != nil {
		return err
	}
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(e.Database, e.Branch) {
			return denied("add", row)
		}
		for i := range bc.Access {
			if sameEntry(bc.Access[i], e) {
				bc.Access[i].Permissions = e.Permissions
				return nil
			}
		}
		bc.Access = append(bc.Access, e)
		return nil
	})
}

func (w accessWriter) UpdateRow(env *exec.Env, old, row exec.Row) error {
	o, _ := accessOf(old)
	e, err := accessOf(row)
	if err != nil {
		return err
	}
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(o.Database, o.Branch) || !admin(e.Database, e.Branch) {
			return denied("update", old)
		}
		for i := range bc.Access {
			if sameEntry(bc.Access[i], o) {
				bc.Access[i] = e
				return nil
			}
		}
		return nil
	})
}

func (w accessWriter) DeleteRow(env *exec.Env, old exec.Row) error {
	o, _ := accessOf(old)
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(o.Database, o.Branch) {
			return denied("delete", old)
		}
		for i := range bc.Access {
			if sameEntry(bc.Access[i], o) {
				bc.Access = append(bc.Access[:i:i], bc.Access[i+1:]...)
				return nil
			}
		}
		return nil
	})
}

// namespaceWriter writes dolt_branch_namespace_control.
type namespaceWriter struct{ s session }

func (w namespaceWriter) InsertRow(env *exec.Env, row exec.Row) error {
	e := namespaceOf(row)
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(e.Database, e.Branch) {
			return denied("add", row)
		}
		for _, x := range bc.Namespace {
			if x == e {
				return nil
			}
		}
		bc.Namespace = append(bc.Namespace, e)
		return nil
	})
}

func (w namespaceWriter) UpdateRow(env *exec.Env, old, row exec.Row) error {
	o, e := namespaceOf(old), namespaceOf(row)
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(o.Database, o.Branch) || !admin(e.Database, e.Branch) {
			return denied("update", old)
		}
		for i := range bc.Namespace {
			if bc.Namespace[i] == o {
				bc.Namespace[i] = e
				return nil
			}
		}
		return nil
	})
}

func (w namespaceWriter) DeleteRow(env *exec.Env, old exec.Row) error {
	o := namespaceOf(old)
	return w.s.EditBranchControl(env.Ctx, func(bc *versioning.BranchControl, admin func(string, string) bool) error {
		if !admin(o.Database, o.Branch) {
			return denied("delete", old)
		}
		for i := range bc.Namespace {
			if bc.Namespace[i] == o {
				bc.Namespace = append(bc.Namespace[:i:i], bc.Namespace[i+1:]...)
				return nil
			}
		}
		return nil
	})
}

func init() {
	systemTables["branch_control"] = systemTable{
		cols: branchControlCols,
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			bc, err := s.BranchControl(env.Ctx)
			if err != nil {
				return nil, err
			}
			rows := make([]exec.Row, len(bc.Access))
			for i, e := range bc.Access {
				rows[i] = branchAccessRow(e)
			}
			return rows, nil
		},
		writer: func(s session) exec.VirtualWriter { return accessWriter{s} },
	}
	systemTables["branch_namespace_control"] = systemTable{
		cols: branchControlCols[:4],
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			bc, err := s.BranchControl(env.Ctx)
			if err != nil {
				return nil, err
			}
			rows := make([]exec.Row, len(bc.Namespace))
			for i, e := range bc.Namespace {
				rows[i] = exec.Row{exec.DText(e.Database), exec.DText(e.Branch), exec.DText(e.User), exec.DText(e.Host)}
			}
			return rows, nil
		},
		writer: func(s session) exec.VirtualWriter { return namespaceWriter{s} },
	}
}
