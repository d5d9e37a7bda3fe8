package ispell

import (
	"errors"
	"strings"

	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// eachLine calls fn for every line of data in order, each with its
// newline, the way PostgreSQL's tsearch_readline hands out a file: the
// last line may lack one. Every line is checked to be valid UTF-8 just
// before fn sees it, so an encoding error is reported where PostgreSQL
// reports it: after the errors of the lines above it, and not at all when
// fn stops the reading early (by returning errStop or an error) first.
func eachLine(data string, fn func(line string) error) error {
	next := splitLines(data)
	if strings.IndexByte(data, 0) >= 0 {
		next = fgetsLines(data)
	}
	for {
		line, ok := next()
		if !ok {
			return nil
		}
		if err := checkEncoding(line); err != nil {
			return err
		}
		if err := fn(line); err != nil {
			if err == errStop {
				return nil
			}
			return err
		}
	}
}

// splitLines returns an iterator over the lines of data.
func splitLines(data string) func() (string, bool) {
	return func() (string, bool) {
		if data == "" {
			return "", false
		}
		n := strings.IndexByte(data, '\n') + 1
		if n == 0 {
			n = len(data)
		}
		line := data[:n]
		data = data[n:]
		return line, true
	}
}

// fgetsLines returns an iterator over the lines of data as PostgreSQL's
// pg_get_line_buf reads them with fgets into a growing buffer: a NUL byte
// ends what fgets copied, so the rest of that read is lost, and a read
// that lost its newline so runs on into the next line. What a read takes
// depends on the buffer's size (1024 bytes, doubled as needed and kept
// from line to line), which is followed here too. Only data holding a NUL
// reads differently from splitLines.
func fgetsLines(data string) func() (string, bool) {
	size := 1024
	return func() (string, bool) {
		var line []byte
		read := false
		for data != "" {
			// fgets reads at most size-len-1 bytes, up to a newline.
			n := min(size-len(line)-1, len(data))
			if k := strings.IndexByte(data[:n], '\n'); k >= 0 {
				n = k + 1
			}
			chunk := data[:n]
			data = data[n:]
			read = true
			if k := strings.IndexByte(chunk, 0); k >= 0 {
				chunk = chunk[:k]
			}
			line = append(line, chunk...)
			if len(chunk) > 0 && line[len(line)-1] == '\n' {
				return string(line), true
			}
			for size < len(line)+128+1 {
				size *= 2
			}
		}
		if !read || len(line) == 0 {
			return "", false
		}
		return string(line), true
	}
}

// errStop ends eachLine without error.
var errStop = errors.New("ispell: stop reading")

// checkEncoding is pg_verify_mbstr for UTF-8 (types.ValidateUTF8, the
// server's check of text from clients): the first invalid sequence is
// reported with the bytes PostgreSQL shows.
func checkEncoding(line string) error {
	err := types.ValidateUTF8([]byte(line))
	if te, ok := err.(*types.Error); ok {
		return pgerr.New(pgerr.Code(te.Code), "%s", te.Message)
	}
	return err
}
