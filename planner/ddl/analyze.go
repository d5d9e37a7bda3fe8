package ddl

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/prollypg/prollypg/exec"
	"github.com/prollypg/prollypg/exec/pgerr"
	"github.com/prollypg/prollypg/planner"
)

// analyzer is one catalog-changing statement's analysis: the planner's
// Analyzer (expressions, types, names, privileges), with the session and
// the transaction the statement runs in, whose root its utility writes.
type analyzer struct {
	*planner.Analyzer
	s  planner.Session
	tx *exec.Txn
	// cascades, while a DROP of tables or views runs, collects the
	// views and policies it drops with them, which PostgreSQL reports in
	// one notice (collectCascades).
	cascades *[]string
}

// cascaded reports an object a DROP ... CASCADE drops too ("view v"):
// now, or with the others at the end of the statement when it collects
// them.
func (a *analyzer) cascaded(what string) {
	if a.cascades != nil {
		*a.cascades = append(*a.cascades, what)
		return
	}
	a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", what))
}

// collectCascades makes the objects the statement drops by cascade
// reported together when the function it returns is called, as
// PostgreSQL's reportDependentObjects: one by name, more counted, with
// their names in the detail. Within a statement already collecting, it
// collects into that statement's list.
func (a *analyzer) collectCascades() func() {
	if a.cascades != nil {
		return func() {}
	}
	var list []string
	a.cascades = &list
	return func() {
		a.cascades = nil
		switch {
		case len(list) == 1:
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %s", list[0]))
		case len(list) > 1:
			lines := make([]string, len(list))
			for i, w := range list {
				lines[i] = "drop cascades to " + w
			}
			a.s.Notice(pgerr.New(pgerr.SuccessfulCompletion, "drop cascades to %d other objects", len(list)).
				WithDetail("%s", strings.Join(lines, "\n")))
		}
	}
}

func newAnalyzer(x *planner.Analyzer) *analyzer {
	return &analyzer{Analyzer: x, s: x.Session(), tx: x.Txn()}
}

