package dolt

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/versioning"
)

// dolt_backup and dolt.dolt_backups: a database copied whole (every
// branch, tag and working set) to a file:// or s3:// URL and restored
// from it as a new database (versioning/backup.go). Arguments, results
// and messages are Dolt's; the SQLSTATEs are PostgreSQL's nearest
// (Doltgres reports every failure as XX000). A sync writes the server's files (or writes
// with its S3 credentials) and a restore reads them and creates a
// database, so they need what dolt_push and dolt_clone need (remotes.go).

// backupUsage is Dolt's usage error of an operation of dolt_backup, with
// its required arguments and optional flags.
func backupUsage(op string, required []string, optional ...string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: dolt_backup('%s'", op)
	for _, r := range required {
		fmt.Fprintf(&b, ", '%s'", r)
	}
	for _, o := range optional {
		fmt.Fprintf(&b, ", ['%s']", o)
	}
	b.WriteString(")")
	return pgerr.New(pgerr.InvalidParameterValue, "%s", b.String())
}

// backupError returns the function that gives the error of an operation
// on backup name Dolt's words.
func backupError(name string) func(error) error {
	return func(err error) error {
		var pe *pgerr.Error
		switch {
		case err == nil || errors.As(err, &pe):
			return err
		case errors.Is(err, versioning.ErrNoBackup):
			return pgerr.Wrap(err, pgerr.UndefinedObject, "backup '%s' not found", name)
		case errors.Is(err, versioning.ErrBackupExists):
			return pgerr.Wrap(err, pgerr.DuplicateObject, "backup '%s' already exists", name)
		case errors.Is(err, versioning.ErrBackupURLConflict):
			return pgerr.Wrap(err, pgerr.DuplicateObject, "%s", err.Error())
		case errors.Is(err, versioning.ErrRemoteEmpty), errors.Is(err, versioning.ErrBadRemoteURL), errors.Is(err, fs.ErrNotExist):
			return pgerr.Wrap(err, pgerr.InternalError, "restore failed: %s", strings.TrimPrefix(err.Error(), "versioning: "))
		}
		return vcsError(err)
	}
}

// doltBackup is dolt_backup(op, ...):
//
//	dolt_backup('add', name, url)       records a backup of the database
//	dolt_backup('remove'|'rm', name)    forgets one (not its data)
//	dolt_backup('sync', name)           makes the backup a copy of the database
//	dolt_backup('sync-url', url)        the same, to a URL no backup names
//	dolt_backup('restore', [--force,] url, database)
//	                                    creates database from a backup
//	                                    (--force: replaces it)
//
// It returns status 0. A sync copies only the chunks the backup lacks;
// the session's transaction is committed first (versionOp), so its
// changes are in the working set synced.
func (s session) doltBackup(env *exec.Env, a []exec.Datum) (exec.Datum, error) {
	f, err := parseFlags("dolt_backup", a, flagSpec{short: map[byte]string{'f': "force", 'v': "verbose"},
		values: map[string]bool{"force": false, "verbose": false}})
	if err != nil {
		return exec.Null, err
	}
	if len(f.args) == 0 {
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "use 'dolt_backups' table to list backups")
	}
	ctx, repo, op := env.Ctx, s.Repo(), f.args[0]
	switch op {
	case "add":
		if len(f.args) != 3 {
			return exec.Null, backupUsage(op, []string{"name", "url"})
		}
		err = repo.AddBackup(ctx, versioning.Remote{Name: f.args[1], URL: f.args[2]})
	case "remove", "rm":
		if len(f.args) != 2 {
			return exec.Null, backupUsage(op, []string{"name"})
		}
		err = repo.RemoveBackup(ctx, f.args[1])
	case "sync":
		if len(f.args) != 2 {
			return exec.Null, backupUsage(op, []string{"name"})
		}
		var b versioning.Remote
		if b, err = repo.Backup(ctx, f.args[1]); err == nil {
			err = s.syncBackup(env, b.Name, b.URL)
		}
	case "sync-url":
		if len(f.args) != 2 {
			return exec.Null, backupUsage(op, []string{"remote_url"})
		}
		err = s.syncBackup(env, "", f.args[1])
	case "restore":
		if len(f.args) != 3 {
			return exec.Null, backupUsage(op, []string{"remote_url", "new_db_name"}, "--force")
		}
		err = s.restoreBackup(env, f.args[1], f.args[2], f.has("force"))
	default:
		return exec.Null, pgerr.New(pgerr.InvalidParameterValue, "unrecognized dolt_backup parameter '%s'", op)
	}
	if err != nil {
		return exec.Null, backupError(f.args[1])(err)
	}
	return statusOK(), nil
}

// syncBackup makes the backup at url (named name, or "" for sync-url) a
// copy of the session's database.
func (s session) syncBackup(env *exec.Env, name, url string) error {
	if err := s.RequireServerFiles(env.Ctx, true, "sync a backup to "+remoteKind(url)); err != nil {
		return err
	}
	st, err := s.Repo().SyncBackup(transferProgress(env.Ctx, s, "dolt_backup"), url, versioning.BackupOptions{Log: s.Logger()})
	if err != nil {
		return err
	}
	if name == "" {
		name = url
	}
	s.logTransfer("backup synced", name, st)
	return nil
}

// restoreBackup creates database name from the backup at url, replacing
// a database of the name if force is set (never the session's own).
func (s session) restoreBackup(env *exec.Env, url, name string, force bool) error {
	ctx := env.Ctx
	if err := s.RequireCreateDB(ctx); err != nil {
		return err
	}
	if err := s.RequireServerFiles(ctx, false, "restore a backup from "+remoteKind(url)); err != nil {
		return err
	}
	if name == "" || strings.ContainsAny(name, "@/") {
		return pgerr.New(pgerr.InvalidParameterValue, "dolt_backup: %q is not a database name", name)
	}
	if force && name == s.Repo().Name() {
		return pgerr.New(pgerr.ObjectInUse, "cannot replace the currently open database")
	}
	_, st, err := versioning.Restore(transferProgress(ctx, s, "dolt_backup restore"), s.Repo().Store(), name, url, versioning.BackupOptions{Force: force, Log: s.Logger()})
	if errors.Is(err, versioning.ErrDatabaseExists) {
		return pgerr.Wrap(err, pgerr.DuplicateDatabase, "database '%s' already exists, use '--force' to overwrite", name)
	}
	if err != nil {
		return err
	}
	s.logTransfer("backup restored", url, st)
	return nil
}

func init() {
	// dolt.dolt_backups is Doltgres's name (dolt_backups in any schema);
	// dolt.backups follows this package's rule for the others.
	backups := systemTable{
		cols: []exec.VirtualColumn{{Name: "name", Type: exec.TText}, {Name: "url", Type: exec.TText}, {Name: "params", Type: exec.TJSON}},
		rows: func(s session, env *exec.Env) ([]exec.Row, error) {
			list, err := s.Repo().Backups(env.Ctx)
			if err != nil {
				return nil, err
			}
			rows := make([]exec.Row, len(list))
			for i, b := range list {
				params := []byte("{}")
				if b.Params != nil {
					params, _ = json.Marshal(b.Params)
				}
				rows[i] = exec.Row{exec.DText(b.Name), exec.DText(versioning.RedactURL(b.URL)), exec.DJSON(string(params))}
			}
			return rows, nil
		},
	}
	systemTables["backups"] = backups
	systemTables["dolt_backups"] = backups
}
