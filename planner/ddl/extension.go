package ddl

import (
	"context"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// builtinExtensions are the extensions whose objects this server has
// built in, so that CREATE EXTENSION of them has nothing to install:
// plpgsql, which every database has, uuid-ossp, whose uuid_generate_v4
// is what applications create it for, and pgcrypto, for its hashing
// functions and gen_random_uuid (exec/funcs/pgcrypto.go says what of it
// there is).
var builtinExtensions = map[string]bool{"plpgsql": true, "uuid-ossp": true, "pgcrypto": true}

// createExtension runs CREATE EXTENSION [IF NOT EXISTS] name: plpgsql is
// there already, as in every PostgreSQL database; uuid-ossp and pgcrypto
// answer as installed; any other is not available, with PostgreSQL's
// error.
func (a *analyzer) createExtension(s *pg.CreateExtensionStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		switch {
		case s.Extname == "plpgsql" && s.IfNotExists:
			a.s.Notice(pgerr.New(pgerr.DuplicateObject, "extension %q already exists, skipping", s.Extname))
			return "CREATE EXTENSION", nil
		case s.Extname == "plpgsql":
			return "", pgerr.New(pgerr.DuplicateObject, "extension %q already exists", s.Extname)
		case builtinExtensions[s.Extname]:
			return "CREATE EXTENSION", nil
		}
		return "", pgerr.New(pgerr.FeatureNotSupported, "extension %q is not available", s.Extname).
			WithDetail("Could not open extension control file \"/usr/share/postgresql/15/extension/%s.control\": No such file or directory.", s.Extname).
			WithHint("The extension must first be installed on the system where PostgreSQL is running.")
	}, nil
}
