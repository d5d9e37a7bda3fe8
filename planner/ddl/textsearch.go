package ddl

import (
	"context"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/catalog"
	"github.com/prollypg/prollypg/exec/funcs"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Text search dictionaries and configurations (CREATE, ALTER and DROP
// TEXT SEARCH DICTIONARY and CONFIGURATION) as PostgreSQL's
// tsearchcmds.c runs them. The records live in the root value like
// other schema objects; a dictionary's options are checked by building
// it (funcs.CheckTextSearchDictionary), which reads its files. The
// built-in objects (pg_catalog's simple and english, simple and
// english_stem) are exec/funcs', not records, and cannot be changed.

// textSearchEnv is what a dictionary is built in when CREATE and ALTER
// check it: the transaction (a thesaurus finds its subdictionary in its
// catalog) and the session (the search path, the files).
func (a *analyzer) textSearchEnv(ctx context.Context) *exec.Env {
	return &exec.Env{Ctx: ctx, Txn: a.tx, Session: a.s}
}

// builtinTextSearchDicts are pg_catalog's dictionaries.
var builtinTextSearchDicts = map[string]bool{"simple": true, "english_stem": true}

// findTextSearchDict resolves a dictionary's name: its record, nil for a
// built-in, and its schema-qualified name; ok is false when there is
// none.
func (a *analyzer) findTextSearchDict(ctx context.Context, names []string) (d *sqldef.TextSearchDictionary, qualified string, ok bool, err error) {
	schema, name := planner.SplitName(names)
	if (schema == "" || schema == "pg_catalog") && builtinTextSearchDicts[name] {
		return nil, "pg_catalog." + name, true, nil
	}
	for _, s := range a.textSearchSchemas(schema) {
		d, ok, err := a.tx.Root().TextSearchDictionary(ctx, s, name)
		if err != nil || ok {
			return d, s + "." + name, ok, err
		}
	}
	return nil, "", false, nil
}

// findTextSearchConfig resolves a configuration's name as
// findTextSearchDict does; builtin is the name of a built-in one.
func (a *analyzer) findTextSearchConfig(ctx context.Context, names []string) (c *sqldef.TextSearchConfig, builtin string, ok bool, err error) {
	schema, name := planner.SplitName(names)
	if schema == "" || schema == "pg_catalog" {
		if _, ok := funcs.BuiltinTextSearchMappings(name); ok {
			return nil, name, true, nil
		}
	}
	for _, s := range a.textSearchSchemas(schema) {
		c, ok, err := a.tx.Root().TextSearchConfig(ctx, s, name)
		if err != nil || ok {
			return c, "", ok, err
		}
	}
	return nil, "", false, nil
}

// textSearchSchemas are the schemas an object named in schema ("" for
// unqualified) is looked for in.
func (a *analyzer) textSearchSchemas(schema string) []string {
	if schema != "" {
		return []string{a.s.ResolveSchemaName(schema)}
	}
	return a.s.SearchPath()
}

// dictionaryOption turns a DefElem into a dictionary option: its name
// and its value's text, quoted in dictinitoption unless a number.
func dictionaryOption(d *pg.DefElem) sqldef.TextSearchOption {
	o := sqldef.TextSearchOption{Name: d.Defname, Value: planner.DefText(d.Arg), Quoted: true}
	if d.Arg.GetInteger() != nil || d.Arg.GetFloat() != nil {
		o.Quoted = false
	}
	return o
}

// createTextSearchDictionary runs CREATE TEXT SEARCH DICTIONARY.
func (a *analyzer) createTextSearchDictionary(s *pg.DefineStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		schema, name, err := a.newObjectName(ctx, planner.NameList(s.Defnames))
		if err != nil {
			return "", err
		}
		d := &sqldef.TextSearchDictionary{Schema: schema, Name: name, Owner: a.s.CurrentRole()}
		for _, n := range s.Definition {
			de := n.GetDefElem()
			if de.Defname != "template" {
				d.Options = append(d.Options, dictionaryOption(de))
				continue
			}
			ts, tn := planner.SplitName(strings.Split(planner.DefText(de.Arg), "."))
			if (ts != "" && ts != "pg_catalog") || !slices.Contains(funcs.TextSearchTemplates, tn) {
				return "", pgerr.New(pgerr.UndefinedObject, "text search template %q does not exist", planner.DefText(de.Arg))
			}
			d.Template = tn
		}
		if d.Template == "" {
			return "", pgerr.New(pgerr.InvalidObjectDefinition, "text search template is required")
		}
		if err := funcs.CheckTextSearchDictionary(a.textSearchEnv(ctx), d); err != nil {
			return "", err
		}
		if _, ok, err := a.tx.Root().TextSearchDictionary(ctx, schema, name); err != nil {
			return "", err
		} else if ok {
			return "", pgerr.New(pgerr.UniqueViolation, `duplicate key value violates unique constraint "pg_ts_dict_dictname_index"`).
				WithDetail("Key (dictname, dictnamespace)=(%s, %d) already exists.", name, catalog.NamespaceOID(schema))
		}
		root, err := a.tx.Root().PutTextSearchDictionary(ctx, d)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE TEXT SEARCH DICTIONARY", nil
	}, nil
}

// alterTextSearchDictionary runs ALTER TEXT SEARCH DICTIONARY name
// (options): an option given replaces the one of its name, moved to the
// end, and an option without a value removes it.
func (a *analyzer) alterTextSearchDictionary(s *pg.AlterTSDictionaryStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		o, err := a.findTextSearchObject(ctx, pg.ObjectType_OBJECT_TSDICTIONARY, planner.NameList(s.Dictname))
		if err != nil {
			return "", err
		}
		if err := a.requireTextSearchOwner(*o.owner, o.kind, o.name); err != nil {
			return "", err
		}
		nd := *o.dict
		nd.Options = slices.Clone(nd.Options)
		for _, n := range s.Options {
			de := n.GetDefElem()
			nd.Options = slices.DeleteFunc(nd.Options, func(o sqldef.TextSearchOption) bool { return o.Name == de.Defname })
			if de.Arg != nil {
				nd.Options = append(nd.Options, dictionaryOption(de))
			}
		}
		if err := funcs.CheckTextSearchDictionary(a.textSearchEnv(ctx), &nd); err != nil {
			return "", err
		}
		root, err := a.tx.Root().PutTextSearchDictionary(ctx, &nd)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "ALTER TEXT SEARCH DICTIONARY", nil
	}, nil
}

