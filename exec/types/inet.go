package types

import (
	"net/netip"
	"strconv"
	"strings"
)

// Inet is a value of inet or cidr: an IPv4 or IPv6 address and the number
// of its leading bits that make up the network. For cidr the bits past
// them are zero.
type Inet struct {
	Addr netip.Addr // IPv4 (4 bytes) or IPv6, never IPv4-mapped unless written so
	Bits int
}

// MaxBits returns the address length in bits: 32 or 128.
func (v Inet) MaxBits() int { return v.Addr.BitLen() }

// Family returns 4 or 6.
func (v Inet) Family() int {
	if v.Addr.Is4() {
		return 4
	}
	return 6
}

// ParseInet is inet_in (cidr false) and cidr_in (cidr true).
func ParseInet(s string, cidr bool) (Inet, error) {
	typ := "inet"
	if cidr {
		typ = "cidr"
	}
	addrPart, bitsPart, hasBits := strings.Cut(s, "/")
	bits := -1
	if hasBits {
		n, err := strconv.Atoi(bitsPart)
		if err != nil || n < 0 || bitsPart == "" || bitsPart[0] == '+' {
			return Inet{}, errSyntax(typ, s)
		}
		bits = n
	}
	var v Inet
	if strings.Contains(addrPart, ":") {
		a, err := netip.ParseAddr(addrPart)
		if err != nil || a.Zone() != "" {
			return Inet{}, errSyntax(typ, s)
		}
		v.Addr = a
	} else {
		octets := strings.Split(addrPart, ".")
		if len(octets) > 4 || len(octets) < 4 && !cidr {
			return Inet{}, errSyntax(typ, s)
		}
		var b [4]byte
		for i, o := range octets {
			n, err := strconv.Atoi(o)
			if err != nil || n < 0 || n > 255 || o == "" || o[0] == '+' || o[0] == '-' {
				return Inet{}, errSyntax(typ, s)
			}
			b[i] = byte(n)
		}
		v.Addr = netip.AddrFrom4(b)
		if bits < 0 && cidr {
			bits = classfulBits(b[0], len(octets))
		}
	}
	if bits < 0 {
		bits = v.MaxBits()
	}
	if bits > v.MaxBits() {
		return Inet{}, errSyntax(typ, s)
	}
	v.Bits = bits
	if cidr && v.network() != v.Addr {
		return Inet{}, &Error{Code: CodeInvalidTextRepresentation,
			Message: "invalid cidr value: \"" + s + "\"", Detail: "Value has bits set to right of mask."}
	}
	return v, nil
}

// classfulBits is the mask PostgreSQL imputes to a cidr written without
// one: the address's class, widened to the octets written (a class D
// address of one octet gets 4 bits).
func classfulBits(first byte, octets int) int {
	var bits int
	switch {
	case first >= 240:
		bits = 32
	case first >= 224:
		bits = 8
	case first >= 192:
		bits = 24
	case first >= 128:
		bits = 16
	default:
		bits = 8
	}
	if bits < octets*8 {
		bits = octets * 8
	}
	if bits == 8 && first == 224 {
		bits = 4
	}
	return bits
}

// network returns the address with the bits past Bits cleared.
func (v Inet) network() netip.Addr {
	p, _ := v.Addr.Prefix(v.Bits)
	return p.Addr()
}

// Network is network(): the network part, as a cidr.
func (v Inet) Network() Inet { return Inet{Addr: v.network(), Bits: v.Bits} }

// Broadcast is broadcast(): the address with the bits past Bits set.
func (v Inet) Broadcast() Inet {
	b := v.Addr.AsSlice()
	for i := v.Bits; i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return Inet{Addr: a, Bits: v.Bits}
}

