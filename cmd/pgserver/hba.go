package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"go.uber.org/zap"

	"github.com/prollypg/prollypg/planner/session"
	"github.com/prollypg/prollypg/versioning"
	"github.com/prollypg/prollypg/wire"
	"github.com/prollypg/prollypg/wire/hba"
)

// hbaAuth reads the client authentication rules of path (--hba) and
// returns the wire's ClientAuth deciding by them. SIGHUP reloads the file;
// a file that does not parse is logged with its bad line, and the rules
// in force stay.
func hbaAuth(log *zap.Logger, path string) (func(wire.ClientInfo) (wire.AuthMethod, error), error) {
	rules, err := hba.Load(path)
	if err != nil {
		return nil, err
	}
	var current atomic.Pointer[hba.Rules]
	current.Store(rules)
	log.Info("client authentication rules loaded", zap.String("file", path), zap.Int("rules", len(rules.Rules())))
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		for range hup {
			rules, err := hba.Load(path)
			if err != nil {
				log.Error("client authentication rules not reloaded; the previous ones stay in force", zap.Error(err))
				continue
			}
			current.Store(rules)
			log.Info("client authentication rules reloaded", zap.String("file", path), zap.Int("rules", len(rules.Rules())))
		}
	}()
	return func(ci wire.ClientInfo) (wire.AuthMethod, error) {
		c := hba.Client{User: ci.User, TLS: ci.TLS}
		c.Database, c.Revision = session.SplitDatabaseName(ci.Database)
		if c.Revision == "" {
			// The rules see the default branch's name; a database whose
			// home branch is another (a clone of one branch) is matched
			// as if it were main.
			c.Revision = versioning.DefaultBranch
		}
		host := "unknown"
		if a, ok := ci.Addr.(*net.TCPAddr); ok {
			c.IP, host = a.IP, a.IP.String()
		}
		encryption := "no encryption"
		if ci.TLS {
			encryption = "SSL encryption"
		}
		rule, ok := current.Load().Match(c)
		switch {
		case !ok:
			return 0, fmt.Errorf("no pg_hba.conf entry for host %q, user %q, database %q, %s", host, ci.User, ci.Database, encryption)
		case rule.Method == hba.Reject:
			return 0, fmt.Errorf("pg_hba.conf rejects connection for host %q, user %q, database %q, %s", host, ci.User, ci.Database, encryption)
		case rule.Method == hba.SCRAM:
			return wire.AuthSCRAM, nil
		case rule.Method == hba.Password:
			return wire.AuthCleartext, nil
		}
		return wire.AuthTrust, nil
	}, nil
}
