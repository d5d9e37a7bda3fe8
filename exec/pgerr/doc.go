// Package pgerr is the SQL layer's error type: PostgreSQL's SQLSTATE codes
// and the fields of an ErrorResponse. Every error that reaches a client
// should be an *Error; anything else is reported as internal_error (XX000).
package pgerr
