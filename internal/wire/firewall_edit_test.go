package wire

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// runPlan carries out plan on current the way PVE would and returns the
// final list.
func runPlan(t *testing.T, current, desired []string, plan []RuleEdit) []string {
	t.Helper()
	list := slices.Clone(current)
	for n, e := range plan {
		var written string
		switch e.Kind {
		case RuleUpdate, RuleCreate:
			if e.Desired < 0 || e.Desired >= len(desired) {
				t.Fatalf("request %d %+v: Desired out of range", n, e)
			}
			written = desired[e.Desired]
		case RuleDelete, RuleMove:
			if e.Pos < 0 || e.Pos >= len(list) {
				t.Fatalf("request %d %+v: no rule at position %d in %q", n, e, e.Pos, list)
			}
			if e.Kind == RuleMove && (e.MoveTo < 0 || e.MoveTo == e.Pos) {
				t.Fatalf("request %d %+v: a move that changes nothing", n, e)
			}
		}
		if e.Kind == RuleUpdate && (e.Pos < 0 || e.Pos >= len(list)) {
			t.Fatalf("request %d %+v: no rule at position %d in %q", n, e, e.Pos, list)
		}
		list = ApplyRuleEdit(list, e, written)
	}
	return list
}

// checkPlan plans current -> desired, checks the plan reaches desired and
// returns its length.
func checkPlan(t *testing.T, current, desired []string) int {
	t.Helper()
	plan := PlanRuleEdits(current, desired)
	if got := runPlan(t, current, desired, plan); !slices.Equal(got, desired) {
		t.Fatalf("PlanRuleEdits(%q, %q) = %+v reaches %q", current, desired, plan, got)
	}
	return len(plan)
}

// PVE's moveto (register_update_rule): the rule goes before the element that
// was at index M; forward moves land at M-1; M past the end appends; M == pos
// changes nothing. POST puts the rule at index 0.
func TestApplyRuleEditFollowsPVEW50(t *testing.T) {
	t.Parallel()
	list := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		edit RuleEdit
		want string
	}{
		{RuleEdit{Kind: RuleMove, Pos: 4, MoveTo: 1}, "aebcd"},
		{RuleEdit{Kind: RuleMove, Pos: 1, MoveTo: 4}, "acdbe"},
		{RuleEdit{Kind: RuleMove, Pos: 1, MoveTo: 5}, "acdeb"},
		{RuleEdit{Kind: RuleMove, Pos: 1, MoveTo: 99}, "acdeb"},
		{RuleEdit{Kind: RuleMove, Pos: 1, MoveTo: 2}, "abcde"},
		{RuleEdit{Kind: RuleMove, Pos: 2, MoveTo: 2}, "abcde"},
		{RuleEdit{Kind: RuleMove, Pos: 2, MoveTo: 0}, "cabde"},
		{RuleEdit{Kind: RuleMove, Pos: 0, MoveTo: 2}, "bacde"},
		{RuleEdit{Kind: RuleDelete, Pos: 0}, "bcde"},
		{RuleEdit{Kind: RuleDelete, Pos: 4}, "abcd"},
		{RuleEdit{Kind: RuleDelete, Pos: 5}, "abcde"},
		{RuleEdit{Kind: RuleUpdate, Pos: 2}, "abXde"},
		{RuleEdit{Kind: RuleUpdate, Pos: 7}, "abcde"},
		{RuleEdit{Kind: RuleCreate, Pos: 3}, "Xabcde"},
	}
	for _, tt := range tests {
		got := ApplyRuleEdit(list, tt.edit, "X")
		if strings.Join(got, "") != tt.want {
			t.Errorf("ApplyRuleEdit(abcde, %+v) = %q, want %q", tt.edit, strings.Join(got, ""), tt.want)
		}
	}
	if strings.Join(list, "") != "abcde" {
		t.Fatalf("ApplyRuleEdit changed its argument: %q", list)
	}
	if got := ApplyRuleEdit(nil, RuleEdit{Kind: RuleCreate}, 7); !slices.Equal(got, []int{7}) {
		t.Fatalf("create on an empty list = %v", got)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "")
}

