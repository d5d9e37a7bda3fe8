package exec

// frame is the run-time state of one invocation of a query: the results
// of its uncorrelated subqueries, computed once and reused for every row,
// and the buffers of its common table expressions and recursive work
// tables. Plans are immutable, so this state cannot live in them; it
// lives in the Env that opens them.
//
// Frames form a chain. A correlated subquery runs in a fresh frame per
// invocation (its caches are only good for one set of outer values),
// whose parent is the frame of the query that invoked it, so that a CTE
// bound further out stays visible. A frame is used by the one goroutine
// that runs its statement.
type frame struct {
	parent *frame
	vals   map[any]any
	// held counts, in the root frame, the bytes of rows the statement's
	// buffers hold (memory.go).
	held int64
}

// lookup finds the value bound to key in env's frame or its ancestors.
func (env *Env) lookup(key any) (any, bool) {
	for f := env.frame; f != nil; f = f.parent {
		if v, ok := f.vals[key]; ok {
			return v, true
		}
	}
	return nil, false
}

// local finds the value bound to key in env's own frame only.
func (env *Env) local(key any) (any, bool) {
	if env.frame == nil {
		return nil, false
	}
	v, ok := env.frame.vals[key]
	return v, ok
}

// bind binds key to val in env's own frame, making the frame if env has
// none yet. Envs copied from env before the frame existed do not see it;
// derive them with child instead.
func (env *Env) bind(key, val any) {
	if env.frame == nil {
		env.frame = &frame{}
	}
	if env.frame.vals == nil {
		env.frame.vals = map[any]any{}
	}
	env.frame.vals[key] = val
}

// child returns an Env for a nested invocation: the same statement, with
// outer as the values of OuterRefs and a new frame under env's.
func (env *Env) child(outer []Datum) *Env {
	if env.frame == nil {
		env.frame = &frame{}
	}
	c := *env
	c.Outer = outer
	c.frame = &frame{parent: env.frame}
	return &c
}

// shared finds the value bound to key in the outermost frame: state that
// lasts the whole execution of the statement, such as a hash table of a
// table that does not depend on any outer value.
func (env *Env) shared(key any) (any, bool) {
	f := env.rootFrame()
	v, ok := f.vals[key]
	return v, ok
}

// share binds key to val in the outermost frame.
func (env *Env) share(key, val any) {
	f := env.rootFrame()
	if f.vals == nil {
		f.vals = map[any]any{}
	}
	f.vals[key] = val
}

func (env *Env) rootFrame() *frame {
	if env.frame == nil {
		env.frame = &frame{}
	}
	f := env.frame
	for f.parent != nil {
		f = f.parent
	}
	return f
}
