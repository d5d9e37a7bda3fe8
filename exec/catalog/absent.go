package catalog

// The catalogs of objects this server does not have (conversions,
// foreign data, event triggers, default privileges, security labels, operator classes, subscriptions, ...): always
// empty, with PostgreSQL 15's columns, so that the queries tools such as
// pg_dump run over them (joins, NOT EXISTS, LEFT JOIN pg_init_privs) work.
func init() {
	const pc = "pg_catalog"
	define(pc, "pg_init_privs", 3394, 'r', `objoid:oid classoid:oid objsubid:integer privtype:char initprivs:aclitem[]`, none)
	define(pc, "pg_transform", 3576, 'r', `oid:oid trftype:oid trflang:oid trffromsql:regproc trftosql:regproc`, none)
	define(pc, "pg_conversion", 2607, 'r', `oid:oid conname:name connamespace:oid conowner:oid conforencoding:integer
		contoencoding:integer conproc:regproc condefault:boolean`, none)
	define(pc, "pg_foreign_data_wrapper", 2328, 'r', `oid:oid fdwname:name fdwowner:oid fdwhandler:oid fdwvalidator:oid
		fdwacl:aclitem[] fdwoptions:text[]`, none)
	define(pc, "pg_foreign_server", 1417, 'r', `oid:oid srvname:name srvowner:oid srvfdw:oid srvtype:text
		srvversion:text srvacl:aclitem[] srvoptions:text[]`, none)
	define(pc, "pg_user_mapping", 1418, 'r', "oid:oid umuser:oid umserver:oid umoptions:text[]", none)
	define(pc, "pg_event_trigger", 3466, 'r', `oid:oid evtname:name evtevent:name evtowner:oid evtfoid:oid
		evtenabled:char evttags:text[]`, none)
	define(pc, "pg_seclabel", 3596, 'r', "objoid:oid classoid:oid objsubid:integer provider:text label:text", none)
	define(pc, "pg_shseclabel", 3592, 'r', "objoid:oid classoid:oid provider:text label:text", none)
	define(pc, "pg_opclass", 2616, 'r', `oid:oid opcmethod:oid opcname:name opcnamespace:oid opcowner:oid opcfamily:oid
		opcintype:oid opcdefault:boolean opckeytype:oid`, none)
	define(pc, "pg_opfamily", 2753, 'r', "oid:oid opfmethod:oid opfname:name opfnamespace:oid opfowner:oid", none)
	define(pc, "pg_aggregate", 2600, 'r', `aggfnoid:regproc aggkind:char aggnumdirectargs:smallint aggtransfn:regproc
		aggfinalfn:regproc aggcombinefn:regproc aggserialfn:regproc aggdeserialfn:regproc
		aggmtransfn:regproc aggminvtransfn:regproc aggmfinalfn:regproc aggfinalextra:boolean
		aggmfinalextra:boolean aggfinalmodify:char aggmfinalmodify:char aggsortop:oid aggtranstype:oid
		aggtransspace:integer aggmtranstype:oid aggmtransspace:integer agginitval:text aggminitval:text`, none)
	define(pc, "pg_amop", 2602, 'r', `oid:oid amopfamily:oid amoplefttype:oid amoprighttype:oid amopstrategy:smallint
		amoppurpose:char amopopr:oid amopmethod:oid amopsortfamily:oid`, none)
	define(pc, "pg_amproc", 2603, 'r', `oid:oid amprocfamily:oid amproclefttype:oid amprocrighttype:oid
		amprocnum:smallint amproc:regproc`, none)
	define(pc, "pg_subscription", 6100, 'r', `oid:oid subdbid:oid subskiplsn:pg_lsn subname:name subowner:oid
		subenabled:boolean subbinary:boolean substream:boolean subtwophasestate:char subdisableonerr:boolean
		subconninfo:text subslotname:name subsynccommit:text subpublications:text[]`, none)
	define(pc, "pg_subscription_rel", 6102, 'r', "srsubid:oid srrelid:oid srsubstate:char srsublsn:pg_lsn", none)
	define(pc, "pg_db_role_setting", 2964, 'r', "setdatabase:oid setrole:oid setconfig:text[]", none)
	define(pc, "pg_parameter_acl", 6243, 'r', "oid:oid parname:text paracl:aclitem[]", none)
	define(pc, "pg_replication_origin", 6000, 'r', "roident:oid roname:text", none)
	define(pc, "pg_user_mappings", 12327, 'v', `umid:oid srvid:oid srvname:name umuser:oid usename:name
		umoptions:text[]`, none)
	define(pc, "pg_seclabels", 12099, 'v', `objoid:oid classoid:oid objsubid:integer objtype:text objnamespace:oid
		objname:text provider:text label:text`, none)
	// Range types are not among the user types yet.
	define(pc, "pg_range", 3541, 'r', `rngtypid:oid rngsubtype:oid rngmultitypid:oid rngcollation:oid rngsubopc:oid
		rngcanonical:regproc rngsubdiff:regproc`, none)
}