// requireTextSearchOwner checks that the current role owns a text search
// object of kind (dictionary, configuration).
func (a *analyzer) requireTextSearchOwner(owner, kind, name string) error {
	au, err := a.Authority()
	if err != nil || au.Owns(owner) {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of text search %s %s", kind, name)
}

// createTextSearchConfig runs CREATE TEXT SEARCH CONFIGURATION, with the
// default parser or as a copy of another configuration's mappings.
func (a *analyzer) createTextSearchConfig(s *pg.DefineStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		schema, name, err := a.newObjectName(ctx, planner.NameList(s.Defnames))
		if err != nil {
			return "", err
		}
		var parser, source *pg.DefElem
		for _, n := range s.Definition {
			de := n.GetDefElem()
			switch de.Defname {
			case "parser":
				parser = de
			case "copy":
				source = de
			default:
				return "", pgerr.New(pgerr.SyntaxError, "text search configuration parameter %q not recognized", de.Defname)
			}
		}
		c := &sqldef.TextSearchConfig{Schema: schema, Name: name, Owner: a.s.CurrentRole()}
		switch {
		case parser != nil && source != nil:
			return "", pgerr.New(pgerr.SyntaxError, "cannot specify both PARSER and COPY options")
		case source != nil:
			names := strings.Split(planner.DefText(source.Arg), ".")
			from, builtin, ok, err := a.findTextSearchConfig(ctx, names)
			switch {
			case err != nil:
				return "", err
			case !ok:
				return "", pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", planner.DefText(source.Arg))
			case from != nil:
				c.Mappings = slices.Clone(from.Mappings)
			default:
				c.Mappings, _ = funcs.BuiltinTextSearchMappings(builtin)
			}
		case parser != nil:
			if ps, pn := planner.SplitName(strings.Split(planner.DefText(parser.Arg), ".")); pn != "default" || ps != "" && ps != "pg_catalog" {
				return "", pgerr.New(pgerr.UndefinedObject, "text search parser %q does not exist", planner.DefText(parser.Arg))
			}
		default:
			return "", pgerr.New(pgerr.InvalidObjectDefinition, "text search parser is required")
		}
		if _, ok, err := a.tx.Root().TextSearchConfig(ctx, schema, name); err != nil {
			return "", err
		} else if ok {
			return "", pgerr.New(pgerr.UniqueViolation, `duplicate key value violates unique constraint "pg_ts_config_cfgname_index"`).
				WithDetail("Key (cfgname, cfgnamespace)=(%s, %d) already exists.", name, catalog.NamespaceOID(schema))
		}
		root, err := a.tx.Root().PutTextSearchConfig(ctx, c)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "CREATE TEXT SEARCH CONFIGURATION", nil
	}, nil
}

