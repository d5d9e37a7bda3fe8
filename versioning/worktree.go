package versioning

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prollypg/prollypg/prolly"
	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Working-set operations: staging, status, commit, reset. They are pure
// functions of root values and commits; the branch moves through
// UpdateBranch.

// ObjectChange is one object that differs between two root values.
type ObjectChange struct {
	Kind         byte // 's' schema, 't' table, 'u' sequence, 'v' view, 'y' type, 'p' function, 'f' foreign key reference, 'i' inheritance, 'c' conflicts
	Schema, Name string
	From, To     []byte // the records; nil where the object is absent
}

// Object kinds, as ObjectChange.Kind reports them.
const (
	KindSchema    = kindSchema
	KindTable     = kindTable
	KindSequence  = kindSequence
	KindView      = kindView
	KindType      = kindType
	KindFunction  = kindFunction
	KindFKRef     = kindFKRef
	KindInherits  = kindInherits
	KindConflicts = kindConflicts
	// KindTrigger names a table's trigger in an ObjectName (TriggerObject).
	// It is no kind of the root's keys: a trigger is part of its table's
	// record. Version control stages and lists triggers by themselves all
	// the same, as Doltgres does.
	KindTrigger = 'g'
)

// TriggerObject is the ObjectName of trigger of table schema.table.
func TriggerObject(schema, table, trigger string) ObjectName {
	return ObjectName{Kind: KindTrigger, Schema: schema, Name: table + "\x00" + trigger}
}

// Trigger splits the ObjectName of a trigger into its table and name.
func (o ObjectName) Trigger() (table, trigger string, ok bool) {
	if o.Kind != KindTrigger {
		return "", "", false
	}
	table, trigger, ok = strings.Cut(o.Name, "\x00")
	return table, trigger, ok
}

// IsTable reports whether the change is of a table.
func (c ObjectChange) IsTable() bool { return c.Kind == kindTable }

// Tables decodes the two versions of a changed table; nil where absent.
func (c ObjectChange) Tables() (from, to *sqldef.Table, err error) {
	if c.From != nil {
		if from, err = DecodeTable(c.From); err != nil {
			return nil, nil, err
		}
	}
	if c.To != nil {
		if to, err = DecodeTable(c.To); err != nil {
			return nil, nil, err
		}
	}
	return from, to, nil
}

// Changes returns the objects that differ between from and to, ordered by
// kind, schema and name. Its cost grows with the number of changed
// objects, not the size of the database.
func Changes(ctx context.Context, from, to RootValue) ([]ObjectChange, error) {
	var out []ObjectChange
	err := prolly.DiffMaps(ctx, from.m, to.m, func(d prolly.Diff) error {
		kind, schema, name, err := splitObjectKey(d.Key)
		if err != nil {
			return err
		}
		out = append(out, ObjectChange{Kind: kind, Schema: schema, Name: name,
			From: bytes.Clone(d.From), To: bytes.Clone(d.To)})
		return nil
	})
	return out, err
}

// StageTables returns staged with the named tables as they are in working:
// their records (or their absence), the foreign key references they make,
// the sequences their columns own and their schemas.
func StageTables(ctx context.Context, staged, working RootValue, tables []sqldef.TableName) (RootValue, error) {
	names := make([]ObjectName, len(tables))
	for i, t := range tables {
		names[i] = ObjectName{Kind: kindTable, Schema: t.Schema, Name: t.Name}
	}
	return StageObjects(ctx, staged, working, names)
}

