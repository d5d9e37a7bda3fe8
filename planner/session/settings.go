package session

import (
	"strconv"
	"strings"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// settings returns the session settings that evaluation and text I/O read,
// computed once per change of the variables they come from.
func (s *Session) settings() *exec.Settings {
	if s.cached != nil {
		return s.cached
	}
	if s.varSettings == nil {
		s.varSettings = s.settingsOfVars()
	}
	st := *s.varSettings
	st.Types = sessionTypes{s}
	if tx := s.txn; tx != nil {
		start := tx.StartTime
		st.Now = func() time.Time { return start }
	}
	s.cached = &st
	return s.cached
}

// settingsOfVars are the settings the session's variables give, which
// only putVar changes: read once, not at every transaction's first
// statement.
func (s *Session) settingsOfVars() *exec.Settings {
	st := types.DefaultSettings
	st.DateStyle, st.DateOrder, _ = parseDateStyle(s.vars["datestyle"], types.DateStyleISO, types.DateOrderMDY)
	st.IntervalStyle, _ = parseIntervalStyle(s.vars["intervalstyle"])
	st.TimeZone, _ = parseTimeZone(s.vars["timezone"])
	st.MaxQueryMemory = settingBytes(s.vars["max_query_memory"])
	if n, err := strconv.Atoi(s.vars["extra_float_digits"]); err == nil {
		st.ExtraFloatDigits = n
	}
	st.ByteaEscape = strings.EqualFold(s.vars["bytea_output"], "escape")
	st.TextSearchConfig = s.vars["default_text_search_config"]
	st.XMLDocument = s.vars["xmloption"] == "document"
	st.Replica = s.vars["session_replication_role"] == "replica"
	st.XMLBinaryHex = s.vars["xmlbinary"] == "hex"
	st.TrgmSimilarity = trgmThreshold(s.vars["pg_trgm.similarity_threshold"], st.TrgmSimilarity)
	st.TrgmWordSimilarity = trgmThreshold(s.vars["pg_trgm.word_similarity_threshold"], st.TrgmWordSimilarity)
	st.TrgmStrictWordSimilarity = trgmThreshold(s.vars["pg_trgm.strict_word_similarity_threshold"], st.TrgmStrictWordSimilarity)
	return &st
}

var dateStyleNames = map[types.DateStyle]string{
	types.DateStyleISO: "ISO", types.DateStylePostgres: "Postgres", types.DateStyleSQL: "SQL", types.DateStyleGerman: "German",
}
var dateOrderNames = map[types.DateOrder]string{types.DateOrderMDY: "MDY", types.DateOrderDMY: "DMY", types.DateOrderYMD: "YMD"}

// parseDateStyle reads a DateStyle value, changing only the halves it
// names, as PostgreSQL does.
func parseDateStyle(v string, style types.DateStyle, order types.DateOrder) (types.DateStyle, types.DateOrder, bool) {
	haveOrder := false
	for _, tok := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(tok)) {
		case "iso":
			style = types.DateStyleISO
		case "sql":
			style = types.DateStyleSQL
		case "postgres":
			style = types.DateStylePostgres
		case "german":
			style = types.DateStyleGerman
			if !haveOrder {
				order = types.DateOrderDMY
			}
		case "mdy", "us", "noneuropean", "non-european":
			order, haveOrder = types.DateOrderMDY, true
		case "dmy", "euro", "european":
			order, haveOrder = types.DateOrderDMY, true
		case "ymd":
			order, haveOrder = types.DateOrderYMD, true
		case "default":
			style, order = types.DateStyleISO, types.DateOrderMDY
		default:
			return style, order, false
		}
	}
	return style, order, true
}

func parseIntervalStyle(v string) (types.IntervalStyle, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "postgres":
		return types.IntervalStylePostgres, true
	case "postgres_verbose":
		return types.IntervalStylePostgresVerbose, true
	case "sql_standard":
		return types.IntervalStyleSQLStandard, true
	case "iso_8601":
		return types.IntervalStyleISO8601, true
	}
	return types.IntervalStylePostgres, false
}

// parseTimeZone reads a TimeZone value: a zone name, or a number of hours
// east of UTC (SET TIME ZONE -8).
func parseTimeZone(v string) (*time.Location, bool) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "utc") || strings.EqualFold(v, "gmt") || v == "" {
		return time.UTC, true
	}
	if h, err := strconv.ParseFloat(v, 64); err == nil {
		return time.FixedZone("", int(h*3600)), true
	}
	loc, err := time.LoadLocation(v)
	if err == nil {
		return loc, true
	}
	if loc, ok := types.LookupTimeZone(v); ok {
		return loc, true
	}
	return posixOffsetZone(v)
}

