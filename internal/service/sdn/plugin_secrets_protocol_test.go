package sdn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// standIn is a local HTTP server standing in for NetBox, phpIPAM or
// PowerDNS, which PVE calls on every write of an IPAM or DNS server. It
// records the credential each call carried in header.
type standIn struct {
	*httptest.Server
	mu    sync.Mutex
	seen  []string
	paths []string
}

func newStandIn(t *testing.T, header string) *standIn {
	t.Helper()
	s := &standIn{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Header.Get(header))
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"data":[]}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return ""
	}
	return s.seen[len(s.seen)-1]
}

// sdnSecretCase is one family's secret: the attribute, the simulator's key
// and the stand-in's header.
type sdnSecretCase struct {
	rt, kind, id, attr, key, header, prefix string
	base                                    func(url string) map[string]any
	change                                  string
	changeTo                                any
}

var sdnSecretCases = []sdnSecretCase{
	{rt: "pve_sdn_ipam", kind: pvesim.SDNIpams, id: "netbox1", attr: "token_wo", key: "token", header: "Authorization", prefix: "token ",
		base: func(u string) map[string]any {
			return map[string]any{"ipam": "netbox1", "type": "netbox", "url": u + "/api"}
		}, change: "fingerprint", changeTo: strings.Repeat("ab:", 31) + "cd"},
	{rt: "pve_sdn_ipam", kind: pvesim.SDNIpams, id: "php1", attr: "token_wo", key: "token", header: "Token",
		base: func(u string) map[string]any {
			return map[string]any{"ipam": "php1", "type": "phpipam", "url": u + "/api/pve", "section": 1}
		}, change: "section", changeTo: 2},
	{rt: "pve_sdn_dns", kind: pvesim.SDNDNS, id: "pdns1", attr: "key_wo", key: "key", header: "X-API-Key",
		base: func(u string) map[string]any {
			return map[string]any{"dns": "pdns1", "type": "powerdns", "url": u + "/api/v1/servers/localhost"}
		}, change: "ttl", changeTo: 600},
}

// IPAM tokens and DNS keys are write-only: sent at creation and when their
// version changes, never in state or plan (PVE's GET returns them: they are
// dropped), and PVE calls the external API with the value sent. An import
// warns that the secret is not read. On PVE 9 and 8.4.
func TestSDNPluginSecretsWriteOnly(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		for _, tc := range sdnSecretCases {
			t.Run(tc.id+"/"+version, func(t *testing.T) {
				t.Parallel()
				p := acctest.NewProtocolOnPVE(t, version)
				if version == "" {
					p = acctest.NewProtocol(t)
				}
				api := newStandIn(t, tc.header)
				base := tc.base(api.URL)
				kept := func() string {
					var v string
					p.Sim.View(func(c *pvesim.Cluster) {
						if obj := c.SDN.Get(tc.kind, tc.id); obj != nil {
							v = obj.Props[tc.key]
						}
					})
					return v
				}
				first := p.Config(t, tc.rt, pluginWith(base, tc.attr, "first-secret-value", tc.attr+"_version", 1))
				state, plan := pluginApply(t, p, tc.rt, p.NullState(t, tc.rt), first)
				for _, dv := range []*tfprotov6.DynamicValue{state, plan.PlannedState} {
					if v := pluginAttr(t, p, tc.rt, dv, tc.attr); !v.IsNull() {
						t.Errorf("%s is %v in state or plan", tc.attr, v)
					}
					if strings.Contains(string(dv.MsgPack)+string(dv.JSON), "first-secret-value") {
						t.Error("the secret is in state or plan")
					}
				}
				if kept() != "first-secret-value" || api.last() != tc.prefix+"first-secret-value" {
					t.Errorf("PVE keeps %q and called the API with %q", kept(), api.last())
				}
				pluginNoChange(t, p, tc.rt, p.Read(t, tc.rt, state, nil), first, "after create")
				pluginNoChange(t, p, tc.rt, state, p.Config(t, tc.rt, pluginWith(base, tc.attr, "second-secret-value", tc.attr+"_version", 1)),
					"new value, same version")

				second := p.Config(t, tc.rt, pluginWith(base, tc.attr, "second-secret-value", tc.attr+"_version", 2))
				state, plan = pluginApply(t, p, tc.rt, state, second)
				if len(plan.RequiresReplace) > 0 {
					t.Errorf("a new secret version replaces: %v", plan.RequiresReplace)
				}
				if kept() != "second-secret-value" || api.last() != tc.prefix+"second-secret-value" {
					t.Errorf("after the version change PVE keeps %q and called the API with %q", kept(), api.last())
				}
				pluginNoChange(t, p, tc.rt, p.Read(t, tc.rt, state, nil), second, "after the secret change")

				// An option changes in place; PVE keeps the secret.
				changedAttrs := pluginWith(base, tc.attr, "second-secret-value", tc.attr+"_version", 2, tc.change, tc.changeTo)
				if tc.change == "fingerprint" {
					// The stand-in has no certificate to pin: change the URL instead.
					changedAttrs = pluginWith(changedAttrs, "fingerprint", nil, "url", api.URL+"/api/v2")
				}
				changed := p.Config(t, tc.rt, changedAttrs)
				state, plan = pluginApply(t, p, tc.rt, state, changed)
				if len(plan.RequiresReplace) > 0 {
					t.Errorf("an option change replaces: %v", plan.RequiresReplace)
				}
				if kept() != "second-secret-value" {
					t.Errorf("an option change lost the secret: %q", kept())
				}
				pluginNoChange(t, p, tc.rt, p.Read(t, tc.rt, state, nil), changed, "after the option change")

				imp := p.ImportDiagnostics(t, tc.rt, tc.id)
				if w := acctest.Warning(imp, "Secrets Not Imported"); !strings.Contains(w, tc.attr) {
					t.Errorf("the import does not warn about %s: %q", tc.attr, w)
				}
				imported := p.Import(t, tc.rt, tc.id)
				want := p.WithAttribute(t, tc.rt, state, tc.attr+"_version", tftypes.NewValue(tftypes.Number, nil))
				if !p.StateValue(t, tc.rt, imported).Equal(p.StateValue(t, tc.rt, want)) {
					diffs, _ := p.StateValue(t, tc.rt, want).Diff(p.StateValue(t, tc.rt, imported))
					t.Errorf("the import differs beyond the secret's version: %v", diffs)
				}
				if strings.Contains(string(imported.MsgPack), "second-secret-value") {
					t.Error("the import put the secret into state")
				}
				// After an import the version is unknown to Terraform: the
				// configuration's version sends the secret once.
				plan = p.PlanResponse(t, tc.rt, imported, changed)
				if msg := pluginErrors(plan.Diagnostics); msg != "" || len(plan.RequiresReplace) > 0 {
					t.Fatalf("plan after import: %s %v", msg, plan.RequiresReplace)
				}

				pluginDestroy(t, p, tc.rt, state)
				if kept() != "" {
					t.Error("the object is still in PVE after destroy")
				}
			})
		}
	}
}

