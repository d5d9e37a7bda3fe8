package plpgsql

import (
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// PostgreSQL's elog levels, as RAISE's parse tree gives them.
const (
	levelDebug   = 14
	levelLog     = 15
	levelInfo    = 17
	levelNotice  = 18
	levelWarning = 19
	levelError   = 21
)

// RAISE's USING options, by the parse tree's numbers.
const (
	optErrcode = iota
	optMessage
	optDetail
	optHint
)

// raiseOptionName is the name of USING option kind, as PostgreSQL's
// errors spell it ("" for an unknown kind).
func raiseOptionName(kind int) string {
	names := [...]string{"ERRCODE", "MESSAGE", "DETAIL", "HINT", "COLUMN", "CONSTRAINT", "DATATYPE", "TABLE", "SCHEMA"}
	if kind < 0 || kind >= len(names) {
		return ""
	}
	return names[kind]
}

type raiseOption struct {
	kind  int
	value *expr
}

type raiseStmt struct {
	line     int
	level    int
	condname string
	message  string
	params   []*expr
	options  []raiseOption
}

func (s *raiseStmt) lineNo() int { return s.line }
func (s *raiseStmt) exec(fr *frame) (ctl, error) {
	if s.level == levelError && s.condname == "" && s.message == "" && len(s.options) == 0 {
		if len(fr.caught) == 0 {
			return ctlNext, pgerr.New("0Z002", "RAISE without parameters cannot be used outside an exception handler")
		}
		return ctlNext, fr.caught[len(fr.caught)-1] // re-raise
	}
	e := &pgerr.Error{Code: pgerr.RaiseException}
	if s.level < levelError {
		e.Code = pgerr.SuccessfulCompletion
		if s.level == levelWarning {
			e.Code = pgerr.Warning
		}
	}
	if s.condname != "" {
		code, err := conditionCode(s.condname)
		if err != nil {
			return ctlNext, err
		}
		e.Code = code
		e.Message = s.condname
	}
	if s.message != "" {
		msg, err := fr.format(s.message, s.params)
		if err != nil {
			return ctlNext, err
		}
		e.Message = msg
	}
	// What is given already, by the condition, the message or an
	// option: an option may not give it again.
	given := map[int]bool{optErrcode: s.condname != "", optMessage: s.message != ""}
	for _, o := range s.options {
		v, err := fr.evalAs(o.value, exec.TText)
		if err != nil {
			return ctlNext, err
		}
		if v.IsNull() {
			return ctlNext, pgerr.New(pgerr.NullValueNotAllowed, "RAISE statement option cannot be null")
		}
		if name := raiseOptionName(o.kind); name != "" {
			if given[o.kind] {
				return ctlNext, pgerr.New(pgerr.SyntaxError, "RAISE option already specified: %s", name)
			}
			given[o.kind] = true
		}
		switch o.kind {
		case optErrcode:
			code, err := conditionCode(v.S)
			if err != nil {
				return ctlNext, err
			}
			e.Code = code
			if s.message == "" && s.condname == "" && e.Message == "" {
				e.Message = v.S
			}
		case optMessage:
			e.Message = v.S
		case optDetail:
			e.Detail = v.S
		case optHint:
			e.Hint = v.S
		}
	}
	if s.level >= levelError {
		return ctlNext, e
	}
	switch s.level {
	case levelWarning:
		e.Severity = "WARNING"
	case levelNotice:
		e.Severity = "NOTICE"
	case levelInfo:
		e.Severity = "INFO"
	default:
		return ctlNext, nil // DEBUG and LOG stay below client_min_messages
	}
	fr.h.Notice(e)
	return ctlNext, nil
}

// format expands RAISE's format: each % takes the next parameter's text,
// %% is a %.
func (fr *frame) format(f string, params []*expr) (string, error) {
	var b []byte
	next := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			b = append(b, f[i])
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		if next >= len(params) {
			return "", pgerr.New(pgerr.SyntaxError, "too few parameters specified for RAISE")
		}
		d, t, err := fr.eval(params[next])
		if err != nil {
			return "", err
		}
		next++
		if d.IsNull() {
			b = append(b, "<NULL>"...)
			continue
		}
		b = exec.AppendText(b, t, d, fr.call.Env.Settings)
	}
	if next < len(params) {
		return "", pgerr.New(pgerr.SyntaxError, "too many parameters specified for RAISE")
	}
	return string(b), nil
}

