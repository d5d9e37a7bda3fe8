package funcs

import (
	"crypto/rand"
	"fmt"

	"github.com/prollypg/prollypg/exec"
)

// gen_random_uuid: a version 4 UUID from the operating system's random
// source, as PostgreSQL's (pg_strong_random), not the session's random()
// generator, which setseed makes repeatable.
func genRandomUUID(*exec.Env, []exec.Datum) (exec.Datum, error) {
	var u [16]byte
	if _, err := rand.Read(u[:]); err != nil {
		return exec.Null, fmt.Errorf("gen_random_uuid: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return exec.DUUID(u), nil
}

func registerUUID() {
	exec.Register(&exec.Func{Name: "gen_random_uuid", Ret: exec.OIDUUID, Fn: genRandomUUID},
		// uuid-ossp's, which applications create the extension for; its
		// version 4 is gen_random_uuid's (CREATE EXTENSION "uuid-ossp"
		// finds it built in).
		&exec.Func{Name: "uuid_generate_v4", Ret: exec.OIDUUID, Fn: genRandomUUID})
}
