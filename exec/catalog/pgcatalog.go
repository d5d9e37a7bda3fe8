package catalog

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/types"
	"github.com/prollypg/prollypg/versioning/sqldef"
)

// The pg_catalog tables and views, with PostgreSQL 15's columns.
func init() {
	const pc = "pg_catalog"
	define(pc, "pg_namespace", OIDPgNamespace, 'r', "oid:oid nspname:name nspowner:oid nspacl:aclitem[]", pgNamespace)
	define(pc, "pg_class", OIDPgClass, 'r', `oid:oid relname:name relnamespace:oid reltype:oid reloftype:oid relowner:oid relam:oid
		relfilenode:oid reltablespace:oid relpages:integer reltuples:real relallvisible:integer reltoastrelid:oid
		relhasindex:boolean relisshared:boolean relpersistence:char relkind:char relnatts:smallint relchecks:smallint
		relhasrules:boolean relhastriggers:boolean relhassubclass:boolean relrowsecurity:boolean
		relforcerowsecurity:boolean relispopulated:boolean relreplident:char relispartition:boolean relrewrite:oid
		relfrozenxid:xid relminmxid:xid relacl:aclitem[] reloptions:text[] relpartbound:pg_node_tree`, pgClass)
	define(pc, "pg_attribute", 1249, 'r', `attrelid:oid attname:name atttypid:oid attstattarget:integer attlen:smallint
		attnum:smallint attndims:integer attcacheoff:integer atttypmod:integer attbyval:boolean attalign:char
		attstorage:char attcompression:char attnotnull:boolean atthasdef:boolean atthasmissing:boolean
		attidentity:char attgenerated:char attisdropped:boolean attislocal:boolean attinhcount:integer
		attcollation:oid attacl:aclitem[] attoptions:text[] attfdwoptions:text[] attmissingval:anyarray`, pgAttribute)
	define(pc, "pg_type", OIDPgType, 'r', `oid:oid typname:name typnamespace:oid typowner:oid typlen:smallint
		typbyval:boolean typtype:char typcategory:char typispreferred:boolean typisdefined:boolean typdelim:char
		typrelid:oid typsubscript:regproc typelem:oid typarray:oid typinput:regproc typoutput:regproc
		typreceive:regproc typsend:regproc typmodin:regproc typmodout:regproc typanalyze:regproc typalign:char
		typstorage:char typnotnull:boolean typbasetype:oid typtypmod:integer typndims:integer typcollation:oid
		typdefaultbin:pg_node_tree typdefault:text typacl:aclitem[]`, pgType)
	define(pc, "pg_index", 2610, 'r', `indexrelid:oid indrelid:oid indnatts:smallint indnkeyatts:smallint
		indisunique:boolean indnullsnotdistinct:boolean indisprimary:boolean indisexclusion:boolean
		indimmediate:boolean indisclustered:boolean indisvalid:boolean indcheckxmin:boolean indisready:boolean
		indislive:boolean indisreplident:boolean indkey:int2vector indcollation:oidvector indclass:oidvector
		indoption:int2vector indexprs:pg_node_tree indpred:pg_node_tree`, pgIndex)
	define(pc, "pg_constraint", OIDPgConstraint, 'r', `oid:oid conname:name connamespace:oid contype:char
		condeferrable:boolean condeferred:boolean convalidated:boolean conrelid:oid contypid:oid conindid:oid
		conparentid:oid confrelid:oid confupdtype:char confdeltype:char confmatchtype:char conislocal:boolean
		coninhcount:integer connoinherit:boolean conkey:smallint[] confkey:smallint[] conpfeqop:oid[]
		conppeqop:oid[] conffeqop:oid[] confdelsetcols:smallint[] conexclop:oid[] conbin:pg_node_tree`, pgConstraint)
	define(pc, "pg_attrdef", OIDPgAttrdef, 'r', "oid:oid adrelid:oid adnum:smallint adbin:pg_node_tree", pgAttrdef)
	define(pc, "pg_database", OIDPgDatabase, 'r', `oid:oid datname:name datdba:oid encoding:integer
		datlocprovider:char datistemplate:boolean datallowconn:boolean datconnlimit:integer datfrozenxid:xid
		datminmxid:xid dattablespace:oid datcollate:text datctype:text daticulocale:text datcollversion:text
		datacl:aclitem[]`, pgDatabase)
	define(pc, "pg_authid", OIDPgAuthid, 'r', `oid:oid rolname:name rolsuper:boolean rolinherit:boolean
		rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolbypassrls:boolean
		rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz`, pgAuthid)
	define(pc, "pg_roles", 12000, 'v', `rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean
		rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolconnlimit:integer rolpassword:text
		rolvaliduntil:timestamptz rolbypassrls:boolean rolconfig:text[] oid:oid`, pgRoles)
	define(pc, "pg_user", 12014, 'v', `usename:name usesysid:oid usecreatedb:boolean usesuper:boolean
		userepl:boolean usebypassrls:boolean passwd:text valuntil:timestamptz useconfig:text[]`, pgUser)
	define(pc, "pg_auth_members", 1261, 'r', "roleid:oid member:oid grantor:oid admin_option:boolean", pgAuthMembers)
	define(pc, "pg_stat_activity", 12222, 'v', `datid:oid datname:name pid:integer leader_pid:integer usesysid:oid usename:name
		application_name:text client_addr:text client_hostname:text client_port:integer backend_start:timestamptz
		xact_start:timestamptz query_start:timestamptz state_change:timestamptz wait_event_type:text wait_event:text
		state:text backend_xid:text backend_xmin:text query_id:bigint query:text backend_type:text`, pgStatActivity)
	define(pc, "pg_settings", 12104, 'v', `name:text setting:text unit:text category:text short_desc:text
		extra_desc:text context:text vartype:text source:text min_val:text max_val:text enumvals:text[]
		boot_val:text reset_val:text sourcefile:text sourceline:integer pending_restart:boolean`, pgSettings)
	define(pc, "pg_cursors", 12136, 'v', `name:text statement:text is_holdable:boolean is_binary:boolean
		is_scrollable:boolean creation_time:timestamptz`, pgCursors)
	define(pc, "pg_prepared_statements", 12140, 'v', `name:text statement:text prepare_time:timestamptz
		parameter_types:regtype[] from_sql:boolean generic_plans:bigint custom_plans:bigint`, pgPreparedStatements)
	define(pc, "pg_proc", OIDPgProc, 'r', `oid:oid proname:name pronamespace:oid proowner:oid prolang:oid
		procost:real prorows:real provariadic:oid prosupport:regproc prokind:char prosecdef:boolean
		proleakproof:boolean proisstrict:boolean proretset:boolean provolatile:char proparallel:char
		pronargs:smallint pronargdefaults:smallint prorettype:oid proargtypes:oidvector proallargtypes:oid[]
		proargmodes:char[] proargnames:text[] proargdefaults:pg_node_tree protrftypes:oid[] prosrc:text
		probin:text prosqlbody:pg_node_tree proconfig:text[] proacl:aclitem[]`, pgProc)
	define(pc, "pg_am", 2601, 'r', "oid:oid amname:name amhandler:regproc amtype:char", pgAm)
	define(pc, "pg_description", 2609, 'r', "objoid:oid classoid:oid objsubid:integer description:text", pgDescription)
	define(pc, "pg_shdescription", 2396, 'r', "objoid:oid classoid:oid description:text", none)
	define(pc, "pg_sequence", 2224, 'r', `seqrelid:oid seqtypid:oid seqstart:bigint seqincrement:bigint
		seqmax:bigint seqmin:bigint seqcache:bigint seqcycle:boolean`, pgSequence)
	define(pc, "pg_sequences", 12048, 'v', `schemaname:name sequencename:name sequenceowner:name data_type:regtype
		start_value:bigint min_value:bigint max_value:bigint increment_by:bigint cycle:boolean cache_size:bigint
		last_value:bigint`, pgSequences)
	define(pc, "pg_tables", 12033, 'v', `schemaname:name tablename:name tableowner:name tablespace:name
		hasindexes:boolean hasrules:boolean hastriggers:boolean rowsecurity:boolean`, pgTables)
	define(pc, "pg_indexes", 12043, 'v', "schemaname:name tablename:name indexname:name tablespace:name indexdef:text", pgIndexes)
	define(pc, "pg_views", 12028, 'v', "schemaname:name viewname:name viewowner:name definition:text", pgViews)
	define(pc, "pg_matviews", 12038, 'v', `schemaname:name matviewname:name matviewowner:name tablespace:name
		hasindexes:boolean ispopulated:boolean definition:text`, pgMatviews)
	define(pc, "pg_inherits", 2611, 'r', "inhrelid:oid inhparent:oid inhseqno:integer inhdetachpending:boolean", pgInherits)
	define(pc, "pg_collation", 3456, 'r', `oid:oid collname:name collnamespace:oid collowner:oid collprovider:char
		collisdeterministic:boolean collencoding:integer collcollate:text collctype:text colliculocale:text
		collversion:text`, pgCollation)
	define(pc, "pg_policy", 3256, 'r', `oid:oid polname:name polrelid:oid polcmd:char polpermissive:boolean
		polroles:oid[] polqual:pg_node_tree polwithcheck:pg_node_tree`, pgPolicy)
	define(pc, "pg_statistic_ext", 3381, 'r', `oid:oid stxrelid:oid stxname:name stxnamespace:oid stxowner:oid
		stxstattarget:integer stxkeys:int2vector stxkind:char[] stxexprs:pg_node_tree`, pgStatisticExt)
	define(pc, "pg_trigger", 2620, 'r', `oid:oid tgrelid:oid tgparentid:oid tgname:name tgfoid:oid tgtype:smallint
		tgenabled:char tgisinternal:boolean tgconstrrelid:oid tgconstrindid:oid tgconstraint:oid
		tgdeferrable:boolean tginitdeferred:boolean tgnargs:smallint tgattr:int2vector tgargs:bytea
		tgqual:pg_node_tree tgoldtable:name tgnewtable:name`, pgTrigger)
	define(pc, "pg_rewrite", 2618, 'r', `oid:oid rulename:name ev_class:oid ev_type:char ev_enabled:char
		is_instead:boolean ev_qual:pg_node_tree ev_action:pg_node_tree`, pgRewrite)
	define(pc, "pg_tablespace", 1213, 'r', "oid:oid spcname:name spcowner:oid spcacl:aclitem[] spcoptions:text[]", pgTablespace)
	define(pc, "pg_enum", 3501, 'r', "oid:oid enumtypid:oid enumsortorder:real enumlabel:name", pgEnum)
	define(pc, "pg_range", 3541, 'r', `rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid
		rngcanonical:regproc rngsubdiff:regproc`, pgRange)
	define(pc, "pg_extension", 3079, 'r', `oid:oid extname:name extowner:oid extnamespace:oid
		extrelocatable:boolean extversion:text extconfig:oid[] extcondition:text[]`, pgExtension)
	define(pc, "pg_depend", 2608, 'r', `classid:oid objid:oid objsubid:integer refclassid:oid refobjid:oid
		refobjsubid:integer deptype:char`, pgDepend)
	define(pc, "pg_foreign_table", 3118, 'r', "ftrelid:oid ftserver:oid ftoptions:text[]", none)
	define(pc, "pg_partitioned_table", 3350, 'r', `partrelid:oid partstrat:char partnatts:smallint partdefid:oid
		partattrs:int2vector partclass:oidvector partcollation:oidvector partexprs:pg_node_tree`, pgPartitionedTable)
	define(pc, "pg_publication", 6104, 'r', `oid:oid pubname:name pubowner:oid puballtables:boolean
		pubinsert:boolean pubupdate:boolean pubdelete:boolean pubtruncate:boolean pubviaroot:boolean`, none)
	define(pc, "pg_publication_namespace", 6237, 'r', "oid:oid pnpubid:oid pnnspid:oid", none)
	define(pc, "pg_publication_rel", 6106, 'r', "oid:oid prpubid:oid prrelid:oid prqual:pg_node_tree prattrs:int2vector", none)
	define(pc, "pg_language", 2612, 'r', `oid:oid lanname:name lanowner:oid lanispl:boolean lanpltrusted:boolean
		lanplcallfoid:oid laninline:oid lanvalidator:oid lanacl:aclitem[]`, pgLanguage)
}

