package session

import (
	"github.com/prollypg/prollypg/exec"
)

// TypeOID reads a type's name as a cast to regtype does: the conflicts
// tables of functions and sequences take types by name (dolt.Session).
func (s *Session) TypeOID(env *exec.Env, name string) (uint32, error) {
	d, err := s.RegIn(env, exec.OIDRegtype, name)
	if err != nil {
		return 0, err
	}
	return uint32(d.I), nil
}
