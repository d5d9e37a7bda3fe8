package remotestore

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/prollypg/prollypg/store"
)

// formatVersion is the version of the manifest and table file formats.
const formatVersion = 1

// manifest is the root of a remote: its table files and its refs.
type manifest struct {
	Format  int               `json:"format"`
	Version uint64            `json:"version"`
	Tables  []string          `json:"tables"`
	Refs    map[string]string `json:"refs"`
}

// decodeManifest parses a manifest; nil bytes are the empty remote.
func decodeManifest(b []byte) (*manifest, error) {
	m := &manifest{Format: formatVersion, Refs: map[string]string{}}
	if b == nil {
		return m, nil
	}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("remotestore: manifest: %v: %w", err, store.ErrCorrupt)
	}
	if m.Format != formatVersion {
		return nil, fmt.Errorf("remotestore: manifest format %d: %w", m.Format, store.ErrFormatVersion)
	}
	if m.Refs == nil {
		m.Refs = map[string]string{}
	}
	for name, a := range m.Refs {
		if _, err := store.ParseAddress(a); err != nil {
			return nil, fmt.Errorf("remotestore: manifest: ref %q: %v: %w", name, err, store.ErrCorrupt)
		}
	}
	return m, nil
}

// ref returns the address ref name points at.
func (m *manifest) ref(name string) (store.Address, bool) {
	s, ok := m.Refs[name]
	if !ok {
		return store.Address{}, false
	}
	a, _ := store.ParseAddress(s) // checked by decodeManifest
	return a, true
}

// next returns the manifest that follows m with the tables added and the
// updates applied, encoded.
func (m *manifest) next(tables []string, updates []store.RefUpdate) []byte {
	n := manifest{Format: formatVersion, Version: m.Version + 1, Refs: make(map[string]string, len(m.Refs)+len(updates))}
	have := make(map[string]bool, len(m.Tables))
	for _, t := range m.Tables {
		have[t] = true
	}
	n.Tables = append(n.Tables, m.Tables...)
	for _, t := range tables {
		if !have[t] {
			have[t] = true
			n.Tables = append(n.Tables, t)
		}
	}
	sort.Strings(n.Tables[len(m.Tables):])
	for k, v := range m.Refs {
		n.Refs[k] = v
	}
	for _, u := range updates {
		if u.New.IsZero() {
			delete(n.Refs, u.Name)
		} else {
			n.Refs[u.Name] = u.New.String()
		}
	}
	b, _ := json.Marshal(n) // strings and numbers only: cannot fail
	return b
}