// alterTextSearchConfig runs ALTER TEXT SEARCH CONFIGURATION's ADD,
// ALTER, REPLACE and DROP MAPPING.
func (a *analyzer) alterTextSearchConfig(s *pg.AlterTSConfigurationStmt) (planner.Utility, error) {
	return func(ctx context.Context) (string, error) {
		if err := a.tx.CheckWritable(); err != nil {
			return "", err
		}
		o, err := a.findTextSearchObject(ctx, pg.ObjectType_OBJECT_TSCONFIGURATION, planner.NameList(s.Cfgname))
		if err != nil {
			return "", err
		}
		if err := a.requireTextSearchOwner(*o.owner, o.kind, o.name); err != nil {
			return "", err
		}
		c := o.config
		var tokens []int
		for _, t := range s.Tokentype {
			alias := t.GetString_().GetSval()
			n := funcs.TokenTypeNumber(alias)
			if n == 0 {
				return "", pgerr.New(pgerr.InvalidParameterValue, "token type %q does not exist", alias)
			}
			if !slices.Contains(tokens, n) {
				tokens = append(tokens, n)
			}
		}
		var dicts []string
		for _, d := range s.Dicts {
			dn := planner.NameList(d.GetList().Items)
			_, q, ok, err := a.findTextSearchDict(ctx, dn)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", pgerr.New(pgerr.UndefinedObject, "text search dictionary %q does not exist", strings.Join(dn, "."))
			}
			dicts = append(dicts, q)
		}
		nc := *c
		nc.Mappings = slices.Clone(c.Mappings)
		at := func(tok int) int {
			return slices.IndexFunc(nc.Mappings, func(m sqldef.TextSearchMapping) bool { return m.TokenType == tok })
		}
		switch s.Kind {
		case pg.AlterTSConfigType_ALTER_TSCONFIG_DROP_MAPPING:
			for _, tok := range tokens {
				if i := at(tok); i >= 0 {
					nc.Mappings = slices.Delete(nc.Mappings, i, i+1)
					continue
				}
				if !s.MissingOk {
					return "", pgerr.New(pgerr.UndefinedObject, "mapping for token type %q does not exist", funcs.TokenTypeAlias(tok))
				}
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "mapping for token type %q does not exist, skipping", funcs.TokenTypeAlias(tok)))
			}
		case pg.AlterTSConfigType_ALTER_TSCONFIG_REPLACE_DICT, pg.AlterTSConfigType_ALTER_TSCONFIG_REPLACE_DICT_FOR_TOKEN:
			for i := range nc.Mappings {
				m := &nc.Mappings[i]
				if len(tokens) > 0 && !slices.Contains(tokens, m.TokenType) {
					continue
				}
				m.Dictionaries = slices.Clone(m.Dictionaries)
				for j, d := range m.Dictionaries {
					if d == dicts[0] {
						m.Dictionaries[j] = dicts[1]
					}
				}
			}
		default: // ADD MAPPING, ALTER MAPPING FOR ... WITH
			for _, tok := range tokens {
				if i := at(tok); i >= 0 {
					if !s.Override {
						return "", pgerr.New(pgerr.UniqueViolation, `duplicate key value violates unique constraint "pg_ts_config_map_index"`).
							WithDetail("Key (mapcfg, maptokentype, mapseqno)=(%d, %d, 1) already exists.", catalog.TextSearchConfigOID(c.Schema, c.Name), tok)
					}
					nc.Mappings = slices.Delete(nc.Mappings, i, i+1)
				}
				nc.Mappings = append(nc.Mappings, sqldef.TextSearchMapping{TokenType: tok, Dictionaries: slices.Clone(dicts)})
			}
			slices.SortFunc(nc.Mappings, func(x, y sqldef.TextSearchMapping) int { return x.TokenType - y.TokenType })
		}
		root, err := a.tx.Root().PutTextSearchConfig(ctx, &nc)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
		return "ALTER TEXT SEARCH CONFIGURATION", nil
	}, nil
}

