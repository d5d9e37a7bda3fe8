package exec

import (
	"fmt"
	"strings"
)

// Explainer is implemented by plans that can describe themselves for
// EXPLAIN: a one-line label and the plans they read from.
type Explainer interface {
	Explain() (label string, inputs []Plan)
}

// ExplainLines renders a plan tree as EXPLAIN's text lines, in
// PostgreSQL's shape ("->" before each input, indented). Plans that do not
// implement Explainer are shown by their Go type.
func ExplainLines(p Plan) []string {
	var out []string
	var walk func(p Plan, depth int)
	walk = func(p Plan, depth int) {
		label, inputs := fmt.Sprintf("%T", p), []Plan(nil)
		if e, ok := p.(Explainer); ok {
			label, inputs = e.Explain()
		}
		if depth == 0 {
			out = append(out, label)
		} else {
			out = append(out, strings.Repeat(" ", 6*depth-4)+"->  "+label)
		}
		for _, in := range inputs {
			walk(in, depth+1)
		}
	}
	walk(p, 0)
	return out
}

func (p *Scan) Explain() (string, []Plan) {
	if p.Reverse {
		return "Index Scan Backward using " + p.Table.Def.Name + "_pkey on " + p.Table.Def.Name, nil
	}
	return "Seq Scan on " + p.Table.Def.Name, nil
}

func (p *Filter) Explain() (string, []Plan) {
	if s, ok := p.In.(*Scan); ok && !s.Reverse {
		return "Seq Scan on " + s.Table.Def.Name + " (with filter)", nil
	}
	return "Filter", []Plan{p.In}
}

func (p *Project) Explain() (string, []Plan) { return "Result", []Plan{p.In} }

func (p *Values) Explain() (string, []Plan) {
	if len(p.Rows) == 1 {
		return "Result", nil
	}
	return fmt.Sprintf("Values Scan (%d rows)", len(p.Rows)), nil
}

func (p *Sort) Explain() (string, []Plan)  { return "Sort", []Plan{p.In} }
func (p *Limit) Explain() (string, []Plan) { return "Limit", []Plan{p.In} }

func (p *Modify) Explain() (string, []Plan) {
	verb := map[ModifyKind]string{Insert: "Insert", Update: "Update", Delete: "Delete", Merge: "Merge"}[p.Kind]
	return verb + " on " + p.Table.Def.Name, []Plan{p.Source}
}

func (p *LockRows) Explain() (string, []Plan) { return "LockRows", []Plan{p.In} }

// joinLabel names a join node as PostgreSQL does: "Hash Join", "Hash
// Left Join", "Nested Loop Full Join".
func joinLabel(method string, k JoinKind) string {
	switch k {
	case LeftJoin:
		return method + " Left Join"
	case RightJoin:
		return method + " Right Join"
	case FullJoin:
		return method + " Full Join"
	}
	if method == "Nested Loop" {
		return method
	}
	return method + " Join"
}

func (p *HashJoin) Explain() (string, []Plan) {
	return joinLabel("Hash", p.Kind), []Plan{p.Left, p.Right}
}

func (p *NestedLoop) Explain() (string, []Plan) {
	return joinLabel("Nested Loop", p.Kind), []Plan{p.Left, p.Right}
}

func (p *IndexScan) Explain() (string, []Plan) {
	scan := "Index Scan using "
	if p.Reverse {
		scan = "Index Scan Backward using "
	}
	if p.Index == "" {
		return scan + p.Table.Def.Name + "_pkey on " + p.Table.Def.Name, nil
	}
	return scan + p.Index + " on " + p.Table.Def.Name, nil
}

func (p *Aggregate) Explain() (string, []Plan) {
	switch {
	case len(p.Sets) > 0:
		return "MixedAggregate", []Plan{p.In}
	case len(p.Keys) > 0:
		return "HashAggregate", []Plan{p.In}
	}
	return "Aggregate", []Plan{p.In}
}

func (p *Distinct) Explain() (string, []Plan)   { return "HashAggregate", []Plan{p.In} }
func (p *Unique) Explain() (string, []Plan)     { return "Unique", []Plan{p.In} }
func (p *LimitTies) Explain() (string, []Plan)  { return "Limit", []Plan{p.In} }
func (p *Window) Explain() (string, []Plan)     { return "WindowAgg", []Plan{p.In} }
func (p *ProjectSet) Explain() (string, []Plan) { return "ProjectSet", []Plan{p.In} }
func (p *Rebind) Explain() (string, []Plan)     { return "Result", []Plan{p.In} }
func (p *HashLookup) Explain() (string, []Plan) { return "Hash", []Plan{p.In} }
func (p *RecordScan) Explain() (string, []Plan) { return "Function Scan on " + p.Name, []Plan{p.In} }
func (p *FuncScan) Explain() (string, []Plan)   { return "Function Scan", nil }
func (p *Series) Explain() (string, []Plan) {
	return "Function Scan on generate_series", nil
}
func (p *CTEScan) Explain() (string, []Plan) { return "CTE Scan on " + p.CTE.Name, nil }
func (p *WorkTableScan) Explain() (string, []Plan) {
	return "WorkTable Scan", nil
}
func (p *RecursiveUnion) Explain() (string, []Plan) {
	return "Recursive Union", []Plan{p.NonRec, p.Rec}
}

func (p *With) Explain() (string, []Plan) {
	// PostgreSQL shows the CTEs as InitPlans under the body; the body
	// first, then each CTE's plan.
	label, inputs := "Result", []Plan{p.Body}
	if e, ok := p.Body.(Explainer); ok {
		label, inputs = e.Explain()
	}
	for _, c := range p.CTEs {
		inputs = append(inputs, c.Plan)
	}
	return label, inputs
}

func (p *SetOp) Explain() (string, []Plan) {
	switch p.Kind {
	case Intersect:
		return "HashSetOp Intersect", []Plan{p.Left, p.Right}
	case Except:
		return "HashSetOp Except", []Plan{p.Left, p.Right}
	}
	if p.All {
		return "Append", []Plan{p.Left, p.Right}
	}
	return "HashAggregate", []Plan{&Append{Parts: []Plan{p.Left, p.Right}}}
}
