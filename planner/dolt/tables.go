package dolt

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The version-control system tables, as Doltgres names them: dolt.log or
// dolt_log (in any schema), dolt.branches or dolt_branches, ...; per-table
// ones such as dolt_diff_<table> in the table's schema; and table
// functions such as dolt_diff(from, to, table) in FROM. Their rows are
// computed at each scan from the repository and the transaction's root,
// so they show the transaction's own uncommitted changes. The diff and
// history family is in diff.go (row diffs, history, dolt.diff),
// diffstat.go and patch.go; merges' tables in conflicts.go. The planner
// finds them in FROM through SystemTable and TableFunction.

// systemSchema is the schema that holds the system tables under their
// short names (dolt.log is dolt_log). It is a stored schema only once a
// table of it is stored (dolt.docs): CREATE SCHEMA dolt succeeds before
// that, as it must when a dump that holds dolt.docs is restored, where
// Doltgres says the schema exists.
const systemSchema = "dolt"

// systemTable is a system table with fixed columns.
type systemTable struct {
	cols []exec.VirtualColumn
	rows func(s session, env *exec.Env) ([]exec.Row, error)
	// writer, when set, makes the table writable (exec.VirtualWriter).
	writer func(s session) exec.VirtualWriter
}

// tableFunc plans a table function's call, its arguments constants.
type tableFunc func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error)

// systemTables are the fixed-column system tables by their short names.
// perTableSystem are the per-table ones by prefix (diff_ for
// dolt_diff_<table>): given the table, they build the virtual table.
// perSchemaSystem are the ones each schema has (dolt_schemas), by their
// short names. systemFuncs are the table functions. All four are filled
// by init functions of the files that define them and never change
// afterwards.
var (
	systemTables    = map[string]systemTable{}
	perTableSystem  = map[string]func(s session, t *sqldef.Table) (*exec.Table, error){}
	perSchemaSystem = map[string]func(s session, schema string) *exec.Table{}
	systemFuncs     = map[string]tableFunc{}
)

// Catalog is what SystemTable asks of the planner about the
// transaction's root: its stored tables and schemas, by the planner's
// rules for names.
type Catalog interface {
	// LookupTable finds a stored table by schema and name, or by name
	// along the search path when schema is "".
	LookupTable(ctx context.Context, schema, name string) (*sqldef.Table, bool, error)
	// HasSchema reports whether the schema exists.
	HasSchema(ctx context.Context, schema string) (bool, error)
}

// SystemTable returns the system table a FROM name refers to, if any:
// dolt.NAME, dolt_NAME, dolt_PREFIX_TABLE for a table of schema (or of
// the search path, when schema is ""), or a per-schema table such as
// dolt_schemas; cat finds the stored tables and schemas. A user-writable
// system table (usertables.go) that is stored is an ordinary table, which
// the planner finds before asking here.
func SystemTable(ctx context.Context, sess Session, cat Catalog, schema, name string) (*exec.Table, bool, error) {
	short, ok := strings.CutPrefix(name, "dolt_")
	if schema == systemSchema || !ok && schema == "" && slices.Contains(sess.RelationSchemas(""), systemSchema) {
		short, ok = name, true // dolt.NAME, or NAME with dolt on the search path
	}
	if !ok {
		return nil, false, nil
	}
	s := session{sess}
	if st, found := systemTables[short]; found {
		t := exec.NewVirtualTable(systemSchema, "dolt_"+short, exec.ObjectOID('r', systemSchema, short), st.cols, func(env *exec.Env) ([]exec.Row, error) {
			return st.rows(s, env)
		})
		t.VirtualKind = 'c'
		if st.writer != nil {
			t.VirtualWriter = st.writer(s)
		}
		return t, true, nil
	}
	if st, found := storedTables[short]; found && !st.madeByRebase && (st.schema != "" || schema != systemSchema) {
		in := st.schema
		if in == "" {
			var err error
			if in, err = s.schemaOf(ctx, cat, schema); in == "" || err != nil {
				return nil, false, err
			}
		}
		return st.absent(in), true, nil
	}
	if schema == systemSchema {
		return nil, false, nil
	}
	if build, found := perSchemaSystem[short]; found {
		in, err := s.schemaOf(ctx, cat, schema)
		if in == "" || err != nil {
			return nil, false, err
		}
		t := build(s, in)
		t.VirtualKind = 'c'
		return t, true, nil
	}
	for prefix, build := range perTableSystem {
		rel, ok := strings.CutPrefix(short, prefix)
		if !ok || rel == "" {
			continue
		}
		def, ok, err := cat.LookupTable(ctx, schema, rel)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			// dolt_workspace_<table> of an existing schema is empty,
			// with no columns of the table, when it has no such table,
			// as Doltgres has it; the others do not exist.
			in := ""
			if prefix == "workspace_" {
				in, err = s.schemaOf(ctx, cat, schema)
			}
			if in == "" || err != nil {
				return nil, false, err
			}
			def = &sqldef.Table{Schema: in, Name: rel}
		}
		t, err := build(s, def)
		if t == nil || err != nil {
			return nil, false, err // nil: the table has no such system table
		}
		t.VirtualKind = 'c'
		return t, true, nil
	}
	return nil, false, nil
}