// dropTextSearchDicts runs DROP TEXT SEARCH DICTIONARY; with CASCADE the
// configurations that map a token type to a dictionary go with it.
func (a *analyzer) dropTextSearchDicts(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().Items)
		d, q, ok, err := a.findTextSearchDict(ctx, names)
		if err != nil {
			return "", err
		}
		name := strings.Join(names, ".")
		switch {
		case !ok && s.MissingOk:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "text search dictionary %q does not exist, skipping", name))
			continue
		case !ok:
			return "", pgerr.New(pgerr.UndefinedObject, "text search dictionary %q does not exist", name)
		case d == nil:
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop text search dictionary %s because it is required by the database system", name)
		}
		if err := a.requireTextSearchOwner(d.Owner, "dictionary", d.Name); err != nil {
			return "", err
		}
		configs, err := a.tx.Root().TextSearchConfigs(ctx)
		if err != nil {
			return "", err
		}
		var users []*sqldef.TextSearchConfig
		for _, c := range configs {
			if slices.ContainsFunc(c.Mappings, func(m sqldef.TextSearchMapping) bool { return slices.Contains(m.Dictionaries, q) }) {
				users = append(users, c)
			}
		}
		root := a.tx.Root()
		if len(users) > 0 {
			lines := make([]string, len(users))
			for i, c := range users {
				lines[i] = "text search configuration " + c.Name + " depends on text search dictionary " + d.Name
			}
			if s.Behavior != pg.DropBehavior_DROP_CASCADE {
				return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop text search dictionary %s because other objects depend on it", d.Name).
					WithDetail("%s", strings.Join(lines, "\n")).
					WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
			}
			if len(users) == 1 {
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to text search configuration %s", users[0].Name))
			} else {
				detail := make([]string, len(users))
				for i, c := range users {
					detail[i] = "drop cascades to text search configuration " + c.Name
				}
				a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(users)).WithDetail("%s", strings.Join(detail, "\n")))
			}
			for _, c := range users {
				if root, err = root.DropTextSearchConfig(ctx, c.Schema, c.Name); err != nil {
					return "", err
				}
			}
		}
		if root, err = root.DropTextSearchDictionary(ctx, d.Schema, d.Name); err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	return "DROP TEXT SEARCH DICTIONARY", nil
}

