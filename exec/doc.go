// Package exec runs plans over rows stored in Prolly trees: scans, joins,
// aggregates, sorts, DML with constraint checks, and the catalog views.
package exec
