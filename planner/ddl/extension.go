package ddl

import (
	"context"
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// CREATE EXTENSION and DROP EXTENSION. The extensions there are here
// (catalog.LookupExtension) have their objects built in, available
// whether installed or not, as a function of pgcrypto always is: what
// installing one changes is its sqldef.Extension record, which
// pg_extension lists and a second CREATE EXTENSION finds. plpgsql is
// installed in every database, as in PostgreSQL.

// createExtension runs CREATE EXTENSION [IF NOT EXISTS] name [SCHEMA s]
// [VERSION v] [CASCADE]: records an available extension not yet
// installed, in the schema named or else the first of search_path, with
// PostgreSQL's errors otherwise.
func (a *analyzer) createExtension(s *pg.CreateExtensionStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		b, ok := catalog.LookupExtension(s.Extname)
		if !ok {
			return "", pgerr.New(pgerr.FeatureNotSupported, "extension %q is not available", s.Extname).
				WithDetail("Could not open extension control file \"/usr/share/postgresql/15/extension/%s.control\": No such file or directory.", s.Extname).
				WithHint("The extension must first be installed on the system where PostgreSQL is running.")
		}
		installed, err := a.extensionInstalled(ctx, s.Extname)
		if err != nil {
			return "", err
		}
		if installed {
			if s.IfNotExists {
				a.s.Notice(pgerr.New(pgerr.DuplicateObject, "extension %q already exists, skipping", s.Extname))
				return "CREATE EXTENSION", nil
			}
			return "", pgerr.New(pgerr.DuplicateObject, "extension %q already exists", s.Extname)
		}
		schema := ""
		for _, o := range s.Options {
			d := o.GetDefElem()
			switch d.GetDefname() {
			case "schema":
				schema = d.GetArg().GetString_().GetSval()
			case "new_version":
				if v := d.GetArg().GetString_().GetSval(); v != b.Version {
					return "", pgerr.New(pgerr.InvalidParameterValue, "extension %q has no installation script nor update path for version %q", s.Extname, v)
				}
			}
		}
		if schema, err = a.creationSchema(ctx, schema, -1); err != nil {
			return "", err
		}
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		root, err := a.tx.Root().PutExtension(ctx, &sqldef.Extension{Name: b.Name, Schema: schema, Version: b.Version, Owner: planner.NewObjectOwner(a.s)})
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE EXTENSION", nil
	}, nil
}

// extensionInstalled reports whether extension name is installed in the
// transaction's database: plpgsql always is.
func (a *analyzer) extensionInstalled(ctx context.Context, name string) (bool, error) {
	if name == "plpgsql" {
		return true, nil
	}
	_, ok, err := a.tx.Root().ExtensionNamed(ctx, name)
	return ok, err
}

// dropExtensions runs DROP EXTENSION [IF EXISTS] names [CASCADE |
// RESTRICT]. An extension whose types columns or domains use is not
// dropped, as PostgreSQL's RESTRICT refuses; CASCADE, which would drop
// those columns, is not supported then. plpgsql, which the PL/pgSQL
// interpreter is, stays.
func (a *analyzer) dropExtensions(ctx context.Context, s *pg.DropStmt) (string, error) {
	root := a.tx.Root()
	for _, obj := range s.Objects {
		name := obj.GetString_().GetSval()
		if name == "plpgsql" {
			return "", pgerr.New(pgerr.FeatureNotSupported, "cannot drop extension plpgsql: PL/pgSQL is built in")
		}
		if _, ok, err := root.ExtensionNamed(ctx, name); err != nil {
			return "", err
		} else if !ok {
			if s.MissingOk {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "extension %q does not exist, skipping", name))
				continue
			}
			return "", pgerr.New(pgerr.UndefinedObject, "extension %q does not exist", name)
		}
		deps, err := extensionDependents(ctx, root, name)
		if err != nil {
			return "", err
		}
		if len(deps) > 0 {
			if s.Behavior == pg.DropBehavior_DROP_CASCADE {
				return "", pgerr.New(pgerr.FeatureNotSupported, "DROP EXTENSION %s CASCADE would drop objects that depend on it, which is not supported", name).
					WithDetail("%s", strings.Join(deps, "\n"))
			}
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop extension %s because other objects depend on it", name).
				WithDetail("%s", strings.Join(deps, "\n")).
				WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
		}
		if root, err = root.DropExtension(ctx, name); err != nil {
			return "", err
		}
	}
	a.tx.SetRoot(root)
	return "DROP EXTENSION", nil
}

// extensionDependents describes, as PostgreSQL's DETAIL lines do, the
// columns and domains of root that use a type of extension name.
func extensionDependents(ctx context.Context, root versioning.RootValue, name string) ([]string, error) {
	own := func(oid uint32) bool { return types.ExtensionOf(types.Oid(oid)) == name }
	var deps []string
	tables, err := root.Tables(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		for _, c := range t.Columns {
			if !c.Dropped && own(c.Type) {
				deps = append(deps, fmt.Sprintf("column %s of table %s depends on type %s", c.Name, t.Name, exec.TypeName(c.Type)))
			}
		}
	}
	typs, err := root.Types(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range typs {
		if t.Kind == 'd' && own(t.Base) {
			deps = append(deps, fmt.Sprintf("type %s depends on type %s", t.Name, exec.TypeName(t.Base)))
		}
	}
	return deps, nil
}
