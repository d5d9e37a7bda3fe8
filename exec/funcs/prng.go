package funcs

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
)

// PRNG is PostgreSQL's pg_prng (xoroshiro128**), the generator behind
// random() and setseed(): after setseed(x) a session draws the very
// numbers PostgreSQL's would. A PRNG belongs to one session and is not
// safe for concurrent use.
type PRNG struct {
	s0, s1 uint64
	seeded bool
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97f4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

func (p *PRNG) seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	p.seeded = true
}

// SetSeed is setseed(x), x in [-1, 1].
func (p *PRNG) SetSeed(x float64) error {
	if x < -1 || x > 1 || math.IsNaN(x) {
		return pgerr.New(pgerr.InvalidParameterValue, "setseed parameter %s is out of allowed range [-1,1]", string(exec.AppendText(nil, exec.TFloat8, exec.DFloat(x), nil)))
	}
	p.seed(uint64(int64(float64((uint64(1)<<52)-1) * x)))
	return nil
}

// Float64 is random(): a double in [0, 1). An unseeded generator seeds
// itself at random first, as a backend does at start.
func (p *PRNG) Float64() float64 {
	if !p.seeded {
		p.seed(rand.Uint64())
	}
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return math.Ldexp(float64(v>>(64-52)), -52)
}