// An IPAM, DNS server or fabric node deleted outside Terraform reads as
// gone, so the next plan creates it again. (The provider's session holds
// PVE 9's lock from its writes; the outside deletion uses its token.)
func TestSDNObjectsDisappear(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	api := newStandIn(t, "X-API-Key")
	for _, tc := range []struct {
		rt     string
		cfg    map[string]any
		delete func() error
	}{
		{"pve_sdn_ipam", map[string]any{"ipam": "pve2", "type": "pve"}, func() error {
			return p.Client.DeleteSDNPlugin(ctx, wire.SDNIPAMs, "pve2", p.Sim.SDNLockToken())
		}},
		{"pve_sdn_dns", pluginWith(sdnSecretCases[2].base(api.URL), "key_wo", "k1"), func() error {
			return p.Client.DeleteSDNPlugin(ctx, wire.SDNDNSServers, "pdns1", p.Sim.SDNLockToken())
		}},
		{"pve_sdn_fabric", openFabric, nil},
		{"pve_sdn_fabric_node", fabricNode, func() error {
			return p.Client.DeleteSDNFabricNode(ctx, "fab1", "pve1", p.Sim.SDNLockToken())
		}},
	} {
		state, _ := pluginApply(t, p, tc.rt, p.NullState(t, tc.rt), p.Config(t, tc.rt, tc.cfg))
		if tc.delete == nil {
			continue
		}
		if err := tc.delete(); err != nil {
			t.Fatalf("%s: %v", tc.rt, err)
		}
		if got := p.ReadResponse(t, tc.rt, state, nil).NewState; got != nil && !p.StateValue(t, tc.rt, got).IsNull() {
			t.Errorf("%s deleted outside Terraform still reads as present", tc.rt)
		}
	}
}

// A write PVE refuses (NetBox unreachable: PVE checks the API on every
// write) fails the apply with PVE's reason, without the token, and on PVE 9
// the SDN lock the run took is released.
func TestSDNIPAMRefusedWriteReleasesTheLock(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	rt := "pve_sdn_ipam"
	cfg := p.Config(t, rt, map[string]any{"ipam": "nb", "type": "netbox", "url": down.URL + "/api", "token_wo": "refused-token-4711"})
	plan := p.PlanResponse(t, rt, p.NullState(t, rt), cfg)
	resp, err := p.Server.ApplyResourceChange(context.Background(), &tfprotov6.ApplyResourceChangeRequest{
		TypeName: rt, PriorState: p.NullState(t, rt), PlannedState: plan.PlannedState, Config: cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := pluginErrors(resp.Diagnostics)
	acctest.WantAll(t, "the refusal", msg, "Unable To Create SDN IPAM", "Can't connect to netbox api")
	if strings.Contains(msg, "refused-token-4711") {
		t.Error("the error carries the token")
	}
	if tok := p.Sim.SDNLockToken(); tok != "" {
		t.Error("the SDN lock is still held after the failed write")
	}
}
