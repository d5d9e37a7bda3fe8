package types

func scratchMore(typ, in string, st *Settings, out *[]byte, err *error) {
	switch typ {
	case "json":
		*err = ValidateJSON(in)
		*out = []byte(in)
	case "jsonb":
		var v JSONB
		v, *err = ParseJSONB(in)
		*out = AppendJSONB(nil, &v)
	}
}
