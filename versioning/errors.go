package versioning

import "errors"

var (
	// ErrCorrupt reports a stored object that does not decode.
	ErrCorrupt = errors.New("versioning: corrupt object")
	// ErrDatabaseExists is returned by CreateDatabase for a taken name.
	ErrDatabaseExists = errors.New("versioning: database already exists")
	// ErrNoDatabase is returned for a database that does not exist.
	ErrNoDatabase = errors.New("versioning: database does not exist")
	// ErrNoBranch is returned for a branch that does not exist.
	ErrNoBranch = errors.New("versioning: branch not found")
	// ErrConflict is returned when a transaction's changes collide with
	// changes committed to its branch since it began; the SQL layer
	// reports it as a serialization failure (40001).
	ErrConflict = errors.New("versioning: transaction conflicts with a concurrent one")
)

// Errors of the version-control operations. The SQL layer maps each to a
// SQLSTATE; the messages are worded for the user.
var (
	// ErrNoRevision is returned for a revision spec that names nothing.
	ErrNoRevision = errors.New("versioning: revision not found")
	// ErrBranchExists is returned when creating a branch whose name is taken.
	ErrBranchExists = errors.New("versioning: branch already exists")
	// ErrNoTag is returned for a tag that does not exist.
	ErrNoTag = errors.New("versioning: tag not found")
	// ErrTagExists is returned when creating a tag whose name is taken.
	ErrTagExists = errors.New("versioning: tag already exists")
	// ErrBadName is returned for a branch or tag name that cannot be used.
	ErrBadName = errors.New("versioning: invalid name")
	// ErrNothingToCommit is returned by Commit when the staged root equals
	// the head's and the commit is not allowed to be empty.
	ErrNothingToCommit = errors.New("versioning: nothing to commit")
	// ErrUnresolvedConflicts is returned by Commit while merge conflicts
	// remain in the root being committed.
	ErrUnresolvedConflicts = errors.New("versioning: unresolved conflicts")
	// ErrMergeInProgress is returned by operations that cannot run while a
	// merge awaits its conflicts' resolution.
	ErrMergeInProgress = errors.New("versioning: merge in progress")
	// ErrNoMerge is returned by merge --abort without a merge in progress.
	ErrNoMerge = errors.New("versioning: no merge in progress")
	// ErrDirtyMerge is returned when a merge would overwrite uncommitted
	// changes to the tables it changes.
	ErrDirtyMerge = errors.New("versioning: local changes would be stomped by merge")
	// ErrReferenced is returned by RemoveTables for a table another
	// table's foreign key references.
	ErrReferenced = errors.New("versioning: cannot remove a referenced table")
)