// schemaOf is the schema a per-schema system table named in schema (""
// when unqualified) is of: that one if it exists, or the first existing
// schema of the search path; "" for none.
func (s session) schemaOf(ctx context.Context, cat Catalog, schema string) (string, error) {
	for _, sc := range s.RelationSchemas(schema) {
		if sc == systemSchema || sc == "pg_catalog" || sc == "information_schema" || strings.HasPrefix(sc, "pg_temp") {
			continue
		}
		ok, err := cat.HasSchema(ctx, sc)
		if err != nil || ok {
			return sc, err
		}
	}
	return "", nil
}

// TableFunction returns the planner of a version-control table function
// in FROM, if name is one: dolt_log, dolt_diff, dolt_diff_<table>, ....
// Its arguments must be constants, known at planning: the function's
// columns depend on them (the table a diff is of).
func TableFunction(name string) (func(s Session, env *exec.Env, args []exec.Datum) (*exec.Table, error), bool) {
	build, ok := systemFuncs[name]
	if !ok {
		build, ok = perTableFunction(name) // dolt_diff_<table>(from, to)
	}
	if !ok {
		return nil, false
	}
	return func(s Session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		t, err := build(session{s}, env, args)
		if t != nil {
			t.VirtualKind = 'c'
		}
		return t, err
	}, true
}

// timestampDatum is a commit time as a timestamp (UTC).
func timestampDatum(t time.Time) exec.Datum {
	return exec.DTimestamp(int64(types.TimestampTZFromTime(t)))
}

// textOrNull is s as text, NULL when empty.
func textOrNull(s string) exec.Datum {
	if s == "" {
		return exec.Null
	}
	return exec.DText(s)
}

