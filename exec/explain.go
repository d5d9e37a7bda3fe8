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
	return "Seq Scan on " + p.Table.Def.Name, nil
}

func (p *Filter) Explain() (string, []Plan) {
	if s, ok := p.In.(*Scan); ok {
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