func pgNamespace(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, n := range s.Namespaces() {
		acl := aclDatum(n.ACL)
		if n.Name == "public" && n.ACL == nil {
			// PostgreSQL 15's: the database owner may create, everyone use.
			acl = exec.NewArray(exec.OIDText, []exec.Datum{dText("pg_database_owner=UC/pg_database_owner"), dText("=U/pg_database_owner")})
		}
		out = append(out, exec.Row{dOID(n.OID), dText(n.Name), dOID(RoleOID(n.Owner)), acl})
	}
	return out, nil
}

func pgClass(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Relations() {
		owner := uint32(OIDBootstrapRole)
		am := uint32(0)
		natts, checks := 0, 0
		hasIndex := false
		switch r.Kind {
		case 'r':
			am = OIDHeapAM
			if r.Table != nil {
				owner = RoleOID(s.tableOwner(r.Schema))
				natts, checks = len(r.Table.Columns), len(r.Table.Checks)
				hasIndex = len(r.Table.PrimaryKey) > 0 || len(r.Table.Indexes) > 0
			} else {
				natts = len(r.View.Cols)
			}
		case 'v':
			if r.Query != nil {
				owner = RoleOID(s.tableOwner(r.Schema))
				natts = len(r.Query.Columns)
			} else {
				natts = len(r.View.Cols)
			}
		case 'i':
			am = OIDBtreeAM
			owner = RoleOID(s.tableOwner(r.Schema))
			natts = len(r.Table.PrimaryKey)
			if r.Index != nil {
				natts = len(r.Index.Columns) + len(r.Index.Include)
				am = accessMethodOID(r.Index.Method)
			}
		case 'S':
			owner = RoleOID(s.tableOwner(r.Schema))
			natts = 3
		case 'c':
			natts = len(r.Type.Fields)
		}
		reltype := uint32(0)
		switch {
		case r.Kind == 'c':
			reltype = TypeOID(r.Type)
		case r.Table != nil && r.Kind == 'r', r.Query != nil:
			reltype = RowTypeOID(r.Schema, r.Name)
		}
		tuples := exec.DFloat(-1)
		if r.Kind == 'S' {
			tuples = exec.DFloat(1)
		} else if r.Kind == 'v' {
			tuples = exec.DFloat(0)
		}
		filenode := r.OID
		if r.Kind == 'v' || r.Kind == 'c' {
			filenode = 0
		}
		kind := r.RelKind()
		if kind == 'p' {
			am, filenode = 0, 0
		}
		relacl := exec.Null
		switch {
		case r.Kind == 'r' && r.Table != nil:
			if r.Table.Owner != "" {
				owner = RoleOID(r.Table.Owner)
			}
			relacl = aclDatum(r.Table.ACL)
		case r.Kind == 'S' && r.Seq != nil:
			if r.Seq.Owner != "" {
				owner = RoleOID(r.Seq.Owner)
			}
			relacl = aclDatum(r.Seq.ACL)
		case r.Kind == 'v' && r.Query != nil:
			if r.Query.Owner != "" {
				owner = RoleOID(r.Query.Owner)
			}
			relacl = aclDatum(r.Query.ACL)
		}
		relopts := exec.Null
		if r.Kind == 'v' && r.Query != nil && len(r.Query.Options) > 0 {
			opts := make([]exec.Datum, len(r.Query.Options))
			for i, o := range r.Query.Options {
				opts[i] = dText(o)
			}
			relopts = exec.NewArray(exec.OIDText, opts)
		}
		isPartition, bound := false, exec.Null
		if r.Kind == 'r' && r.Table != nil && r.Table.IsPartition() {
			isPartition, bound = true, dText(s.PartitionBound(r.Table))
		}
		var oftype uint32
		if r.Kind == 'r' && r.Table != nil && r.Table.OfType != "" {
			oftype = s.typeOIDNamed(r.Table.OfType)
		}
		out = append(out, exec.Row{
			dOID(r.OID), dText(r.Name), dOID(NamespaceOID(r.Schema)), dOID(reltype), dOID(oftype), dOID(owner), dOID(am),
			dOID(filenode), dOID(0), dInt(0), tuples, dInt(0), dOID(0),
			dBool(hasIndex), dBool(false), dChar(relPersistence(r)), dChar(kind), dInt(int64(natts)), dInt(int64(checks)),
			dBool(r.Table != nil && len(r.Table.Rules) > 0 || r.Query != nil && len(r.Query.Rules) > 0), dBool(r.Table != nil && (len(r.Table.Triggers) > 0 || s.hasForeignKeyTriggers(r.Table)) || r.Query != nil && len(r.Query.Triggers) > 0), dBool(r.Kind == 'r' && s.HasChildren(r.Schema, r.Name)),
			dBool(r.Kind == 'r' && r.Table != nil && r.Table.RowSecurity), dBool(r.Kind == 'r' && r.Table != nil && r.Table.ForceRowSecurity), dBool(r.Table == nil || r.Table.MatView == nil || !r.Table.MatView.Unpopulated), dChar(replIdent(r.Kind)), dBool(isPartition), dOID(0),
			dText("0"), dText("0"), relacl, relopts, bound,
		})
	}
	return out, nil
}

