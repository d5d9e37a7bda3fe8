package versioning

import (
	"errors"
	"fmt"
	"strings"
)

// Refs as a remote and refspecs name them: Git's and Dolt's full names,
// "refs/heads/B", "refs/tags/T", and "refs/remotes/R/B" for the
// remote-tracking branches of a database. A remote (store/remotestore)
// stores its refs under those names; a database stores them under its
// own prefix (repo.go), which localRef maps them to.
const (
	headsPrefix   = "refs/heads/"
	tagsPrefix    = "refs/tags/"
	remotesPrefix = "refs/remotes/"
)

// ErrInvalidRefSpec is returned for a refspec that cannot be parsed, or
// that names a branch the remote or the database does not have.
var ErrInvalidRefSpec = errors.New("invalid ref spec")

// RefSpec maps refs of one side of a transfer to refs of the other, as
// Git's do: Src and Dst are full ref names, both ending in "*" for a
// pattern ("refs/heads/*:refs/remotes/origin/*"); Force allows a move
// that is not a fast-forward ("+" in front). A push's empty Src deletes
// Dst.
type RefSpec struct {
	Src, Dst string
	Force    bool
	// Text is the spec as given, for messages.
	Text string
}

// ParseRefSpec parses "[+]src:dst" with full ref names.
func ParseRefSpec(s string) (RefSpec, error) {
	rs := RefSpec{Text: s}
	body, force := strings.CutPrefix(s, "+")
	rs.Force = force
	src, dst, ok := strings.Cut(body, ":")
	if !ok || src == "" || dst == "" || strings.HasSuffix(src, "*") != strings.HasSuffix(dst, "*") ||
		strings.Count(src, "*") > 1 || strings.Count(dst, "*") > 1 ||
		strings.Contains(strings.TrimSuffix(src, "*"), "*") || strings.Contains(strings.TrimSuffix(dst, "*"), "*") {
		return RefSpec{}, fmt.Errorf("%w: '%s'", ErrInvalidRefSpec, s)
	}
	rs.Src, rs.Dst = src, dst
	return rs, nil
}

// FetchRefSpec is the refspec of dolt_fetch(remote, arg): arg is "src:dst"
// (names without "refs/" being a remote branch and a tracking branch of
// remote), or a branch name, fetched into the tracking branch of its name.
func FetchRefSpec(remote, arg string) (RefSpec, error) {
	body, force := strings.CutPrefix(arg, "+")
	src, dst, ok := strings.Cut(body, ":")
	if !ok {
		dst = src
	}
	if src == "" || dst == "" || strings.Contains(body, "*") {
		return RefSpec{}, fmt.Errorf("%w: '%s'", ErrInvalidRefSpec, arg)
	}
	if !strings.HasPrefix(src, "refs/") {
		src = headsPrefix + src
	}
	if !strings.HasPrefix(dst, "refs/") {
		dst = remotesPrefix + remote + "/" + dst
	}
	return RefSpec{Src: src, Dst: dst, Force: force, Text: arg}, nil
}

// pattern reports whether rs maps many refs.
func (rs RefSpec) pattern() bool { return strings.HasSuffix(rs.Src, "*") }

// mapRef returns the name rs maps name to, if rs matches it.
func (rs RefSpec) mapRef(name string) (string, bool) {
	if !rs.pattern() {
		return rs.Dst, name == rs.Src
	}
	rest, ok := strings.CutPrefix(name, strings.TrimSuffix(rs.Src, "*"))
	if !ok || rest == "" {
		return "", false
	}
	return strings.TrimSuffix(rs.Dst, "*") + rest, true
}

// localRef returns the database's ref for a full ref name, checking the
// name as branch and tag names are checked.
func (r *Repo) localRef(full string) (string, error) {
	for _, k := range []struct{ prefix, kind, local string }{
		{headsPrefix, "branch", "heads/"}, {tagsPrefix, "tag", "tags/"}, {remotesPrefix, "remote branch", "remotes/"},
	} {
		if name, ok := strings.CutPrefix(full, k.prefix); ok {
			if err := checkRefName(k.kind, name); err != nil {
				return "", err
			}
			return dbPrefix(r.name) + k.local + name, nil
		}
	}
	return "", fmt.Errorf("%w: '%s' is not a branch, tag or remote branch", ErrInvalidRefSpec, full)
}
