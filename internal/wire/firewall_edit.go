package wire

import (
	"slices"
	"sort"
)

// A PVE firewall rule list (of the cluster, a node, a guest or a security
// group) has no rule ids (W50): a rule is addressed by its position, and every
// request changes the positions of the rules after it. The API offers four
// edits (pve-firewall src/PVE/API2/Firewall/Rules.pm):
//
//   - DELETE .../rules/{pos} removes the rule at pos (register_delete_rule);
//   - PUT .../rules/{pos} writes new content over the rule at pos
//     (register_update_rule);
//   - PUT .../rules/{pos} with moveto=M takes the rule out and puts it back
//     before the rule that stood at index M of the list as it was, or at the
//     end when M is past the last index; other parameters are ignored and
//     M == pos changes nothing (register_update_rule);
//   - POST .../rules creates a rule, always at the top: index 0
//     (register_create_rule unshifts it).
//
// PlanRuleEdits turns one list into another with few such requests, and
// ApplyRuleEdit predicts the list after each one, so a caller can send the
// digest PVE expects with the next request.

// RuleEditKind is one of the requests PVE offers on a rule list.
type RuleEditKind int

const (
	// RuleDelete is DELETE .../rules/{Pos}.
	RuleDelete RuleEditKind = iota
	// RuleUpdate is PUT .../rules/{Pos} with the content of desired[Desired].
	RuleUpdate
	// RuleMove is PUT .../rules/{Pos} with moveto=MoveTo.
	RuleMove
	// RuleCreate is POST .../rules with the content of desired[Desired]; PVE
	// puts it at index 0.
	RuleCreate
)

// String names the request kind for messages and test output.
func (k RuleEditKind) String() string {
	switch k {
	case RuleDelete:
		return "delete"
	case RuleUpdate:
		return "update"
	case RuleMove:
		return "move"
	case RuleCreate:
		return "create"
	}
	return "unknown"
}

// RuleEdit is one request on a rule list.
type RuleEdit struct {
	Kind RuleEditKind
	// Pos is the position of the rule the request addresses, in the list as
	// it is when the request is sent (unused for RuleCreate).
	Pos int
	// MoveTo is PVE's moveto parameter (RuleMove only).
	MoveTo int
	// Desired is the index into desired of the content to write (RuleUpdate,
	// RuleCreate).
	Desired int
}

// ApplyRuleEdit returns list after PVE carried out e (W50); written is the rule a
// RuleCreate or RuleUpdate writes. It predicts the list, and so its digest
// (FirewallListDigest), between the requests of a plan. list itself is not
// changed. A request PVE would refuse ("no rule at position N", a position
// past the end) leaves the list as it was.
func ApplyRuleEdit[T any](list []T, e RuleEdit, written T) []T {
	out := slices.Clone(list)
	if e.Kind == RuleCreate {
		// register_create_rule: unshift @$rules, $rule.
		return slices.Insert(out, 0, written)
	}
	if e.Pos < 0 || e.Pos >= len(out) {
		return out
	}
	switch e.Kind {
	case RuleDelete:
		return slices.Delete(out, e.Pos, e.Pos+1)
	case RuleUpdate:
		out[e.Pos] = written
	case RuleMove:
		return moveRule(out, e.Pos, e.MoveTo)
	}
	return out
}

// moveRule is register_update_rule's moveto: the rule at pos goes before the
// element that was at index moveTo, or to the end when moveTo is past the
// last index. Moving forward (pos < moveTo) therefore lands at moveTo-1.
func moveRule[T any](list []T, pos, moveTo int) []T {
	if moveTo == pos || moveTo < 0 {
		return list
	}
	rule := list[pos]
	out := make([]T, 0, len(list))
	for i, r := range list {
		if i == pos {
			continue
		}
		if i == moveTo {
			out = append(out, rule)
		}
		out = append(out, r)
	}
	if moveTo >= len(list) {
		out = append(out, rule)
	}
	return out
}