// aclDatum is an ACL as aclitem[] shows it (a text[] of aclitem's text
// form); NULL for the default.
func aclDatum(acl []sqldef.ACLItem) exec.Datum {
	if acl == nil {
		return exec.Null
	}
	items := make([]exec.Datum, len(acl))
	for i, it := range acl {
		items[i] = dText(it.String())
	}
	return exec.NewArray(exec.OIDText, items)
}

// relPersistence is relpersistence of r: a table's and its indexes' 'u'
// when it is unlogged, a sequence's when it is, else as persistence.
func relPersistence(r Relation) byte {
	switch {
	case (r.Kind == 'r' || r.Kind == 'i') && r.Table != nil && r.Table.Unlogged:
		return 'u'
	case r.Kind == 'S' && r.Seq != nil && r.Seq.Unlogged:
		return 'u'
	}
	return persistence(r.Schema)
}

// persistence is relpersistence: 't' in a session's temporary schema.
func persistence(schema string) byte {
	if strings.HasPrefix(schema, "pg_temp_") {
		return 't'
	}
	return 'p'
}

// replIdent is relreplident: 'd' (default) for tables, 'n' otherwise.
func replIdent(kind byte) byte {
	if kind == 'r' {
		return 'd'
	}
	return 'n'
}

// attribute is one column of a relation as pg_attribute shows it.
type attribute struct {
	name     string
	t        exec.T
	notNull  bool
	hasDef   bool
	missing  bool
	identity byte
	// generated is attgenerated: 's' for a stored generated column.
	generated byte
	dropped   bool
	nonLocal  bool // attislocal false
	inhCount  int
	acl       []sqldef.ACLItem // attacl: the column's privileges
	storage   byte             // attstorage when set, else 0: the type's
}

// attributes returns a relation's columns.
func attributes(r Relation) []attribute {
	var out []attribute
	switch {
	case r.View != nil:
		for _, c := range r.View.Cols {
			out = append(out, attribute{name: c.Name, t: c.Type})
		}
	case r.Query != nil:
		for _, c := range r.Query.Columns {
			out = append(out, attribute{name: c.Name, t: exec.T{OID: c.Type, Typmod: c.Typmod}})
		}
	case r.Kind == 'c':
		for _, f := range r.Type.Fields {
			out = append(out, attribute{name: f.Name, t: exec.T{OID: f.Type, Typmod: f.Typmod}})
		}
	case r.Kind == 'r':
		for _, c := range r.Table.Columns {
			a := attribute{name: c.Name, t: columnType(c), notNull: c.NotNull, hasDef: c.Default != "" && c.Identity == 0,
				missing: c.Missing != nil, identity: c.Identity, generated: c.Generated, dropped: c.Dropped, nonLocal: c.NotLocal, inhCount: c.InhCount,
				acl: c.ACL, storage: c.Storage}
			if c.Dropped {
				a.t = exec.T{OID: 0, Typmod: -1}
			}
			out = append(out, a)
		}
	case r.Kind == 'i':
		if r.Index != nil {
			for _, c := range r.Index.Columns {
				if c.Expr != "" {
					out = append(out, attribute{name: exprColumnName(c.Expr), t: exec.T{OID: c.ExprType, Typmod: c.ExprTypmod}})
				} else {
					col := r.Table.Columns[c.Column]
					out = append(out, attribute{name: col.Name, t: columnType(col), storage: col.Storage})
				}
			}
			for _, pos := range r.Index.Include {
				col := r.Table.Columns[pos]
				out = append(out, attribute{name: col.Name, t: columnType(col)})
			}
			break
		}
		for _, pos := range indexColumns(r) {
			c := r.Table.Columns[pos]
			out = append(out, attribute{name: c.Name, t: columnType(c)})
		}
	case r.Kind == 'S':
		out = []attribute{{name: "last_value", t: exec.TInt8, notNull: true}, {name: "log_cnt", t: exec.TInt8, notNull: true}, {name: "is_called", t: exec.TBool, notNull: true}}
	}
	return out
}

// exprColumnName is the name an index's expression column has in
// pg_attribute: the function's name for a call, else expr.
func exprColumnName(expr string) string {
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if c == '(' && i > 0 {
			return expr[:i]
		}
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			break
		}
	}
	return "expr"
}

// indexColumns returns the column positions of an index relation: its
// key columns, then the included ones.
func indexColumns(r Relation) []int {
	if r.Index == nil {
		return r.Table.PrimaryKey
	}
	var cols []int
	for _, c := range r.Index.Columns {
		cols = append(cols, c.Column)
	}
	return append(cols, r.Index.Include...)
}