func init() {
	logCols := []exec.VirtualColumn{
		{Name: "commit_hash", Type: exec.TText}, {Name: "committer", Type: exec.TText},
		{Name: "email", Type: exec.TText}, {Name: "date", Type: exec.TTimestamp},
		{Name: "message", Type: exec.TText}, {Name: "commit_order", Type: exec.TInt8},
	}
	systemTables["log"] = systemTable{cols: logCols, rows: func(s session, env *exec.Env) ([]exec.Row, error) {
		head, err := s.headCommit(env.Ctx)
		if err != nil {
			return nil, err
		}
		return s.logRows(env.Ctx, []versioning.Address{head}, nil)
	}}
	systemFuncs["dolt_log"] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		var include, exclude []string
		for i := 0; i < len(args); i++ {
			arg := args[i].S
			switch {
			case arg == "--not" || arg == "-n":
				if i+1 < len(args) && arg == "-n" {
					i++ // a count: applied by LIMIT in SQL; accepted for compatibility
					continue
				}
				for i++; i < len(args); i++ {
					exclude = append(exclude, args[i].S)
				}
			case strings.Contains(arg, ".."):
				from, to, _ := strings.Cut(arg, "..")
				to = strings.TrimPrefix(to, ".")
				exclude, include = append(exclude, from), append(include, to)
			case strings.HasPrefix(arg, "^"):
				exclude = append(exclude, arg[1:])
			default:
				include = append(include, arg)
			}
		}
		if len(include) == 0 {
			include = []string{"HEAD"}
		}
		resolve := func(specs []string) ([]versioning.Address, error) {
			var out []versioning.Address
			for _, sp := range specs {
				c, err := s.resolveCommit(env.Ctx, sp)
				if err != nil {
					return nil, err
				}
				out = append(out, c)
			}
			return out, nil
		}
		inc, err := resolve(include)
		if err != nil {
			return nil, err
		}
		exc, err := resolve(exclude)
		if err != nil {
			return nil, err
		}
		return exec.NewVirtualTable("", "dolt_log", 0, logCols, func(env *exec.Env) ([]exec.Row, error) {
			return s.logRows(env.Ctx, inc, exc)
		}), nil
	}
	// dolt_branch_status(base, branch...) says, for each branch, how many
	// commits it has that base lacks and how many base has that it lacks,
	// as numerics, as Doltgres answers.
	systemFuncs["dolt_branch_status"] = func(s session, env *exec.Env, args []exec.Datum) (*exec.Table, error) {
		if len(args) < 1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "dolt_branch_status requires a base and at least one branch")
		}
		base, err := s.resolveCommit(env.Ctx, args[0].S)
		if err != nil {
			return nil, err
		}
		type status struct {
			name          string
			ahead, behind int
		}
		var out []status
		for _, a := range args[1:] {
			c, err := s.resolveCommit(env.Ctx, a.S)
			if err != nil {
				return nil, err
			}
			ahead, err := s.logRows(env.Ctx, []versioning.Address{c}, []versioning.Address{base})
			if err != nil {
				return nil, err
			}
			behind, err := s.logRows(env.Ctx, []versioning.Address{base}, []versioning.Address{c})
			if err != nil {
				return nil, err
			}
			out = append(out, status{a.S, len(ahead), len(behind)})
		}
		cols := []exec.VirtualColumn{{Name: "branch_name", Type: exec.TText}, {Name: "commits_ahead", Type: numericType}, {Name: "commits_behind", Type: numericType}}
		return exec.NewVirtualTable("", "dolt_branch_status", 0, cols, func(*exec.Env) ([]exec.Row, error) {
			rows := make([]exec.Row, len(out))
			for i, st := range out {
				rows[i] = exec.Row{exec.DText(st.name), exec.DNumeric(apd.New(int64(st.ahead), 0)), exec.DNumeric(apd.New(int64(st.behind), 0))}
			}
			return rows, nil
		}), nil
	}
	systemTables["remotes"] = systemTable{
		cols: []exec.VirtualColumn{{Name: "name", Type: exec.TText}, {Name: "url", Type: exec.TText},
			{Name: "fetch_specs", Type: exec.TJSON}, {Name: "params", Type: exec.TJSON}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			remotes, err := s.Repo().Remotes(env.Ctx)
			if err != nil {
				return nil, err
			}
			rows := make([]exec.Row, len(remotes))
			for i, r := range remotes {
				specs, _ := json.Marshal(r.FetchSpecs)
				params, _ := json.Marshal(r.Params)
				if r.Params == nil {
					params = []byte("{}")
				}
				rows[i] = exec.Row{exec.DText(r.Name), exec.DText(versioning.RedactURL(r.URL)), exec.DJSON(string(specs)), exec.DJSON(string(params))}
			}
			return rows, nil
		},
	}
	// dolt.remote_branches lists the remote-tracking branches that
	// dolt_fetch, dolt_pull, dolt_push and dolt_clone record
	// (remotes/origin/main), with Doltgres's columns.
	systemTables["remote_branches"] = systemTable{
		cols: []exec.VirtualColumn{{Name: "name", Type: exec.TText}, {Name: "hash", Type: exec.TText},
			{Name: "latest_committer", Type: exec.TText}, {Name: "latest_committer_email", Type: exec.TText},
			{Name: "latest_commit_date", Type: exec.TTimestamp}, {Name: "latest_commit_message", Type: exec.TText}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) { return s.remoteBranchRows(env.Ctx) },
	}
	systemTables["commits"] = systemTable{cols: logCols[:5], rows: func(s session, env *exec.Env) ([]exec.Row, error) {
		tips, err := s.Repo().Tips(env.Ctx)
		if err != nil {
			return nil, err
		}
		rows, err := s.logRows(env.Ctx, tips, nil)
		for i := range rows {
			rows[i] = rows[i][:5]
		}
		return rows, err
	}}
	systemTables["commit_ancestors"] = systemTable{
		cols: []exec.VirtualColumn{{Name: "commit_hash", Type: exec.TText}, {Name: "parent_hash", Type: exec.TText}, {Name: "parent_index", Type: exec.TInt4}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			tips, err := s.Repo().Tips(env.Ctx)
			if err != nil {
				return nil, err
			}
			log, err := s.Repo().Log(env.Ctx, tips, nil)
			if err != nil {
				return nil, err
			}
			var rows []exec.Row
			for _, e := range log {
				if len(e.Commit.Parents) == 0 {
					rows = append(rows, exec.Row{exec.DText(e.Addr.String()), exec.Null, exec.DInt(0)})
				}
				for i, p := range e.Commit.Parents {
					rows = append(rows, exec.Row{exec.DText(e.Addr.String()), exec.DText(p.String()), exec.DInt(int64(i))})
				}
			}
			return rows, nil
		}}
	systemTables["branches"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "name", Type: exec.TText}, {Name: "hash", Type: exec.TText},
			{Name: "latest_committer", Type: exec.TText}, {Name: "latest_committer_email", Type: exec.TText},
			{Name: "latest_commit_date", Type: exec.TTimestamp}, {Name: "latest_commit_message", Type: exec.TText},
			{Name: "remote", Type: exec.TText}, {Name: "branch", Type: exec.TText}, {Name: "dirty", Type: exec.TBool},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			names, err := s.Repo().Branches(env.Ctx)
			if err != nil {
				return nil, err
			}
			remotes, err := s.Repo().Remotes(env.Ctx)
			if err != nil {
				return nil, err
			}
			var rows []exec.Row
			for _, b := range names {
				// remote and branch: the upstream the branch tracks, if any.
				upRemote, upBranch := "", ""
				for _, rm := range remotes {
					if ub, ok := rm.Upstream(b); ok {
						upRemote, upBranch = rm.Name, ub
					}
				}
				head, headRoot, staged, working, _, err := s.Repo().Roots(env.Ctx, b)
				if err != nil {
					return nil, err
				}
				_, c, err := s.Repo().CommitRoot(env.Ctx, head)
				if err != nil {
					return nil, err
				}
				dirty := staged.Addr() != headRoot.Addr() || working.Addr() != headRoot.Addr()
				rows = append(rows, exec.Row{exec.DText(b), exec.DText(head.String()),
					exec.DText(c.Committer.Name), exec.DText(c.Committer.Email), timestampDatum(c.Committer.When),
					exec.DText(c.Message), exec.DText(upRemote), exec.DText(upBranch), exec.DBool(dirty)})
			}
			return rows, nil
		}}
	systemTables["tags"] = systemTable{
		cols: []exec.VirtualColumn{
			{Name: "tag_name", Type: exec.TText}, {Name: "tag_hash", Type: exec.TText},
			{Name: "tagger", Type: exec.TText}, {Name: "email", Type: exec.TText},
			{Name: "date", Type: exec.TTimestamp}, {Name: "message", Type: exec.TText},
		},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			tags, err := s.Repo().Tags(env.Ctx)
			if err != nil {
				return nil, err
			}
			var rows []exec.Row
			for _, t := range tags {
				rows = append(rows, exec.Row{exec.DText(t.Name), exec.DText(t.Tag.Commit.String()),
					exec.DText(t.Tag.Tagger.Name), exec.DText(t.Tag.Tagger.Email), timestampDatum(t.Tag.Tagger.When),
					exec.DText(t.Tag.Message)})
			}
			return rows, nil
		}}
	statusCols := []exec.VirtualColumn{{Name: "table_name", Type: exec.TText}, {Name: "staged", Type: exec.TBool}, {Name: "status", Type: exec.TText}}
	systemTables["status"] = systemTable{cols: statusCols, rows: func(s session, env *exec.Env) ([]exec.Row, error) {
		rows, _, err := s.statusTableRows(env)
		return rows, err
	}}
	// dolt_status_ignored is dolt_status with a column saying which new
	// tables dolt_ignore ignores (ignore.go).
	systemTables["status_ignored"] = systemTable{
		cols: append(statusCols[:len(statusCols):len(statusCols)], exec.VirtualColumn{Name: "ignored", Type: exec.TBool}),
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			rows, staged, err := s.statusTableRows(env)
			if err != nil || len(rows) == 0 {
				return rows, err
			}
			ignored, err := ignoredTables(env.Ctx, staged, env.Txn.Root())
			if err != nil {
				return nil, err
			}
			for i, r := range rows {
				schema, name, _ := strings.Cut(r[0].S, ".")
				ig := !r[1].Bool() && ignored[sqldef.TableName{Schema: schema, Name: name}]
				rows[i] = append(r, exec.DBool(ig))
			}
			return rows, nil
		}}
}

