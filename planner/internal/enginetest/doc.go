// Package enginetest runs SQL on a session.Engine over an in-memory chunk
// store, without the wire protocol, for tests that look inside the engine:
// how many chunks a statement reads, what a plan does. It is test support
// only.
package enginetest
