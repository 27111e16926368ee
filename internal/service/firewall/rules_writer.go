package firewall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// PVE's rules have no id, only a position, and every edit of a list names
// its rule by position. An edit made on a list that changed since it was
// read would hit the wrong rule, so each edit carries the digest of the list
// it was planned against and PVE refuses it when the list changed. The
// digest seen at refresh is kept in private state with the list as PVE
// stores it; the first edit of an apply carries it, so a change made between
// plan and apply is refused rather than applied to the wrong rule. After a
// move or a deletion the next digest is computed here; after a rule is
// written, whose stored form only PVE knows, the list is read again.

// listSnapshotKey is the private state key of the last list read.
const listSnapshotKey = "rule_list"

// listSnapshot is a rule list as PVE stores it (without pos and digest)
// and the digest PVE gave it.
type listSnapshot struct {
	Digest string              `json:"digest"`
	Rules  []map[string]string `json:"rules"`
}

type privateGetter interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateSetter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

func loadSnapshot(ctx context.Context, private privateGetter) (listSnapshot, bool) {
	if private == nil {
		return listSnapshot{}, false
	}
	raw, diags := private.GetKey(ctx, listSnapshotKey)
	if diags.HasError() || len(raw) == 0 {
		return listSnapshot{}, false
	}
	var s listSnapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return listSnapshot{}, false
	}
	return s, true
}

func saveSnapshot(ctx context.Context, private privateSetter, s listSnapshot, diags *diag.Diagnostics) {
	raw, err := json.Marshal(s)
	if err != nil {
		diags.AddError("Unable To Record The Rule List", err.Error())
		return
	}
	diags.Append(private.SetKey(ctx, listSnapshotKey, raw)...)
}

// readRules reads a list as PVE stores it.
func readRules(ctx context.Context, client *pveapi.Client, list pveapi.FirewallRuleList) (listSnapshot, error) {
	rules, digest, err := client.FirewallRules(ctx, list)
	if err != nil {
		return listSnapshot{}, err
	}
	out := listSnapshot{Digest: digest, Rules: make([]map[string]string, len(rules))}
	for i, r := range rules {
		out.Rules[i] = r.Fields
	}
	return out, nil
}

// ruleWriter turns a list into another with the fewest edits, each guarded
// by the digest of the list it expects.
type ruleWriter struct {
	client *pveapi.Client
	list   pveapi.FirewallRuleList
	// what names the list for messages ("guest 100's firewall").
	what string

	// current is the list as the writer believes PVE holds it; exact
	// tells whether every entry is PVE's stored form (read, not written).
	current []map[string]string
	exact   bool
	// digest is current's digest, or empty when it must be read first.
	digest string
	// verified tells whether PVE confirmed current since the writer began.
	verified bool
	// requests counts the requests the writer sent.
	requests int
	// lastRead is the list as the last read found it, and lastExpected
	// what that read expected.
	lastRead     *listSnapshot
	lastExpected []map[string]string
}

// newRuleWriter starts from what the last refresh saw; without a
// snapshot the first edit reads the list first.
func newRuleWriter(client *pveapi.Client, list pveapi.FirewallRuleList, what string, seen listSnapshot, haveSeen bool) *ruleWriter {
	w := &ruleWriter{client: client, list: list, what: what}
	if haveSeen {
		w.current, w.exact, w.digest = cloneRules(seen.Rules), true, seen.Digest
	}
	return w
}

// errChangedOutside is a list that is not what the plan was made from.
type errChangedOutside struct {
	what string
}

func (e errChangedOutside) Error() string {
	return fmt.Sprintf("the rules of %s changed outside Terraform since the plan was made; PVE refused the edit so no rule was changed "+
		"by mistake. Run terraform plan (or apply) again to see the rules as they are now.", e.what)
}

// apply edits the list into desired. prior is the list the plan was made
// from (the state); when the writer has no snapshot it must match it.
func (w *ruleWriter) apply(ctx context.Context, prior, desired []map[string]string) error {
	if w.current == nil {
		if err := w.refresh(ctx, prior); err != nil {
			return err
		}
	}
	desiredKeys := ruleKeys(desired)
	err := w.applyPlan(ctx, desired)
	var changed errChangedOutside
	if !errors.As(err, &changed) || w.lastRead == nil {
		return err
	}
	live := w.lastRead.Rules
	if slices.Equal(ruleKeys(live), desiredKeys) {
		// What changed is what the plan wanted: a security group
		// renamed in the same apply, whose rename PVE carried into every
		// rule that uses it.
		return nil
	}
	if !onlyGroupsRenamed(w.lastExpected, live, desired) {
		return err
	}
	// The list differs from the plan's only by security groups the same
	// apply renamed: go on from the list as PVE holds it.
	w.current, w.exact, w.digest, w.verified = cloneRules(live), true, w.lastRead.Digest, true
	return w.applyPlan(ctx, desired)
}

// applyPlan plans the edits from the current list to desired and sends
// them.
func (w *ruleWriter) applyPlan(ctx context.Context, desired []map[string]string) error {
	for _, edit := range wire.PlanRuleEdits(ruleKeys(w.current), ruleKeys(desired)) {
		if err := w.do(ctx, edit, desired); err != nil {
			return err
		}
	}
	return nil
}

