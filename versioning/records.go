package versioning

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/prollypg/prollypg/store"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// Record encodings are JSON: catalog records are small and rarely written,
// and encoding/json writes struct fields in declaration order and map keys
// sorted, so equal records encode to equal bytes (history independence).
// Each record starts with a version byte so the format can change.
const recordVersion = 1

func encodeRecord(v any) ([]byte, error) {
	if t, ok := v.(*sqldef.Table); ok {
		return encodeTable(t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("versioning: encoding %T: %w", v, err)
	}
	return append([]byte{recordVersion}, b...), nil
}

// putRecordRef writes v as a record and moves ref from old to it, durably;
// a nil v deletes ref. It fails with an error wrapping store.ErrRefConflict
// if ref is no longer at old. The server's own records (roles, remotes,
// branch permissions) are kept this way, outside any root value.
func putRecordRef(ctx context.Context, st Store, ref string, old store.Address, v any) error {
	update := store.RefUpdate{Name: ref, Old: old}
	if v != nil {
		b, err := encodeRecord(v)
		if err != nil {
			return err
		}
		if update.New, err = st.Put(ctx, b); err != nil {
			return fmt.Errorf("versioning: writing %s: %w", ref, err)
		}
	}
	return st.UpdateRefs(ctx, []store.RefUpdate{update}, true)
}

func decodeRecord(b []byte, v any) error {
	if t, ok := v.(*sqldef.Table); ok && len(b) > 0 && b[0] == tableRecordVersion {
		return decodeTable(b, t)
	}
	if len(b) == 0 || b[0] != recordVersion {
		return fmt.Errorf("%w: catalog record of unknown version", ErrCorrupt)
	}
	if err := json.Unmarshal(b[1:], v); err != nil {
		return fmt.Errorf("%w: catalog record: %v", ErrCorrupt, err)
	}
	return nil
}
