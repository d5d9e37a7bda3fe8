package types

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
)

func TestScratch(t *testing.T) {
	typ := os.Getenv("SCRATCH_TYPE")
	if typ == "" {
		t.Skip()
	}
	st := &Settings{ExtraFloatDigits: 1}
	if v := os.Getenv("DS"); v != "" {
		for _, p := range strings.Split(v, ",") {
			switch strings.TrimSpace(strings.ToLower(p)) {
			case "iso":
				st.DateStyle = DateStyleISO
			case "postgres":
				st.DateStyle = DateStylePostgres
			case "sql":
				st.DateStyle = DateStyleSQL
			case "german":
				st.DateStyle = DateStyleGerman
				if !strings.Contains(strings.ToLower(v), "mdy") {
					st.DateOrder = DateOrderDMY
				}
			case "mdy":
				st.DateOrder = DateOrderMDY
			case "dmy":
				st.DateOrder = DateOrderDMY
			case "ymd":
				st.DateOrder = DateOrderYMD
			}
		}
	}
	if v := os.Getenv("TZ_"); v != "" {
		l, err := time.LoadLocation(v)
		if err != nil {
			t.Fatal(err)
		}
		st.TimeZone = l
	}
	switch os.Getenv("IS") {
	case "postgres_verbose":
		st.IntervalStyle = IntervalStylePostgresVerbose
	case "sql_standard":
		st.IntervalStyle = IntervalStyleSQLStandard
	case "iso_8601":
		st.IntervalStyle = IntervalStyleISO8601
	}
	if v := os.Getenv("EFD"); v != "" {
		st.ExtraFloatDigits, _ = strconv.Atoi(v)
	}
	typmod := int32(-1)
	if v := os.Getenv("TYPMOD"); v != "" {
		x, _ := strconv.Atoi(v)
		typmod = int32(x)
	}
	now := time.Date(2022, 3, 4, 5, 6, 7, 0, time.UTC)
	st.Now = func() time.Time { return now }
	f, _ := os.Open(os.Getenv("SCRATCH_IN"))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in := sc.Text()
		var out []byte
		var err error
		switch typ {
		case "int2":
			var v int16
			v, err = ParseInt2(in)
			out = AppendInt(nil, int64(v))
		case "int4":
			var v int32
			v, err = ParseInt4(in)
			out = AppendInt(nil, int64(v))
		case "int8":
			var v int64
			v, err = ParseInt8(in)
			out = AppendInt(nil, v)
		case "oid":
			var v Oid
			v, err = ParseOid(in)
			out = AppendOid(nil, v)
		case "float8":
			var v float64
			v, err = ParseFloat8(in)
			out = AppendFloat8(nil, v, st.ExtraFloatDigits)
		case "float4":
			var v float32
			v, err = ParseFloat4(in)
			out = AppendFloat4(nil, v, st.ExtraFloatDigits)
		case "numeric":
			var d apd.Decimal
			err = ParseNumericTypmod(&d, in, typmod)
			out = AppendNumeric(nil, &d)
		case "bool":
			var v bool
			v, err = ParseBool(in)
			out = AppendBool(nil, v)
		case "date":
			var v Date
			v, err = ParseDate(in, st)
			out = AppendDate(nil, v, st)
		case "time":
			var v Time
			v, err = ParseTime(in, typmod, st)
			out = AppendTime(nil, v)
		case "timestamp":
			var v Timestamp
			v, err = ParseTimestamp(in, typmod, st)
			out = AppendTimestamp(nil, v, st)
		case "timestamptz":
			var v TimestampTZ
			v, err = ParseTimestampTZ(in, typmod, st)
			out = AppendTimestampTZ(nil, v, st)
		case "interval":
			var v Interval
			v, err = ParseInterval(in, typmod, st)
			out = AppendInterval(nil, v, st)
		case "uuid":
			var v UUID
			v, err = ParseUUID(in)
			out = AppendUUID(nil, v)
		case "bytea":
			var v []byte
			v, err = ParseBytea(nil, in)
			out = AppendBytea(nil, v)
		case "varchar":
			var v string
			v, err = ApplyVarcharTypmod(in, typmod, false)
			out = []byte(v)
		case "bpchar":
			var v string
			v, err = ApplyBpcharTypmod(in, typmod, false)
			out = []byte(v)
		default:
			scratchMore(typ, in, st, &out, &err)
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				fmt.Printf("%s\tERROR %s|%s|%s|%s|%s\n", in, e.Code, e.Message, e.Detail, e.Hint, e.Where)
			} else {
				fmt.Printf("%s\tERROR ?|%v\n", in, err)
			}
			continue
		}
		fmt.Printf("%s\t%s\n", in, out)
	}
}