// PlanRuleEdits returns requests that turn current into desired, executed in
// order (W50). Rules are compared by key: equal keys are identical rules,
// and keys may repeat (the same rule twice).
//
// The plan keeps as many rules in place as it can and spends one request per
// other change: a rule that only changes place is one move, a changed rule
// in its place one update, a rule that goes away one delete, a new rule one
// create (at the top) or a create and a move (anywhere else). Deletions come
// first, then updates, creates and moves. Several ways of pairing current
// rules with desired ones are tried and the plan with the fewest requests
// wins; every candidate is correct by construction (see ApplyRuleEdit).
// One candidate rewrites position by position, so no plan is worse than
// that. The plan is not always the fewest possible: against an exhaustive
// search over short lists with repeated rules, fewer than one change in a
// hundred takes one request more.
func PlanRuleEdits(current, desired []string) []RuleEdit {
	candidates := [][]int{
		sourcesInPlace(len(current), len(desired)),
		sourcesFromCommonSubsequence(current, desired),
		sourcesFromAlignment(current, desired, 2),
		sourcesFromAlignment(current, desired, 1),
	}
	for _, sources := range slices.Clone(candidates) {
		candidates = append(candidates, sortSourcesOfTwins(desired, sources))
	}
	var best []RuleEdit
	var bestSources []int
	for i, sources := range candidates {
		plan := planFromSources(current, desired, sources)
		if i == 0 || len(plan) < len(best) {
			best, bestSources = plan, sources
		}
	}
	if len(current)+len(desired) <= maxPolishedRules {
		best = polishSources(current, desired, bestSources, best)
	}
	return best
}

// rotateLeft moves every element of s one place to the front, the first to
// the end.
func rotateLeft(s []int) {
	if len(s) > 1 {
		first := s[0]
		copy(s, s[1:])
		s[len(s)-1] = first
	}
}

// rotateRight moves every element of s one place to the back, the last to
// the front.
func rotateRight(s []int) {
	if len(s) > 1 {
		last := s[len(s)-1]
		copy(s[1:], s)
		s[0] = last
	}
}

// maxPolishedRules bounds the lists polishSources works on: its search
// grows with the cube of the length, and long lists rarely change much at
// once.
const maxPolishedRules = 64

// polishSources improves a choice of sources by local search: exchanging
// the sources of two desired rules, or giving a desired rule a current rule
// the plan deletes, whenever that shortens the plan. The candidates above
// each get some cases wrong that a single exchange or a shift by one place
// fixes (a rule kept in place that would better be updated, with its twin
// moved instead).
func polishSources(current, desired []string, sources []int, plan []RuleEdit) []RuleEdit {
	sources = slices.Clone(sources)
	try := func() bool {
		candidate := planFromSources(current, desired, sources)
		if len(candidate) < len(plan) {
			plan = candidate
			return true
		}
		return false
	}
	for improved := true; improved; {
		improved = false
		for j1 := range sources {
			for j2 := j1 + 1; j2 < len(sources); j2++ {
				if sources[j1] == sources[j2] {
					continue
				}
				sources[j1], sources[j2] = sources[j2], sources[j1]
				if try() {
					improved = true
					continue
				}
				sources[j1], sources[j2] = sources[j2], sources[j1]
				// Rotating the sources of j1..j2 by one either way shifts a
				// run of rules by one place, which no single exchange does.
				segment := sources[j1 : j2+1]
				if len(segment) < 3 {
					continue
				}
				rotateLeft(segment)
				if try() {
					improved = true
					continue
				}
				rotateRight(segment)
				rotateRight(segment)
				if try() {
					improved = true
					continue
				}
				rotateLeft(segment)
			}
		}
		used := make([]bool, len(current))
		for _, i := range sources {
			if i >= 0 {
				used[i] = true
			}
		}
		for i := range current {
			if used[i] {
				continue
			}
			for j := range sources {
				previous := sources[j]
				sources[j] = i
				if try() {
					improved = true
					break
				}
				sources[j] = previous
			}
		}
	}
	return plan
}

