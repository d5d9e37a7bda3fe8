package dolt

import "testing"

func TestRewriteAsOf(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT * FROM t AS OF 'HEAD~1'`:                    `SELECT * FROM "db@HEAD~1"."*".t`,
		`select * from s.t as of 'v1' x join u AS OF 'a'`:   `select * from "db@v1".s.t x join "db@a"."*".u`,
		`SELECT * FROM "T" AS OF 'it''s'`:                   `SELECT * FROM "db@it's"."*"."T"`,
		`SELECT 'AS OF ''x''' FROM t /* AS OF 'y' */`:       ``,
		`SELECT * FROM t -- AS OF 'x'`:                      ``,
		`SELECT * FROM "S"."t" AS OF 'main' WHERE k = 'a'`:  `SELECT * FROM "db@main"."S"."t" WHERE k = 'a'`,
		`SELECT * FROM t AS OF SYSTEM TIME 'HEAD~3' join u`: `SELECT * FROM "db@HEAD~3"."*".t join u`,
		`SELECT * FROM t AS OF system`:                      ``,
	} {
		got, ok := RewriteAsOf(in, "db")
		if want == "" {
			if ok {
				t.Errorf("%s: rewrote to %s", in, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
}