// mask returns the address whose first n bits are set (inverted: the
// others).
func (v Inet) mask(inverted bool) Inet {
	b := make([]byte, v.MaxBits()/8)
	for i := range len(b) * 8 {
		if (i < v.Bits) != inverted {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return Inet{Addr: a, Bits: v.MaxBits()}
}

// Netmask is netmask(); Hostmask hostmask().
func (v Inet) Netmask() Inet  { return v.mask(false) }
func (v Inet) Hostmask() Inet { return v.mask(true) }

// Contains reports whether w is within v's network (v >>= w): w's mask
// is at least as long and its address matches v's network bits.
func (v Inet) Contains(w Inet, strict bool) bool {
	if v.Family() != w.Family() || w.Bits < v.Bits || strict && w.Bits == v.Bits {
		return false
	}
	return Inet{Addr: w.Addr, Bits: v.Bits}.network() == v.network()
}

// Overlaps is &&: either contains the other.
func (v Inet) Overlaps(w Inet) bool {
	if v.Family() != w.Family() {
		return false
	}
	n := min(v.Bits, w.Bits)
	return Inet{Addr: v.Addr, Bits: n}.network() == Inet{Addr: w.Addr, Bits: n}.network()
}

// AppendInet appends inet_out's form (cidr false: the mask only when it is
// not the whole address) or cidr_out's (always with the mask).
func AppendInet(dst []byte, v Inet, cidr bool) []byte {
	dst = v.Addr.AppendTo(dst)
	if cidr || v.Bits != v.MaxBits() {
		dst = append(dst, '/')
		dst = strconv.AppendInt(dst, int64(v.Bits), 10)
	}
	return dst
}

// AppendInetAbbrev appends abbrev()'s form: for cidr, the network's
// significant octets only (IPv4); for inet, inet_out's.
func AppendInetAbbrev(dst []byte, v Inet, cidr bool) []byte {
	if !cidr || !v.Addr.Is4() {
		return AppendInet(dst, v, cidr)
	}
	b := v.Addr.As4()
	n := max((v.Bits+7)/8, 1)
	for i := range n {
		if i > 0 {
			dst = append(dst, '.')
		}
		dst = strconv.AppendInt(dst, int64(b[i]), 10)
	}
	dst = append(dst, '/')
	return strconv.AppendInt(dst, int64(v.Bits), 10)
}

// The binary format of inet_send and cidr_send: family (2 for IPv4, 3 for
// IPv6, PostgreSQL's PGSQL_AF_INET and PGSQL_AF_INET6), bits, whether it
// is a cidr, the address's length, the address.
const (
	pgAFInet  = 2
	pgAFInet6 = 3
)

// AppendInetBinary appends inet_send's (or cidr_send's) bytes.
func AppendInetBinary(dst []byte, v Inet, cidr bool) []byte {
	fam := byte(pgAFInet)
	if !v.Addr.Is4() {
		fam = pgAFInet6
	}
	isCidr := byte(0)
	if cidr {
		isCidr = 1
	}
	a := v.Addr.AsSlice()
	dst = append(dst, fam, byte(v.Bits), isCidr, byte(len(a)))
	return append(dst, a...)
}

// ParseInetBinary is inet_recv (cidr false) and cidr_recv.
func ParseInetBinary(b []byte, cidr bool) (Inet, error) {
	if len(b) < 4 {
		return Inet{}, errInsufficientData
	}
	fam, bits, n := b[0], int(b[1]), int(b[3])
	want := 4
	if fam == pgAFInet6 {
		want = 16
	} else if fam != pgAFInet {
		return Inet{}, &Error{Code: CodeInvalidBinaryRepresent, Message: "invalid address family in external \"inet\" value"}
	}
	if n != want || len(b) != 4+n {
		return Inet{}, &Error{Code: CodeInvalidBinaryRepresent, Message: "invalid length in external \"inet\" value"}
	}
	if bits > want*8 {
		return Inet{}, &Error{Code: CodeInvalidBinaryRepresent, Message: "invalid bits in external \"inet\" value"}
	}
	a, _ := netip.AddrFromSlice(b[4:])
	v := Inet{Addr: a, Bits: bits}
	if cidr && v.network() != a {
		return Inet{}, &Error{Code: CodeInvalidBinaryRepresent, Message: "invalid external \"cidr\" value",
			Detail: "Value has bits set to right of mask."}
	}
	return v, nil
}

// InetKey returns the bytes a Datum of inet or cidr holds: an encoding
// whose byte order is PostgreSQL's order of the values (network_cmp: by
// family, then the network bits both have, then the mask length, then the
// whole address), and which identifies the value. The family comes
// first; then each network bit as 1 or 2 and a 0, so that a shorter
// network sorts before a longer one it is a prefix of; then the address.
func InetKey(v Inet) string {
	a := v.Addr.AsSlice()
	b := make([]byte, 0, 2+v.Bits+len(a))
	b = append(b, byte(v.Family()))
	for i := range v.Bits {
		b = append(b, 1+(a[i/8]>>(7-i%8))&1)
	}
	b = append(b, 0)
	b = append(b, a...)
	return string(b)
}

// InetFromKey decodes InetKey's bytes.
func InetFromKey(s string) (Inet, error) {
	bad := errBinary("corrupt inet value")
	if len(s) < 2 || s[0] != 4 && s[0] != 6 {
		return Inet{}, bad
	}
	end := strings.IndexByte(s[1:], 0)
	if end < 0 {
		return Inet{}, bad
	}
	addr := s[2+end:]
	want := 4
	if s[0] == 6 {
		want = 16
	}
	if len(addr) != want || end > want*8 {
		return Inet{}, bad
	}
	a, _ := netip.AddrFromSlice([]byte(addr))
	return Inet{Addr: a, Bits: end}, nil
}
