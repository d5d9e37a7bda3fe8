package funcs

// init registers the library, in one fixed order. The order of the
// overloads of one name is the order they are registered in, and it fixes
// their pg_proc OIDs (catalog.BuiltinProcOID) and breaks ties in aggregate
// resolution, so it must not depend on file names or on the order Go runs
// init functions in: each file has a register function, called here. The
// order is the one these functions ran in while they were exec's init
// functions, by file name; exec's own registrations (its operators in
// builtins.go, pg_partition_ancestors) come first, as exec is initialized
// before this package, and the planner's after, as it imports this one.
// Add a new family at the end; moving one changes OIDs.
func init() {
	for _, register := range []func(){
		registerAggregates,
		registerStatAggregates,
		registerAggSupport,
		registerArray,
		registerCatalog,
		registerColumnSize,
		registerDatetime,
		registerDateBin,
		registerIntervalHash,
		registerEnum,
		registerFormat,
		registerJSON,
		registerJSONBuild,
		registerRowToJSON,
		registerMath,
		registerNamedParams,
		registerSize,
		registerString,
		registerBytea,
		registerUnistr,
		registerSystem,
		registerTextArray,
		registerToChar,
		registerJSONPath,
		registerJSONPopulate,
		registerLike,
		registerRegex,
		registerSRFs,
		registerTimestampSeries,
		registerTextSearch,
		registerJSONTextSearch,
		registerOrderedSetAggregates,
		registerRange,
		registerMultirange,
		registerNetwork,
		registerBits,
		registerXML,
		registerTextPattern,
		registerTimeTZ,
		registerGeometry,
		registerUUID,
		registerPgcrypto,
		registerPgcryptoCrypt,
		registerOperatorSupport,
		registerCIText,
		registerTrgm,
		registerHstore,
		registerEncoding,
		registerIdentFuncs,
	} {
		register()
	}
}
