package funcs

import (
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/prollypg/prollypg/exec"
)

// TestNumericToChar checks NUM_processor's layout on values whose output
// PostgreSQL 15 gave (numeric regression tests).
func TestNumericToChar(t *testing.T) {
	cases := []struct{ v, f, want string }{
		{"-34338492.215397047", "9G999G999G999G999G999D999G999G999G999G999", "           -34,338,492.215,397,047,000,000"},
		{"-34338492.215397047", "FM9999999999999999.999999999999999THPR", "<34338492.215397047>"},
		{"4.31", "FM0999999999999999.999909999999999", "0000000000000004.31000"},
		{"0", "FM9999999999999999.999999999999999THPR", "0."},
		{"4.31", "RN", "             IV"},
		{"-4.2", "MI9999999999.99", "-         4.20"},
		{"4200000000", "MI99.99", " ##.##"},
		{"100", "FM999.", "100"},
		{"100", "foo999", "foo 100"},
		{"7799461.4119", "9.999EEEE", " 7.799e+06"},
		{"Infinity", "9G999G999G999G999G999D999G999G999G999G999", "            In,fin,ity"},
	}
	for _, c := range cases {
		d, _, err := apd.NewFromString(c.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := numericToChar(d, parseFormat(c.f, false))
		if err != nil || got.S != c.want {
			t.Errorf("to_char(%s, %q) = %q, %v; want %q", c.v, c.f, got.S, err, c.want)
		}
	}
}

// TestTimestampToChar checks DCH_to_char's keywords, case and FM rules.
func TestTimestampToChar(t *testing.T) {
	us, _ := fromFields(1997, 2, 10, 17, 32, 1, 500000)
	tm := dchOf(us, false, &exec.Env{})
	cases := []struct{ f, want string }{
		{"DAY Day day DY Dy dy", "MONDAY    Monday    monday    MON Mon mon"},
		{"FMMONTH FMMonth FMRM", "FEBRUARY February II"},
		{"Y,YYY YYYY YYY YY Y CC Q MM WW DDD DD D J", "1,997 1997 997 97 7 20 1 02 06 041 10 2 2450490"},
		{"HH HH12 HH24 MI SS SSSS MS US FF2", "05 05 17 32 01 63121 500 500000 50"},
		{"YYYYTH DDth", "1997TH 10th"},
		{"YYYY a.d. P.M. pm", "1997 a.d. P.M. pm"},
		{"IYYY IW ID IDDD", "1997 07 1 043"},
		{`"HH:MI is" HH:MI`, "HH:MI is 05:32"},
	}
	for _, c := range cases {
		if got, _ := dchToChar(parseFormat(c.f, true), &tm); got != c.want {
			t.Errorf("to_char(1997-02-10 17:32:01.5, %q) = %q; want %q", c.f, got, c.want)
		}
	}
}