// statusTableRows are dolt_status's rows: the staged changes, then the
// working ones; staged is the staged root they are measured against.
func (s session) statusTableRows(env *exec.Env) (rows []exec.Row, staged versioning.RootValue, err error) {
	if s.Detached() != nil {
		return nil, staged, nil
	}
	_, headRoot, staged, _, _, err := s.Repo().Roots(env.Ctx, s.Branch())
	if err != nil {
		return nil, staged, err
	}
	stagedRows, err := statusRows(env.Ctx, headRoot, staged, true)
	if err != nil {
		return nil, staged, err
	}
	workingRows, err := statusRows(env.Ctx, staged, env.Txn.Root(), false)
	return append(stagedRows, workingRows...), staged, err
}

// statusRows are dolt_status's rows for the changes from one root to the
// next: tables, schemas and other objects (objects.go) added,
// deleted or modified, and tables and objects with merge conflicts.
func statusRows(ctx context.Context, from, to versioning.RootValue, staged bool) ([]exec.Row, error) {
	changes, err := versioning.Changes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	names, err := labelTypes(ctx, from, to)
	if err != nil {
		return nil, err
	}
	var rows []exec.Row
	for _, c := range changes {
		var name, status string
		switch c.Kind {
		case versioning.KindTable:
			// Its triggers are listed by themselves, and the table
			// only if more than they changed.
			fromDef, toDef, err := c.Tables()
			if err != nil {
				return nil, err
			}
			trigs, rest, err := versioning.TableTriggerChanges(c.Schema, fromDef, toDef)
			if err != nil {
				return nil, err
			}
			if rest {
				rows = append(rows, exec.Row{exec.DText(c.Schema + "." + c.Name), exec.DBool(staged), exec.DText(changeWord(c, "table"))})
			}
			for _, t := range trigs {
				rows = append(rows, exec.Row{exec.DText(triggerLabel(t)), exec.DBool(staged), exec.DText(triggerChangeWord(t, fromDef, toDef))})
			}
			continue
		case versioning.KindSchema:
			name = c.Schema
			status = changeWord(c, "schema")
		case versioning.KindConflicts:
			if c.To == nil {
				continue
			}
			var tc versioning.TableConflicts
			if err := versioning.DecodeObject(c.To, &tc); err != nil {
				return nil, err
			}
			name, status = conflictLabel(&tc, names), "conflict"
		case versioning.KindView:
			continue // below, as the schema's dolt_schemas
		default:
			if !c.IsObject() {
				continue
			}
			name, status = changeLabel(c, names), changeWord(c, objectWord(c))
		}
		rows = append(rows, exec.Row{exec.DText(name), exec.DBool(staged), exec.DText(status)})
	}
	views, err := viewChanges(ctx, from, to, changes)
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		status := map[string]string{"added": "new table", "dropped": "deleted", "modified": "modified"}[v.kind]
		rows = append(rows, exec.Row{exec.DText(v.label()), exec.DBool(staged), exec.DText(status)})
	}
	return rows, nil
}

// changeWord words an object's change as dolt_status does.
func changeWord(c versioning.ObjectChange, what string) string {
	switch {
	case c.From == nil:
		return "new " + what
	case c.To == nil:
		return "deleted"
	}
	return "modified"
}

// logRows are dolt_log's rows for the commits reachable from include and
// not from exclude.
func (s session) logRows(ctx context.Context, include, exclude []versioning.Address) ([]exec.Row, error) {
	log, err := s.Repo().Log(ctx, include, exclude)
	if err != nil {
		return nil, err
	}
	rows := make([]exec.Row, len(log))
	for i, e := range log {
		c := e.Commit
		rows[i] = exec.Row{exec.DText(e.Addr.String()), exec.DText(c.Committer.Name), exec.DText(c.Committer.Email),
			timestampDatum(c.Committer.When), exec.DText(c.Message), exec.DInt(int64(len(log) - i))}
	}
	return rows, nil
}