func pgAttribute(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Relations() {
		for i, a := range attributes(r) {
			length, byval, align, storage := int64(-1), false, byte('i'), byte('x')
			if ty := types.Lookup(types.Oid(a.t.OID)); ty != nil {
				length, byval, align, storage = int64(ty.Len), ty.ByVal, ty.Align, ty.Storage
			} else if sh, ok := s.userTypeShape(a.t.OID); ok {
				// attstorage must be the type's typstorage: pg_dump writes
				// SET STORAGE for any column where they differ.
				length, byval, align, storage = int64(sh.len), sh.byVal, sh.align, sh.store
			}
			if a.storage != 0 {
				storage = a.storage
			}
			out = append(out, exec.Row{
				dOID(r.OID), dText(a.name), dOID(a.t.OID), dInt(-1), dInt(length),
				dInt(int64(i + 1)), dInt(0), dInt(-1), dInt(int64(a.t.Typmod)), dBool(byval), dChar(align),
				dChar(storage), dChar(0), dBool(a.notNull), dBool(a.hasDef), dBool(a.missing),
				dChar(a.identity), dChar(a.generated), dBool(a.dropped), dBool(!a.nonLocal), dInt(int64(a.inhCount)),
				dOID(collationOf(a.t.OID)), aclDatum(a.acl), exec.Null, exec.Null, exec.Null,
			})
		}
	}
	return out, nil
}

// collationOf returns the collation of a column of type oid: the default
// one for the string types, C for name, none otherwise.
func collationOf(oid uint32) uint32 {
	switch oid {
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar, exec.OIDCIText:
		return OIDDefaultCollation
	case exec.OIDName:
		return 950
	}
	return 0
}

func pgType(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range types.Types {
		collation := collationOf(uint32(t.Oid))
		out = append(out, exec.Row{
			dOID(uint32(t.Oid)), dText(t.Name), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dInt(int64(t.Len)),
			dBool(t.ByVal), dChar(t.Kind), dChar(t.Category), dBool(t.Preferred), dBool(true), dChar(t.Delim),
			dOID(0), dProc(subscript(t)), dOID(uint32(t.Elem)), dOID(uint32(t.Array)), dProc(t.Input), dProc(t.Output),
			dProc(t.Receive), dProc(t.Send), dProc(t.TypmodIn), dProc(t.TypmodOut), dProc(analyze(t)), dChar(t.Align),
			dChar(t.Storage), dBool(false), dOID(0), dInt(-1), dInt(0), dOID(collation),
			exec.Null, exec.Null, exec.Null,
		})
	}
	return append(out, userTypeRows(s)...), nil
}

func subscript(t types.Type) string {
	if t.IsArray {
		return "array_subscript_handler"
	}
	return "-"
}

func analyze(t types.Type) string {
	switch {
	case t.IsArray:
		return "array_typanalyze"
	case t.Kind == 'r':
		return "range_typanalyze"
	case t.Kind == 'm':
		return "multirange_typanalyze"
	}
	return "-"
}

// indexInfo describes one index of a table for pg_index and pg_indexes.
type indexInfo struct {
	oid        uint32
	name       string
	table      *sqldef.Table
	cols       []sqldef.IndexColumn
	include    []int
	primary    bool
	unique     bool
	nnd        bool
	deferrable bool
	where      string
	method     string // "" for btree
}

// Indexes returns the indexes of a table, its primary key's first.
func tableIndexes(t *sqldef.Table) []indexInfo {
	var out []indexInfo
	if len(t.PrimaryKey) > 0 {
		ix := indexInfo{oid: IndexOID(t.Schema, t.PrimaryKeyName), name: t.PrimaryKeyName, table: t, primary: true, unique: true}
		for _, c := range t.PrimaryKey {
			ix.cols = append(ix.cols, sqldef.IndexColumn{Column: c})
		}
		out = append(out, ix)
	}
	for _, x := range t.Indexes {
		out = append(out, indexInfo{oid: IndexOID(t.Schema, x.Name), name: x.Name, table: t, cols: x.Columns,
			include: x.Include, unique: x.Unique, nnd: x.NullsNotDistinct, deferrable: x.Deferrable, where: x.Where, method: x.Method})
	}
	return out
}

func pgIndex(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for _, ix := range tableIndexes(t) {
			var key, coll, class, opt []string
			var exprs []string
			for _, c := range ix.cols {
				ct := c.ExprType
				if c.Expr != "" {
					key = append(key, "0")
					exprs = append(exprs, c.Expr)
				} else {
					key = append(key, strconv.Itoa(c.Column+1))
					ct = t.Columns[c.Column].Type
				}
				coll = append(coll, strconv.Itoa(int(collationOf(ct))))
				class = append(class, strconv.Itoa(int(opclassOf(ct))))
				o := 0
				if c.Desc {
					o |= 1
				}
				if c.NullsFirst {
					o |= 2
				}
				opt = append(opt, strconv.Itoa(o))
			}
			for _, c := range ix.include {
				key = append(key, strconv.Itoa(c+1))
			}
			out = append(out, exec.Row{
				dOID(ix.oid), dOID(TableOID(t.Schema, t.Name)), dInt(int64(len(ix.cols) + len(ix.include))), dInt(int64(len(ix.cols))),
				dBool(ix.unique), dBool(ix.nnd), dBool(ix.primary), dBool(false),
				dBool(!ix.deferrable), dBool(ix.name == t.ClusteredIndex()), dBool(true), dBool(false), dBool(true),
				dBool(true), dBool(false), dVector(exec.OIDInt2Vector, key), dVector(exec.OIDOidVector, coll), dVector(exec.OIDOidVector, class),
				dVector(exec.OIDInt2Vector, opt), dTextOrNull(strings.Join(exprs, ", ")), dTextOrNull(ix.where),
			})
		}
	}
	return out, nil
}

// opclassOf returns the default btree operator class of a type, as
// indclass lists it.
func opclassOf(oid uint32) uint32 {
	switch oid {
	case exec.OIDInt2:
		return 1979
	case exec.OIDInt4:
		return 1978
	case exec.OIDInt8:
		return 3124
	case exec.OIDText, exec.OIDVarchar:
		return 3126
	case exec.OIDBool:
		return 424
	case exec.OIDNumeric:
		return 3125
	case exec.OIDFloat4:
		return 1970
	case exec.OIDFloat8:
		return 3123
	case exec.OIDDate:
		return 3122
	case exec.OIDTimestamp:
		return 3128
	case exec.OIDTimestampTZ:
		return 3127
	case exec.OIDUUID:
		return 2968
	case exec.OIDInet, exec.OIDCidr:
		return 10015 // inet_ops, which cidr columns use too
	case exec.OIDBpchar:
		return 426
	case exec.OIDBytea:
		return 428
	}
	return 0
}

