package types

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgCase is one input/output pair observed on PostgreSQL 15: the text of
// SELECT '<in>'::<typ> (or the error it raised) under the settings in set.
// The tables in pgcases_data_test.go were produced by
// testdata/gen_pgcases.py against PostgreSQL 15.20; most inputs come from
// the regression corpus (../../shared/pg-regress/sql/<type>.sql).
type pgCase struct {
	typ    string // type as written in the cast
	set    string // "DS=...;TZ=...;IS=...;EFD=...;TYPMOD=..." settings
	in     string
	out    string // expected output text when code == ""
	code   string // expected SQLSTATE of the error
	msg    string // expected primary message
	detail string
	hint   string
	where  string // CONTEXT line (trailing blanks trimmed)
}

// caseSettings builds Settings from a case's set string, the way the
// session layer will from SET commands.
func caseSettings(t testing.TB, set string) (*Settings, int32) {
	st := &Settings{ExtraFloatDigits: 1}
	typmod := int32(-1)
	for _, kv := range strings.Split(set, ";") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "DS":
			for _, p := range strings.Split(v, ",") {
				switch strings.ToLower(strings.TrimSpace(p)) {
				case "iso":
					st.DateStyle = DateStyleISO
				case "postgres":
					st.DateStyle = DateStylePostgres
				case "sql":
					st.DateStyle = DateStyleSQL
				case "german":
					st.DateStyle = DateStyleGerman
					if !strings.Contains(strings.ToLower(v), "mdy") {
						st.DateOrder = DateOrderDMY // SET DateStyle = German implies DMY
					}
				case "mdy":
					st.DateOrder = DateOrderMDY
				case "dmy":
					st.DateOrder = DateOrderDMY
				case "ymd":
					st.DateOrder = DateOrderYMD
				}
			}
		case "TZ":
			l, err := time.LoadLocation(v)
			if err != nil {
				t.Fatal(err)
			}
			st.TimeZone = l
		case "IS":
			st.IntervalStyle = map[string]IntervalStyle{"postgres": IntervalStylePostgres,
				"postgres_verbose": IntervalStylePostgresVerbose, "sql_standard": IntervalStyleSQLStandard,
				"iso_8601": IntervalStyleISO8601}[v]
		case "EFD":
			st.ExtraFloatDigits, _ = strconv.Atoi(v)
		case "TYPMOD":
			x, _ := strconv.Atoi(v)
			typmod = int32(x)
		}
	}
	return st, typmod
}

// evalText parses in as type typ and formats it again.
func evalText(typ, in string, st *Settings, typmod int32) (string, error) {
	base := typ
	if i := strings.IndexByte(typ, '('); i >= 0 && !strings.HasSuffix(typ, "[]") {
		base = typ[:i]
	}
	switch base {
	case "int2":
		v, err := ParseInt2(in)
		return string(AppendInt(nil, int64(v))), err
	case "int4":
		v, err := ParseInt4(in)
		return string(AppendInt(nil, int64(v))), err
	case "int8":
		v, err := ParseInt8(in)
		return string(AppendInt(nil, v)), err
	case "oid":
		v, err := ParseOid(in)
		return string(AppendOid(nil, v)), err
	case "float4":
		v, err := ParseFloat4(in)
		return string(AppendFloat4(nil, v, st.ExtraFloatDigits)), err
	case "float8":
		v, err := ParseFloat8(in)
		return string(AppendFloat8(nil, v, st.ExtraFloatDigits)), err
	case "numeric":
		c := NumericCodec(typmod)
		v, err := c.ParseText(in)
		return string(AppendNumeric(nil, v)), err
	case "bool":
		v, err := ParseBool(in)
		return string(AppendBool(nil, v)), err
	case "date":
		v, err := ParseDate(in, st)
		return string(AppendDate(nil, v, st)), err
	case "time":
		v, err := ParseTime(in, typmod, st)
		return string(AppendTime(nil, v)), err
	case "timestamp":
		v, err := ParseTimestamp(in, typmod, st)
		return string(AppendTimestamp(nil, v, st)), err
	case "timestamptz":
		v, err := ParseTimestampTZ(in, typmod, st)
		return string(AppendTimestampTZ(nil, v, st)), err
	case "interval":
		v, err := ParseInterval(in, typmod, st)
		return string(AppendInterval(nil, v, st)), err
	case "uuid":
		v, err := ParseUUID(in)
		return string(AppendUUID(nil, v)), err
	case "bytea":
		v, err := ParseBytea(nil, in)
		return string(AppendBytea(nil, v)), err
	case "varchar":
		v, err := ApplyVarcharTypmod(in, typmod, true)
		return v, err
	case "bpchar":
		v, err := ApplyBpcharTypmod(in, typmod, true)
		return v, err
	case "name":
		return ParseName(in), nil
	case "char":
		return string(AppendChar(nil, ParseChar(in))), nil
	case "json":
		return in, ValidateJSON(in)
	case "jsonb":
		v, err := ParseJSONB(in)
		return string(AppendJSONB(nil, &v)), err
	case "int4[]":
		return arrayText(in, Int4Codec())
	case "text[]":
		return arrayText(in, TextCodec(OidText, -1))
	case "float8[]":
		return arrayText(in, Float8Codec(st))
	case "numeric[]":
		return arrayText(in, NumericCodec(typmod))
	case "bool[]":
		return arrayText(in, BoolCodec())
	case "bytea[]":
		return arrayText(in, ByteaCodec(st))
	case "date[]":
		return arrayText(in, DateCodec(st))
	case "timestamptz[]":
		return arrayText(in, TimestampTZCodec(typmod, st))
	case "interval[]":
		return arrayText(in, IntervalCodec(typmod, st))
	case "jsonb[]":
		return arrayText(in, JSONBCodec())
	case "uuid[]":
		return arrayText(in, UUIDCodec())
	case "varchar(3)[]":
		return arrayText(in, TextCodec(OidVarchar, typmod))
	}
	panic("no text codec for " + typ)
}

func arrayText[T any](in string, c *ElemCodec[T]) (string, error) {
	a, err := ParseArray(in, c)
	return string(AppendArray(nil, &a, c)), err
}

func TestPostgresCases(t *testing.T) {
	for _, c := range pgCases {
		st, typmod := caseSettings(t, c.set)
		got, err := evalText(c.typ, c.in, st, typmod)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s %q [%s]: unexpected error %v", c.typ, c.in, c.set, err)
			} else if got != c.out {
				t.Errorf("%s %q [%s]: got %q, want %q", c.typ, c.in, c.set, got, c.out)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s %q [%s]: got %q, %v; want error %s %q", c.typ, c.in, c.set, got, err, c.code, c.msg)
			continue
		}
		if e.Code != c.code || e.Message != c.msg || e.Detail != c.detail || e.Hint != c.hint ||
			strings.TrimRight(e.Where, " ") != c.where {
			t.Errorf("%s %q [%s]: got error %s %q (detail %q hint %q where %q); want %s %q (detail %q hint %q where %q)",
				c.typ, c.in, c.set, e.Code, e.Message, e.Detail, e.Hint, e.Where, c.code, c.msg, c.detail, c.hint, c.where)
		}
	}
}