// posixOffsetZone reads a bare POSIX offset ("04:30", "-04:15", "+02:00"),
// which pg_tzset accepts as a zone: hours west of Greenwich, so "04:30" is
// UTC-04:30.
func posixOffsetZone(v string) (*time.Location, bool) {
	sign := 1
	s := v
	if s != "" && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = -1
		}
		s = s[1:]
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return time.UTC, false
	}
	secs := 0
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p == "" || (i > 0 && n > 59) || (i == 0 && n > 167) {
			return time.UTC, false
		}
		secs += n * []int{3600, 60, 1}[i]
	}
	return time.FixedZone("", -sign*secs), true
}

// checkSetting validates and normalizes a new value of a setting.
func (s *Session) checkSetting(name, value string) (string, error) {
	bad := func(param string) error {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", param, value)
	}
	if v, ok, err := checkTrgmSetting(name, value); ok {
		return v, err
	}
	switch name {
	case "datestyle":
		cur, order, _ := parseDateStyle(s.vars["datestyle"], types.DateStyleISO, types.DateOrderMDY)
		style, order, ok := parseDateStyle(value, cur, order)
		if !ok {
			return "", bad("DateStyle")
		}
		return dateStyleNames[style] + ", " + dateOrderNames[order], nil
	case "intervalstyle":
		if _, ok := parseIntervalStyle(value); !ok {
			return "", bad("IntervalStyle")
		}
		return strings.ToLower(value), nil
	case "timezone":
		if _, ok := parseTimeZone(value); !ok {
			return "", bad("TimeZone")
		}
	case "transaction_isolation", "default_transaction_isolation":
		v := strings.ToLower(strings.TrimSpace(value))
		switch v {
		case "serializable", "repeatable read", "read committed", "read uncommitted":
			return v, nil
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value).WithHint("Available values: serializable, repeatable read, read committed, read uncommitted.")
	case "client_min_messages":
		v := strings.ToLower(strings.TrimSpace(value))
		if v == "debug" {
			v = "debug2"
		}
		if messageLevel(v) == 0 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value).WithHint("Available values: debug5, debug4, debug3, debug2, debug1, log, notice, warning, error.")
		}
		return v, nil
	case "xmloption", "xmlbinary":
		v := strings.ToLower(strings.TrimSpace(value))
		if allowed := map[string][2]string{"xmloption": {"content", "document"}, "xmlbinary": {"base64", "hex"}}[name]; v != allowed[0] && v != allowed[1] {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value).
				WithHint("Available values: %s, %s.", allowed[0], allowed[1])
		}
		return v, nil
	case "bytea_output":
		if v := strings.ToLower(strings.TrimSpace(value)); v != "hex" && v != "escape" {
			return "", bad("bytea_output")
		}
		return strings.ToLower(strings.TrimSpace(value)), nil
	case "extra_float_digits":
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
		}
		if n < -15 || n > 3 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter %q (-15 .. 3)", n, name)
		}
	}
	if d := defaultVars[name]; d == "on" || d == "off" {
		// A Boolean setting takes any of bool's spellings and shows as
		// on or off, as PostgreSQL's parse_bool.
		v, err := types.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "parameter %q requires a Boolean value", name)
		}
		return map[bool]string{true: "on", false: "off"}[v], nil
	}
	return value, nil
}

// settingDuration reads a time setting such as lock_timeout: a number of
// milliseconds, or a number with a unit (us, ms, s, min, h, d); 0 for
// none or a value it cannot read.
func settingDuration(v string) time.Duration {
	return time.Duration(settingQuantity(v, "ms", timeUnits))
}

