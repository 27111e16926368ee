package firewall_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const rulesAddr = "pve_firewall_rules.test"

var clusterRules = pveapi.FirewallRuleList{}

// rulesConfig is a pve_firewall_rules of the given scope lines and rules.
func rulesConfig(tg *acctest.Target, scope string, rules ...string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_firewall_rules\" \"test\" {\n%s\n  rules = [\n    %s\n  ]\n}\n",
		scope, strings.Join(rules, ",\n    ")))
}

// webRule is a distinct rule per port.
func webRule(port int) string {
	return fmt.Sprintf(`{ type = "in", action = "ACCEPT", proto = "tcp", dport = "%d", comment = "port %d" }`, port, port)
}

// liveRules reads a list's rules from PVE as "type action macro dport enable=N"
// lines, empty fields left out.
func liveRules(tg *acctest.Target, list pveapi.FirewallRuleList) ([]string, error) {
	rules, _, err := tg.Client.FirewallRules(context.Background(), list)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rules))
	for i, r := range rules {
		var words []string
		for _, w := range []string{r.Fields["type"], r.Fields["action"], r.Fields["macro"], r.Fields["dport"], "enable=" + r.Fields["enable"]} {
			if w != "" {
				words = append(words, w)
			}
		}
		out[i] = strings.Join(words, " ")
	}
	return out, nil
}

func expectLiveRules(tg *acctest.Target, list pveapi.FirewallRuleList, want ...string) statecheck.StateCheck {
	return acctest.CheckState(func(_ *tfjson.State) error {
		got, err := liveRules(tg, list)
		if err != nil {
			return err
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("rules in PVE:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		return nil
	})
}

// expectActionOn plans action for the resource at addr.
func expectActionOn(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}}
}

func inPort(port int) string { return fmt.Sprintf("in ACCEPT %d enable=1", port) }

// Every edit of the list is the fewest requests PVE offers, by position
// (W50) and guarded by the list's digest (W51); the plan is empty after
// each step.
func TestAccFirewallRules_clusterEditsInPlace(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("changes the cluster's firewall rules, which a live cluster's operators own")
	}
	t.Parallel()
	tg := acctest.New(t)
	watch := acctest.NewPathWriteWatch(tg, "/cluster/firewall/rules")
	base := []string{webRule(10), webRule(11), webRule(12), webRule(13), webRule(14), webRule(15)}
	with := func(rules ...string) string { return rulesConfig(tg, "", rules...) }
	update := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(rulesAddr, plancheck.ResourceActionUpdate)}}

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			got, err := liveRules(tg, clusterRules)
			if err == nil && len(got) > 0 {
				err = fmt.Errorf("rules left after destroy: %v", got)
			}
			return err
		},
		Steps: []resource.TestStep{
			{
				PreConfig: watch.Mark,
				Config:    with(base...),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rulesAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster")),
					expectLiveRules(tg, clusterRules, inPort(10), inPort(11), inPort(12), inPort(13), inPort(14), inPort(15)),
					// From an empty list, one creation per rule, last first.
					watch.Exactly(strings.Split(strings.Repeat("POST /cluster/firewall/rules,", 6), ",")[:6]...),
				},
			},
			{
				// The rule at position 5 moves to position 1: one request.
				PreConfig:        watch.Mark,
				Config:           with(base[0], base[5], base[1], base[2], base[3], base[4]),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					watch.Exactly("PUT /cluster/firewall/rules/5"),
					expectLiveRules(tg, clusterRules, inPort(10), inPort(15), inPort(11), inPort(12), inPort(13), inPort(14)),
				},
			},
			{
				// And back, forward from 1 to 5: one request.
				PreConfig:         watch.Mark,
				Config:            with(base...),
				ConfigPlanChecks:  update,
				ConfigStateChecks: []statecheck.StateCheck{watch.Exactly("PUT /cluster/firewall/rules/1")},
			},
			{
				// One rule rewritten where it stands.
				PreConfig:        watch.Mark,
				Config:           with(base[0], base[1], `{ type = "in", action = "DROP", proto = "udp", dport = "53", log = "info" }`, base[3], base[4], base[5]),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					watch.Exactly("PUT /cluster/firewall/rules/2"),
					expectLiveRules(tg, clusterRules, inPort(10), inPort(11), "in DROP 53 enable=1", inPort(13), inPort(14), inPort(15)),
				},
			},
			{
				// One deleted, one inserted in the middle (created at the
				// top, then moved), one disabled.
				PreConfig: watch.Mark,
				Config: with(base[0], `{ type = "out", action = "ACCEPT", macro = "dns" }`, base[1],
					`{ type = "in", action = "DROP", proto = "udp", dport = "53", log = "info", enabled = false }`, base[4], base[5]),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					expectLiveRules(tg, clusterRules, inPort(10), "out ACCEPT DNS enable=1", inPort(11), "in DROP 53 enable=0", inPort(14), inPort(15)),
					// The macro is kept as written: PVE's spelling is DNS.
					statecheck.ExpectKnownValue(rulesAddr, tfjsonpath.New("rules").AtSliceIndex(1).AtMapKey("macro"), knownvalue.StringExact("dns")),
				},
			},
			{
				ResourceName:      rulesAddr,
				ImportState:       true,
				ImportStateId:     "cluster",
				ImportStateVerify: true,
				// PVE spells the macro its own way; the configuration's
				// spelling is kept only once configured.
				ImportStateVerifyIgnore: []string{"rules.1.macro"},
			},
		},
	})
}

