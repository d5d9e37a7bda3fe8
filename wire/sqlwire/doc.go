// Package sqlwire binds the SQL engine (planner sessions) to the protocol
// server: it implements wire.Handler, decodes parameters and encodes result
// values in the text or binary format each column asks for.
//
// Values are appended straight into the protocol's output buffer
// (RowWriter.BeginValue), so a result row costs no allocation here.
package sqlwire
