package exec

// Type OIDs that only function signatures and results use: the pseudo-types
// of polymorphic parameters, regtype (pg_typeof) and timetz.
const (
	OIDAny        uint32 = 2276 // "any": a parameter that takes any type as is
	OIDAnyElement uint32 = 2283
	OIDTimeTZ     uint32 = 1266
)

// TRegtype is regtype (see regtypes.go for its values).
var TRegtype = T{OIDRegtype, -1}

func init() {
	typeNames[OIDAny] = `"any"`
	typeNames[OIDAnyElement] = "anyelement"
	typeNames[OIDTimeTZ] = "time with time zone"
}
