package pveapi

import (
	"context"
	"net/http"
	"testing"
)

// Each firewall call is the one request PVE's firewall API takes for it
// (W50, W51): rules by position with the list's digest, a move as moveto,
// an IP set address with its slash as part of the path.
func TestFirewallCallsSendTheRightRequest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	guest := FirewallScope{Node: "pve1", GuestType: GuestTypeLXC, VMID: 200}
	group := FirewallRuleList{Group: "web"}
	comment := "tier"
	cases := []struct {
		name                      string
		call                      func(c *Client) error
		method, path, query, body string
	}{
		{"create a cluster rule", func(c *Client) error {
			return c.CreateFirewallRule(ctx, FirewallRuleList{}, map[string]string{"type": "in", "action": "ACCEPT", "enable": "1"})
		}, "POST", "/cluster/firewall/rules", "", "action=ACCEPT&enable=1&type=in"},
		{"update a guest rule with its digest", func(c *Client) error {
			return c.UpdateFirewallRule(ctx, FirewallRuleList{Scope: guest}, 3, map[string]string{"dport": "443"}, []string{"macro", "log"}, "abc")
		}, "PUT", "/nodes/pve1/lxc/200/firewall/rules/3", "", "delete=macro%2Clog&digest=abc&dport=443"},
		{"move a group rule", func(c *Client) error {
			return c.MoveFirewallRule(ctx, group, 5, 1, "abc")
		}, "PUT", "/cluster/firewall/groups/web/5", "", "digest=abc&moveto=1"},
		{"delete a node rule", func(c *Client) error {
			return c.DeleteFirewallRule(ctx, FirewallRuleList{Scope: FirewallScope{Node: "pve2"}}, 0, "abc")
		}, "DELETE", "/nodes/pve2/firewall/rules/0", "digest=abc", ""},
		{"options", func(c *Client) error {
			return c.UpdateFirewallOptions(ctx, guest, map[string]string{"enable": "1"}, []string{"policy_in"}, "")
		}, "PUT", "/nodes/pve1/lxc/200/firewall/options", "", "delete=policy_in&enable=1"},
		{"rename a security group", func(c *Client) error {
			return c.UpdateSecurityGroup(ctx, "web", "webtier", &comment, "d")
		}, "POST", "/cluster/firewall/groups", "", "comment=tier&digest=d&group=webtier&rename=web"},
		{"rename an alias", func(c *Client) error {
			return c.UpdateFirewallAlias(ctx, FirewallScope{}, "office", "hq", "192.0.2.0/24", "", "d")
		}, "PUT", "/cluster/firewall/aliases/office", "", "cidr=192.0.2.0%2F24&digest=d&rename=hq"},
		{"add an IP set address", func(c *Client) error {
			return c.AddIPSetEntry(ctx, guest, "clients", IPSetEntry{CIDR: "10.0.0.0/8", NoMatch: true})
		}, "POST", "/nodes/pve1/lxc/200/firewall/ipset/clients", "", "cidr=10.0.0.0%2F8&nomatch=1"},
		{"delete an IP set address", func(c *Client) error {
			return c.DeleteIPSetEntry(ctx, FirewallScope{}, "clients", "10.0.0.0/8", "d")
		}, "DELETE", "/cluster/firewall/ipset/clients/10.0.0.0/8", "digest=d", ""},
		{"delete a non-empty IP set", func(c *Client) error {
			return c.DeleteIPSet(ctx, FirewallScope{}, "clients", true)
		}, "DELETE", "/cluster/firewall/ipset/clients", "force=1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
			if err := tc.call(f.client()); err != nil {
				t.Fatalf("call: %v", err)
			}
			sent := f.requests()
			want := sentRequest{method: tc.method, path: tc.path, query: tc.query, body: tc.body}
			if len(sent) != 1 || sent[0] != want {
				t.Errorf("sent %+v\nwant %+v", sent, want)
			}
		})
	}
}

// A rule list is read with its keys as PVE prints them, numbers included,
// and the list's digest.
func TestFirewallRulesDecode(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{
			{"pos": 0, "type": "in", "action": "ACCEPT", "enable": 1, "ipversion": 4, "source": "10.0.0.0/8", "digest": "d1"},
			{"pos": 1, "type": "group", "action": "web", "enable": 0, "digest": "d1"},
		})
	})
	rules, digest, err := f.client().FirewallRules(context.Background(), FirewallRuleList{})
	if err != nil {
		t.Fatal(err)
	}
	if digest != "d1" || len(rules) != 2 || rules[0].Fields["enable"] != "1" || rules[0].Fields["ipversion"] != "4" ||
		rules[1].Pos != 1 || rules[1].Fields["enable"] != "0" || rules[0].Fields["digest"] != "" {
		t.Errorf("read %+v with digest %q", rules, digest)
	}
}

// PVE's refusal of a stale digest is told apart from other failures (W51).
func TestIsDigestMismatch(t *testing.T) {
	t.Parallel()
	f := newCatchAllPVE(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			writePVEError(w, 500, "detected modified configuration - file changed by other user? Try again.")
			return
		}
		writePVEError(w, 500, "no such security group 'web'")
	})
	c := f.client()
	err := c.DeleteFirewallRule(context.Background(), FirewallRuleList{}, 0, "stale")
	if !IsDigestMismatch(err) || IsNoSuchSecurityGroup(err) {
		t.Errorf("digest refusal: IsDigestMismatch %v, IsNoSuchSecurityGroup %v", IsDigestMismatch(err), IsNoSuchSecurityGroup(err))
	}
	_, _, err = c.FirewallRules(context.Background(), FirewallRuleList{Group: "web"})
	if IsDigestMismatch(err) || !IsNoSuchSecurityGroup(err) {
		t.Errorf("missing group: IsDigestMismatch %v, IsNoSuchSecurityGroup %v", IsDigestMismatch(err), IsNoSuchSecurityGroup(err))
	}
}