// conditionCode returns the SQLSTATE a condition name or a SQLSTATE
// string stands for.
func conditionCode(name string) (pgerr.Code, error) {
	if c, ok := conditionCodes[strings.ToLower(name)]; ok {
		return c, nil
	}
	if len(name) == 5 && isSQLState(name) {
		return pgerr.Code(strings.ToUpper(name)), nil
	}
	return "", pgerr.New(pgerr.UndefinedObject, "unrecognized exception condition %q", name)
}

// conditionCodes are PostgreSQL's condition names (plerrcodes.h) that
// applications catch most.
var conditionCodes = map[string]pgerr.Code{
	"sql_statement_not_yet_complete":        "03000",
	"connection_exception":                  "08000",
	"feature_not_supported":                 "0A000",
	"invalid_transaction_initiation":        "0B000",
	"cardinality_violation":                 "21000",
	"data_exception":                        "22000",
	"string_data_right_truncation":          "22001",
	"null_value_not_allowed":                "22004",
	"error_in_assignment":                   "22005",
	"numeric_value_out_of_range":            "22003",
	"invalid_datetime_format":               "22007",
	"datetime_field_overflow":               "22008",
	"division_by_zero":                      "22012",
	"invalid_parameter_value":               "22023",
	"invalid_text_representation":           "22P02",
	"invalid_binary_representation":         "22P03",
	"character_not_in_repertoire":           "22021",
	"invalid_escape_sequence":               "22025",
	"array_subscript_error":                 "2202E",
	"integrity_constraint_violation":        "23000",
	"restrict_violation":                    "23001",
	"not_null_violation":                    "23502",
	"foreign_key_violation":                 "23503",
	"unique_violation":                      "23505",
	"check_violation":                       "23514",
	"exclusion_violation":                   "23P01",
	"invalid_cursor_state":                  "24000",
	"invalid_transaction_state":             "25000",
	"read_only_sql_transaction":             "25006",
	"invalid_authorization_specification":   "28000",
	"invalid_transaction_termination":       "2D000",
	"invalid_cursor_name":                   "34000",
	"transaction_rollback":                  "40000",
	"serialization_failure":                 "40001",
	"deadlock_detected":                     "40P01",
	"syntax_error_or_access_rule_violation": "42000",
	"syntax_error":                          "42601",
	"insufficient_privilege":                "42501",
	"undefined_column":                      "42703",
	"undefined_function":                    "42883",
	"undefined_table":                       "42P01",
	"undefined_object":                      "42704",
	"duplicate_column":                      "42701",
	"duplicate_function":                    "42723",
	"duplicate_object":                      "42710",
	"duplicate_table":                       "42P07",
	"ambiguous_column":                      "42702",
	"datatype_mismatch":                     "42804",
	"wrong_object_type":                     "42809",
	"invalid_column_reference":              "42P10",
	"object_not_in_prerequisite_state":      "55000",
	"lock_not_available":                    "55P03",
	"query_canceled":                        "57014",
	"program_limit_exceeded":                "54000",
	"statement_too_complex":                 "54001",
	"insufficient_resources":                "53000",
	"internal_error":                        "XX000",
	"plpgsql_error":                         "P0000",
	"raise_exception":                       "P0001",
	"no_data_found":                         "P0002",
	"too_many_rows":                         "P0003",
	"assert_failure":                        "P0004",
	"case_not_found":                        "20000",
	"warning":                               "01000",
}