// planFromSources turns a choice of sources into requests. sources[j] is the
// index of the current rule that becomes desired[j] (kept, or updated when
// the keys differ), or -1 when desired[j] is created. Current rules no
// desired rule takes are deleted.
func planFromSources(current, desired []string, sources []int) []RuleEdit {
	// targets[i] is the desired index current[i] ends at, -1 when deleted.
	targets := make([]int, len(current))
	for i := range targets {
		targets[i] = -1
	}
	for j, i := range sources {
		if i >= 0 {
			targets[i] = j
		}
	}
	var edits []RuleEdit

	// Deletions from the bottom up, so the positions still to delete do not
	// shift.
	list := slices.Clone(targets)
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] < 0 {
			edits = append(edits, RuleEdit{Kind: RuleDelete, Pos: i})
			list = slices.Delete(list, i, i+1)
		}
	}
	// Content changes where the rules stand.
	for pos, j := range list {
		if current[sources[j]] != desired[j] {
			edits = append(edits, RuleEdit{Kind: RuleUpdate, Pos: pos, Desired: j})
		}
	}
	// New rules, the last first: each lands at the top, so new rules wanted
	// at the top of the list need no move.
	for j := len(desired) - 1; j >= 0; j-- {
		if sources[j] < 0 {
			edits = append(edits, RuleEdit{Kind: RuleCreate, Desired: j})
			list = slices.Insert(list, 0, j)
		}
	}
	return append(edits, orderingMoves(list)...)
}

// sortSourcesOfTwins reorders the sources among desired rules of equal key:
// which twin comes from where makes no difference to the content, so the
// new ones take the first places (creates land at the top) and the others
// follow in the order they stand in current, which often keeps more of them
// in place.
func sortSourcesOfTwins(desired []string, sources []int) []int {
	sorted := slices.Clone(sources)
	twins := map[string][]int{}
	for j, key := range desired {
		twins[key] = append(twins[key], j)
	}
	for _, places := range twins {
		if len(places) < 2 {
			continue
		}
		from := make([]int, len(places))
		for k, j := range places {
			from[k] = sources[j]
		}
		slices.Sort(from) // -1, the created ones, first
		for k, j := range places {
			sorted[j] = from[k]
		}
	}
	return sorted
}

// orderingMoves returns the moves that sort list, a permutation of
// 0..len-1, into ascending order: the longest ascending run of elements (not
// necessarily adjacent) stays, and every other element moves once, in
// ascending order of value, next to an element already in place.
func orderingMoves(list []int) []RuleEdit {
	list = slices.Clone(list)
	placed := make([]bool, len(list))
	for _, v := range longestIncreasing(list) {
		placed[v] = true
	}
	var edits []RuleEdit
	for v := range placed {
		if placed[v] {
			continue
		}
		pos := slices.Index(list, v)
		pred, succ := -1, -1
		for w := v - 1; w >= 0; w-- {
			if placed[w] {
				pred = slices.Index(list, w)
				break
			}
		}
		for w := v + 1; w < len(placed); w++ {
			if placed[w] {
				succ = slices.Index(list, w)
				break
			}
		}
		placed[v] = true
		if pred < pos && (succ < 0 || pos < succ) {
			// Already between its neighbours in place.
			continue
		}
		moveTo := len(list)
		if succ >= 0 {
			moveTo = succ
		}
		edits = append(edits, RuleEdit{Kind: RuleMove, Pos: pos, MoveTo: moveTo})
		list = moveRule(list, pos, moveTo)
	}
	return edits
}

// longestIncreasing returns the values of a longest strictly increasing
// subsequence of list (patience sorting).
func longestIncreasing(list []int) []int {
	var tails []int // tails[k]: index in list of the smallest tail of a run of length k+1
	prev := make([]int, len(list))
	for i, v := range list {
		k := sort.Search(len(tails), func(k int) bool { return list[tails[k]] >= v })
		if k > 0 {
			prev[i] = tails[k-1]
		} else {
			prev[i] = -1
		}
		if k == len(tails) {
			tails = append(tails, i)
		} else {
			tails[k] = i
		}
	}
	run := make([]int, len(tails))
	if len(tails) == 0 {
		return run
	}
	for k, i := len(tails)-1, tails[len(tails)-1]; k >= 0; k, i = k-1, prev[i] {
		run[k] = list[i]
	}
	return run
}

// sourcesInPlace rewrites position by position: current[j] becomes
// desired[j]. It is the plan no other may be worse than.
func sourcesInPlace(n, m int) []int {
	sources := newSources(m)
	for j := range min(n, m) {
		sources[j] = j
	}
	return sources
}

