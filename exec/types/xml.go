package types

import (
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The xml type (PostgreSQL's xml.c): a value is its text, kept as the
// client gave it once it is known to be well-formed XML content or a
// document. Well-formedness is checked with encoding/xml's strict
// decoder; the XML declaration is read here, as xml.c's parse_xml_decl
// does, since encoding/xml knows only version 1.0 and needs a charset
// reader for any declared encoding (the text is already UTF-8).

// SQLSTATEs of xml.c.
const (
	CodeInvalidXMLDocument = "2200M" // invalid_xml_document
	CodeInvalidXMLContent  = "2200N" // invalid_xml_content
	CodeNotAnXMLDocument   = "2200L" // not_an_xml_document
	CodeInvalidXMLComment  = "2200S" // invalid_xml_comment
	CodeInvalidXMLPI       = "2200T" // invalid_xml_processing_instruction
)

// XMLDecl is what an XML declaration says: Version "" when it has none,
// Standalone 1 for yes, 0 for no, -1 when it does not say.
type XMLDecl struct {
	Version    string
	Encoding   string
	Standalone int
}

// ParseXMLDecl reads the XML declaration at the start of s, if any, and
// returns it with its length in bytes (0 without one). ok is false for a
// declaration that is malformed.
func ParseXMLDecl(s string) (d XMLDecl, n int, ok bool) {
	d.Standalone = -1
	if !strings.HasPrefix(s, "<?xml") || len(s) < 6 || !isXMLSpace(s[5]) {
		return d, 0, true
	}
	p := 5
	skip := func() bool {
		q := p
		for p < len(s) && isXMLSpace(s[p]) {
			p++
		}
		return p > q
	}
	attr := func(name string) (string, bool) {
		save := p
		if !skip() || !strings.HasPrefix(s[p:], name) {
			p = save
			return "", false
		}
		p += len(name)
		skip()
		if p >= len(s) || s[p] != '=' {
			p = save
			return "", false
		}
		p++
		skip()
		if p >= len(s) || (s[p] != '"' && s[p] != '\'') {
			p = save
			return "", false
		}
		q := strings.IndexByte(s[p+1:], s[p])
		if q < 0 {
			p = save
			return "", false
		}
		v := s[p+1 : p+1+q]
		p += q + 2
		return v, true
	}
	var found bool
	if d.Version, found = attr("version"); !found {
		return d, 0, false
	}
	d.Encoding, _ = attr("encoding")
	if v, found := attr("standalone"); found {
		switch v {
		case "yes":
			d.Standalone = 1
		case "no":
			d.Standalone = 0
		default:
			return d, 0, false
		}
	}
	skip()
	if !strings.HasPrefix(s[p:], "?>") {
		return d, 0, false
	}
	return d, p + 2, true
}

// AppendXMLDecl appends the declaration of version and standalone as
// xml.c's print_xml_decl: none when version is "" or 1.0 and standalone
// is -1. It reports whether it appended one.
func AppendXMLDecl(dst []byte, version string, standalone int) ([]byte, bool) {
	if (version == "" || version == "1.0") && standalone < 0 {
		return dst, false
	}
	if version == "" {
		version = "1.0"
	}
	dst = append(dst, `<?xml version="`...)
	dst = append(dst, version...)
	dst = append(dst, '"')
	switch standalone {
	case 1:
		dst = append(dst, ` standalone="yes"`...)
	case 0:
		dst = append(dst, ` standalone="no"`...)
	}
	return append(dst, "?>"...), true
}

// XMLOut is an xml value's text output (xml_out): a declaration that
// says nothing beyond version 1.0 is left out, with a newline after it.
func XMLOut(s string) string {
	d, n, ok := ParseXMLDecl(s)
	if !ok || n == 0 {
		return s
	}
	out, printed := AppendXMLDecl(nil, d.Version, d.Standalone)
	rest := s[n:]
	if !printed && strings.HasPrefix(rest, "\n") {
		rest = rest[1:]
	}
	return string(append(out, rest...))
}

// ParseXML checks that s is well-formed XML content, or with document a
// well-formed document, as xml_in under xmloption does.
func ParseXML(s string, document bool) error {
	if err := CheckXML(s, document); err != nil {
		if document {
			return newError(CodeInvalidXMLDocument, "invalid XML document")
		}
		return newError(CodeInvalidXMLContent, "invalid XML content")
	}
	return nil
}

// CheckXML reports why s is not well-formed XML content (or a document),
// nil when it is. Content that begins, after comments and processing
// instructions, with a DOCTYPE is a document (SQL:2006).
func CheckXML(s string, document bool) error {
	_, n, ok := ParseXMLDecl(s)
	if !ok {
		return errors.New("invalid XML declaration")
	}
	body := s[n:]
	if !document && doctypeInContent(body) {
		document = true
	}
	return checkXMLBody(body, document)
}

// XMLIsDocument reports whether s is a well-formed document (IS DOCUMENT).
func XMLIsDocument(s string) bool { return CheckXML(s, true) == nil }

// doctypeInContent reports whether content begins, after white space,
// comments and processing instructions, with a DOCTYPE (xml.c's
// xml_doctype_in_content).
func doctypeInContent(s string) bool {
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		switch {
		case strings.HasPrefix(s, "<!DOCTYPE"):
			return true
		case strings.HasPrefix(s, "<!--"):
			i := strings.Index(s[4:], "-->")
			if i < 0 {
				return false
			}
			s = s[4+i+3:]
		case strings.HasPrefix(s, "<?"):
			i := strings.Index(s[2:], "?>")
			if i < 0 {
				return false
			}
			s = s[2+i+2:]
		default:
			return false
		}
	}
}

func checkXMLBody(s string, document bool) error {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = true
	roots, sawDoctype := 0, false
	var open []xml.Name // RawToken leaves matching end tags to us
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(open) == 0 {
				roots++
				if document && roots > 1 {
					return errors.New("extra content at the end of the document")
				}
			}
			open = append(open, t.Name)
			seen := map[xml.Name]bool{}
			for _, a := range t.Attr {
				if seen[a.Name] {
					return errors.New("attribute redefined")
				}
				seen[a.Name] = true
			}
			if err := checkNames(t.Name, t.Attr); err != nil {
				return err
			}
		case xml.EndElement:
			if len(open) == 0 || open[len(open)-1] != t.Name {
				return errors.New("mismatched end tag")
			}
			open = open[:len(open)-1]
		case xml.CharData:
			if len(open) == 0 && document && strings.TrimLeft(string(t), " \t\r\n") != "" {
				return errors.New("text outside the root element")
			}
		case xml.Directive:
			if !document || roots > 0 || sawDoctype || !strings.HasPrefix(string(t), "DOCTYPE") {
				return errors.New("misplaced DOCTYPE")
			}
			sawDoctype = true
			// References to the entities its internal subset declares
			// are well-formed; like PostgreSQL, their values (possibly
			// external) are not loaded.
			d.Entity = declaredEntities(string(t))
		case xml.ProcInst:
			if strings.EqualFold(t.Target, "xml") {
				return errors.New("XML declaration allowed only at the start")
			}
		}
	}
	if len(open) != 0 {
		return errors.New("premature end of data")
	}
	if document && roots != 1 {
		return errors.New("a document has one root element")
	}
	return nil
}