// Analyze analyzes a catalog-changing statement into the utility that
// runs it; ok is false for a statement that is not one. The session
// calls it for the planner (planner.Session.AnalyzeDDL), which cannot
// import this package.
func Analyze(x *planner.Analyzer, n *pg.Node) (run planner.Utility, ok bool, err error) {
	a := newAnalyzer(x)
	switch {
	case n.GetSelectStmt() != nil && n.GetSelectStmt().IntoClause != nil:
		run, err = a.createTableAs(n.GetSelectStmt().IntoClause, n.GetSelectStmt(), false, false)
	case n.GetCreateExtensionStmt() != nil:
		run, err = a.createExtension(n.GetCreateExtensionStmt())
	case n.GetCreateTableAsStmt() != nil:
		ct := n.GetCreateTableAsStmt()
		run, err = a.createTableAs(ct.Into, ct.Query.GetSelectStmt(), ct.IfNotExists, ct.Objtype == pg.ObjectType_OBJECT_MATVIEW)
	case n.GetCreateStmt() != nil:
		run, err = a.createTable(n.GetCreateStmt())
	case n.GetDropStmt() != nil:
		run, err = a.drop(n.GetDropStmt())
	case n.GetGrantStmt() != nil:
		run, err = a.grant(n.GetGrantStmt())
	case n.GetIndexStmt() != nil:
		run, err = a.createIndex(n.GetIndexStmt())
	case n.GetCreateStatsStmt() != nil:
		run, err = a.createStatistics(n.GetCreateStatsStmt())
	case n.GetAlterTableStmt() != nil:
		run, err = withoutPositions(a.alterTable(n.GetAlterTableStmt()))
	case n.GetRenameStmt() != nil:
		run, err = withoutPositions(a.rename(n.GetRenameStmt()))
	case n.GetTruncateStmt() != nil:
		run, err = a.truncate(n.GetTruncateStmt())
	case n.GetReindexStmt() != nil:
		run, err = a.reindex(n.GetReindexStmt())
	case n.GetClusterStmt() != nil:
		run, err = a.cluster(n.GetClusterStmt())
	case n.GetCreateSchemaStmt() != nil:
		run, err = a.createSchema(n.GetCreateSchemaStmt())
	case n.GetCreateSeqStmt() != nil:
		run, err = a.createSequence(n.GetCreateSeqStmt())
	case n.GetAlterSeqStmt() != nil:
		run, err = a.alterSequence(n.GetAlterSeqStmt())
	case n.GetViewStmt() != nil:
		run, err = a.createView(n.GetViewStmt())
	case n.GetCommentStmt() != nil:
		run, err = a.comment(n.GetCommentStmt())
	case n.GetDiscardStmt() != nil:
		run, err = a.discard(n.GetDiscardStmt())
	case n.GetCreateEnumStmt() != nil:
		run, err = a.createEnum(n.GetCreateEnumStmt())
	case n.GetCreateRangeStmt() != nil:
		run, err = a.createRange(n.GetCreateRangeStmt())
	case n.GetCompositeTypeStmt() != nil:
		run, err = a.createComposite(n.GetCompositeTypeStmt())
	case n.GetCreateDomainStmt() != nil:
		run, err = a.createDomain(n.GetCreateDomainStmt())
	case n.GetAlterEnumStmt() != nil:
		run, err = a.alterEnum(n.GetAlterEnumStmt())
	case n.GetAlterDomainStmt() != nil:
		run, err = a.alterDomain(n.GetAlterDomainStmt())
	case n.GetCreateFunctionStmt() != nil:
		run, err = a.createFunction(n.GetCreateFunctionStmt())
	case n.GetRuleStmt() != nil:
		run, err = a.createRule(n.GetRuleStmt())
	case n.GetCreateTrigStmt() != nil:
		run, err = a.createTrigger(n.GetCreateTrigStmt())
	case n.GetCreatePolicyStmt() != nil:
		run, err = a.createPolicy(n.GetCreatePolicyStmt())
	case n.GetAlterPolicyStmt() != nil:
		run, err = a.alterPolicy(n.GetAlterPolicyStmt())
	case n.GetDropOwnedStmt() != nil:
		run, err = a.dropOwned(n.GetDropOwnedStmt())
	case n.GetAlterFunctionStmt() != nil:
		run, err = a.alterFunction(n.GetAlterFunctionStmt())
	case n.GetRefreshMatViewStmt() != nil:
		run, err = a.refreshMatView(n.GetRefreshMatViewStmt())
	case n.GetAlterDefaultPrivilegesStmt() != nil:
		run, err = a.alterDefaultPrivileges(n.GetAlterDefaultPrivilegesStmt())
	case n.GetAlterObjectSchemaStmt() != nil:
		run, err = a.setSchema(n.GetAlterObjectSchemaStmt())
	case n.GetAlterOwnerStmt() != nil:
		run, err = a.alterOwner(n.GetAlterOwnerStmt())
	case n.GetDefineStmt() != nil && n.GetDefineStmt().Kind == pg.ObjectType_OBJECT_AGGREGATE:
		run, err = a.createAggregate(n.GetDefineStmt())
	case n.GetDefineStmt() != nil && n.GetDefineStmt().Kind == pg.ObjectType_OBJECT_OPERATOR:
		run, err = a.createOperator(n.GetDefineStmt())
	case n.GetDefineStmt() != nil && n.GetDefineStmt().Kind == pg.ObjectType_OBJECT_TSDICTIONARY:
		run, err = a.createTextSearchDictionary(n.GetDefineStmt())
	case n.GetDefineStmt() != nil && n.GetDefineStmt().Kind == pg.ObjectType_OBJECT_TSCONFIGURATION:
		run, err = a.createTextSearchConfig(n.GetDefineStmt())
	case n.GetAlterTsdictionaryStmt() != nil:
		run, err = a.alterTextSearchDictionary(n.GetAlterTsdictionaryStmt())
	case n.GetAlterTsconfigurationStmt() != nil:
		run, err = a.alterTextSearchConfig(n.GetAlterTsconfigurationStmt())
	case n.GetAlterOperatorStmt() != nil:
		run, err = a.alterOperator(n.GetAlterOperatorStmt())
	case n.GetCreateCastStmt() != nil:
		run, err = a.createCast(n.GetCreateCastStmt())
	default:
		return nil, false, nil
	}
	return run, true, err
}
