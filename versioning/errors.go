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