// onlyGroupsRenamed tells whether live is expected but for group rules
// whose security group now has a name the desired list uses: what PVE does
// to every rule when a group is renamed.
func onlyGroupsRenamed(expected, live, desired []map[string]string) bool {
	if len(expected) != len(live) {
		return false
	}
	wanted := map[string]bool{}
	for _, rule := range desired {
		if rule["type"] == "group" {
			wanted[rule["action"]] = true
		}
	}
	for i := range live {
		if ruleKey(live[i]) == ruleKey(expected[i]) {
			continue
		}
		if live[i]["type"] != "group" || expected[i]["type"] != "group" || !wanted[live[i]["action"]] {
			return false
		}
		renamed := maps.Clone(expected[i])
		renamed["action"] = live[i]["action"]
		if ruleKey(renamed) != ruleKey(live[i]) {
			return false
		}
	}
	return true
}

func (w *ruleWriter) do(ctx context.Context, edit wire.RuleEdit, desired []map[string]string) error {
	switch edit.Kind {
	case wire.RuleCreate:
		// PVE does not check the digest of a creation: make sure the list
		// is the planned one before the first change.
		if !w.verified {
			if err := w.refresh(ctx, w.current); err != nil {
				return err
			}
		}
		w.requests++
		if err := w.client.CreateFirewallRule(ctx, w.list, desired[edit.Desired]); err != nil {
			return err
		}
		w.wrote(edit, desired[edit.Desired])
	case wire.RuleUpdate:
		fields := desired[edit.Desired]
		remove := removedKeys(w.current[edit.Pos], fields)
		if err := w.guarded(ctx, func(digest string) error {
			return w.client.UpdateFirewallRule(ctx, w.list, edit.Pos, fields, remove, digest)
		}); err != nil {
			return err
		}
		w.wrote(edit, fields)
	case wire.RuleMove:
		if err := w.guarded(ctx, func(digest string) error {
			return w.client.MoveFirewallRule(ctx, w.list, edit.Pos, edit.MoveTo, digest)
		}); err != nil {
			return err
		}
		w.reordered(edit)
	case wire.RuleDelete:
		if err := w.guarded(ctx, func(digest string) error {
			return w.client.DeleteFirewallRule(ctx, w.list, edit.Pos, digest)
		}); err != nil {
			return err
		}
		w.reordered(edit)
	}
	return nil
}

// guarded sends one edit with the digest of the list the writer expects.
// A refusal for a changed digest is looked into once: when the list is
// still exactly the expected one (only the computed digest was off), the
// edit is sent again with PVE's digest; otherwise the list changed outside
// Terraform and the edit is not made.
func (w *ruleWriter) guarded(ctx context.Context, send func(digest string) error) error {
	if w.digest == "" {
		if err := w.refresh(ctx, w.current); err != nil {
			return err
		}
	}
	w.requests++
	err := send(w.digest)
	if err == nil || !pveapi.IsDigestMismatch(err) {
		w.verified = w.verified || err == nil
		return err
	}
	if err := w.refresh(ctx, w.current); err != nil {
		return err
	}
	w.requests++
	if err := send(w.digest); err != nil {
		if pveapi.IsDigestMismatch(err) {
			return errChangedOutside{what: w.what}
		}
		return err
	}
	return nil
}

// refresh reads the list, which must be expected (by rule); it then holds
// PVE's stored forms and digest.
func (w *ruleWriter) refresh(ctx context.Context, expected []map[string]string) error {
	w.requests++
	live, err := readRules(ctx, w.client, w.list)
	if err != nil {
		return err
	}
	w.lastRead, w.lastExpected = &live, expected
	if !slices.Equal(ruleKeys(live.Rules), ruleKeys(expected)) {
		return errChangedOutside{what: w.what}
	}
	w.current, w.exact, w.digest, w.verified = live.Rules, true, live.Digest, true
	return nil
}

// wrote records a rule PVE stored in a form the writer cannot know for
// sure: the next guarded edit reads the list first.
func (w *ruleWriter) wrote(edit wire.RuleEdit, fields map[string]string) {
	w.current = wire.ApplyRuleEdit(w.current, edit, maps.Clone(fields))
	w.exact, w.digest = false, ""
}

// reordered records a move or deletion, whose result is known exactly
// when the list was, and so is its digest.
func (w *ruleWriter) reordered(edit wire.RuleEdit) {
	w.current = wire.ApplyRuleEdit(w.current, edit, nil)
	w.digest = ""
	if w.exact {
		w.digest = wire.FirewallListDigest(w.current)
	}
}

// removedKeys are the optional keys the rule has and the new content does
// not: PVE keeps a key an update does not mention.
func removedKeys(current, fields map[string]string) []string {
	var out []string
	for _, f := range ruleStringFields {
		if _, had := current[f.key]; had {
			if _, keep := fields[f.key]; !keep {
				out = append(out, f.key)
			}
		}
	}
	return out
}

func cloneRules(rules []map[string]string) []map[string]string {
	out := make([]map[string]string, len(rules))
	for i, r := range rules {
		out[i] = maps.Clone(r)
	}
	return out
}
