package types

import "testing"

func TestParseXML(t *testing.T) {
	for _, c := range []struct {
		in                string
		content, document bool
	}{
		{"", true, false},
		{"abc", true, false},
		{"<a>x</a>", true, true},
		{"<a/><b/>", true, false},
		{"<a>&amp;&#x41;</a>", true, true},
		{"<a>&</a>", false, false},
		{"<a>&nosuch;</a>", false, false},
		{"<a></b>", false, false},
		{"<a>", false, false},
		{`<a x="1" x="2"/>`, false, false},
		{`<?xml version="1.1" standalone="yes"?><a/>`, true, true},
		{`<?xml version="1.0" standalone="maybe"?><a/>`, false, false},
		{"<!-- c --> <?pi x?> <!DOCTYPE a><a/>", true, true},
		{"<!DOCTYPE a><a/><b/>", false, false},
		{"<!-- c --> text <!DOCTYPE a><a/>", false, false},
		{`<!DOCTYPE a [<!ENTITY e SYSTEM "/etc/passwd">]><a>&e;</a>`, true, true},
		{"<a><!-- x -- y --></a>", false, false},
	} {
		if got := ParseXML(c.in, false) == nil; got != c.content {
			t.Errorf("ParseXML(%q, content) ok = %v, want %v", c.in, got, c.content)
		}
		if got := ParseXML(c.in, true) == nil; got != c.document {
			t.Errorf("ParseXML(%q, document) ok = %v, want %v", c.in, got, c.document)
		}
	}
}

func TestXMLDeclOutput(t *testing.T) {
	for in, want := range map[string]string{
		`<?xml version="1.0"?><a/>`:                  "<a/>",
		"<?xml version=\"1.0\"?>\n<a/>":              "<a/>",
		`<?xml version='1.1'?><a/>`:                  `<?xml version="1.1"?><a/>`,
		`<?xml version="1.0" standalone="no"?><a/>`:  `<?xml version="1.0" standalone="no"?><a/>`,
		`<?xml version="1.0" encoding="UTF-8"?><a/>`: "<a/>",
		"<a/>": "<a/>",
	} {
		if got := XMLOut(in); got != want {
			t.Errorf("XMLOut(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestXMLName(t *testing.T) {
	for in, want := range map[string]string{
		"foo": "foo", ":one:": "_x003A_one:", "a b": "a_x0020_b", "1x": "_x0031_x", "_xy": "_x005F_xy",
	} {
		if got := XMLName(in, false); got != want {
			t.Errorf("XMLName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzXML feeds arbitrary text to the xml input function: it must not
// panic, and the text output of what it accepts must be accepted again.
func FuzzXML(f *testing.F) {
	for _, s := range []string{"<a>x</a>", `<?xml version="1.1"?><a b='c'/>`, "<!DOCTYPE a [<!ENTITY e 'x'>]><a>&e;</a>", "t&amp;<![CDATA[<]]>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, doc := range []bool{false, true} {
			if ParseXML(s, doc) != nil {
				continue
			}
			if err := ParseXML(XMLOut(s), doc); err != nil {
				t.Fatalf("XMLOut(%q) = %q, which is not accepted: %v", s, XMLOut(s), err)
			}
		}
	})
}
