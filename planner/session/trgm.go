package session

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// pg_trgm's settings and set_limit (its functions are exec/funcs's
// trgm*.go). PostgreSQL defines the settings when the module loads,
// reserving the prefix pg_trgm; here they are always defined, real
// numbers from 0 to 1 shown as C's %g shows them.

// trgmVars are pg_trgm's settings and their defaults.
var trgmVars = map[string]string{
	"pg_trgm.similarity_threshold":             "0.3",
	"pg_trgm.word_similarity_threshold":        "0.6",
	"pg_trgm.strict_word_similarity_threshold": "0.5",
}

func init() {
	for k, v := range trgmVars {
		defaultVars[k] = v
	}
	// set_limit(real) sets pg_trgm.similarity_threshold, as SET does,
	// to the real's text, and returns the threshold. The rest of the
	// statement sees the new threshold, as in PostgreSQL, where the
	// operators read the variable when they run.
	setLimit := strict(withSession("set_limit", []uint32{exec.OIDFloat4}, exec.OIDFloat4, func(s *Session, env *exec.Env, a []exec.Datum) (exec.Datum, error) {
		v := string(types.AppendFloat4(nil, float32(a[0].F), 1))
		vs := &pg.VariableSetStmt{Kind: pg.VariableSetKind_VAR_SET_VALUE, Name: "pg_trgm.similarity_threshold",
			Args: []*pg.Node{pg.MakeAConstStrNode(v, -1)}}
		if _, err := s.set(env.Ctx, vs); err != nil {
			return exec.Null, err
		}
		env.Settings = s.settings()
		return exec.DFloat(float64(float32(env.Settings.TrgmSimilarity))), nil
	}))
	setLimit.Extension = "pg_trgm"
	exec.Register(setLimit)
}

// checkTrgmName refuses a setting of the reserved prefix pg_trgm that
// pg_trgm does not define, as PostgreSQL does once the module is loaded.
func checkTrgmName(name string) error {
	if _, ok := trgmVars[name]; ok || !strings.HasPrefix(name, "pg_trgm.") {
		return nil
	}
	return pgerr.New(pgerr.InvalidName, "invalid configuration parameter name %q", name).
		WithDetail("\"pg_trgm\" is a reserved prefix.")
}

// checkTrgmSetting validates a value of one of pg_trgm's settings (parse_real
// within 0 .. 1) and returns it as SHOW shows it; ok is false for other
// settings.
func checkTrgmSetting(name, value string) (string, bool, error) {
	if _, ok := trgmVars[name]; !ok {
		return "", false, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
	if err != nil {
		return "", true, pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
	}
	if f < 0 || f > 1 {
		return "", true, pgerr.New(pgerr.InvalidParameterValue, "%s is outside the valid range for parameter %q (0 .. 1)", strconv.FormatFloat(f, 'g', 6, 64), name)
	}
	return strconv.FormatFloat(f, 'g', 6, 64), true, nil
}

// trgmThreshold reads a threshold's value as checkTrgmSetting left it.
func trgmThreshold(v string, def float64) float64 {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	return def
}