// sourcesFromCommonSubsequence keeps a longest common subsequence of the
// two lists in place, moves the other rules whose key is wanted elsewhere,
// updates leftover rules in place where a leftover desired rule falls between
// the same kept rules, and pairs what remains (see pairLeftovers).
func sourcesFromCommonSubsequence(current, desired []string) []int {
	n, m := len(current), len(desired)
	// lcs[i][j]: length of a longest common subsequence of current[i:] and
	// desired[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case current[i] == desired[j]:
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	sources := newSources(m)
	used := make([]bool, n)
	// gapOfCurrent and gapOfDesired count the kept rules before a rule: two
	// leftovers in the same gap can be paired without reordering anything.
	gapOfCurrent := make([]int, n)
	gapOfDesired := make([]int, m)
	i, j, kept := 0, 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && current[i] == desired[j] && lcs[i][j] == lcs[i+1][j+1]+1:
			sources[j], used[i] = i, true
			kept++
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			gapOfCurrent[i] = kept
			i++
		default:
			gapOfDesired[j] = kept
			j++
		}
	}
	// Rules wanted elsewhere: one move each.
	pairEqualKeys(current, desired, sources, used)
	// Leftovers between the same kept rules: an update in place each.
	for g := 0; g <= kept; g++ {
		ci, dj := 0, 0
		for {
			for ci < n && (used[ci] || gapOfCurrent[ci] != g) {
				ci++
			}
			for dj < m && (sources[dj] >= 0 || gapOfDesired[dj] != g) {
				dj++
			}
			if ci == n || dj == m {
				break
			}
			sources[dj], used[ci] = ci, true
		}
	}
	pairLeftovers(sources, used)
	return sources
}

// sourcesFromAlignment aligns the lists by edit distance: keep 0, update in
// place 1, delete 1, insert insertCost, where an insert before the first
// kept or updated rule costs 1 (a create lands at the top and needs no
// move). It then pairs a deleted and an inserted rule of the same key into
// one move and the rest as in pairLeftovers.
func sourcesFromAlignment(current, desired []string, insertCost int) []int {
	n, m := len(current), len(desired)
	// cost[f][i][j]: cheapest alignment of current[i:] with desired[j:],
	// where f is 1 once a rule before i has been kept or updated.
	var cost [2][][]int
	for f := range cost {
		cost[f] = make([][]int, n+1)
		for i := range cost[f] {
			cost[f][i] = make([]int, m+1)
		}
	}
	insert := [2]int{1, insertCost}
	pairCost := func(i, j int) int {
		if current[i] == desired[j] {
			return cost[1][i+1][j+1]
		}
		return cost[1][i+1][j+1] + 1
	}
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			for f := 1; f >= 0; f-- {
				switch {
				case i == n:
					cost[f][i][j] = (m - j) * insert[f]
				case j == m:
					cost[f][i][j] = n - i
				default:
					cost[f][i][j] = min(pairCost(i, j), cost[f][i+1][j]+1, cost[f][i][j+1]+insert[f])
				}
			}
		}
	}
	sources := newSources(m)
	used := make([]bool, n)
	for f, i, j := 0, 0, 0; i < n && j < m; {
		switch cost[f][i][j] {
		case pairCost(i, j):
			sources[j], used[i] = i, true
			f, i, j = 1, i+1, j+1
		case cost[f][i+1][j] + 1:
			i++
		default:
			j++
		}
	}
	pairEqualKeys(current, desired, sources, used)
	pairLeftovers(sources, used)
	return sources
}

func newSources(m int) []int {
	sources := make([]int, m)
	for j := range sources {
		sources[j] = -1
	}
	return sources
}

// pairEqualKeys gives each desired rule without a source the first unused
// current rule of the same key: moving it is one request, where deleting
// it and creating it again would be two or three.
func pairEqualKeys(current, desired []string, sources []int, used []bool) {
	for j := range sources {
		if sources[j] >= 0 {
			continue
		}
		for i := range current {
			if !used[i] && current[i] == desired[j] {
				sources[j], used[i] = i, true
				break
			}
		}
	}
}

// pairLeftovers turns an unused current rule and a desired rule without a
// source into an update and a move (two requests) instead of a delete and a
// create (two or three). Desired rules near the top are left to be created:
// a create at the top needs no move.
func pairLeftovers(sources []int, used []bool) {
	i := 0
	for j := len(sources) - 1; j >= 0; j-- {
		if sources[j] >= 0 {
			continue
		}
		for i < len(used) && used[i] {
			i++
		}
		if i == len(used) {
			return
		}
		sources[j], used[i] = i, true
	}
}
