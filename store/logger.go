package store

import (
	"strings"

	"go.uber.org/zap"
)

// badgerLogger passes Badger's warnings and errors to zap and drops its
// informational and debug messages, which are chatty (every compaction,
// every memtable flush) and not actionable for our users.
type badgerLogger struct {
	l *zap.SugaredLogger
}

// newBadgerLogger returns a Badger logger writing to l, named "badger".
func newBadgerLogger(l *zap.Logger) *badgerLogger {
	return &badgerLogger{l: l.Named("badger").Sugar()}
}

// Errorf logs at error level.
func (b *badgerLogger) Errorf(format string, args ...any) {
	b.l.Errorf(strings.TrimRight(format, "\n"), args...)
}

// Warningf logs at warning level.
func (b *badgerLogger) Warningf(format string, args ...any) {
	b.l.Warnf(strings.TrimRight(format, "\n"), args...)
}

// Infof drops the message.
func (b *badgerLogger) Infof(string, ...any) {}

// Debugf drops the message.
func (b *badgerLogger) Debugf(string, ...any) {}
