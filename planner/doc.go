// Package planner turns statements parsed by pg_query_go into plans: names
// resolved against the catalog, types checked and coerced the PostgreSQL way,
// indexes chosen.
package planner