// The request counts the provider promises for the common changes.
func TestPlanRuleEditsExactCountsW50(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, current, desired string
		want                   int
	}{
		{"unchanged", "abcdef", "abcdef", 0},
		{"both empty", "", "", 0},
		{"move 5 to 1", "abcdef", "afbcde", 1},
		{"move 1 to 5", "abcdef", "acdefb", 1},
		{"move last to top", "abcdef", "fabcde", 1},
		{"move top to last", "abcdef", "bcdefa", 1},
		{"delete one", "abcdef", "abdef", 1},
		{"delete all", "abc", "", 3},
		{"update one in place", "abcdef", "abXdef", 1},
		{"insert at top", "abcdef", "Xabcdef", 1},
		{"insert in the middle", "abcdef", "abcXdef", 2},
		{"insert at the bottom", "abcdef", "abcdefX", 2},
		{"insert three at top", "abc", "XYZabc", 3},
		{"create into empty", "", "XYZ", 3},
		{"swap adjacent", "abcdef", "abdcef", 1},
		{"swap first two", "ab", "ba", 1},
		{"swap far apart", "abcdef", "ebcdaf", 2},
		{"reverse three", "abc", "cba", 2},
		{"duplicate rule added at top", "aab", "aaab", 1},
		{"duplicate rule removed", "abab", "abb", 1},
		{"duplicate moved", "aabb", "abab", 1},
		{"delete and update", "abcd", "aXd", 2},
		{"replace all", "abc", "XYZ", 3},
	}
	for _, tt := range tests {
		got := checkPlan(t, split(tt.current), split(tt.desired))
		if got != tt.want {
			t.Errorf("%s: %s -> %s takes %d requests %+v, want %d", tt.name, tt.current, tt.desired, got,
				PlanRuleEdits(split(tt.current), split(tt.desired)), tt.want)
		}
	}
}

// Exact requests for the cases the integrator leans on.
func TestPlanRuleEditsRequestsW50(t *testing.T) {
	t.Parallel()
	tests := []struct {
		current, desired string
		want             []RuleEdit
	}{
		{"abcdef", "afbcde", []RuleEdit{{Kind: RuleMove, Pos: 5, MoveTo: 1}}},
		{"abcdef", "acdefb", []RuleEdit{{Kind: RuleMove, Pos: 1, MoveTo: 6}}},
		{"abcdef", "abdef", []RuleEdit{{Kind: RuleDelete, Pos: 2}}},
		{"abcdef", "abXdef", []RuleEdit{{Kind: RuleUpdate, Pos: 2, Desired: 2}}},
		{"abc", "Xabc", []RuleEdit{{Kind: RuleCreate, Desired: 0}}},
		{"abc", "abXc", []RuleEdit{{Kind: RuleCreate, Desired: 2}, {Kind: RuleMove, Pos: 0, MoveTo: 3}}},
	}
	for _, tt := range tests {
		got := PlanRuleEdits(split(tt.current), split(tt.desired))
		if !slices.Equal(got, tt.want) {
			t.Errorf("PlanRuleEdits(%s, %s) = %+v, want %+v", tt.current, tt.desired, got, tt.want)
		}
	}
}

// naiveRequests is what rewriting position by position costs: an update for
// every differing position, a delete for every surplus rule, a create and a
// move for every missing one. No plan may be worse.
func naiveRequests(current, desired []string) int {
	n := 0
	for i := 0; i < min(len(current), len(desired)); i++ {
		if current[i] != desired[i] {
			n++
		}
	}
	return n + max(0, len(current)-len(desired)) + 2*max(0, len(desired)-len(current))
}