// checkNames refuses the names encoding/xml's raw tokens let through
// that XML does not allow (an empty local part after a colon).
func checkNames(n xml.Name, attrs []xml.Attr) error {
	if n.Local == "" {
		return errors.New("invalid element name")
	}
	for _, a := range attrs {
		if a.Name.Local == "" {
			return errors.New("invalid attribute name")
		}
	}
	return nil
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// EscapeXML escapes text for XML character data as xml.c's escape_xml:
// &, <, > and carriage returns.
func EscapeXML(s string) string { return escapeXML(s, false) }

// EscapeXMLAttr escapes an attribute value as libxml's writer does:
// &, <, >, " and the white space that attribute normalization would lose.
func EscapeXMLAttr(s string) string { return escapeXML(s, true) }

func escapeXML(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '\r' && !attr:
			b.WriteString("&#x0d;")
		case attr && c == '"':
			b.WriteString("&quot;")
		case attr && (c == '\n' || c == '\r' || c == '\t'):
			b.WriteString("&#" + strconv.Itoa(int(c)) + ";")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// XMLName maps an SQL identifier to an XML name as xml.c's
// map_sql_identifier_to_xml_name (SQL:2008 9.1): characters a name may not
// hold become _xHHHH_, a leading colon too, and "_x" is escaped so that the
// mapping can be reversed. fully escapes every colon and a leading "xml".
func XMLName(ident string, fully bool) string {
	var b strings.Builder
	for i, r := range ident {
		switch {
		case r == ':' && (i == 0 || fully):
			b.WriteString("_x003A_")
		case r == '_' && strings.HasPrefix(ident[i:], "_x"):
			b.WriteString("_x005F_")
		case fully && i == 0 && len(ident) >= 3 && strings.EqualFold(ident[:3], "xml"):
			if r == 'x' {
				b.WriteString("_x0078_")
			} else {
				b.WriteString("_x0058_")
			}
		case !isXMLNameChar(r) || i == 0 && !isXMLNameStart(r):
			b.WriteString("_x")
			b.WriteString(strings.ToUpper(hex4(r)))
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	var buf [8]byte
	n := 0
	for v := uint32(r); v > 0 || n < 4; v >>= 4 {
		buf[7-n] = digits[v&15]
		n++
	}
	return string(buf[8-n:])
}

func isXMLNameStart(r rune) bool {
	return unicode.IsLetter(r) || r == '_' || r == ':'
}

func isXMLNameChar(r rune) bool {
	return isXMLNameStart(r) || unicode.IsDigit(r) || r == '.' || r == '-' ||
		unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Lm, r) || r == 0xB7
}

// IsXMLName reports whether s is a valid XML name (a processing
// instruction's target, for one).
func IsXMLName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == utf8.RuneError || !isXMLNameChar(r) || i == 0 && !isXMLNameStart(r) {
			return false
		}
	}
	return true
}

// declaredEntities returns the general entities a DOCTYPE's internal
// subset declares, each standing for nothing.
func declaredEntities(doctype string) map[string]string {
	out := map[string]string{}
	for rest := doctype; ; {
		i := strings.Index(rest, "<!ENTITY")
		if i < 0 {
			return out
		}
		rest = rest[i+len("<!ENTITY"):]
		f := strings.Fields(rest)
		if len(f) > 0 && f[0] != "%" {
			out[f[0]] = ""
		}
	}
}
