package funcs

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// Character set conversion: convert_from, convert_to and convert between
// the database's encoding, always UTF8, and the single-byte encodings
// PostgreSQL knows, on golang.org/x/text's tables. getdatabaseencoding
// names the database's.

// singleByteEncodings are the encodings by PostgreSQL's name, cleaned as
// clean_encoding_name does (lower case, no punctuation), and the name
// PostgreSQL prints.
var singleByteEncodings = map[string]struct {
	name string
	cm   *charmap.Charmap
}{
	"latin1": {"LATIN1", charmap.ISO8859_1}, "iso88591": {"LATIN1", charmap.ISO8859_1},
	"latin2": {"LATIN2", charmap.ISO8859_2}, "iso88592": {"LATIN2", charmap.ISO8859_2},
	"latin3": {"LATIN3", charmap.ISO8859_3}, "iso88593": {"LATIN3", charmap.ISO8859_3},
	"latin4": {"LATIN4", charmap.ISO8859_4}, "iso88594": {"LATIN4", charmap.ISO8859_4},
	"latin5": {"LATIN5", charmap.ISO8859_9}, "iso88599": {"LATIN5", charmap.ISO8859_9},
	"latin6": {"LATIN6", charmap.ISO8859_10}, "iso885910": {"LATIN6", charmap.ISO8859_10},
	"latin7": {"LATIN7", charmap.ISO8859_13}, "iso885913": {"LATIN7", charmap.ISO8859_13},
	"latin8": {"LATIN8", charmap.ISO8859_14}, "iso885914": {"LATIN8", charmap.ISO8859_14},
	"latin9": {"LATIN9", charmap.ISO8859_15}, "iso885915": {"LATIN9", charmap.ISO8859_15},
	"latin10": {"LATIN10", charmap.ISO8859_16}, "iso885916": {"LATIN10", charmap.ISO8859_16},
	"iso88595": {"ISO_8859_5", charmap.ISO8859_5}, "iso88596": {"ISO_8859_6", charmap.ISO8859_6},
	"iso88597": {"ISO_8859_7", charmap.ISO8859_7}, "iso88598": {"ISO_8859_8", charmap.ISO8859_8},
	"win866": {"WIN866", charmap.CodePage866}, "win874": {"WIN874", charmap.Windows874},
	"win1250": {"WIN1250", charmap.Windows1250}, "win1251": {"WIN1251", charmap.Windows1251},
	"win1252": {"WIN1252", charmap.Windows1252}, "win1253": {"WIN1253", charmap.Windows1253},
	"win1254": {"WIN1254", charmap.Windows1254}, "win1255": {"WIN1255", charmap.Windows1255},
	"win1256": {"WIN1256", charmap.Windows1256}, "win1257": {"WIN1257", charmap.Windows1257},
	"win1258": {"WIN1258", charmap.Windows1258},
	"koi8r":   {"KOI8R", charmap.KOI8R}, "koi8": {"KOI8R", charmap.KOI8R}, "koi8u": {"KOI8U", charmap.KOI8U},
}

// textEncoding is an encoding convert_from and convert_to know: UTF8,
// SQL_ASCII (bytes as they are) or a single-byte one (cm).
type textEncoding struct {
	name string
	cm   *charmap.Charmap
}

// encodingNamed finds an encoding by name as pg_char_to_encoding does,
// ignoring case and punctuation; what is "source" or "destination" for
// the error.
func encodingNamed(name, what string) (textEncoding, error) {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	switch clean := b.String(); clean {
	case "utf8", "unicode":
		return textEncoding{name: "UTF8"}, nil
	case "sqlascii":
		return textEncoding{name: "SQL_ASCII"}, nil
	default:
		if e, ok := singleByteEncodings[clean]; ok {
			return textEncoding{name: e.name, cm: e.cm}, nil
		}
	}
	return textEncoding{}, pgerr.New(pgerr.InvalidParameterValue, "invalid %s encoding name %q", what, name)
}

// decode turns bytes of encoding e into UTF-8 text.
func (e textEncoding) decode(b []byte) (string, error) {
	if e.cm != nil {
		s, err := e.cm.NewDecoder().Bytes(b)
		return string(s), err
	}
	if e.name == "UTF8" {
		if err := types.ValidateUTF8(b); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

// encode turns UTF-8 text into bytes of encoding e, failing on a
// character e lacks as PostgreSQL does.
func (e textEncoding) encode(s string) ([]byte, error) {
	if e.cm == nil {
		return []byte(s), nil
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		c, ok := e.cm.EncodeRune(r)
		if !ok {
			var seq []string
			for _, x := range []byte(string(r)) {
				seq = append(seq, fmt.Sprintf("0x%02x", x))
			}
			return nil, pgerr.New(pgerr.UntranslatableCharacter, "character with byte sequence %s in encoding \"UTF8\" has no equivalent in encoding %q",
				strings.Join(seq, " "), e.name)
		}
		out = append(out, c)
	}
	return out, nil
}

func registerEncoding() {
	BA, TX, NM := exec.OIDBytea, exec.OIDText, exec.OIDName
	strFn("convert_from", []uint32{BA, NM}, TX, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		e, err := encodingNamed(a[1].S, "source")
		if err != nil {
			return exec.Null, err
		}
		s, err := e.decode([]byte(a[0].S))
		if err != nil {
			return exec.Null, err
		}
		return exec.DText(s), nil
	})
	strFn("convert_to", []uint32{TX, NM}, BA, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		e, err := encodingNamed(a[1].S, "destination")
		if err != nil {
			return exec.Null, err
		}
		b, err := e.encode(a[0].S)
		if err != nil {
			return exec.Null, err
		}
		return exec.DBytes(string(b)), nil
	})
	strFn("convert", []uint32{BA, NM, NM}, BA, func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) {
		from, err := encodingNamed(a[1].S, "source")
		if err != nil {
			return exec.Null, err
		}
		to, err := encodingNamed(a[2].S, "destination")
		if err != nil {
			return exec.Null, err
		}
		s, err := from.decode([]byte(a[0].S))
		if err != nil {
			return exec.Null, err
		}
		b, err := to.encode(s)
		if err != nil {
			return exec.Null, err
		}
		return exec.DBytes(string(b)), nil
	})
	// The database's encoding and the client's are UTF8: the server
	// converts nothing on the wire.
	for _, name := range []string{"getdatabaseencoding", "pg_client_encoding"} {
		exec.Register(&exec.Func{Name: name, Ret: exec.OIDName, Fn: func(*exec.Env, []exec.Datum) (exec.Datum, error) {
			return exec.DText("UTF8"), nil
		}})
	}
}
