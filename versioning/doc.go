// Package versioning is the repository model: commits, branches, tags,
// working sets and the dolt_* functions and system tables over them.
package versioning