// settingQuantity reads a number with an optional unit among units
// (defaultUnit when none is written) as a multiple of the smallest; 0 for
// a value it cannot read or not above zero. Settings are read for every
// statement, so the unit tables are built once.
func settingQuantity(v, defaultUnit string, units map[string]float64) float64 {
	v = strings.TrimSpace(v)
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := v, defaultUnit
	if i >= 0 {
		num, unit = v[:i], strings.TrimSpace(v[i:])
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n * units[unit]
}

// timeUnits and memoryUnits are the units of time and memory settings,
// in nanoseconds and bytes. They are never written.
var (
	timeUnits = map[string]float64{"us": float64(time.Microsecond), "ms": float64(time.Millisecond), "s": float64(time.Second),
		"min": float64(time.Minute), "h": float64(time.Hour), "d": float64(24 * time.Hour)}
	memoryUnits = map[string]float64{"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
)

// Settings and transactions. As in PostgreSQL, a SET belongs to the
// transaction it runs in, explicit or implicit: it is undone if that
// transaction rolls back (or rolls back to a savepoint taken before it),
// and SET LOCAL is undone when it ends either way. varsUndo holds, for
// each setting SET changed in the open transaction, its value before.

// setVar gives a setting a new value for the open transaction.
func (s *Session) setVar(name, value string, local bool) {
	if s.varsUndo == nil {
		s.varsUndo = map[string]string{}
	}
	if _, ok := s.varsUndo[name]; !ok {
		s.varsUndo[name] = s.vars[name]
	}
	if local {
		if s.varsLocal == nil {
			s.varsLocal = map[string]bool{}
		}
		s.varsLocal[name] = true
	} else {
		delete(s.varsLocal, name)
	}
	s.putVar(name, value)
}

// putVar stores a setting's value and reports it when clients follow it.
func (s *Session) putVar(name, value string) {
	if s.vars[name] == value {
		return
	}
	s.vars[name] = value
	if name == "search_path" || name == "role" || name == "session_authorization" {
		s.planGen++ // names may resolve differently now, privileges differ
	}
	s.cached, s.varSettings = nil, nil
	if rn, ok := reported[name]; ok && s.OnParameter != nil {
		s.OnParameter(rn, value)
	}
}

// endVars settles the settings at the end of a transaction: kept if it
// committed, but for SET LOCAL; undone if it rolled back.
func (s *Session) endVars(committed bool) {
	for name, old := range s.varsUndo {
		if !committed || s.varsLocal[name] {
			s.putVar(name, old)
		}
	}
	clear(s.varsUndo)
	clear(s.varsLocal)
}

// varsMark records the settings SET changed so far, for a savepoint.
func (s *Session) varsMark() map[string]string {
	m := make(map[string]string, len(s.varsUndo))
	for name := range s.varsUndo {
		m[name] = s.vars[name]
	}
	return m
}

// varsRollbackTo puts the settings back as they were at a savepoint.
func (s *Session) varsRollbackTo(mark map[string]string) {
	for name, old := range s.varsUndo {
		if v, ok := mark[name]; ok {
			s.putVar(name, v)
		} else {
			s.putVar(name, old)
		}
	}
}

// failBlock marks the transaction block failed. As PostgreSQL aborts the
// transaction (or the innermost savepoint's subtransaction) at the error,
// its settings go back then, not at the ROLLBACK that ends the block, and
// the transaction's locks are released then, so that a deadlock's victim
// lets the others go on at once.
func (s *Session) failBlock() {
	if s.failed {
		return
	}
	s.failed = true
	if n := len(s.saves); n > 0 {
		s.varsRollbackTo(s.saves[n-1].vars)
		return
	}
	s.endVars(false)
	s.releaseLocks(s.txn, false)
}

// settingBytes reads a memory setting such as maintenance_work_mem: a
// number of kilobytes, or a number with a unit (B, kB, MB, GB, TB); 0 for
// a value it cannot read.
func settingBytes(v string) int64 {
	return int64(settingQuantity(v, "kB", memoryUnits))
}

// writeBuffer is maintenance_work_mem, the bytes of changes a statement
// holds in memory per table before it applies them (exec.Txn.WriteBuffer).
func (s *Session) writeBuffer() int64 { return settingBytes(s.vars["maintenance_work_mem"]) }

// lockTimeouts returns lock_timeout and deadlock_timeout (exec.Txn.LockTimeouts).
func (s *Session) lockTimeouts() (lock, deadlock time.Duration) {
	return settingDuration(s.vars["lock_timeout"]), settingDuration(s.vars["deadlock_timeout"])
}

// StatementTimeout is statement_timeout: how long a statement may run
// before 57014 (0: forever). The protocol layer applies it.
func (s *Session) StatementTimeout() time.Duration {
	return settingDuration(s.vars["statement_timeout"])
}

// IdleInTransactionTimeout is idle_in_transaction_session_timeout: how
// long the session may wait for its client inside a transaction block
// before it is ended (0: forever). The protocol layer applies it.
func (s *Session) IdleInTransactionTimeout() time.Duration {
	return settingDuration(s.vars["idle_in_transaction_session_timeout"])
}
