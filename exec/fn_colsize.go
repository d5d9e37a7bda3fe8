package exec

// pg_column_size(x) is the bytes a value takes stored. Fixed-length types
// take their size; the others a varlena header (1 byte up to 126 bytes
// of data, else 4) and their data, here their text form: equal values
// have equal sizes, as the regression tests compare them, though the
// figures differ from PostgreSQL's binary forms.
func init() {
	fixed := map[uint32]int64{
		OIDBool: 1, OIDChar: 1, OIDInt2: 2, OIDInt4: 4, OIDOid: 4, OIDFloat4: 4, OIDDate: 4,
		OIDInt8: 8, OIDFloat8: 8, OIDTime: 8, OIDTimestamp: 8, OIDTimestampTZ: 8, OIDTimeTZ: 12,
		OIDInterval: 16, OIDUUID: 16,
	}
	Register(&Func{Name: "pg_column_size", Args: []uint32{OIDAny}, Ret: OIDInt4, Strict: true, Build: func(args []T) (Fn, T, error) {
		t := args[0]
		if n, ok := fixed[t.OID]; ok {
			return func(*Env, []Datum) (Datum, error) { return DInt(n), nil }, TInt4, nil
		}
		return func(env *Env, a []Datum) (Datum, error) {
			n := int64(len(AppendText(nil, t, a[0], env.Settings)))
			if n <= 126 {
				return DInt(n + 1), nil
			}
			return DInt(n + 4), nil
		}, TInt4, nil
	}})
}
