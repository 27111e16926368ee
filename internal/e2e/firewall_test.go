package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// firewallEnv is a simulated cluster with a client for changes made
// outside Terraform.
func firewallEnv(t *testing.T) (*env, *pveapi.Client) {
	t.Helper()
	token := "root@pam!outside=" + randomHex(t, 16)
	e := newEnv(t, envOptions{sim: pvesim.Options{Tokens: []string{token}}})
	return e, e.outsideClient(token)
}

// clusterRulesConfig is the cluster's rule list with one rule per port.
func clusterRulesConfig(ports ...int) string {
	var rules []string
	for _, p := range ports {
		rules = append(rules, fmt.Sprintf(`{ type = "in", action = "ACCEPT", proto = "tcp", dport = "%d" }`, p))
	}
	return "resource \"pve_firewall_rules\" \"cluster\" {\n  rules = [\n    " + strings.Join(rules, ",\n    ") + "\n  ]\n}\n"
}

func clusterRulePorts(t *testing.T, client *pveapi.Client) string {
	t.Helper()
	rules, _, err := client.FirewallRules(context.Background(), pveapi.FirewallRuleList{})
	if err != nil {
		t.Fatal(err)
	}
	var ports []string
	for _, r := range rules {
		ports = append(ports, r.Fields["dport"])
	}
	return strings.Join(ports, ",")
}

// A rule list changed outside Terraform between plan and apply: the saved
// plan's first edit carries the digest the plan saw, PVE refuses it, and
// no rule is edited by mistake (W50, W51). A new plan then sees the list as
// it is and applies.
func TestFirewallRulesChangedBetweenPlanAndApply(t *testing.T) {
	t.Parallel()
	e, client := firewallEnv(t)
	e.write(e.dir, clusterRulesConfig(10, 11, 12, 13))
	e.mustApply(e.dir, 4)

	// Planned: the rule at position 3 moves to the top.
	e.write(e.dir, clusterRulesConfig(13, 10, 11, 12))
	if r := e.run(e.dir, "plan", "-input=false", "-no-color", "-out=move.tfplan"); r.exitCode != 0 {
		t.Fatalf("plan (exit %d):\n%s", r.exitCode, r.output)
	}
	// Meanwhile someone deletes the first rule: what was at position 3 is
	// now at position 2, and position 3 is past the end.
	if err := client.DeleteFirewallRule(context.Background(), pveapi.FirewallRuleList{}, 0, ""); err != nil {
		t.Fatal(err)
	}
	r := e.run(e.dir, "apply", "-input=false", "-no-color", "move.tfplan")
	if r.exitCode == 0 {
		t.Fatalf("the saved plan applied over a list that changed since:\n%s", r.output)
	}
	if out := strings.Join(strings.Fields(r.output), " "); !strings.Contains(out, "changed outside Terraform since the plan was made") {
		t.Errorf("the error should say the rules changed outside Terraform:\n%s", r.output)
	}
	if got := clusterRulePorts(t, client); got != "11,12,13" {
		t.Fatalf("rules after the refused apply: %s, want 11,12,13 untouched", got)
	}

	e.mustApply(e.dir, 4)
	if got := clusterRulePorts(t, client); got != "13,10,11,12" {
		t.Fatalf("rules after a new apply: %s, want 13,10,11,12", got)
	}
	e.mustPlanEmpty(e.dir)
}