// StageObjects returns staged with the named objects as they are in
// working. A table brings the foreign key references it makes, its
// inheritance links and the changed types (see below), but neither its
// triggers nor the sequences its columns own, which are staged by their
// own names (KindTrigger, KindSequence) as Doltgres stages them: staging
// a table keeps the triggers it has in staged (none if it is new there),
// and staging a trigger of a table that staged lacks stages the table
// too. Any object brings its schema and its merge conflicts.
func StageObjects(ctx context.Context, staged, working RootValue, objects []ObjectName) (RootValue, error) {
	want := map[ObjectName]bool{}
	tables := map[sqldef.TableName]bool{}
	triggers := map[sqldef.TableName][]string{}
	for _, o := range objects {
		if table, trig, ok := o.Trigger(); ok {
			t := sqldef.TableName{Schema: o.Schema, Name: table}
			triggers[t] = append(triggers[t], trig)
			continue
		}
		want[o] = true
		if o.Kind == kindTable {
			tables[sqldef.TableName{Schema: o.Schema, Name: o.Name}] = true
		}
	}
	for t := range triggers {
		if tables[t] {
			continue
		}
		if _, ok, err := staged.Table(ctx, t.Schema, t.Name); err != nil {
			return RootValue{}, err
		} else if !ok {
			tables[t] = true
			want[ObjectName{kindTable, t.Schema, t.Name}] = true
		}
	}
	schemas := map[string]bool{}
	for _, o := range objects {
		schemas[o.Schema] = true
	}
	out, err := stageWhere(ctx, staged, working, func(kind byte, schema, name string) bool {
		switch kind {
		case kindSchema:
			return schemas[schema]
		case kindFKRef:
			// name is refTable \0 schema \0 table \0 constraint: the
			// referencing table is the second and third parts.
			parts := bytes.Split([]byte(name), []byte{0})
			return len(parts) >= 3 && tables[sqldef.TableName{Schema: string(parts[1]), Name: string(parts[2])}]
		case kindInherits:
			// name is parent \0 schema \0 child: staged with the child.
			parts := bytes.Split([]byte(name), []byte{0})
			return len(parts) == 3 && tables[sqldef.TableName{Schema: string(parts[1]), Name: string(parts[2])}]
		case kindConflicts:
			// A table's conflicts are keyed by its name, an object's by
			// its key's name part: either matches.
			if tables[sqldef.TableName{Schema: schema, Name: name}] {
				return true
			}
			for o := range want {
				if o.Schema == schema && o.Name == name {
					return true
				}
			}
			return false
		case kindType:
			// A table's columns name types by OID, which this package
			// cannot map to names; staging every changed type with any
			// table keeps a staged table from naming a type left behind.
			return len(tables) > 0 || want[ObjectName{kind, schema, name}]
		}
		return want[ObjectName{kind, schema, name}]
	})
	if err != nil {
		return RootValue{}, err
	}
	return stageTriggers(ctx, staged, working, out, tables, triggers)
}

// stageTriggers sets the triggers of the tables StageObjects staged (in
// out, from working) or whose triggers it was asked to stage: a staged
// table keeps the triggers it had in staged, and each named trigger is
// then taken as it is in working, or removed where working lacks it.
func stageTriggers(ctx context.Context, staged, working, out RootValue, tables map[sqldef.TableName]bool, named map[sqldef.TableName][]string) (RootValue, error) {
	touched := make([]sqldef.TableName, 0, len(tables)+len(named))
	for t := range tables {
		touched = append(touched, t)
	}
	for t := range named {
		if !tables[t] {
			touched = append(touched, t)
		}
	}
	for _, t := range touched {
		def, ok, err := out.Table(ctx, t.Schema, t.Name)
		if err != nil {
			return RootValue{}, err
		}
		if !ok {
			continue // the table's removal was staged
		}
		var trigs []sqldef.Trigger
		if tables[t] {
			if was, ok, err := staged.Table(ctx, t.Schema, t.Name); err != nil {
				return RootValue{}, err
			} else if ok {
				trigs = slices.Clone(was.Triggers)
			}
		} else {
			trigs = slices.Clone(def.Triggers)
		}
		if names := named[t]; len(names) > 0 {
			w, inWorking, err := working.Table(ctx, t.Schema, t.Name)
			if err != nil {
				return RootValue{}, err
			}
			for _, n := range names {
				trigs = slices.DeleteFunc(trigs, func(tr sqldef.Trigger) bool { return tr.Name == n })
				if !inWorking {
					continue
				}
				if i := slices.IndexFunc(w.Triggers, func(tr sqldef.Trigger) bool { return tr.Name == n }); i >= 0 {
					trigs = append(trigs, w.Triggers[i])
				}
			}
			slices.SortFunc(trigs, func(a, b sqldef.Trigger) int { return strings.Compare(a.Name, b.Name) })
		}
		if triggersEqual(trigs, def.Triggers) {
			continue
		}
		def.Triggers = trigs
		if out, err = out.PutTable(ctx, def); err != nil {
			return RootValue{}, err
		}
	}
	return out, nil
}

