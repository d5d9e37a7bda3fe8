package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

// frame builds a message with a declared length of len(body)+4+extra.
func frame(typ byte, body []byte, extra int) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(len(body)+4+extra))
	return append(b, body...)
}

func TestMsgReaderLimits(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want string // error message, "" for success
	}{
		{"ok", frame('Q', []byte("SELECT 1\x00"), 0), ""},
		{"unknown type", frame('z', nil, 0), "invalid frontend message type 122"},
		{"short", frame('Q', nil, -1), "invalid message length"},
		{"over limit", frame('Q', nil, 1000), "invalid message length"},
		{"control message over 10000", frame('S', nil, 10001), "invalid message length"},
		{"truncated", frame('Q', []byte("abc"), 10), "unexpected EOF"},
	}
	for _, c := range cases {
		r := msgReader{br: bufio.NewReader(bytes.NewReader(c.in)), max: 100}
		_, _, err := r.next()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
		var werr *Error
		if c.want != "" && c.name != "truncated" && (!errors.As(err, &werr) || werr.Code != CodeProtocolViolation || werr.Severity != SeverityFatal) {
			t.Errorf("%s: not a FATAL 08P01: %#v", c.name, err)
		}
	}
}

// TestMsgReaderGrowsWithData checks that a large declared length costs
// memory only as the bytes arrive.
func TestMsgReaderGrowsWithData(t *testing.T) {
	in := frame('d', bytes.Repeat([]byte("x"), 1000), 500<<20)
	r := msgReader{br: bufio.NewReader(bytes.NewReader(in)), max: 1 << 30}
	_, _, err := r.next()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v", err)
	}
	if cap(r.buf) > 1<<20 {
		t.Fatalf("buffer grew to %d bytes for 1000 bytes received", cap(r.buf))
	}
	// A real large message is read whole, and its buffer dropped after.
	big := bytes.Repeat([]byte("y"), 3<<20)
	r = msgReader{br: bufio.NewReader(bytes.NewReader(append(frame('d', big, 0), frame('S', nil, 0)...))), max: 1 << 30}
	typ, body, err := r.next()
	if err != nil || typ != 'd' || !bytes.Equal(body, big) {
		t.Fatalf("big message: %c %d %v", typ, len(body), err)
	}
	if _, _, err := r.next(); err != nil || cap(r.buf) > maxRetainedBuffer {
		t.Fatalf("after big message: cap %d, %v", cap(r.buf), err)
	}
}

func TestMsgBuf(t *testing.T) {
	m := msgBuf{b: []byte("ab\x00\x00\x07\x00\x00\x00\x09rest")}
	if s := m.cstring(); string(s) != "ab" || m.int16() != 7 || m.int32() != 9 || string(m.bytes(4)) != "rest" || !m.done() {
		t.Fatal("decode")
	}
	m = msgBuf{b: []byte("x")}
	m.int32()
	if m.done() {
		t.Fatal("short read not detected")
	}
	m = msgBuf{b: []byte("abc")}
	if m.cstring() != nil || m.done() {
		t.Fatal("missing NUL not detected")
	}
	m = msgBuf{b: []byte("abc")}
	if m.bytes(-1) != nil || m.done() {
		t.Fatal("negative length not detected")
	}
}
