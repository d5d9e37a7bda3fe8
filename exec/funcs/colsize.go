package funcs

import "github.com/prollypg/prollypg/exec"

// pg_column_size(x) is the bytes a value takes stored. Fixed-length types
// take their size; the others a varlena header (1 byte up to 126 bytes
// of data, else 4) and their data, here their text form: equal values
// have equal sizes, as the regression tests compare them, though the
// figures differ from PostgreSQL's binary forms.
func registerColumnSize() {
	fixed := map[uint32]int64{
		exec.OIDBool: 1, exec.OIDChar: 1, exec.OIDInt2: 2, exec.OIDInt4: 4, exec.OIDOid: 4, exec.OIDFloat4: 4, exec.OIDDate: 4,
		exec.OIDInt8: 8, exec.OIDFloat8: 8, exec.OIDTime: 8, exec.OIDTimestamp: 8, exec.OIDTimestampTZ: 8, exec.OIDTimeTZ: 12,
		exec.OIDInterval: 16, exec.OIDUUID: 16,
	}
	exec.Register(&exec.Func{Name: "pg_column_size", Args: []uint32{exec.OIDAny}, Ret: exec.OIDInt4, Strict: true, Build: func(args []exec.T) (exec.Fn, exec.T, error) {
		t := args[0]
		if n, ok := fixed[t.OID]; ok {
			return func(*exec.Env, []exec.Datum) (exec.Datum, error) { return exec.DInt(n), nil }, exec.TInt4, nil
		}
		return func(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
			n := int64(len(exec.AppendText(nil, t, a[0], env.Settings)))
			if n <= 126 {
				return exec.DInt(n + 1), nil
			}
			return exec.DInt(n + 4), nil
		}, exec.TInt4, nil
	}})
}