// A rule added outside Terraform shows as a change that removes it.
func TestAccFirewallRules_outsideRuleShowsAsChange(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("changes the cluster's firewall rules, which a live cluster's operators own")
	}
	t.Parallel()
	tg := acctest.New(t)
	config := rulesConfig(tg, "", webRule(22))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := tg.Client.CreateFirewallRule(context.Background(), clusterRules,
						map[string]string{"type": "in", "action": "ACCEPT", "dport": "8080", "proto": "tcp", "enable": "1"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(rulesAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{expectLiveRules(tg, clusterRules, inPort(22))},
			},
		},
	})
}

// A list with rules the configuration did not create is not taken over.
func TestAccFirewallRules_existingRulesAreNotTakenOver(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	if acctest.IsLive() {
		t.Skip("changes the cluster's firewall rules, which a live cluster's operators own")
	}
	if err := tg.Client.CreateFirewallRule(context.Background(), clusterRules,
		map[string]string{"type": "in", "action": "DROP", "enable": "1"}); err != nil {
		t.Fatal(err)
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      rulesConfig(tg, "", webRule(22)),
				ExpectError: regexp.MustCompile(`(?s)already has 1 rules.*terraform import`),
			},
			{
				Config:             rulesConfig(tg, "", `{ type = "in", action = "DROP" }`),
				ResourceName:       rulesAddr,
				ImportState:        true,
				ImportStateId:      "cluster",
				ImportStatePersist: true,
			},
			{
				Config: rulesConfig(tg, "", `{ type = "in", action = "DROP" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

// Rules PVE would refuse, or would store differently, are refused at plan
// time with the attribute named (W53, W54, W55).
// Wire rules: W56.
func TestFirewallRulesPlanRefusesBadRules(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	type rule = map[string]any
	for _, tc := range []struct {
		scope map[string]any
		rule  rule
		want  string
	}{
		{nil, rule{"type": "forward", "action": "REJECT"}, `rules\[0\]\.action: `},
		{nil, rule{"type": "in", "action": "ACCEPT", "dport": "22"}, `rules\[0\]`},
		{nil, rule{"type": "group", "action": "web", "proto": "tcp"}, `rules\[0\]\.proto`},
		{nil, rule{"type": "in", "action": "ACCEPT", "comment": "two\nlines"}, `rules\[0\]\.comment`},
		{nil, rule{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "90:80"}, `rules\[0\]\.dport`},
		{map[string]any{"security_group": "web"}, rule{"type": "group", "action": "other"}, `rules\[0\]\.type`},
		{map[string]any{"node": "pve1", "vmid": 100}, rule{"type": "in", "action": "ACCEPT"}, `node`},
		{nil, rule{"type": "in", "action": "ACCEPT", "source": "+nosuchset"}, `(?s)rules\[0\]\.source.*no IP set "nosuchset"`},
		{nil, rule{"type": "group", "action": "nosuchgroup"}, `(?s)no security group "nosuchgroup"`},
		{nil, rule{"type": "group", "action": "Web"}, `(?s)rules\[0\]\.action: .*lowercase.*"web"`},
		{map[string]any{"security_group": "Web"}, rule{"type": "in", "action": "ACCEPT"}, `(?s)lowercase.*"web"`},
	} {
		attrs := map[string]any{"rules": []map[string]any{tc.rule}}
		for name, v := range tc.scope {
			attrs[name] = v
		}
		acctest.WantError(t, p.PlanCreate(t, "pve_firewall_rules", attrs), "", regexp.MustCompile(tc.want))
	}
}

// A missing privilege is named with its path: a guest's rules need
// VM.Config.Network on the guest, a security group's Sys.Modify on /.
func TestAccFirewallRules_privilegesNamed(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("restricts the token's privileges, which only the simulator can do")
	}
	t.Parallel()
	tg := acctest.New(t)
	addGuest(t, tg, 100)
	tg.Sim.SetPrivileges("root@pam!acctest", "Sys.Audit", "VM.Audit")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      rulesConfig(tg, "  vmid = 100", webRule(22)),
				ExpectError: regexp.MustCompile(`(?s)VM\.Config\.Network on\s+/vms/100`),
			},
			{
				Config:      rulesConfig(tg, "", webRule(22)),
				ExpectError: regexp.MustCompile(`(?s)Sys\.Modify on\s+/[^n]`),
			},
		},
	})
}

// PVE's own spelling of what the configuration wrote plans no change: a
// macro in another case, a comment with blanks around it (W56).
func TestAccFirewallRules_pveSpellingPlansNoChange(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("changes the cluster's firewall rules, which a live cluster's operators own")
	}
	t.Parallel()
	tg := acctest.New(t)
	config := rulesConfig(tg, "", `{ type = "in", action = "ACCEPT", macro = "ssh", comment = "  admins  " }`)
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					expectLiveRules(tg, clusterRules, "in ACCEPT SSH enable=1"),
					statecheck.ExpectKnownValue(rulesAddr, tfjsonpath.New("rules").AtSliceIndex(0).AtMapKey("comment"), knownvalue.StringExact("  admins  ")),
				},
			},
			{
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// A node's own rules: created, changed in place, imported, destroyed.
func TestAccFirewallRules_node(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("changes a node's firewall rules, which a live cluster's operators own")
	}
	t.Parallel()
	tg := acctest.New(t)
	node := pveapi.FirewallRuleList{Scope: pveapi.FirewallScope{Node: "pve1"}}
	scope := `  node = "pve1"`
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			got, err := liveRules(tg, node)
			if err == nil && len(got) > 0 {
				err = fmt.Errorf("node rules left after destroy: %v", got)
			}
			return err
		},
		Steps: []resource.TestStep{
			{
				Config: rulesConfig(tg, scope, `{ type = "in", action = "ACCEPT", iface = "vmbr0", proto = "tcp", dport = "22" }`,
					`{ type = "forward", action = "DROP", source = "10.9.0.0/16" }`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(rulesAddr, tfjsonpath.New("id"), knownvalue.StringExact("node/pve1")),
					expectLiveRules(tg, node, "in ACCEPT 22 enable=1", "forward DROP enable=1"),
				},
			},
			{
				Config: rulesConfig(tg, scope, `{ type = "in", action = "ACCEPT", iface = "vmbr0", proto = "tcp", dport = "22,8006" }`,
					`{ type = "forward", action = "DROP", source = "10.9.0.0/16" }`),
				ConfigPlanChecks:  expectActionOn(rulesAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{expectLiveRules(tg, node, "in ACCEPT 22,8006 enable=1", "forward DROP enable=1")},
			},
			{
				ResourceName:      rulesAddr,
				ImportState:       true,
				ImportStateId:     "node/pve1",
				ImportStateVerify: true,
			},
		},
	})
}
