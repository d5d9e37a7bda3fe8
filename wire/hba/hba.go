// Package hba reads client authentication rules in the format of
// PostgreSQL's pg_hba.conf and chooses, for a connection, the first rule
// that matches it.
//
// A rule is one line of whitespace-separated fields:
//
//	TYPE  DATABASE  USER  ADDRESS  METHOD
//
// TYPE is host (TCP, encrypted or not), hostssl, hostnossl, hostgssenc
// (never matches: GSSAPI encryption is not offered) or hostnogssenc (as
// host); local rules are accepted and never match, since the server has
// no Unix socket. DATABASE and USER are comma-separated lists of names
// (double quotes keep a name's case and commas) or all; DATABASE also
// takes sameuser, and names a database's revisions: db matches every
// revision of db, db@pattern only the revisions (branches, tags, commits)
// that pattern matches, where * matches any run of characters, slashes
// included (agent/* matches agent/a and agent/x/y). A connection that
// names no revision is on the database's default branch. ADDRESS is all,
// an address in CIDR notation, or an address followed by a netmask field.
// METHOD is trust, reject, scram-sha-256, password, or md5 (as
// scram-sha-256: passwords are kept only as SCRAM verifiers, and
// PostgreSQL itself then answers md5 with SCRAM). # starts a comment, and
// a line ending in a backslash continues on the next.
//
// Invariants: Parse accepts a file only if every line is a valid rule, and
// its error names the first bad line; Rules are immutable, so a server
// swaps a reloaded set in whole (an atomic pointer) and keeps the last
// good one when a reload fails.
package hba

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
)

// Method is what a rule asks of the clients it matches.
type Method int

// Methods.
const (
	Trust Method = iota
	Reject
	SCRAM    // scram-sha-256, and md5
	Password // password in clear
)

// String returns the method's name in the file.
func (m Method) String() string {
	switch m {
	case Trust:
		return "trust"
	case Reject:
		return "reject"
	case SCRAM:
		return "scram-sha-256"
	case Password:
		return "password"
	}
	return "unknown"
}

// Rule is one line of the file.
type Rule struct {
	Line      int    // 1-based line number in the file
	Type      string // host, hostssl, hostnossl, hostgssenc, hostnogssenc, local
	Databases []string
	Users     []string
	Net       *net.IPNet // nil for all
	Method    Method
}

// Rules are the rules of one file, in order.
type Rules struct {
	File  string // where they were read from, for messages
	rules []Rule
}

// Rules returns the rules, in order.
func (r *Rules) Rules() []Rule { return r.rules }

// Client is what a connection is matched by.
type Client struct {
	User     string
	Database string // the database's name, without a revision
	Revision string // the revision it names, or the default branch
	IP       net.IP
	TLS      bool
}

// Match returns the first rule that matches c; false if none does.
func (r *Rules) Match(c Client) (Rule, bool) {
	for _, rule := range r.rules {
		if rule.matches(c) {
			return rule, true
		}
	}
	return Rule{}, false
}

func (rule *Rule) matches(c Client) bool {
	switch rule.Type {
	case "local", "hostgssenc":
		return false
	case "hostssl":
		if !c.TLS {
			return false
		}
	case "hostnossl":
		if c.TLS {
			return false
		}
	}
	if rule.Net != nil && (c.IP == nil || !rule.Net.Contains(c.IP)) {
		return false
	}
	return matchDatabase(rule.Databases, c) && matchName(rule.Users, c.User)
}

// matchDatabase reports whether one of a rule's database entries names c's
// database and revision.
func matchDatabase(entries []string, c Client) bool {
	for _, e := range entries {
		switch {
		case e == "all":
			return true
		case e == "sameuser":
			if c.Database == c.User {
				return true
			}
		default:
			name, pattern, hasRev := strings.Cut(e, "@")
			if name == c.Database && (!hasRev || glob(pattern, c.Revision)) {
				return true
			}
		}
	}
	return false
}

func matchName(entries []string, name string) bool {
	for _, e := range entries {
		if e == "all" || e == name {
			return true
		}
	}
	return false
}

// glob reports whether s matches pattern, where * matches any run of
// characters (slashes too) and every other character itself.
func glob(pattern, s string) bool {
	for {
		star := strings.IndexByte(pattern, '*')
		if star < 0 {
			return pattern == s
		}
		if !strings.HasPrefix(s, pattern[:star]) {
			return false
		}
		s, pattern = s[star:], pattern[star+1:]
		if pattern == "" {
			return true
		}
		// The shortest run that lets the rest match: try each position.
		for i := 0; i <= len(s); i++ {
			if glob(pattern, s[i:]) {
				return true
			}
		}
		return false
	}
}

// Load reads and parses the file at path.
func Load(path string) (*Rules, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("hba: %w", err)
	}
	r, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.File = path
	return r, nil
}

// Parse parses the text of a rules file. The error names the first line
// that is not a valid rule.
func Parse(text string) (*Rules, error) {
	r := &Rules{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		first := i + 1
		line := stripComment(lines[i])
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + " " + stripComment(lines[i])
		}
		fields, err := splitFields(line)
		if err != nil {
			return nil, lineError(first, err)
		}
		if len(fields) == 0 {
			continue
		}
		rule, err := parseRule(fields)
		if err != nil {
			return nil, lineError(first, err)
		}
		rule.Line = first
		r.rules = append(r.rules, rule)
	}
	return r, nil
}

func lineError(line int, err error) error {
	return fmt.Errorf("line %d: %w", line, err)
}