// fewestRequests finds the true minimum, or limit when it is not below
// limit, by breadth-first search over every request PVE offers, writing
// only contents desired holds.
func fewestRequests(current, desired []string, limit int) int {
	contents := slices.Compact(slices.Sorted(slices.Values(desired)))
	goal := strings.Join(desired, "\x00")
	type state struct {
		list []string
		key  string
	}
	seen := map[string]bool{strings.Join(current, "\x00"): true}
	frontier := []state{{current, strings.Join(current, "\x00")}}
	for depth := 0; depth < limit; depth++ {
		var next []state
		for _, s := range frontier {
			if s.key == goal && len(s.list) == len(desired) {
				return depth
			}
			var edits []struct {
				e RuleEdit
				w string
			}
			for p := range s.list {
				edits = append(edits, struct {
					e RuleEdit
					w string
				}{RuleEdit{Kind: RuleDelete, Pos: p}, ""})
				for _, c := range contents {
					edits = append(edits, struct {
						e RuleEdit
						w string
					}{RuleEdit{Kind: RuleUpdate, Pos: p}, c})
				}
				for m := 0; m <= len(s.list); m++ {
					edits = append(edits, struct {
						e RuleEdit
						w string
					}{RuleEdit{Kind: RuleMove, Pos: p, MoveTo: m}, ""})
				}
			}
			if len(s.list) <= len(desired) {
				for _, c := range contents {
					edits = append(edits, struct {
						e RuleEdit
						w string
					}{RuleEdit{Kind: RuleCreate}, c})
				}
			}
			for _, e := range edits {
				l := ApplyRuleEdit(s.list, e.e, e.w)
				k := strings.Join(l, "\x00")
				if !seen[k] {
					seen[k] = true
					next = append(next, state{l, k})
				}
			}
		}
		frontier = next
	}
	return limit
}

// Property: for random lists over a small alphabet (so rules repeat), the
// plan reaches desired, is never worse than rewriting position by position,
// and on short lists matches the true minimum.
func TestPlanRuleEditsPropertyW50(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewSource(18))
	randomList := func(maxLen int, alphabet string) []string {
		l := make([]string, rng.Intn(maxLen+1))
		for i := range l {
			l[i] = string(alphabet[rng.Intn(len(alphabet))])
		}
		return l
	}
	for range 3000 {
		current, desired := randomList(9, "abcd"), randomList(9, "abcde")
		if got, bound := checkPlan(t, current, desired), naiveRequests(current, desired); got > bound {
			t.Fatalf("%q -> %q: %d requests, more than rewriting in place (%d)", current, desired, got, bound)
		}
	}
	const samples = 800
	aboveMinimum := 0
	for range samples {
		current, desired := randomList(4, "abc"), randomList(5, "abcd")
		got := checkPlan(t, current, desired)
		best := fewestRequests(current, desired, got)
		if got > best+1 {
			t.Errorf("%q -> %q: %d requests %+v, the minimum is %d", current, desired, got,
				PlanRuleEdits(current, desired), best)
		}
		if got > best {
			aboveMinimum++
			t.Logf("%q -> %q: %d requests, the minimum is %d", current, desired, got, best)
		}
	}
	if aboveMinimum > samples/100 {
		t.Errorf("%d of %d short lists take more requests than the minimum", aboveMinimum, samples)
	}
}

// FuzzPlanRuleEdits checks that any plan reaches desired and is never worse
// than rewriting position by position.
func FuzzPlanRuleEditsW50(f *testing.F) {
	f.Add([]byte("abcdef"), []byte("afbcde"))
	f.Add([]byte("aabb"), []byte("abab"))
	f.Add([]byte(""), []byte("xyz"))
	f.Add([]byte("abc"), []byte(""))
	f.Add([]byte("abcabc"), []byte("cbacba"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 40 || len(b) > 40 {
			return
		}
		toList := func(bs []byte) []string {
			l := make([]string, len(bs))
			for i, c := range bs {
				l[i] = string(rune('a' + c%6))
			}
			return l
		}
		current, desired := toList(a), toList(b)
		if got, bound := checkPlan(t, current, desired), naiveRequests(current, desired); got > bound {
			t.Fatalf("%q -> %q: %d requests, more than rewriting in place (%d)", current, desired, got, bound)
		}
	})
}
