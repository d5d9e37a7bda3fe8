package types

import (
	"encoding/hex"

	"bufio"
	"errors"
	"fmt"
	"github.com/cockroachdb/apd/v3"
	"os"
	"strings"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	typ := os.Getenv("SCRATCH_TYPE")
	if typ == "" {
		t.Skip()
	}
	var set []string
	if v := os.Getenv("DS"); v != "" {
		set = append(set, "DS="+v)
	}
	if v := os.Getenv("TZ_"); v != "" {
		set = append(set, "TZ="+v)
	}
	if v := os.Getenv("IS"); v != "" {
		set = append(set, "IS="+v)
	}
	if v := os.Getenv("EFD"); v != "" {
		set = append(set, "EFD="+v)
	}
	if v := os.Getenv("TYPMOD"); v != "" {
		set = append(set, "TYPMOD="+v)
	}
	st, typmod := caseSettings(t, strings.Join(set, ";"))
	now := time.Date(2022, 3, 4, 5, 6, 7, 0, time.UTC)
	st.Now = func() time.Time { return now }
	f, _ := os.Open(os.Getenv("SCRATCH_IN"))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in := sc.Text()
		var out string
		var err error
		switch typ {
		case "numsend":
			c := NumericCodec(typmod)
			var v = new(apdDecimal)
			v, err = c.ParseText(in)
			if err == nil {
				out = hex.EncodeToString(c.AppendBinary(nil, v))
			}
		default:
			out, err = evalText(typ, in, st, typmod)
		}
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				fmt.Printf("%s\tERROR %s|%s|%s|%s|%s\n", in, e.Code, e.Message, e.Detail, e.Hint, strings.TrimRight(e.Where, " "))
			}
			continue
		}
		fmt.Printf("%s\t%s\n", in, out)
	}
}

type apdDecimal = apd.Decimal
