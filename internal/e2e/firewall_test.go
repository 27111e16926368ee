package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// guideFile is a file of the guide "Firewall as code": the test applies the
// very files the guide shows.
func guideFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "firewall-as-code", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writesSince counts the requests other than GET below prefix after the
// first skip requests the simulator recorded.
func writesSince(sim *pvesim.Sim, skip int, prefix string) []string {
	var out []string
	for _, rec := range sim.Requests()[skip:] {
		if rec.Method != "GET" && strings.HasPrefix(rec.Path, prefix) {
			out = append(out, rec.Method+" "+rec.Path)
		}
	}
	return out
}

// The guide "Firewall as code", followed as written: the cluster's policy,
// a security group used by two VMs with their own rules and IP sets; then
// the changes it describes, each the requests it promises with an empty
// plan after; then taking the same firewall over with import blocks and
// generated configuration.
func TestFirewallAsCodeGuide(t *testing.T) {
	t.Parallel()
	e, client := firewallEnv(t)
	ctx := context.Background()
	config := guideFile(t, "cluster.tf") + "\n" + guideFile(t, "web.tf")
	e.write(e.dir, config)
	e.mustApply(e.dir, 4)
	e.mustPlanEmpty(e.dir)

	options, _, err := client.FirewallOptions(ctx, pveapi.FirewallScope{})
	if err != nil || options["enable"] != "1" || options["policy_in"] != "DROP" {
		t.Fatalf("cluster options %v (%v), want the firewall on with policy_in DROP", options, err)
	}
	rules, _, err := client.FirewallRules(ctx, pveapi.FirewallRuleList{})
	if err != nil || len(rules) != 4 || rules[0].Fields["source"] != "dc/admin_net" || rules[2].Fields["source"] != "+dc/jump_hosts" {
		t.Fatalf("cluster rules %v (%v)", rules, err)
	}
	guests, err := client.ClusterResources(ctx, "vm")
	if err != nil || len(guests) != 2 {
		t.Fatalf("guests %v (%v), want the two web servers", guests, err)
	}
	for _, g := range guests {
		list := pveapi.FirewallRuleList{Scope: pveapi.FirewallScope{Node: g.Node, GuestType: g.Type, VMID: int(g.VMID)}}
		rules, _, err := client.FirewallRules(ctx, list)
		if err != nil || len(rules) != 3 || rules[0].Fields["type"] != "group" || rules[0].Fields["action"] != "web" ||
			rules[1].Fields["source"] != "+guest/scrapers" {
			t.Fatalf("guest %d rules %v (%v)", g.VMID, rules, err)
		}
	}

	// Moving a rule to the top is one request.
	mark := len(e.sim.Requests())
	moved := replaceInConfig(t, config,
		"    { type = \"in\", action = \"ACCEPT\", macro = \"Ping\" },\n", "")
	moved = replaceInConfig(t, moved, "  rules = [\n    { type = \"in\", action = \"ACCEPT\", macro = \"SSH\", source = pve_firewall_alias.admin_net.ref",
		"  rules = [\n    { type = \"in\", action = \"ACCEPT\", macro = \"Ping\" },\n    { type = \"in\", action = \"ACCEPT\", macro = \"SSH\", source = pve_firewall_alias.admin_net.ref")
	e.write(e.dir, moved)
	e.mustApply(e.dir, 4)
	if got := writesSince(e.sim, mark, "/cluster/firewall/rules"); len(got) != 1 || got[0] != "PUT /cluster/firewall/rules/3" {
		t.Errorf("moving a rule to the top sent %v, want one PUT of position 3", got)
	}
	e.mustPlanEmpty(e.dir)

	// Adding an address to an IP set is one request.
	mark = len(e.sim.Requests())
	added := replaceInConfig(t, moved, "    \"10.0.20.0/28\" = {}\n", "    \"10.0.20.0/28\" = {}\n    \"10.0.30.7\"    = { comment = \"new bastion\" }\n")
	e.write(e.dir, added)
	e.mustApply(e.dir, 4)
	if got := writesSince(e.sim, mark, "/cluster/firewall/ipset"); len(got) != 1 || got[0] != "POST /cluster/firewall/ipset/jump_hosts" {
		t.Errorf("adding an address sent %v, want one POST", got)
	}
	e.mustPlanEmpty(e.dir)

	// Renaming the security group is an in-place change.
	renamed := strings.Replace(added, "  name    = \"web\"\n", "  name    = \"webtier\"\n", 1)
	e.write(e.dir, renamed)
	r := e.apply(e.dir, 4)
	if r.exitCode != 0 || !strings.Contains(r.output, "0 added,") || !strings.Contains(r.output, "0 destroyed") {
		t.Fatalf("renaming the security group should change it in place (exit %d):\n%s", r.exitCode, r.output)
	}
	e.mustPlanEmpty(e.dir)

	// Taking the same firewall over: import blocks and generated
	// configuration, an apply that imports and changes nothing, an empty
	// plan.
	vmid := int(guests[0].VMID)
	adopt := e.workdir("adopt")
	e.write(adopt, fmt.Sprintf(`
import {
  to = pve_firewall_options.cluster
  id = "cluster"
}
import {
  to = pve_firewall_rules.cluster
  id = "cluster"
}
import {
  to = pve_firewall_security_group.web
  id = "webtier"
}
import {
  to = pve_firewall_rules.web_group
  id = "group/webtier"
}
import {
  to = pve_firewall_ipset.jump_hosts
  id = "cluster/jump_hosts"
}
import {
  to = pve_firewall_alias.admin_net
  id = "cluster/admin_net"
}
import {
  to = pve_firewall_rules.web1
  id = "guest/%d"
}
import {
  to = pve_firewall_options.web1
  id = "guest/%d"
}
import {
  to = pve_firewall_ipset.web1_scrapers
  id = "guest/%d/scrapers"
}
`, vmid, vmid, vmid))
	if r := e.run(adopt, "plan", "-input=false", "-no-color", "-generate-config-out=generated.tf"); r.exitCode != 0 {
		t.Fatalf("plan with generated configuration (exit %d):\n%s", r.exitCode, r.output)
	}
	mark = len(e.sim.Requests())
	r = e.apply(adopt, 4)
	if r.exitCode != 0 || !strings.Contains(r.output, "9 imported, 0 added, 0 changed, 0 destroyed") {
		t.Fatalf("the import should change nothing (exit %d):\n%s", r.exitCode, r.output)
	}
	if got := writesSince(e.sim, mark, "/"); len(got) != 0 {
		t.Errorf("the import wrote to PVE: %v", got)
	}
	e.mustPlanEmpty(adopt)
}
