package session

import (
	"slices"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// regconfig and regdictionary: a text search configuration or dictionary
// by name, pg_catalog's built-ins first, then along the search path; a
// name prints qualified when the search path would not find it.

// textSearchIn resolves text as regconfig (typ) or regdictionary input.
func (s *Session) textSearchIn(env *exec.Env, typ uint32, text string) (exec.Datum, error) {
	kind := "configuration"
	if typ == exec.OIDRegdictionary {
		kind = "dictionary"
	}
	parts, err := exec.ParseQualifiedName(text)
	if err != nil {
		return exec.Null, err
	}
	schema, name := planner.SplitName(parts)
	if schema == "" || schema == "pg_catalog" {
		builtin := catalog.BuiltinTextSearchConfigOID
		if typ == exec.OIDRegdictionary {
			builtin = catalog.BuiltinTextSearchDictOID
		}
		if oid, ok := builtin(name); ok {
			return exec.DRegOID(oid, planner.QuoteIdent(name)), nil
		}
	}
	schemas := s.SearchPath()
	if schema != "" {
		schemas = []string{s.ResolveSchemaName(schema)}
	}
	if env.Txn != nil {
		root := env.Txn.Catalog()
		for _, sc := range schemas {
			var ok bool
			var err error
			if typ == exec.OIDRegdictionary {
				_, ok, err = root.TextSearchDictionary(env.Ctx, sc, name)
			} else {
				_, ok, err = root.TextSearchConfig(env.Ctx, sc, name)
			}
			if err != nil {
				return exec.Null, err
			}
			if ok {
				oid := catalog.TextSearchConfigOID(sc, name)
				if typ == exec.OIDRegdictionary {
					oid = catalog.TextSearchDictOID(sc, name)
				}
				return exec.DRegOID(oid, s.textSearchDisplayName(sc, name)), nil
			}
		}
	}
	return exec.Null, pgerr.New(pgerr.UndefinedObject, "text search %s %q does not exist", kind, text)
}

// textSearchOut returns the name of configuration (typ regconfig) or
// dictionary oid, "" when there is none.
func (s *Session) textSearchOut(env *exec.Env, typ, oid uint32) (string, error) {
	for _, name := range []string{"simple", "english", "english_stem"} {
		builtin := catalog.BuiltinTextSearchConfigOID
		if typ == exec.OIDRegdictionary {
			builtin = catalog.BuiltinTextSearchDictOID
		}
		if o, ok := builtin(name); ok && o == oid {
			return name, nil
		}
	}
	if env.Txn == nil {
		return "", nil
	}
	root := env.Txn.Catalog()
	if typ == exec.OIDRegdictionary {
		dicts, err := root.TextSearchDictionaries(env.Ctx)
		if err != nil {
			return "", err
		}
		for _, d := range dicts {
			if catalog.TextSearchDictOID(d.Schema, d.Name) == oid {
				return s.textSearchDisplayName(d.Schema, d.Name), nil
			}
		}
		return "", nil
	}
	configs, err := root.TextSearchConfigs(env.Ctx)
	if err != nil {
		return "", err
	}
	for _, c := range configs {
		if catalog.TextSearchConfigOID(c.Schema, c.Name) == oid {
			return s.textSearchDisplayName(c.Schema, c.Name), nil
		}
	}
	return "", nil
}

// textSearchDisplayName is name, qualified unless schema is on the
// search path (a shadowing object earlier on the path is not looked for).
func (s *Session) textSearchDisplayName(schema, name string) string {
	if slices.Contains(s.SearchPath(), schema) {
		return planner.QuoteIdent(name)
	}
	return planner.QuoteIdent(schema) + "." + planner.QuoteIdent(name)
}
