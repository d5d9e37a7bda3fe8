package funcs

import (
	"net/netip"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/exec/types"
)

// registerNetwork registers the functions and operators of inet and cidr
// (PostgreSQL's network.c): the parts of an address, containment of
// networks, and the arithmetic of addresses.
func registerNetwork() {
	I, C := exec.OIDInet, exec.OIDCidr
	B, T, I4, I8 := exec.OIDBool, exec.OIDText, exec.OIDInt4, exec.OIDInt8
	fn := func(name string, args []uint32, ret uint32, f func(a []exec.Datum) (exec.Datum, error)) *exec.Func {
		return &exec.Func{Name: name, Args: args, Ret: ret, Strict: true, Immutable: true,
			Fn: func(_ *exec.Env, a []exec.Datum) (exec.Datum, error) { return f(a) }}
	}
	inet := func(f func(v types.Inet) types.Inet) func([]exec.Datum) (exec.Datum, error) {
		return func(a []exec.Datum) (exec.Datum, error) { return exec.DInet(f(a[0].Inet())), nil }
	}
	text := func(s []byte) exec.Datum { return exec.DText(string(s)) }
	pair := func(f func(x, y types.Inet) bool) func([]exec.Datum) (exec.Datum, error) {
		return func(a []exec.Datum) (exec.Datum, error) { return exec.DBool(f(a[0].Inet(), a[1].Inet())), nil }
	}
	setMasklen := func(cidr bool) func([]exec.Datum) (exec.Datum, error) {
		return func(a []exec.Datum) (exec.Datum, error) {
			v, bits := a[0].Inet(), a[1].I
			if bits == -1 {
				bits = int64(v.MaxBits())
			}
			if bits < 0 || bits > int64(v.MaxBits()) {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "invalid mask length: %d", bits)
			}
			v.Bits = int(bits)
			if cidr {
				v = v.Network()
			}
			return exec.DInet(v), nil
		}
	}
	exec.Register(
		fn("host", []uint32{I}, T, func(a []exec.Datum) (exec.Datum, error) {
			return text(a[0].Inet().Addr.AppendTo(nil)), nil
		}),
		fn("masklen", []uint32{I}, I4, func(a []exec.Datum) (exec.Datum, error) { return exec.DInt(int64(a[0].Inet().Bits)), nil }),
		fn("family", []uint32{I}, I4, func(a []exec.Datum) (exec.Datum, error) { return exec.DInt(int64(a[0].Inet().Family())), nil }),
		fn("network", []uint32{I}, C, inet(types.Inet.Network)),
		fn("broadcast", []uint32{I}, I, inet(types.Inet.Broadcast)),
		fn("netmask", []uint32{I}, I, inet(types.Inet.Netmask)),
		fn("hostmask", []uint32{I}, I, inet(types.Inet.Hostmask)),
		fn("text", []uint32{I}, T, func(a []exec.Datum) (exec.Datum, error) {
			return text(types.AppendInet(nil, a[0].Inet(), true)), nil
		}),
		fn("abbrev", []uint32{I}, T, func(a []exec.Datum) (exec.Datum, error) {
			return text(types.AppendInetAbbrev(nil, a[0].Inet(), false)), nil
		}),
		fn("abbrev", []uint32{C}, T, func(a []exec.Datum) (exec.Datum, error) {
			return text(types.AppendInetAbbrev(nil, a[0].Inet(), true)), nil
		}),
		fn("set_masklen", []uint32{I, I4}, I, setMasklen(false)),
		fn("set_masklen", []uint32{C, I4}, C, setMasklen(true)),
		fn("inet_same_family", []uint32{I, I}, B, pair(func(x, y types.Inet) bool { return x.Family() == y.Family() })),
		fn("inet_merge", []uint32{I, I}, C, func(a []exec.Datum) (exec.Datum, error) {
			x, y := a[0].Inet(), a[1].Inet()
			if x.Family() != y.Family() {
				return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot merge addresses from different families")
			}
			bits := min(x.Bits, y.Bits)
			for bits > 0 && !(types.Inet{Addr: x.Addr, Bits: bits}).Contains(y, false) {
				bits--
			}
			return exec.DInet(types.Inet{Addr: x.Addr, Bits: bits}.Network()), nil
		}),
		fn("<<", []uint32{I, I}, B, pair(func(x, y types.Inet) bool { return y.Contains(x, true) })),
		fn("<<=", []uint32{I, I}, B, pair(func(x, y types.Inet) bool { return y.Contains(x, false) })),
		fn(">>", []uint32{I, I}, B, pair(func(x, y types.Inet) bool { return x.Contains(y, true) })),
		fn(">>=", []uint32{I, I}, B, pair(func(x, y types.Inet) bool { return x.Contains(y, false) })),
		fn("&&", []uint32{I, I}, B, pair(types.Inet.Overlaps)),
		fn("+", []uint32{I, I8}, I, func(a []exec.Datum) (exec.Datum, error) { return inetAdd(a[0].Inet(), a[1].I) }),
		fn("+", []uint32{I8, I}, I, func(a []exec.Datum) (exec.Datum, error) { return inetAdd(a[1].Inet(), a[0].I) }),
		fn("-", []uint32{I, I8}, I, func(a []exec.Datum) (exec.Datum, error) { return inetAdd(a[0].Inet(), -a[1].I) }),
		fn("-", []uint32{I, I}, I8, func(a []exec.Datum) (exec.Datum, error) {
			x, y := a[0].Inet(), a[1].Inet()
			if x.Family() != y.Family() {
				return exec.Null, pgerr.New(pgerr.FeatureNotSupported, "cannot subtract inet values of different sizes")
			}
			d, ok := addrDiff(x.Addr, y.Addr)
			if !ok {
				return exec.Null, pgerr.New(pgerr.NumericValueOutOfRange, "result is out of range")
			}
			return exec.DInt(d), nil
		}),
	)
}

// inetAdd is inet + bigint: the address moved by n, its mask kept.
func inetAdd(v types.Inet, n int64) (exec.Datum, error) {
	b := v.Addr.AsSlice()
	carry := n
	for i := len(b) - 1; i >= 0 && carry != 0; i-- {
		s := int64(b[i]) + carry%256
		carry /= 256
		if s < 0 {
			s += 256
			carry--
		} else if s > 255 {
			s -= 256
			carry++
		}
		b[i] = byte(s)
	}
	if carry != 0 {
		return exec.Null, pgerr.New(pgerr.NumericValueOutOfRange, "result is out of range")
	}
	a, _ := netip.AddrFromSlice(b)
	return exec.DInet(types.Inet{Addr: a, Bits: v.Bits}), nil
}

// addrDiff returns x - y as an int64, false if it does not fit.
func addrDiff(x, y netip.Addr) (int64, bool) {
	xb, yb := x.AsSlice(), y.AsSlice()
	neg := x.Less(y)
	if neg {
		xb, yb = yb, xb
	}
	// xb - yb, both big-endian, xb >= yb.
	out := make([]byte, len(xb))
	borrow := 0
	for i := len(xb) - 1; i >= 0; i-- {
		d := int(xb[i]) - int(yb[i]) - borrow
		borrow = 0
		if d < 0 {
			d += 256
			borrow = 1
		}
		out[i] = byte(d)
	}
	var v uint64
	for i, c := range out {
		if len(out)-i > 8 {
			if c != 0 {
				return 0, false
			}
			continue
		}
		v = v<<8 | uint64(c)
	}
	if v > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}