func pgConstraint(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, c := range s.Constraints() {
		t := c.Table
		conkey := dAttnums(c.Cols)
		indid := uint32(0)
		switch c.Type {
		case 'p', 'u':
			indid = IndexOID(t.Schema, c.Name)
		}
		validated, noInherit, local, inhCount := true, false, true, 0
		deferrable, deferred := false, false
		if c.Index != nil {
			deferrable, deferred = c.Index.Deferrable, c.Index.InitiallyDeferred
		}
		if c.FK != nil {
			deferrable, deferred = c.FK.Deferrable, c.FK.InitiallyDeferred
		}
		if c.Excl != nil {
			deferrable, deferred = c.Excl.Deferrable, c.Excl.InitiallyDeferred
		}
		bin := exec.Null
		if c.Check != nil {
			validated, noInherit = !c.Check.NotValid, c.Check.NoInherit
			local, inhCount = !c.Check.NotLocal, c.Check.InhCount
			bin = dText(c.Check.Expr)
		}
		confrel, upd, del, match, confkey, parent := uint32(0), byte(' '), byte(' '), byte(' '), exec.Null, uint32(0)
		delSet := exec.Null
		if c.FK != nil && len(c.FK.DeleteSetColumns) > 0 {
			delSet = dAttnums(c.FK.DeleteSetColumns)
		}
		if c.FK != nil {
			confrel = TableOID(c.FK.RefSchema, c.FK.RefTable)
			upd, del, match = fkAction(c.FK.OnUpdate), fkAction(c.FK.OnDelete), 's'
			confkey = dAttnums(c.FK.RefColumns)
			indid = fkIndexOID(s, c.FK)
			validated = !c.FK.NotValid
			if c.FK.Inherited {
				local, inhCount = false, 1
				if len(t.Inherits) > 0 {
					parent = ConstraintOID(t.Inherits[0].Schema, t.Inherits[0].Name, c.Name)
				}
			}
		}
		out = append(out, exec.Row{
			dOID(c.OID), dText(c.Name), dOID(NamespaceOID(t.Schema)), dChar(c.Type),
			dBool(deferrable), dBool(deferred), dBool(validated), dOID(TableOID(t.Schema, t.Name)), dOID(0), dOID(indid),
			dOID(parent), dOID(confrel), dChar(upd), dChar(del), dChar(match), dBool(local),
			dInt(int64(inhCount)), dBool(noInherit), conkey, confkey, exec.Null,
			exec.Null, exec.Null, delSet, exec.Null, bin,
		})
	}
	for _, t := range s.Tables {
		for i := range t.Triggers {
			if tr := &t.Triggers[i]; tr.Constraint {
				out = append(out, triggerConstraintRow(t, tr))
			}
		}
	}
	for _, c := range s.DomainConstraints() {
		out = append(out, domainConstraintRow(c))
	}
	return out, nil
}

// triggerConstraintRow is the pg_constraint row (contype 't') of
// constraint trigger tr of t, which the trigger's tgconstraint names.
func triggerConstraintRow(t *sqldef.Table, tr *sqldef.Trigger) exec.Row {
	return exec.Row{
		dOID(ConstraintOID(t.Schema, t.Name, tr.Name)), dText(tr.Name), dOID(NamespaceOID(t.Schema)), dChar('t'),
		dBool(tr.Deferrable), dBool(tr.InitiallyDeferred), dBool(true), dOID(TableOID(t.Schema, t.Name)), dOID(0), dOID(0),
		dOID(0), dOID(0), dChar(' '), dChar(' '), dChar(' '), dBool(true),
		dInt(0), dBool(true), exec.Null, exec.Null, exec.Null,
		exec.Null, exec.Null, exec.Null, exec.Null, exec.Null,
	}
}

// fkIndexOID is a foreign key's conindid: the unique index of the
// referenced table over exactly its referenced columns (JDBC's
// getImportedKeys joins through it); 0 when there is none.
func fkIndexOID(s *Snapshot, fk *sqldef.ForeignKey) uint32 {
	r, ok := s.RelationByName(fk.RefSchema, fk.RefTable)
	if !ok || r.Table == nil {
		return 0
	}
	t := r.Table
	if sameColumns(t.PrimaryKey, fk.RefColumns) {
		return IndexOID(t.Schema, t.PrimaryKeyName)
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		if !ix.Unique || ix.Where != "" {
			continue
		}
		cols := make([]int, len(ix.Columns))
		for j, c := range ix.Columns {
			cols[j] = c.Column
		}
		if sameColumns(cols, fk.RefColumns) {
			return IndexOID(t.Schema, ix.Name)
		}
	}
	return 0
}

// sameColumns reports whether a and b hold the same column positions, in
// any order.
func sameColumns(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// fkAction is a foreign key action letter, 'a' (NO ACTION) by default.
func fkAction(b byte) byte {
	if b == 0 {
		return 'a'
	}
	return b
}

func pgAttrdef(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for i, c := range t.Columns {
			if c.Default == "" || c.Dropped || c.Identity != 0 {
				continue
			}
			out = append(out, exec.Row{dOID(AttrdefOID(t.Schema, t.Name, c.Name)), dOID(TableOID(t.Schema, t.Name)), dInt(int64(i + 1)), dText(c.Default)})
		}
	}
	return out, nil
}

func pgDatabase(s *Snapshot) ([]exec.Row, error) {
	type db struct {
		name     string
		template bool
		conn     bool
		acl      exec.Datum
	}
	dbs := []db{
		{"template0", true, false, exec.NewArray(exec.OIDText, []exec.Datum{dText("=c/postgres"), dText("postgres=CTc/postgres")})},
		{"template1", true, true, exec.NewArray(exec.OIDText, []exec.Datum{dText("=c/postgres"), dText("postgres=CTc/postgres")})},
	}
	owners := map[string]uint32{}
	for _, name := range s.Src.Databases {
		acl := exec.Null
		if d := s.Src.DatabaseInfos[name]; d != nil {
			acl = aclDatum(d.ACL)
			if d.Owner != "" {
				owners[name] = RoleOID(d.Owner)
			}
		}
		dbs = append(dbs, db{name, false, true, acl})
	}
	sort.Slice(dbs, func(i, j int) bool { return DatabaseOID(dbs[i].name) < DatabaseOID(dbs[j].name) })
	var out []exec.Row
	for _, d := range dbs {
		out = append(out, exec.Row{
			dOID(DatabaseOID(d.name)), dText(d.name), dOID(cmp.Or(owners[d.name], OIDBootstrapRole)), dInt(6), dChar('c'), dBool(d.template),
			dBool(d.conn), dInt(-1), dText("716"), dText("1"), dOID(OIDDefaultTablespace), dText("C.UTF-8"),
			dText("C.UTF-8"), exec.Null, exec.Null, d.acl,
		})
	}
	return out, nil
}

// role is a role as the catalogs list it.
type role struct {
	oid                                 uint32
	name                                string
	super, createRole, createDB, login  bool
	replication, bypassRLS, hasPassword bool
	inherit                             bool
	connLimit                           int64      // -1: none
	validUntil                          exec.Datum // timestamptz, or NULL
}

// roles returns the server's roles and PostgreSQL's predefined ones.
func (s *Snapshot) roles() []role {
	var out []role
	seen := map[string]bool{}
	for _, r := range s.Src.Roles {
		ro := role{oid: RoleOID(r.Name), name: r.Name, super: r.Superuser, createRole: r.Superuser || r.CreateRole, inherit: !r.NoInherit,
			createDB: r.CreateDB || r.Superuser, login: r.Login, replication: r.Superuser || r.Replication, bypassRLS: r.BypassRLS || r.Name == "postgres",
			hasPassword: r.Verifier != "", connLimit: -1, validUntil: exec.Null}
		if r.ConnLimit != nil {
			ro.connLimit = int64(*r.ConnLimit)
		}
		if r.ValidUntil != nil {
			ro.validUntil = exec.DTimestamp(*r.ValidUntil)
		}
		out = append(out, ro)
		seen[r.Name] = true
	}
	if !seen["postgres"] {
		out = append(out, role{oid: OIDBootstrapRole, name: "postgres", super: true, createRole: true, createDB: true, inherit: true,
			login: true, replication: true, bypassRLS: true, connLimit: -1, validUntil: exec.Null})
	}
	for _, p := range predefinedRoles {
		out = append(out, role{oid: p.oid, name: p.name, inherit: true, connLimit: -1, validUntil: exec.Null})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].oid < out[j].oid })
	return out
}

