package hba

import (
	"net"
	"strings"
	"testing"
)

const sample = `# TYPE  DATABASE           USER    ADDRESS          METHOD
local   all                all                      trust
host    all                admin   127.0.0.1/32     trust
host    "Shop"             all     10.0.0.0 255.0.0.0 scram-sha-256
hostssl app@agent/*,app@main agent 0.0.0.0/0      scram-sha-256   # agents, over TLS
host    app                agent   all              reject
host    sameuser           all     ::1/128          password
host    all                all     all              \
        md5
`

func TestMatch(t *testing.T) {
	r, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	ip := net.ParseIP
	for _, tc := range []struct {
		c    Client
		line int // 0: no rule
	}{
		{Client{User: "admin", Database: "x", Revision: "main", IP: ip("127.0.0.1")}, 3},
		{Client{User: "admin", Database: "x", Revision: "main", IP: ip("127.0.0.2")}, 8},
		{Client{User: "bob", Database: "Shop", Revision: "main", IP: ip("10.1.2.3")}, 4},
		{Client{User: "bob", Database: "shop", Revision: "main", IP: ip("10.1.2.3")}, 8}, // names keep their case
		{Client{User: "agent", Database: "app", Revision: "agent/a/b", IP: ip("192.0.2.1"), TLS: true}, 5},
		{Client{User: "agent", Database: "app", Revision: "main", IP: ip("192.0.2.1"), TLS: true}, 5},
		{Client{User: "agent", Database: "app", Revision: "feature", IP: ip("192.0.2.1"), TLS: true}, 6},
		{Client{User: "agent", Database: "app", Revision: "agent/x", IP: ip("192.0.2.1")}, 6}, // no TLS
		{Client{User: "carol", Database: "carol", Revision: "main", IP: ip("::1")}, 7},
	} {
		rule, ok := r.Match(tc.c)
		if got := map[bool]int{true: rule.Line}[ok]; got != tc.line {
			t.Errorf("%+v: matched line %d, want %d", tc.c, got, tc.line)
		}
	}
	if rule, _ := r.Match(Client{User: "agent", Database: "app", Revision: "x", IP: ip("192.0.2.1")}); rule.Method != Reject {
		t.Errorf("line 6 is %v, want reject", rule.Method)
	}
	if rule, _ := r.Match(Client{User: "u", Database: "d", Revision: "main", IP: ip("192.0.2.1")}); rule.Method != SCRAM {
		t.Errorf("md5 is %v, want scram-sha-256", rule.Method)
	}
	empty, err := Parse("# nothing\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := empty.Match(Client{User: "u", Database: "d", IP: ip("127.0.0.1")}); ok {
		t.Error("an empty file matched")
	}
}

// TestParseErrors: a bad line is an error naming it.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"host all all all trust\nhots all all all trust", `line 2: invalid connection type "hots"`},
		{"host all all", "line 1: end-of-line before IP address specification"},
		{"host all all all", "line 1: end-of-line before authentication method"},
		{"local all", "line 1: end-of-line before role specification"},
		{"host all all 1.2.3.4/40 trust", `line 1: invalid IP address "1.2.3.4/40"`},
		{"host all all example.com trust", "host names are not supported"},
		{"host all all 1.2.3.4 trust", "line 1: invalid IP mask \"trust\""},
		{"host all all 1.2.3.4 255.0.255.0 trust", `invalid IP mask "255.0.255.0"`},
		{"host all all all ident", `line 1: invalid authentication method "ident"`},
		{"host all all all trust clientcert=verify-full", "authentication options are not supported"},
		{"host all +admins all trust", "group (+) and file (@) entries are not supported"},
		{`host "all all all trust`, "line 1: unterminated quoted string"},
		{"host ,x all all trust", "a field starts with a comma"},
		{`host "all" all all trust`, "a quoted keyword as a name is not supported"},
		{"\n\nhost a,,b all all trust", "line 3: empty database name"},
	} {
		_, err := Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"main", "main", true}, {"main", "mai", false}, {"*", "", true},
		{"agent/*", "agent/a/b", true}, {"agent/*", "agents/a", false},
		{"*/fix", "a/b/fix", true}, {"a*b*c", "axxbyyc", true}, {"a*b*c", "axxbyy", false},
	} {
		if got := glob(tc.pattern, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

// FuzzParse: no input makes Parse panic, and what it accepts matches
// without panicking.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("host a@b* \"x,y\" ::1/128 reject\\\n")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Parse(text)
		if err != nil {
			return
		}
		r.Match(Client{User: "u", Database: "a", Revision: "b", IP: net.ParseIP("::1")})
		r.Match(Client{User: "u", Database: "a", Revision: "b", IP: net.ParseIP("10.0.0.1"), TLS: true})
	})
}
