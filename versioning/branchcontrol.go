package versioning

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/prollypg/prollypg/store"
)

// Branch permissions, as Doltgres's branch control: who may change which
// branches (dolt_branch_control) and who may create branches of which
// names (dolt_branch_namespace_control). Like roles, they are the server's
// and not versioned: a branch cannot grant itself rights.
//
// Every column of an entry is a pattern: % matches any run of
// characters, _ any one, \ escapes the next; database, branch and host
// match without regard to case, user with. Of the entries that match a
// branch and user, only the most specific count (the most characters
// that are not wildcards, over the four patterns): a longer match takes
// precedence over a shorter one, so an entry for main can restrict what
// an entry for % allows.

// BranchAccess is an entry of dolt_branch_control.
type BranchAccess struct {
	Database string `json:"database"`
	Branch   string `json:"branch"`
	User     string `json:"user"`
	Host     string `json:"host"`
	// Permissions are among admin (everything, and editing the entries
	// of the branches it covers), write and read.
	Permissions []string `json:"permissions"`
}

// BranchNamespace is an entry of dolt_branch_namespace_control: branches
// whose names its pattern matches may be created only by the users of the
// most specific entries that match them.
type BranchNamespace struct {
	Database string `json:"database"`
	Branch   string `json:"branch"`
	User     string `json:"user"`
	Host     string `json:"host"`
}

// BranchControl is both tables.
type BranchControl struct {
	Access    []BranchAccess    `json:"access"`
	Namespace []BranchNamespace `json:"namespace"`
}

// branchControlRef names the chunk holding the server's BranchControl.
const branchControlRef = "branch_control"

// defaultBranchControl is what a server starts with: everyone may write
// every branch, and create branches of any name.
func defaultBranchControl() *BranchControl {
	return &BranchControl{Access: []BranchAccess{{Database: "%", Branch: "%", User: "%", Host: "%", Permissions: []string{"write"}}}}
}

// LoadBranchControl returns the branch permissions and the address of
// their record (zero while they are the default).
func LoadBranchControl(ctx context.Context, st Store) (*BranchControl, store.Address, error) {
	addr, ok, err := st.Ref(ctx, branchControlRef)
	if err != nil || !ok {
		return defaultBranchControl(), store.Address{}, err
	}
	b, err := st.Get(ctx, addr)
	if err != nil {
		return nil, store.Address{}, fmt.Errorf("versioning: loading branch permissions: %w", err)
	}
	bc := new(BranchControl)
	if err := decodeRecord(b, bc); err != nil {
		return nil, store.Address{}, err
	}
	return bc, addr, nil
}

// UpdateBranchControl applies fn to the branch permissions and saves them
// durably, again if another session saved in between.
func UpdateBranchControl(ctx context.Context, st Store, fn func(*BranchControl) error) error {
	for {
		bc, old, err := LoadBranchControl(ctx, st)
		if err != nil {
			return err
		}
		if err := fn(bc); err != nil {
			return err
		}
		err = putRecordRef(ctx, st, branchControlRef, old, bc)
		if !errors.Is(err, store.ErrRefConflict) {
			return err
		}
	}
}

// Permissions returns what user, connected from host, may do on branch of
// database: the permissions of the most specific matching entries.
func (bc *BranchControl) Permissions(database, branch, user, host string) (admin, write, read bool) {
	best := -1
	for _, e := range bc.Access {
		if !branchEntryMatches(e.Database, e.Branch, e.User, e.Host, database, branch, user, host) {
			continue
		}
		score := specificity(e.Database, e.Branch, e.User, e.Host)
		if score > best {
			best, admin, write, read = score, false, false, false
		}
		if score == best {
			for _, p := range e.Permissions {
				switch p {
				case "admin":
					admin = true
				case "write":
					write = true
				case "read":
					read = true
				}
			}
		}
	}
	if admin {
		write = true
	}
	return admin, write, read || write
}

// MayCreate reports whether user, connected from host, may create a
// branch named branch in database: yes when no namespace entry matches the
// name, else only if the user is among the most specific ones.
func (bc *BranchControl) MayCreate(database, branch, user, host string) bool {
	best, allowed := -1, true
	for _, e := range bc.Namespace {
		if !likeMatch(e.Database, database, true) || !likeMatch(e.Branch, branch, true) {
			continue
		}
		score := specificity(e.Database, e.Branch, "", "")
		users := likeMatch(e.User, user, false) && likeMatch(e.Host, host, true)
		switch {
		case score > best:
			best, allowed = score, users
		case score == best:
			allowed = allowed || users
		}
	}
	return allowed
}

func branchEntryMatches(pdb, pbranch, puser, phost, database, branch, user, host string) bool {
	return likeMatch(pdb, database, true) && likeMatch(pbranch, branch, true) &&
		likeMatch(puser, user, false) && likeMatch(phost, host, true)
}

// specificity counts the characters of the patterns that are not
// wildcards.
func specificity(patterns ...string) int {
	n := 0
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			switch p[i] {
			case '%', '_':
			case '\\':
				i++
				n++
			default:
				n++
			}
		}
	}
	return n
}

// likeMatch matches s against a LIKE pattern (% any run, _ any one
// character, \ escapes), folding case if fold.
func likeMatch(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	p, t := []rune(pattern), []rune(s)
	// Iterative matching with backtracking to the last %.
	pi, ti, star, mark := 0, 0, -1, 0
	for ti < len(t) {
		switch {
		case pi < len(p) && p[pi] == '%':
			star, mark = pi, ti
			pi++
		case pi < len(p) && p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == t[ti]:
			pi, ti = pi+2, ti+1
		case pi < len(p) && p[pi] != '\\' && (p[pi] == '_' || p[pi] == t[ti]):
			pi, ti = pi+1, ti+1
		case star >= 0:
			pi, mark = star+1, mark+1
			ti = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// Covers reports whether the pattern outer matches everything inner does,
// as far as a plain check can tell: inner is literally matched by outer
// (an admin of prefix% may write entries for prefix1%).
func Covers(outer, inner string) bool {
	return likeMatch(outer, inner, true)
}

// BranchControlCache holds the decoded branch permissions, decoded again
// only when their ref has moved: every writing statement of a checked
// user reads them. It is safe for concurrent use.
type BranchControlCache struct {
	mu   sync.Mutex
	addr store.Address
	bc   *BranchControl
}

// Load returns the current branch permissions, shared: they must not be
// modified (UpdateBranchControl works on a copy it loads itself).
func (c *BranchControlCache) Load(ctx context.Context, st Store) (*BranchControl, error) {
	addr, ok, err := st.Ref(ctx, branchControlRef)
	if err != nil {
		return nil, fmt.Errorf("versioning: loading branch permissions: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bc != nil && (ok && addr == c.addr || !ok && c.addr.IsZero()) {
		return c.bc, nil
	}
	bc, addr, err := LoadBranchControl(ctx, st)
	if err != nil {
		return nil, err
	}
	c.addr, c.bc = addr, bc
	return bc, nil
}