// dropTextSearchConfigs runs DROP TEXT SEARCH CONFIGURATION.
func (a *analyzer) dropTextSearchConfigs(ctx context.Context, s *pg.DropStmt) (string, error) {
	for _, obj := range s.Objects {
		names := planner.NameList(obj.GetList().Items)
		c, _, ok, err := a.findTextSearchConfig(ctx, names)
		if err != nil {
			return "", err
		}
		name := strings.Join(names, ".")
		switch {
		case !ok && s.MissingOk:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "text search configuration %q does not exist, skipping", name))
			continue
		case !ok:
			return "", pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", name)
		case c == nil:
			return "", pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop text search configuration %s because it is required by the database system", name)
		}
		if err := a.requireTextSearchOwner(c.Owner, "configuration", c.Name); err != nil {
			return "", err
		}
		root, err := a.tx.Root().DropTextSearchConfig(ctx, c.Schema, c.Name)
		if err != nil {
			return "", err
		}
		a.tx.SetRoot(root)
	}
	return "DROP TEXT SEARCH CONFIGURATION", nil
}

// textSearchObject is a text search dictionary's or configuration's
// record seen through what ALTER ... OWNER TO, RENAME, SET SCHEMA and
// COMMENT ON change of both.
type textSearchObject struct {
	dict    *sqldef.TextSearchDictionary
	config  *sqldef.TextSearchConfig
	kind    string // "dictionary" or "configuration"
	schema  string
	name    string
	owner   *string
	comment *string
}

// findTextSearchObject resolves the dictionary (objType
// OBJECT_TSDICTIONARY) or configuration names, which must exist and be
// the user's.
func (a *analyzer) findTextSearchObject(ctx context.Context, objType pg.ObjectType, names []string) (*textSearchObject, error) {
	if objType == pg.ObjectType_OBJECT_TSDICTIONARY {
		d, _, ok, err := a.findTextSearchDict(ctx, names)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, pgerr.New(pgerr.UndefinedObject, "text search dictionary %q does not exist", strings.Join(names, "."))
		case d == nil:
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of text search dictionary %s", names[len(names)-1])
		}
		nd := *d
		return &textSearchObject{dict: &nd, kind: "dictionary", schema: d.Schema, name: d.Name, owner: &nd.Owner, comment: &nd.Comment}, nil
	}
	c, _, ok, err := a.findTextSearchConfig(ctx, names)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, pgerr.New(pgerr.UndefinedObject, "text search configuration %q does not exist", strings.Join(names, "."))
	case c == nil:
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be owner of text search configuration %s", names[len(names)-1])
	}
	nc := *c
	return &textSearchObject{config: &nc, kind: "configuration", schema: c.Schema, name: c.Name, owner: &nc.Owner, comment: &nc.Comment}, nil
}

// put stores the object as schema.name, dropping it where it was; a
// dictionary renamed or moved is renamed in the configurations mapping
// to it.
func (o *textSearchObject) put(ctx context.Context, a *analyzer, schema, name string) error {
	root := a.tx.Root()
	var err error
	moved := schema != o.schema || name != o.name
	if o.dict != nil {
		if moved {
			if _, ok, err := root.TextSearchDictionary(ctx, schema, name); err != nil {
				return err
			} else if ok {
				return pgerr.New(pgerr.DuplicateObject, "text search dictionary %q already exists in schema %q", name, schema)
			}
			if root, err = root.DropTextSearchDictionary(ctx, o.schema, o.name); err != nil {
				return err
			}
			if root, err = renameMappedDictionary(ctx, root, o.schema+"."+o.name, schema+"."+name); err != nil {
				return err
			}
		}
		o.dict.Schema, o.dict.Name = schema, name
		root, err = root.PutTextSearchDictionary(ctx, o.dict)
	} else {
		if moved {
			if _, ok, err := root.TextSearchConfig(ctx, schema, name); err != nil {
				return err
			} else if ok {
				return pgerr.New(pgerr.DuplicateObject, "text search configuration %q already exists in schema %q", name, schema)
			}
			if root, err = root.DropTextSearchConfig(ctx, o.schema, o.name); err != nil {
				return err
			}
		}
		o.config.Schema, o.config.Name = schema, name
		root, err = root.PutTextSearchConfig(ctx, o.config)
	}
	if err != nil {
		return err
	}
	a.tx.SetRoot(root)
	return nil
}

