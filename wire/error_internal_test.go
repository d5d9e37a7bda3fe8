package wire

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgproto3/v2"
)

func TestToResponse(t *testing.T) {
	cases := []struct {
		err   error
		cause error
		code  string
		msg   string
		sev   string
	}{
		{errors.New("plain"), nil, "XX000", "plain", "ERROR"},
		{Errorf("22012", "division by zero"), nil, "22012", "division by zero", "ERROR"},
		{&Error{Severity: "FATAL", Code: "57P01", Message: "bye"}, nil, "57P01", "bye", "FATAL"},
		{stater{}, nil, "40001", "conflict", "ERROR"},
		{errors.New("ctx"), errCancelRequested, "57014", "canceling statement due to user request", "ERROR"},
		{Errorf("22012", "kept"), errCancelRequested, "22012", "kept", "ERROR"},
		{errors.Join(Errorf("22012", "x"), errorsCanceled), errCancelRequested, "57014", "canceling statement due to user request", "ERROR"},
		{errors.New("ctx"), errAdminShutdown, "57P01", "terminating connection due to administrator command", "FATAL"},
		{&Error{Code: "bad", Message: "m"}, nil, "XX000", "m", "ERROR"},
	}
	for _, c := range cases {
		resp := responseOf(c.err, c.cause)
		if resp.Code != c.code || resp.Message != c.msg || resp.Severity != c.sev || resp.SeverityUnlocalized != c.sev {
			t.Errorf("%v: %+v", c.err, resp)
		}
	}
}

// stater is an error with only a SQLSTATE.
type stater struct{}

func (stater) Error() string    { return "conflict" }
func (stater) SQLState() string { return "40001" }

var errorsCanceled = context.Canceled

// responseOf runs toResponse.
func responseOf(err, cause error) pgproto3.ErrorResponse {
	var r pgproto3.ErrorResponse
	toResponse(&r, err, cause, SeverityError)
	return r
}
