package dolt

import (
	"context"
	"regexp"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// dolt_ignore: each schema's table of name patterns (pattern text primary
// key, ignored boolean), stored like any table (usertables.go). A new
// table whose name matches a pattern with ignored true is left out when
// everything is staged (dolt_add('.'), dolt_add('-A'), dolt_commit('-A'))
// and when dolt_clean() cleans everything; dolt_status still lists it,
// unstaged (dolt_status_ignored says it is ignored), and naming it
// stages it. In a
// pattern, * matches any run of characters, % too, and ? one character.
// A name matched by patterns of both kinds takes the more specific ones:
// a pattern is more specific than another when the other matches it
// read as a name (generated_exception than generated_*); when neither
// side is, the name is in conflict and staging fails.

// ignoreTable is the stored name of each schema's dolt_ignore.
const ignoreTable = "dolt_ignore"

// ignorePattern is one row of a dolt_ignore.
type ignorePattern struct {
	pattern string
	ignored bool
	re      *regexp.Regexp
}

// compileIgnorePattern compiles a dolt_ignore pattern to a regexp
// matching whole names.
func compileIgnorePattern(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteByte('^')
	for _, r := range pattern {
		switch r {
		case '*', '%':
			b.WriteString(".*")
		case '?':
			b.WriteByte('.')
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteByte('$')
	return regexp.Compile(b.String())
}

// readIgnorePatterns reads the dolt_ignore of schema in root; none when
// the schema has no dolt_ignore.
func readIgnorePatterns(ctx context.Context, root versioning.RootValue, schema string) ([]ignorePattern, error) {
	def, ok, err := root.Table(ctx, schema, ignoreTable)
	if err != nil || !ok {
		return nil, err
	}
	t := exec.NewTable(def)
	patternCol, ignoredCol := -1, -1
	for i, c := range t.Cols {
		switch {
		case c.Dropped:
		case c.Name == "pattern" && c.Type.OID == exec.OIDText:
			patternCol = i
		case c.Name == "ignored" && c.Type.OID == exec.OIDBool:
			ignoredCol = i
		}
	}
	if patternCol < 0 || ignoredCol < 0 {
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "%s.%s must have the columns pattern text and ignored boolean", schema, ignoreTable)
	}
	var out []ignorePattern
	var row exec.Row
	err = versioning.EachStoredRow(ctx, root.Store(), def, func(_, v []byte) error {
		if row, err = t.DecodeRow(v, row); err != nil {
			return err
		}
		if row[patternCol].IsNull() || row[ignoredCol].IsNull() {
			return nil
		}
		p := ignorePattern{pattern: row[patternCol].S, ignored: row[ignoredCol].Bool()}
		if p.re, err = compileIgnorePattern(p.pattern); err != nil {
			return pgerr.Wrap(err, pgerr.InvalidRegularExpression, "invalid pattern %q in %s.%s", p.pattern, schema, ignoreTable)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// ignores reports whether patterns ignore the table name.
func ignores(patterns []ignorePattern, name string) (bool, error) {
	var yes, no []ignorePattern
	for _, p := range patterns {
		if !p.re.MatchString(name) {
			continue
		}
		if p.ignored {
			yes = append(yes, p)
		} else {
			no = append(no, p)
		}
	}
	switch {
	case len(yes) == 0:
		return false, nil
	case len(no) == 0:
		return true, nil
	}
	// A side all of whose patterns match a pattern of the other side,
	// read as a name, is less specific than that side and gives way,
	// unless the other side gives way too.
	yesGeneral, noGeneral := allMatchSome(yes, no), allMatchSome(no, yes)
	switch {
	case yesGeneral && !noGeneral:
		return false, nil
	case noGeneral && !yesGeneral:
		return true, nil
	}
	var ys, ns []string
	for _, p := range yes {
		ys = append(ys, p.pattern)
	}
	for _, p := range no {
		ns = append(ns, p.pattern)
	}
	return false, pgerr.New(pgerr.ObjectNotInPrerequisite, "the table %s matches conflicting patterns in dolt_ignore", name).
		WithDetail("Ignored by %s; not ignored by %s.", strings.Join(ys, ", "), strings.Join(ns, ", "))
}

// allMatchSome reports whether every pattern of general matches some
// pattern of specific read as a name.
func allMatchSome(general, specific []ignorePattern) bool {
	for _, g := range general {
		found := false
		for _, s := range specific {
			if g.re.MatchString(s.pattern) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ignoredTables returns the tables new in working (absent from staged)
// that the dolt_ignore of their schema in working ignores, and the plan
// of a rebase (dolt.rebase). dolt.docs and dolt_ignore are never
// ignored.
func ignoredTables(ctx context.Context, staged, working versioning.RootValue) (map[sqldef.TableName]bool, error) {
	changes, err := versioning.Changes(ctx, staged, working)
	if err != nil {
		return nil, err
	}
	patterns := map[string][]ignorePattern{}
	var out map[sqldef.TableName]bool
	for _, c := range changes {
		if c.Kind != versioning.KindTable || c.From != nil || c.To == nil || c.Name == ignoreTable {
			continue
		}
		if c.Schema == systemSchema {
			if c.Name == rebaseTable.name {
				// A rebase's plan is the rebase's state, not the
				// user's data: staging everything leaves it.
				out = addIgnored(out, c)
			}
			continue
		}
		ps, read := patterns[c.Schema]
		if !read {
			if ps, err = readIgnorePatterns(ctx, working, c.Schema); err != nil {
				return nil, err
			}
			patterns[c.Schema] = ps
		}
		ignored, err := ignores(ps, c.Name)
		if err != nil {
			return nil, err
		}
		if ignored {
			out = addIgnored(out, c)
		}
	}
	return out, nil
}

// addIgnored adds the table of change c to the set of ignored tables.
func addIgnored(set map[sqldef.TableName]bool, c versioning.ObjectChange) map[sqldef.TableName]bool {
	if set == nil {
		set = map[sqldef.TableName]bool{}
	}
	set[sqldef.TableName{Schema: c.Schema, Name: c.Name}] = true
	return set
}

// stageAll is working with the tables dolt_ignore ignores left as they
// are in staged: what dolt_add('.') stages.
func stageAll(ctx context.Context, staged, working versioning.RootValue) (versioning.RootValue, error) {
	skip, err := ignoredTables(ctx, staged, working)
	if err != nil {
		return versioning.RootValue{}, err
	}
	return versioning.StageAllExcept(ctx, staged, working, skip)
}