// renameMappedDictionary returns root with the configurations' mappings
// to dictionary from mapping to to instead.
func renameMappedDictionary(ctx context.Context, root versioning.RootValue, from, to string) (versioning.RootValue, error) {
	configs, err := root.TextSearchConfigs(ctx)
	if err != nil {
		return root, err
	}
	for _, c := range configs {
		changed := false
		nc := *c
		nc.Mappings = slices.Clone(c.Mappings)
		for i := range nc.Mappings {
			if j := slices.Index(nc.Mappings[i].Dictionaries, from); j >= 0 {
				nc.Mappings[i].Dictionaries = slices.Clone(nc.Mappings[i].Dictionaries)
				nc.Mappings[i].Dictionaries[j], changed = to, true
			}
		}
		if changed {
			if root, err = root.PutTextSearchConfig(ctx, &nc); err != nil {
				return root, err
			}
		}
	}
	return root, nil
}

// alterTextSearchOwner runs ALTER TEXT SEARCH DICTIONARY or
// CONFIGURATION ... OWNER TO owner.
func (a *analyzer) alterTextSearchOwner(ctx context.Context, s *pg.AlterOwnerStmt) (string, error) {
	o, err := a.findTextSearchObject(ctx, s.ObjectType, planner.NameList(s.Object.GetList().GetItems()))
	if err != nil {
		return "", err
	}
	if *o.owner, err = a.newOwner(s.Newowner, *o.owner); err != nil {
		return "", err
	}
	return "ALTER TEXT SEARCH " + strings.ToUpper(o.kind), o.put(ctx, a, o.schema, o.name)
}

// renameTextSearch runs ALTER TEXT SEARCH DICTIONARY or CONFIGURATION
// ... RENAME TO.
func (a *analyzer) renameTextSearch(ctx context.Context, s *pg.RenameStmt) (string, error) {
	o, err := a.findTextSearchObject(ctx, s.RenameType, planner.NameList(s.Object.GetList().GetItems()))
	if err != nil {
		return "", err
	}
	if err := a.requireTextSearchOwner(*o.owner, o.kind, o.name); err != nil {
		return "", err
	}
	return "ALTER TEXT SEARCH " + strings.ToUpper(o.kind), o.put(ctx, a, o.schema, s.Newname)
}

// setTextSearchSchema runs ALTER TEXT SEARCH DICTIONARY or
// CONFIGURATION ... SET SCHEMA.
func (a *analyzer) setTextSearchSchema(ctx context.Context, s *pg.AlterObjectSchemaStmt) (string, error) {
	o, err := a.findTextSearchObject(ctx, s.ObjectType, planner.NameList(s.Object.GetList().GetItems()))
	if err != nil {
		return "", err
	}
	if err := a.requireTextSearchOwner(*o.owner, o.kind, o.name); err != nil {
		return "", err
	}
	if err := a.requireSchemaCreate(ctx, s.Newschema); err != nil {
		return "", err
	}
	return "ALTER TEXT SEARCH " + strings.ToUpper(o.kind), o.put(ctx, a, s.Newschema, o.name)
}

// commentTextSearch runs COMMENT ON TEXT SEARCH DICTIONARY or
// CONFIGURATION.
func (a *analyzer) commentTextSearch(ctx context.Context, objType pg.ObjectType, names []string, text string) error {
	o, err := a.findTextSearchObject(ctx, objType, names)
	if err != nil {
		return err
	}
	if err := a.requireTextSearchOwner(*o.owner, o.kind, o.name); err != nil {
		return err
	}
	*o.comment = text
	return o.put(ctx, a, o.schema, o.name)
}
