package pgremote

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://rep:s3cret@host:5432/db?sslmode=require": "postgres://rep:xxxxx@host:5432/db?sslmode=require",
		"postgres://rep@host/db":                             "postgres://rep@host/db",
		"postgresql://host/db":                               "postgresql://host/db",
		"file:///tmp/remote":                                 "file:///tmp/remote",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenErrors checks that a URL Open refuses, or a server it cannot
// reach, gives an error without the password.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, "file:///tmp/x"); !errors.Is(err, ErrUnsupportedURL) {
		t.Errorf("a file:// URL: %v", err)
	}
	if _, err := Open(ctx, "postgres://rep:pw-123@127.0.0.1:5432/"); !errors.Is(err, ErrUnsupportedURL) {
		t.Errorf("a URL without a database: %v", err)
	}
	// Port 1 on loopback refuses connections.
	_, err := Open(ctx, "postgres://rep:pw-123@127.0.0.1:1/db?sslmode=disable&connect_timeout=2")
	if err == nil || strings.Contains(err.Error(), "pw-123") || !strings.Contains(err.Error(), "xxxxx") {
		t.Errorf("an unreachable server: %v, want an error naming the URL with its password masked", err)
	}
}
