package store

import (
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestBadgerLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := newBadgerLogger(zap.New(core))
	l.Debugf("debug %d\n", 1)
	l.Infof("info %d\n", 2)
	l.Warningf("warning %d\n", 3)
	l.Errorf("error %d\n", 4)
	got := logs.AllUntimed()
	if len(got) != 2 {
		t.Fatalf("logged %d entries, want the warning and the error: %v", len(got), got)
	}
	for i, want := range []struct {
		level zapcore.Level
		msg   string
	}{{zapcore.WarnLevel, "warning 3"}, {zapcore.ErrorLevel, "error 4"}} {
		if got[i].Level != want.level || got[i].Message != want.msg || got[i].LoggerName != "badger" {
			t.Errorf("entry %d = %v %q (%s), want %v %q (badger)", i, got[i].Level, got[i].Message, got[i].LoggerName, want.level, want.msg)
		}
	}
}
