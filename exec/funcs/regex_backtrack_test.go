package funcs

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	regexp2 "github.com/dlclark/regexp2/v2"

	"github.com/prollypg/prollypg/exec/pgerr"
)

// TestRecoverMatchFailure checks that a match the backtracking engine
// gives up becomes 2201B without the input it quotes, and that any other
// panic goes on.
func TestRecoverMatchFailure(t *testing.T) {
	run := func(v any) (err error) {
		defer recoverMatchFailure(&err)
		panic(v)
	}
	for _, v := range []error{
		fmt.Errorf("match timeout after 30s on input `%s`", strings.Repeat("secret", 100)),
		regexp2.ErrBacktrackingStackLimit,
	} {
		err := run(v)
		var pe *pgerr.Error
		if !errors.As(err, &pe) || pe.Code != pgerr.InvalidRegularExpression || strings.Contains(pe.Message, "secret") {
			t.Errorf("recovered %v as %v, want 2201B without the input", v, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("another panic was swallowed")
		}
	}()
	run("a bug")
}

// TestBacktrackingMatch checks that back-references and lookaround run.
func TestBacktrackingMatch(t *testing.T) {
	re, err := compileRegex(`(.)\1(?=b)`, reFlags{})
	if err != nil {
		t.Fatal(err)
	}
	if m := re.FindStringSubmatchIndex("xaab"); len(m) < 4 || m[0] != 1 || m[1] != 3 {
		t.Errorf("match of (.)\\1(?=b) in xaab = %v, want [1 3 ...]", m)
	}
}
