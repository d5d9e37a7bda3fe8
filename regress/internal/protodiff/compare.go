package protodiff

import (
	"fmt"
	"regexp"
	"strings"
)

// digits matches the numbers of an error's wording.
var digits = regexp.MustCompile(`[0-9]+`)

// A Category classifies a difference by the first pair of responses that
// differ.
type Category string

// The categories. Text is reported but is not a failure: the wording of
// errors is a difference worth knowing of, not a protocol one.
const (
	CatSequence    Category = "sequence"    // message kinds differ, or one side sent more
	CatError       Category = "error"       // an ErrorResponse on one side only, or another severity or SQLSTATE
	CatDescription Category = "description" // RowDescription or ParameterDescription
	CatData        Category = "data"        // DataRow or CopyData
	CatTag         Category = "tag"         // CommandComplete
	CatStatus      Category = "status"      // ReadyForQuery's transaction status
	CatCopy        Category = "copy"        // CopyInResponse or CopyOutResponse formats
	CatParameter   Category = "parameter"   // ParameterStatus
	CatNotice      Category = "notice"      // NoticeResponse severity or SQLSTATE
	CatHang        Category = "hang"        // our server did not answer within the timeout
	CatClosed      Category = "closed"      // our server closed the connection where PostgreSQL did not, or the reverse
	CatState       Category = "state"       // the tables' final contents
	CatReference   Category = "reference"   // PostgreSQL itself did not answer or crashed: not a fault of ours
	CatText        Category = "text"        // only the wording of an error differs
)

// Fails reports whether a difference of this category fails a run.
func (c Category) Fails() bool { return c != CatText }

// A Diff is the first difference found in a sequence.
type Diff struct {
	Category Category
	// Step is the index of the step where it shows.
	Step int
	// Final is set when it shows in the final contents of the tables,
	// read after the steps.
	Final bool
	// Index is the position of the first differing response in Ref and
	// Ours.
	Index     int
	Ref, Ours []Response
}

// Signature identifies a difference across sequences, for counting and
// for shrinking each kind once: its category and the differing pair.
func (d *Diff) Signature() string {
	return fmt.Sprintf("%s: postgres %s / ours %s", d.Category, signatureOf(d.Ref, d.Index, d.Category), signatureOf(d.Ours, d.Index, d.Category))
}

// signatureOf prints the response at i without the parts that vary from
// one occurrence to the next (row values).
func signatureOf(rs []Response, i int, cat Category) string {
	if i >= len(rs) {
		return "(nothing)"
	}
	r := rs[i]
	switch {
	case cat == CatText:
		// Positions and key values vary from one occurrence to the next.
		return r.Kind + " " + r.Body + " | " + digits.ReplaceAllString(r.Text, "#")
	case r.Kind == "DataRow" || r.Kind == "CopyData":
		return r.Kind
	}
	return r.Kind + " " + r.Body
}

// String prints the difference: where it is and both servers' responses
// side by side, the first differing pair marked.
func (d *Diff) String() string {
	var b strings.Builder
	where := fmt.Sprintf("step %d", d.Step+1)
	if d.Final {
		where = "the final contents of the tables"
	}
	fmt.Fprintf(&b, "%s difference at %s, response %d:\n", d.Category, where, d.Index+1)
	n := max(len(d.Ref), len(d.Ours))
	for i := range n {
		mark := "  "
		if i == d.Index {
			mark = "=>"
		}
		fmt.Fprintf(&b, "%s postgres: %s\n%s ours:     %s\n", mark, at(d.Ref, i), mark, at(d.Ours, i))
	}
	return b.String()
}

// at prints rs[i], or a dash past the end.
func at(rs []Response, i int) string {
	if i < len(rs) {
		return rs[i].String()
	}
	return "-"
}

// compare returns the category and index of the first difference
// between PostgreSQL's responses and ours, and separately the index of
// the first difference in wording only (-1 for none).
func compare(ref, ours []Response) (cat Category, idx int, textIdx int) {
	textIdx = -1
	if i := crashed(ref); i >= 0 {
		// PostgreSQL failed, not us: what came before still counts,
		// whatever follows says nothing.
		if c, j, t := compareUpTo(ref, ours, i); c != "" {
			return c, j, t
		}
		return CatReference, i, textIdx
	}
	return compareUpTo(ref, ours, max(len(ref), len(ours)))
}

// crashed returns the index of the first sign that PostgreSQL's backend
// died (it closed the connection without a FATAL error, or reports the
// crash of another backend), -1 if there is none.
func crashed(ref []Response) int {
	for i, r := range ref {
		switch {
		case r.Body == "WARNING 57P02" || r.Body == "FATAL 57P02":
			return i
		case r.Kind == kindEOF && (i == 0 || ref[i-1].Kind != "ErrorResponse" || !strings.HasPrefix(ref[i-1].Body, "FATAL")):
			return i
		}
	}
	return -1
}

// compareUpTo is compare over the first n responses.
func compareUpTo(ref, ours []Response, n int) (cat Category, idx int, textIdx int) {
	textIdx = -1
	ref, ours = ref[:min(n, len(ref))], ours[:min(n, len(ours))]
	for i := range max(len(ref), len(ours)) {
		if i >= len(ref) || i >= len(ours) {
			var extra Response
			if i >= len(ref) {
				extra = ours[i]
			} else {
				extra = ref[i]
			}
			return categoryOfExtra(extra, i >= len(ref)), i, textIdx
		}
		r, o := ref[i], ours[i]
		switch {
		case r.Kind == kindTimeout:
			return CatReference, i, textIdx
		case o.Kind == kindTimeout:
			return CatHang, i, textIdx
		case r.Kind != o.Kind:
			switch {
			case r.Kind == kindEOF || o.Kind == kindEOF:
				return CatClosed, i, textIdx
			case r.Kind == "ErrorResponse" || o.Kind == "ErrorResponse":
				return CatError, i, textIdx
			case r.Kind == "NoticeResponse" || o.Kind == "NoticeResponse":
				return CatNotice, i, textIdx
			}
			return CatSequence, i, textIdx
		case r.Body != o.Body:
			return categoryOfKind(r.Kind), i, textIdx
		case r.Text != o.Text && textIdx < 0:
			textIdx = i
		}
	}
	return "", -1, textIdx
}

// categoryOfExtra classifies a response that only one side sent.
func categoryOfExtra(r Response, ours bool) Category {
	switch {
	case r.Kind == kindTimeout && ours:
		return CatHang
	case r.Kind == kindTimeout:
		return CatReference
	case r.Kind == kindEOF:
		return CatClosed
	case r.Kind == "ErrorResponse":
		return CatError
	case r.Kind == "NoticeResponse":
		return CatNotice
	}
	return CatSequence
}

// categoryOfKind classifies a difference in the body of a message kind.
func categoryOfKind(kind string) Category {
	switch kind {
	case "ErrorResponse":
		return CatError
	case "NoticeResponse":
		return CatNotice
	case "RowDescription", "ParameterDescription":
		return CatDescription
	case "DataRow", "CopyData":
		return CatData
	case "CommandComplete":
		return CatTag
	case "ReadyForQuery":
		return CatStatus
	case "CopyInResponse", "CopyOutResponse":
		return CatCopy
	case "ParameterStatus":
		return CatParameter
	case kindEOF:
		return CatClosed
	}
	return CatSequence
}