// triggersEqual reports whether two lists of triggers are the same.
func triggersEqual(a, b []sqldef.Trigger) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ea, err1 := encodeRecord(&a[i])
		eb, err2 := encodeRecord(&b[i])
		if err1 != nil || err2 != nil || !bytes.Equal(ea, eb) {
			return false
		}
	}
	return true
}

// TableTriggerChanges returns the triggers of table schema.name that
// differ between two versions of its record (nil where absent), as
// trigger ObjectNames, and whether the rest of the record differs too.
func TableTriggerChanges(schema string, from, to *sqldef.Table) (triggers []ObjectName, rest bool, err error) {
	byName := func(t *sqldef.Table) map[string]sqldef.Trigger {
		m := map[string]sqldef.Trigger{}
		if t != nil {
			for _, tr := range t.Triggers {
				m[tr.Name] = tr
			}
		}
		return m
	}
	f, g := byName(from), byName(to)
	var names []string
	for n, tf := range f {
		tg, ok := g[n]
		if !ok || !triggersEqual([]sqldef.Trigger{tf}, []sqldef.Trigger{tg}) {
			names = append(names, n)
		}
	}
	for n := range g {
		if _, ok := f[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	name := ""
	if from != nil {
		name = from.Name
	} else if to != nil {
		name = to.Name
	}
	for _, n := range names {
		triggers = append(triggers, TriggerObject(schema, name, n))
	}
	if from == nil || to == nil {
		return triggers, true, nil
	}
	a, b := *from, *to
	a.Triggers, b.Triggers = nil, nil
	ea, err := encodeRecord(&a)
	if err != nil {
		return nil, false, err
	}
	eb, err := encodeRecord(&b)
	if err != nil {
		return nil, false, err
	}
	return triggers, !bytes.Equal(ea, eb), nil
}

// stageWhere returns staged with every object that pick accepts as it is
// in working.
func stageWhere(ctx context.Context, staged, working RootValue, pick func(kind byte, schema, name string) bool) (RootValue, error) {
	var edits []prolly.Edit
	err := prolly.DiffMaps(ctx, staged.m, working.m, func(d prolly.Diff) error {
		kind, schema, name, err := splitObjectKey(d.Key)
		if err != nil {
			return err
		}
		if !pick(kind, schema, name) {
			return nil
		}
		if d.Kind == prolly.Removed {
			edits = append(edits, prolly.Edit{Key: bytes.Clone(d.Key), Delete: true})
		} else {
			edits = append(edits, prolly.Edit{Key: bytes.Clone(d.Key), Value: bytes.Clone(d.To)})
		}
		return nil
	})
	if err != nil || len(edits) == 0 {
		return staged, err
	}
	m, err := staged.m.Apply(ctx, edits)
	return RootValue{m}, err
}

// StageAllExcept returns staged with every change of working staged but
// those of the tables in skip, which keep their staged versions, as do
// what goes with them: the sequences their columns own, the foreign key
// references they make, their inheritance links and their conflicts
// (dolt_add('.') leaving out the tables dolt_ignore names).
func StageAllExcept(ctx context.Context, staged, working RootValue, skip map[sqldef.TableName]bool) (RootValue, error) {
	if len(skip) == 0 {
		return working, nil
	}
	owned := map[sqldef.TableName]bool{}
	for t := range skip {
		def, ok, err := working.Table(ctx, t.Schema, t.Name)
		if err != nil {
			return RootValue{}, err
		}
		if !ok {
			continue
		}
		for _, c := range def.Columns {
			if s, n, ok := splitQualified(c.Sequence); ok {
				owned[sqldef.TableName{Schema: s, Name: n}] = true
			}
		}
	}
	return stageWhere(ctx, staged, working, func(kind byte, schema, name string) bool {
		switch kind {
		case kindTable, kindConflicts:
			return !skip[sqldef.TableName{Schema: schema, Name: name}]
		case kindSequence:
			return !owned[sqldef.TableName{Schema: schema, Name: name}]
		case kindFKRef, kindInherits:
			// name is refTable \0 schema \0 table \0 constraint, or
			// parent \0 schema \0 child: the second and third parts
			// are the table that makes the link.
			parts := bytes.Split([]byte(name), []byte{0})
			return len(parts) < 3 || !skip[sqldef.TableName{Schema: string(parts[1]), Name: string(parts[2])}]
		}
		return true
	})
}

// StageTracked returns staged with every change of working staged except
// tables and other objects that neither head nor staged has (dolt_commit
// -a).
func StageTracked(ctx context.Context, head, staged, working RootValue) (RootValue, error) {
	changes, err := Changes(ctx, staged, working)
	if err != nil {
		return RootValue{}, err
	}
	var names []ObjectName
	for _, c := range changes {
		if c.Kind == kindConflicts {
			// Conflicts resolved (or left) in the working root.
			names = append(names, ObjectName{kindTable, c.Schema, c.Name}, ObjectName{kindConflicts, c.Schema, c.Name})
			continue
		}
		if c.Kind != kindTable && !c.IsObject() {
			continue
		}
		if c.From == nil {
			if _, ok, err := head.m.Get(ctx, objectKey(c.Kind, c.Schema, c.Name)); err != nil {
				return RootValue{}, err
			} else if !ok {
				continue // a new object: -a leaves it
			}
		}
		names = append(names, ObjectName{c.Kind, c.Schema, c.Name})
		if c.Kind == kindTable {
			from, to, err := c.Tables()
			if err != nil {
				return RootValue{}, err
			}
			trigs, _, err := TableTriggerChanges(c.Schema, from, to)
			if err != nil {
				return RootValue{}, err
			}
			names = append(names, trigs...) // staging a table leaves them
		}
	}
	return StageObjects(ctx, staged, working, names)
}

// RemoveTables drops tables from root with the sequences their columns
// own, as dolt_rm removes them from the working set. A table another
// table's foreign key references is refused (ErrReferenced): DROP TABLE
// ... CASCADE is the way to drop it with the constraints on it.
func RemoveTables(ctx context.Context, root RootValue, tables []ObjectName) (RootValue, error) {
	gone := map[sqldef.TableName]bool{}
	for _, t := range tables {
		gone[sqldef.TableName{Schema: t.Schema, Name: t.Name}] = true
	}
	for _, t := range tables {
		def, ok, err := root.Table(ctx, t.Schema, t.Name)
		if err != nil {
			return RootValue{}, err
		}
		if !ok {
			continue
		}
		refs, err := root.ReferencingKeys(ctx, t.Schema, t.Name)
		if err != nil {
			return RootValue{}, err
		}
		for _, r := range refs {
			if !gone[sqldef.TableName{Schema: r.Schema, Name: r.Table}] {
				return RootValue{}, fmt.Errorf("%w: table %q is referenced by a foreign key of %q", ErrReferenced, t.Name, r.Table)
			}
		}
		if root, err = root.DropTable(ctx, t.Schema, t.Name); err != nil {
			return RootValue{}, err
		}
		for _, c := range def.Columns {
			if seqSchema, seq, ok := splitQualified(c.Sequence); ok {
				if root, err = root.DropSequence(ctx, seqSchema, seq); err != nil {
					return RootValue{}, err
				}
			}
		}
		// A serial column's sequence names its owner (OWNED BY) instead.
		owned, err := root.OwnedSequences(ctx, def)
		if err != nil {
			return RootValue{}, err
		}
		for _, seq := range owned {
			if root, err = root.DropSequence(ctx, seq.Schema, seq.Name); err != nil {
				return RootValue{}, err
			}
		}
	}
	return root, nil
}

// OwnedSequences returns the sequences that t's live columns own by
// OWNED BY (a serial column's), which DROP TABLE drops with it.
func (r RootValue) OwnedSequences(ctx context.Context, t *sqldef.Table) ([]*sqldef.Sequence, error) {
	seqs, err := r.Sequences(ctx)
	if err != nil {
		return nil, err
	}
	var out []*sqldef.Sequence
	for _, seq := range seqs {
		if seq.Schema != t.Schema || seq.OwnedBy == "" {
			continue
		}
		for _, c := range t.Columns {
			if !c.Dropped && seq.OwnedBy == t.Name+"."+c.Name {
				out = append(out, seq)
				break
			}
		}
	}
	return out, nil
}

// RemoveObjects returns root without the named objects: tables as
// RemoveTables removes them, a table's trigger from its table's record,
// any other object by its record.
func RemoveObjects(ctx context.Context, root RootValue, objects []ObjectName) (RootValue, error) {
	var tables []ObjectName
	for _, o := range objects {
		if o.Kind == kindTable {
			tables = append(tables, o)
		}
	}
	root, err := RemoveTables(ctx, root, tables)
	if err != nil {
		return RootValue{}, err
	}
	for _, o := range objects {
		switch table, trig, isTrigger := o.Trigger(); {
		case o.Kind == kindTable:
		case isTrigger:
			def, ok, err := root.Table(ctx, o.Schema, table)
			if err != nil {
				return RootValue{}, err
			}
			if !ok {
				continue
			}
			def.Triggers = slices.DeleteFunc(slices.Clone(def.Triggers), func(t sqldef.Trigger) bool { return t.Name == trig })
			if root, err = root.PutTable(ctx, def); err != nil {
				return RootValue{}, err
			}
		default:
			if root, err = root.drop(ctx, objectKey(o.Kind, o.Schema, o.Name)); err != nil {
				return RootValue{}, err
			}
		}
	}
	return root, nil
}

func splitQualified(s string) (schema, name string, ok bool) {
	i := bytes.IndexByte([]byte(s), '.')
	if i < 0 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// HasConflicts reports whether the root value holds merge conflicts
// awaiting resolution.
func (r RootValue) HasConflicts(ctx context.Context) (bool, error) {
	it := r.m.NewIter(ctx, prolly.IterOptions{LowerBound: []byte{kindConflicts}, UpperBound: []byte{kindConflicts + 1}})
	ok := it.First()
	return ok, it.Close()
}

// CommitOptions describe a commit.
type CommitOptions struct {
	Message    string
	Author     Signature
	Committer  Signature
	AllowEmpty bool
	Amend      bool // replace the head commit instead of adding to it
	// Stage, when set, updates the staged root before the commit (the -a
	// and -A flags).
	Stage func(ctx context.Context, head, staged, working RootValue) (RootValue, error)
}

// Commit turns branch's staged root into a commit on top of its head (or
// in place of it, with Amend) and returns the commit's address. A merge in
// progress gives the commit the merged commit as its second parent.
func (r *Repo) Commit(ctx context.Context, branch string, opts CommitOptions) (store.Address, error) {
	var made store.Address
	err := r.UpdateBranch(ctx, branch, func(head store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		hc, err := LoadCommit(ctx, r.st, head)
		if err != nil {
			return store.Address{}, nil, err
		}
		staged, err := LoadRootValue(ctx, r.st, ws.Staged)
		if err != nil {
			return store.Address{}, nil, err
		}
		if opts.Stage != nil {
			headRoot, err := LoadRootValue(ctx, r.st, hc.Root)
			if err != nil {
				return store.Address{}, nil, err
			}
			working, err := LoadRootValue(ctx, r.st, ws.Working)
			if err != nil {
				return store.Address{}, nil, err
			}
			if staged, err = opts.Stage(ctx, headRoot, staged, working); err != nil {
				return store.Address{}, nil, err
			}
		}
		// Conflicts left in the working root block the commit too: what
		// is staged of a merge is not all of it.
		for _, a := range []store.Address{staged.Addr(), ws.Working} {
			root, err := LoadRootValue(ctx, r.st, a)
			if err != nil {
				return store.Address{}, nil, err
			}
			if c, err := root.HasConflicts(ctx); err != nil {
				return store.Address{}, nil, err
			} else if c {
				return store.Address{}, nil, ErrUnresolvedConflicts
			}
		}
		parents := []store.Address{head}
		parentRoot := hc.Root
		if opts.Amend {
			parents = hc.Parents
			parentRoot = store.Address{}
			if len(parents) > 0 {
				pc, err := LoadCommit(ctx, r.st, parents[0])
				if err != nil {
					return store.Address{}, nil, err
				}
				parentRoot = pc.Root
			}
		}
		if !ws.MergeCommit.IsZero() {
			parents = append(parents, ws.MergeCommit)
		} else if staged.Addr() == parentRoot && !opts.AllowEmpty && !opts.Amend {
			return store.Address{}, nil, ErrNothingToCommit
		}
		msg := opts.Message
		if opts.Amend && msg == "" {
			msg = hc.Message
		}
		c := &Commit{Root: staged.Addr(), Parents: parents, Author: opts.Author, Committer: opts.Committer, Message: msg}
		if made, err = WriteCommit(ctx, r.st, c); err != nil {
			return store.Address{}, nil, err
		}
		nws := &WorkingSet{Working: ws.Working, Staged: staged.Addr()}
		return made, nws, nil
	})
	return made, err
}

// ResetMode says what a reset to a commit keeps.
type ResetMode int

const (
	// ResetSoft moves the head and keeps the staged and working roots.
	ResetSoft ResetMode = iota
	// ResetMixed moves the head and sets the staged root to it, keeping
	// the working root.
	ResetMixed
	// ResetHard moves the head and sets both roots to it, ending any merge.
	ResetHard
)

// Reset moves branch's head to commit and sets its roots as mode says.
func (r *Repo) Reset(ctx context.Context, branch string, commit store.Address, mode ResetMode) error {
	c, err := LoadCommit(ctx, r.st, commit)
	if err != nil {
		return err
	}
	return r.UpdateBranch(ctx, branch, func(_ store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		nws := *ws
		switch mode {
		case ResetMixed:
			nws.Staged = c.Root
		case ResetHard:
			nws = WorkingSet{Working: c.Root, Staged: c.Root}
		}
		return commit, &nws, nil
	})
}

// UpdateWorkingRoots changes branch's staged and working roots, leaving the
// head: fn gets the head's root and the current roots.
func (r *Repo) UpdateWorkingRoots(ctx context.Context, branch string, fn func(head, staged, working RootValue, ws *WorkingSet) (*WorkingSet, error)) error {
	return r.UpdateBranch(ctx, branch, func(h store.Address, ws *WorkingSet) (store.Address, *WorkingSet, error) {
		hc, err := LoadCommit(ctx, r.st, h)
		if err != nil {
			return store.Address{}, nil, err
		}
		roots := make([]RootValue, 3)
		for i, a := range []store.Address{hc.Root, ws.Staged, ws.Working} {
			if roots[i], err = LoadRootValue(ctx, r.st, a); err != nil {
				return store.Address{}, nil, err
			}
		}
		nws, err := fn(roots[0], roots[1], roots[2], ws)
		if err != nil {
			return store.Address{}, nil, err
		}
		return h, nws, nil
	})
}

// Roots returns a branch's head commit and its head, staged and working
// roots, for reading.
func (r *Repo) Roots(ctx context.Context, branch string) (head store.Address, headRoot, staged, working RootValue, ws *WorkingSet, err error) {
	if head, err = r.BranchHead(ctx, branch); err != nil {
		return
	}
	if _, ws, err = r.WorkingSet(ctx, branch); err != nil {
		return
	}
	hc, err := LoadCommit(ctx, r.st, head)
	if err != nil {
		return
	}
	if headRoot, err = LoadRootValue(ctx, r.st, hc.Root); err != nil {
		return
	}
	if staged, err = LoadRootValue(ctx, r.st, ws.Staged); err != nil {
		return
	}
	working, err = LoadRootValue(ctx, r.st, ws.Working)
	if err != nil {
		err = fmt.Errorf("versioning: branch %q: %w", branch, err)
	}
	return
}

// CommitRoot returns the root value of a commit.
func (r *Repo) CommitRoot(ctx context.Context, commit store.Address) (RootValue, *Commit, error) {
	c, err := LoadCommit(ctx, r.st, commit)
	if err != nil {
		return RootValue{}, nil, err
	}
	root, err := LoadRootValue(ctx, r.st, c.Root)
	return root, c, err
}
