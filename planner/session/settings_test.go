package session

import (
	"testing"
	"time"
)

// TestSettingQuantities checks the reading of time and memory settings:
// the default unit, the written ones, and values read as none.
func TestSettingQuantities(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"0": 0, "250": 250 * time.Millisecond, "2s": 2 * time.Second, "1.5 min": 90 * time.Second,
		"10us": 10 * time.Microsecond, "1d": 24 * time.Hour, "-1": 0, "x": 0, "5parsecs": 0,
	} {
		if got := settingDuration(v); got != want {
			t.Errorf("settingDuration(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]int64{
		"64MB": 64 << 20, "1024": 1 << 20, "512kB": 512 << 10, "1GB": 1 << 30, "8192B": 8192, "": 0, "3PB": 0,
	} {
		if got := settingBytes(v); got != want {
			t.Errorf("settingBytes(%q) = %d, want %d", v, got, want)
		}
	}
}