func pgAuthid(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.roles() {
		pw := exec.Null
		if r.hasPassword {
			pw = dText("SCRAM-SHA-256$****")
		}
		out = append(out, exec.Row{dOID(r.oid), dText(r.name), dBool(r.super), dBool(r.inherit), dBool(r.createRole),
			dBool(r.createDB), dBool(r.login), dBool(r.replication), dBool(r.bypassRLS), dInt(r.connLimit), pw, r.validUntil})
	}
	return out, nil
}

func pgRoles(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.roles() {
		out = append(out, exec.Row{dText(r.name), dBool(r.super), dBool(r.inherit), dBool(r.createRole), dBool(r.createDB),
			dBool(r.login), dBool(r.replication), dInt(r.connLimit), dText("********"), r.validUntil, dBool(r.bypassRLS), exec.Null, dOID(r.oid)})
	}
	return out, nil
}

func pgUser(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.roles() {
		if !r.login {
			continue
		}
		out = append(out, exec.Row{dText(r.name), dOID(r.oid), dBool(r.createDB), dBool(r.super), dBool(r.replication),
			dBool(r.bypassRLS), dText("********"), r.validUntil, exec.Null})
	}
	return out, nil
}

func pgStatActivity(s *Snapshot) ([]exec.Row, error) {
	ts := func(t time.Time) exec.Datum {
		if t.IsZero() {
			return exec.Null
		}
		return exec.DTimestamp(int64(types.TimestampTZFromTime(t)))
	}
	var out []exec.Row
	for _, b := range s.Src.Backends {
		port := exec.Null
		if b.ClientPort != 0 {
			port = dInt(int64(b.ClientPort))
		}
		out = append(out, exec.Row{
			dOID(DatabaseOID(b.Database)), dText(b.Database), dInt(int64(b.PID)), exec.Null, dOID(RoleOID(b.User)), dText(b.User),
			dText(b.Application), dTextOrNull(b.ClientAddr), exec.Null, port, ts(b.BackendStart),
			ts(b.XactStart), ts(b.QueryStart), ts(b.Since), exec.Null, exec.Null,
			dText(b.State), exec.Null, exec.Null, exec.Null, dText(b.Query), dText("client backend"),
		})
	}
	return out, nil
}

func pgSettings(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, st := range s.Src.Settings {
		vartype := st.Vartype
		if vartype == "" {
			vartype = "string"
		}
		context := st.Context
		if context == "" {
			context = "user"
		}
		out = append(out, exec.Row{dText(st.Name), dText(st.Value), exec.Null, dTextOrNull(st.Category), dTextOrNull(st.Desc),
			exec.Null, dText(context), dText(vartype), dText("session"), exec.Null, exec.Null, exec.Null,
			dText(st.Value), dText(st.Value), exec.Null, exec.Null, dBool(false)})
	}
	return out, nil
}

func pgCursors(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, c := range s.Src.Cursors {
		out = append(out, exec.Row{dText(c.Name), dText(c.Statement), dBool(c.Holdable), dBool(c.Binary), dBool(c.Scrollable),
			exec.DTimestamp(exec.TimestampTZ(c.Created))})
	}
	return out, nil
}

func pgPreparedStatements(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, p := range s.Src.Prepared {
		params := make([]exec.Datum, len(p.ParamTypes))
		for i, t := range p.ParamTypes {
			params[i] = exec.DRegOID(t, types.FormatType(types.Oid(t), -1))
		}
		out = append(out, exec.Row{dText(p.Name), dText(p.Statement), exec.DTimestamp(exec.TimestampTZ(p.Prepared)),
			exec.NewArray(exec.OIDRegtype, params), dBool(true), exec.DInt(0), exec.DInt(0)})
	}
	return out, nil
}

func pgAm(*Snapshot) ([]exec.Row, error) {
	ams := []struct {
		oid     uint32
		name    string
		handler string
		typ     byte
	}{
		{2, "heap", "heap_tableam_handler", 't'}, {403, "btree", "bthandler", 'i'}, {405, "hash", "hashhandler", 'i'},
		{783, "gist", "gisthandler", 'i'}, {2742, "gin", "ginhandler", 'i'}, {4000, "spgist", "spghandler", 'i'},
		{3580, "brin", "brinhandler", 'i'},
	}
	var out []exec.Row
	for _, a := range ams {
		out = append(out, exec.Row{dOID(a.oid), dText(a.name), dText(a.handler), dChar(a.typ)})
	}
	return out, nil
}

func pgSequence(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, q := range s.Seqs {
		out = append(out, exec.Row{dOID(SequenceOID(q.Schema, q.Name)), dOID(q.Type), dInt(q.Start), dInt(q.Increment),
			dInt(q.Max), dInt(q.Min), dInt(q.Cache), dBool(q.Cycle)})
	}
	return out, nil
}

func pgSequences(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, q := range s.Seqs {
		last := exec.Null
		if q.Called {
			last = dInt(q.Last)
		}
		out = append(out, exec.Row{dText(q.Schema), dText(q.Name), dText(s.tableOwner(q.Schema)),
			exec.DRegOID(q.Type, exec.TypeName(q.Type)), dInt(q.Start), dInt(q.Min), dInt(q.Max), dInt(q.Increment),
			dBool(q.Cycle), dInt(q.Cache), last})
	}
	return out, nil
}

func pgTables(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Relations() {
		if r.Kind != 'r' {
			continue
		}
		owner, hasIndex := "postgres", false
		if r.Table != nil {
			owner = s.tableOwner(r.Schema)
			hasIndex = len(r.Table.PrimaryKey) > 0 || len(r.Table.Indexes) > 0
		}
		out = append(out, exec.Row{dText(r.Schema), dText(r.Name), dText(owner), exec.Null, dBool(hasIndex), dBool(false), dBool(false),
			dBool(r.Table != nil && r.Table.RowSecurity)})
	}
	return out, nil
}

func pgIndexes(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		for _, ix := range tableIndexes(t) {
			out = append(out, exec.Row{dText(t.Schema), dText(t.Name), dText(ix.name), exec.Null, dText(s.IndexDef(ix.oid, 0, false))})
		}
	}
	return out, nil
}