// stripComment drops a # comment that is not inside double quotes.
func stripComment(line string) string {
	quoted := false
	for i, c := range line {
		switch c {
		case '"':
			quoted = !quoted
		case '#':
			if !quoted {
				return line[:i]
			}
		}
	}
	return line
}

// field is one whitespace-separated field: its comma-separated items,
// each with whether it was quoted (a quoted "all" is a name, not the
// keyword).
type field []item

type item struct {
	text   string
	quoted bool
}

// splitFields splits a line into fields and their items.
func splitFields(line string) ([]field, error) {
	var fields []field
	var cur field
	var tok strings.Builder
	inField, quoted, wasQuoted := false, false, false
	endItem := func() {
		cur = append(cur, item{tok.String(), wasQuoted})
		tok.Reset()
		wasQuoted = false
	}
	for _, c := range line {
		switch {
		case quoted:
			if c == '"' {
				quoted = false
			} else {
				tok.WriteRune(c)
			}
		case c == '"':
			quoted, wasQuoted, inField = true, true, true
		case c == ',':
			if !inField {
				return nil, errors.New("a field starts with a comma")
			}
			endItem()
		case c == ' ' || c == '\t' || c == '\r':
			if inField {
				endItem()
				fields = append(fields, cur)
				cur, inField = nil, false
			}
		default:
			tok.WriteRune(c)
			inField = true
		}
	}
	if quoted {
		return nil, errors.New("unterminated quoted string")
	}
	if inField {
		endItem()
		fields = append(fields, cur)
	}
	return fields, nil
}

// names returns a field's items as names, compared as written (as
// PostgreSQL does, without folding case). A quoted keyword is a name: it
// is returned quoted, so that it matches no keyword case.
func names(f field, what string, keywords ...string) ([]string, error) {
	var out []string
	for _, it := range f {
		switch {
		case it.text == "":
			return nil, fmt.Errorf("empty %s name", what)
		case it.quoted && slices.Contains(keywords, it.text):
			return nil, fmt.Errorf("%s %q: a quoted keyword as a name is not supported", what, it.text)
		case it.quoted:
			out = append(out, it.text)
		case strings.HasPrefix(it.text, "+") || strings.HasPrefix(it.text, "@"):
			return nil, fmt.Errorf("%s %q: group (+) and file (@) entries are not supported", what, it.text)
		default:
			out = append(out, it.text)
		}
	}
	return out, nil
}

// single returns a field that must hold one unquoted item.
func single(f field, what string) (string, error) {
	if len(f) != 1 || f[0].quoted {
		return "", fmt.Errorf("invalid %s", what)
	}
	return f[0].text, nil
}

func parseRule(fields []field) (Rule, error) {
	var rule Rule
	typ, err := single(fields[0], "connection type")
	if err != nil {
		return rule, err
	}
	switch typ {
	case "local", "host", "hostssl", "hostnossl", "hostgssenc", "hostnogssenc":
	default:
		return rule, fmt.Errorf("invalid connection type %q", typ)
	}
	rule.Type = typ
	parts := []string{"connection type", "database specification", "role specification", "IP address specification", "authentication method"}
	if typ == "local" {
		parts = slices.Delete(parts, 3, 4) // no address
	}
	if len(fields) < len(parts) {
		return rule, fmt.Errorf("end-of-line before %s", parts[len(fields)])
	}
	if rule.Databases, err = names(fields[1], "database", "all", "sameuser"); err != nil {
		return rule, err
	}
	if rule.Users, err = names(fields[2], "role", "all"); err != nil {
		return rule, err
	}
	rest := fields[3:]
	if typ != "local" {
		addr, err := single(fields[3], "IP address")
		if err != nil {
			return rule, err
		}
		rest = fields[4:]
		switch {
		case addr == "all":
		case strings.Contains(addr, "/"):
			_, n, err := net.ParseCIDR(addr)
			if err != nil {
				return rule, fmt.Errorf("invalid IP address %q", addr)
			}
			rule.Net = n
		default:
			ip := net.ParseIP(addr)
			if ip == nil {
				return rule, fmt.Errorf("invalid IP address %q (host names are not supported)", addr)
			}
			if len(rest) < 1 {
				return rule, errors.New("end-of-line before netmask specification")
			}
			maskText, err := single(rest[0], "IP mask")
			if err != nil {
				return rule, err
			}
			mask := net.ParseIP(maskText)
			if mask == nil || (ip.To4() == nil) != (mask.To4() == nil) {
				return rule, fmt.Errorf("invalid IP mask %q", maskText)
			}
			if v4 := ip.To4(); v4 != nil {
				ip, mask = v4, mask.To4()
			}
			m := net.IPMask(mask)
			if ones, bits := m.Size(); ones == 0 && bits == 0 {
				return rule, fmt.Errorf("invalid IP mask %q", maskText)
			}
			rule.Net = &net.IPNet{IP: ip.Mask(m), Mask: m}
			rest = rest[1:]
			if len(rest) == 0 {
				return rule, errors.New("end-of-line before authentication method")
			}
		}
	}
	method, err := single(rest[0], "authentication method")
	if err != nil {
		return rule, err
	}
	switch method {
	case "trust":
		rule.Method = Trust
	case "reject":
		rule.Method = Reject
	case "scram-sha-256", "md5":
		rule.Method = SCRAM
	case "password":
		rule.Method = Password
	default:
		return rule, fmt.Errorf("invalid authentication method %q", method)
	}
	if len(rest) > 1 {
		return rule, fmt.Errorf("authentication options are not supported (%q)", rest[1][0].text)
	}
	return rule, nil
}