func pgCollation(*Snapshot) ([]exec.Row, error) {
	return []exec.Row{
		{dOID(100), dText("default"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dChar('d'), dBool(true), dInt(-1), exec.Null, exec.Null, exec.Null, exec.Null},
		{dOID(950), dText("C"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dChar('c'), dBool(true), dInt(-1), dText("C"), dText("C"), exec.Null, exec.Null},
		{dOID(951), dText("POSIX"), dOID(OIDPgCatalog), dOID(OIDBootstrapRole), dChar('c'), dBool(true), dInt(-1), dText("POSIX"), dText("POSIX"), exec.Null, exec.Null},
	}, nil
}

func pgTablespace(*Snapshot) ([]exec.Row, error) {
	return []exec.Row{
		{dOID(1663), dText("pg_default"), dOID(OIDBootstrapRole), exec.Null, exec.Null},
		{dOID(1664), dText("pg_global"), dOID(OIDBootstrapRole), exec.Null, exec.Null},
	}, nil
}

// pgDepend lists the dependencies tools look for: a sequence on the
// column that owns it ('a' for OWNED BY and serial, 'i' for identity).
func pgDepend(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, q := range s.Seqs {
		if q.OwnedBy == "" {
			continue
		}
		i := strings.LastIndexByte(q.OwnedBy, '.')
		table, col := q.OwnedBy[:i], q.OwnedBy[i+1:]
		r, ok := s.RelationByName(q.Schema, table)
		if !ok || r.Table == nil {
			continue
		}
		for pos, c := range r.Table.Columns {
			if c.Dropped || c.Name != col {
				continue
			}
			dep := byte('a')
			if c.Identity != 0 {
				dep = 'i'
			}
			out = append(out, exec.Row{dOID(OIDPgClass), dOID(SequenceOID(q.Schema, q.Name)), dInt(0), dOID(OIDPgClass),
				dOID(r.OID), dInt(int64(pos + 1)), dChar(dep)})
		}
	}
	out = append(out, s.inheritDepends()...)
	out = append(out, s.defaultDepends()...)
	out = append(out, s.viewDepends()...)
	out = append(out, s.policyDepends()...)
	return out, nil
}

// IndexDef renders an index as pg_get_indexdef(oid, column, pretty) does:
// the CREATE INDEX statement, or with column > 0 that key column alone.
func (s *Snapshot) IndexDef(oid uint32, column int, pretty bool) string {
	r, ok := s.RelationByOID(oid)
	if !ok || r.Kind != 'i' {
		return ""
	}
	var ix indexInfo
	for _, x := range tableIndexes(r.Table) {
		if x.oid == oid {
			ix = x
		}
	}
	t := r.Table
	var cols []string
	for _, c := range ix.cols {
		var col string
		if c.Expr != "" {
			col = s.Expr(t, c.Expr, pretty)
			if !looksLikeFunction(c.Expr) {
				col = "(" + col + ")"
			}
		} else {
			col = QuoteIdent(t.Columns[c.Column].Name)
		}
		if c.Opclass != "" {
			col += " " + QuoteIdent(c.Opclass)
		}
		if c.Desc {
			col += " DESC"
			if !c.NullsFirst {
				col += " NULLS LAST"
			}
		} else if c.NullsFirst {
			col += " NULLS FIRST"
		}
		cols = append(cols, col)
	}
	if column > 0 {
		if column <= len(ix.cols) {
			if c := ix.cols[column-1]; c.Expr != "" {
				// As in the whole definition: parenthesized unless a
				// bare function call, without the ordering.
				col := s.Expr(t, c.Expr, pretty)
				if !looksLikeFunction(c.Expr) {
					col = "(" + col + ")"
				}
				return col
			}
			return QuoteIdent(t.Columns[ix.cols[column-1].Column].Name)
		}
		if k := column - len(ix.cols); k <= len(ix.include) {
			return QuoteIdent(t.Columns[ix.include[k-1]].Name)
		}
		return ""
	}
	unique := ""
	if ix.unique {
		unique = "UNIQUE "
	}
	only := ""
	if t.Partitioned() {
		only = "ONLY " // the partitions' indexes are attached on their own
	}
	// Pretty, the table is named bare where the search path finds it.
	table := QuoteIdent(t.Schema) + "." + QuoteIdent(t.Name)
	if r, ok := s.RelationByName(t.Schema, t.Name); pretty && ok && s.Visible(r) {
		table = QuoteIdent(t.Name)
	}
	method := ix.method
	if method == "" {
		method = "btree"
	}
	def := fmt.Sprintf("CREATE %sINDEX %s ON %s%s USING %s (%s)", unique, QuoteIdent(ix.name), only, table, method, strings.Join(cols, ", "))
	if len(ix.include) > 0 {
		var inc []string
		for _, c := range ix.include {
			inc = append(inc, QuoteIdent(t.Columns[c].Name))
		}
		def += " INCLUDE (" + strings.Join(inc, ", ") + ")"
	}
	if ix.nnd {
		def += " NULLS NOT DISTINCT"
	}
	if ix.where != "" {
		def += " WHERE " + s.Expr(t, ix.where, pretty)
	}
	return def
}

// looksLikeFunction reports whether an index expression is a function
// call, which pg_get_indexdef prints without parentheses of its own.
func looksLikeFunction(expr string) bool {
	return exprColumnName(expr) != "expr"
}

// ConstraintDef renders a constraint as pg_get_constraintdef does.
func (s *Snapshot) ConstraintDef(oid uint32, pretty bool) (string, bool) {
	c, ok := s.ConstraintByOID(oid)
	if !ok {
		return "", false
	}
	if c.Domain != nil {
		return s.domainConstraintDef(c, pretty), true
	}
	t := c.Table
	names := func(cols []int) string {
		var ns []string
		for _, k := range cols {
			ns = append(ns, QuoteIdent(t.Columns[k].Name))
		}
		return strings.Join(ns, ", ")
	}
	switch c.Type {
	case 'x':
		var elems []string
		for i, k := range c.Cols {
			el := ""
			if k >= 0 {
				el = QuoteIdent(t.Columns[k].Name)
			} else {
				el = "(" + c.Excl.Exprs[i] + ")"
			}
			elems = append(elems, el+" WITH "+c.Excl.Ops[i])
		}
		using := c.Excl.Using
		if using == "" {
			using = "btree"
		}
		def := "EXCLUDE USING " + using + " (" + strings.Join(elems, ", ") + ")"
		if c.Excl.Where != "" {
			def += " WHERE (" + c.Excl.Where + ")"
		}
		if c.Excl.Deferrable {
			def += " DEFERRABLE"
			if c.Excl.InitiallyDeferred {
				def += " INITIALLY DEFERRED"
			}
		}
		return def, true
	case 'p':
		return "PRIMARY KEY (" + names(c.Cols) + ")", true
	case 'u':
		def := "UNIQUE "
		if c.Index.NullsNotDistinct {
			def += "NULLS NOT DISTINCT "
		}
		def += "(" + names(c.Cols) + ")"
		if len(c.Index.Include) > 0 {
			def += " INCLUDE (" + names(c.Index.Include) + ")"
		}
		if c.Index.Deferrable {
			def += " DEFERRABLE"
			if c.Index.InitiallyDeferred {
				def += " INITIALLY DEFERRED"
			}
		}
		return def, true
	case 'c':
		expr := s.Expr(t, c.Check.Expr, pretty)
		def := "CHECK (" + expr + ")"
		if c.Check.NoInherit {
			def += " NO INHERIT"
		}
		if c.Check.NotValid {
			def += " NOT VALID"
		}
		return def, true
	case 'f':
		ref := QuoteIdent(c.FK.RefTable)
		if r, ok := s.RelationByName(c.FK.RefSchema, c.FK.RefTable); ok && !s.Visible(r) {
			ref = QuoteIdent(c.FK.RefSchema) + "." + ref
		}
		var refCols []string
		if r, ok := s.RelationByName(c.FK.RefSchema, c.FK.RefTable); ok && r.Table != nil {
			for _, k := range c.FK.RefColumns {
				refCols = append(refCols, QuoteIdent(r.Table.Columns[k].Name))
			}
		}
		def := fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s(%s)", names(c.Cols), ref, strings.Join(refCols, ", "))
		if c.FK.Match == 'f' {
			def += " MATCH FULL"
		}
		if a := fkActionSQL(c.FK.OnUpdate); a != "" {
			def += " ON UPDATE " + a
		}
		if a := fkActionSQL(c.FK.OnDelete); a != "" {
			def += " ON DELETE " + a
			if len(c.FK.DeleteSetColumns) > 0 {
				var set []string
				for _, pos := range c.FK.DeleteSetColumns {
					set = append(set, QuoteIdent(t.Columns[pos].Name))
				}
				def += " (" + strings.Join(set, ", ") + ")"
			}
		}
		if c.FK.Deferrable {
			def += " DEFERRABLE"
			if c.FK.InitiallyDeferred {
				def += " INITIALLY DEFERRED"
			}
		}
		if c.FK.NotValid {
			def += " NOT VALID"
		}
		return def, true
	}
	return "", false
}

func fkActionSQL(b byte) string {
	switch b {
	case 'r':
		return "RESTRICT"
	case 'c':
		return "CASCADE"
	case 'n':
		return "SET NULL"
	case 'd':
		return "SET DEFAULT"
	}
	return ""
}

// QuoteIdent quotes a name where SQL needs it, as quote_ident does.
func QuoteIdent(s string) string { return types.QuoteIdent(s) }

// Description is one comment, as pg_description lists it.
type Description struct {
	ObjOID, ClassOID uint32
	SubID            int
	Text             string
}

// Descriptions returns the comments of the database's objects.
func (s *Snapshot) Descriptions() []Description {
	var out []Description
	add := func(obj, class uint32, sub int, text string) {
		if text != "" {
			out = append(out, Description{obj, class, sub, text})
		}
	}
	for _, sc := range s.Schemas {
		comment := sc.Comment
		if sc.Name == "public" && comment == "" {
			comment = "standard public schema" // initdb's
		}
		add(NamespaceOID(sc.Name), OIDPgNamespace, 0, comment)
	}
	for _, t := range s.Tables {
		toid := TableOID(t.Schema, t.Name)
		add(toid, OIDPgClass, 0, t.Comment)
		for i, c := range t.Columns {
			add(toid, OIDPgClass, i+1, c.Comment)
		}
		if len(t.PrimaryKey) > 0 {
			add(IndexOID(t.Schema, t.PrimaryKeyName), OIDPgClass, 0, t.PrimaryKeyIndexComment)
			add(ConstraintOID(t.Schema, t.Name, t.PrimaryKeyName), OIDPgConstraint, 0, t.PrimaryKeyComment)
		}
		for _, ix := range t.Indexes {
			add(IndexOID(t.Schema, ix.Name), OIDPgClass, 0, ix.Comment)
			if ix.Constraint {
				add(ConstraintOID(t.Schema, t.Name, ix.Name), OIDPgConstraint, 0, ix.ConstraintComment)
			}
		}
		for _, c := range t.Checks {
			add(ConstraintOID(t.Schema, t.Name, c.Name), OIDPgConstraint, 0, c.Comment)
		}
		for _, fk := range t.ForeignKeys {
			add(ConstraintOID(t.Schema, t.Name, fk.Name), OIDPgConstraint, 0, fk.Comment)
		}
		for _, tr := range t.Triggers {
			add(TriggerOID(t.Schema, t.Name, tr.Name), OIDPgTrigger, 0, tr.Comment)
		}
		for _, st := range t.Statistics {
			add(StatisticsOID(t.Schema, st.Name), OIDPgStatisticExt, 0, st.Comment)
		}
	}
	for _, q := range s.Seqs {
		add(SequenceOID(q.Schema, q.Name), OIDPgClass, 0, q.Comment)
	}
	for _, v := range s.Views {
		add(ViewOID(v.Schema, v.Name), OIDPgClass, 0, v.Comment)
	}
	for _, o := range s.ruleOwners() {
		for _, r := range o.rules {
			add(NamedRuleOID(o.schema, o.name, r.Name), OIDPgRewrite, 0, r.Comment)
		}
	}
	for _, t := range s.Types {
		add(TypeOID(t), OIDPgType, 0, t.Comment)
		for _, c := range t.Checks {
			add(DomainConstraintOID(t, c.Name), OIDPgConstraint, 0, c.Comment)
		}
	}
	if fs, err := s.Functions(); err == nil {
		for _, f := range fs {
			add(FunctionOID(f), OIDPgProc, 0, f.Comment)
		}
	}
	if ops, err := s.Operators(); err == nil {
		for _, op := range ops {
			add(OperatorOID(op), OIDPgOperator, 0, op.Comment)
		}
	}
	if cs, err := s.Casts(); err == nil {
		for _, c := range cs {
			add(CastOID(c), OIDPgCast, 0, c.Comment)
		}
	}
	if los, err := s.Src.Root.LargeObjects(s.Src.Ctx); err == nil {
		for _, lo := range los {
			add(lo.OID, oidPgLargeObject, 0, lo.Comment)
		}
	}
	if ds, err := s.Src.Root.TextSearchDictionaries(s.Src.Ctx); err == nil {
		for _, d := range ds {
			add(TextSearchDictOID(d.Schema, d.Name), oidPgTSDict, 0, d.Comment)
		}
	}
	if cs, err := s.Src.Root.TextSearchConfigs(s.Src.Ctx); err == nil {
		for _, c := range cs {
			add(TextSearchConfigOID(c.Schema, c.Name), oidPgTSConfig, 0, c.Comment)
		}
	}
	if exts, err := installedExtensions(s); err == nil {
		// CREATE EXTENSION comments an extension with its control
		// file's comment, which psql's \dx shows.
		for _, e := range exts {
			b, _ := LookupExtension(e.Name)
			add(ExtensionOID(e.Name), oidPgExtension, 0, b.Comment)
		}
	}
	return out
}

func pgDescription(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, d := range s.Descriptions() {
		out = append(out, exec.Row{dOID(d.ObjOID), dOID(d.ClassOID), dInt(int64(d.SubID)), dText(d.Text)})
	}
	return out, nil
}

func pgViews(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, v := range s.Views {
		out = append(out, exec.Row{dText(v.Schema), dText(v.Name), dText(s.tableOwner(v.Schema)), dText(s.viewDef(v.Query, v.Depends, viewColumns(v)))})
	}
	return out, nil
}

func pgMatviews(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, t := range s.Tables {
		if t.MatView == nil {
			continue
		}
		out = append(out, exec.Row{dText(t.Schema), dText(t.Name), dText(s.tableOwner(t.Schema)), exec.Null,
			dBool(len(t.Indexes) > 0), dBool(!t.MatView.Unpopulated), dText(s.viewDef(t.MatView.Query, t.MatView.Depends, tableColumns(t)))})
	}
	return out, nil
}

// pgAuthMembers lists the role memberships (GRANT role TO role).
func pgAuthMembers(s *Snapshot) ([]exec.Row, error) {
	var out []exec.Row
	for _, r := range s.Src.Roles {
		for _, g := range r.MemberOf {
			grantor := g.Grantor
			if grantor == "" {
				grantor = "postgres"
			}
			out = append(out, exec.Row{dOID(RoleOID(g.Role)), dOID(RoleOID(r.Name)), dOID(RoleOID(grantor)), dBool(g.Admin)})
		}
	}
	return out, nil
}

// accessMethodOID is the pg_am OID of an index access method ("" for
// btree).
func accessMethodOID(method string) uint32 {
	switch method {
	case "hash":
		return 405
	case "gist":
		return 783
	case "gin":
		return 2742
	case "spgist":
		return 4000
	case "brin":
		return 3580
	}
	return OIDBtreeAM
}
