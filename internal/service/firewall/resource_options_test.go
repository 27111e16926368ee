package firewall_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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

const optionsAddr = "pve_firewall_options.test"

var clusterFirewall = pveapi.FirewallScope{}

// skipOnLiveCluster keeps the tests that change the cluster's firewall to
// the simulator.
func skipOnLiveCluster(t *testing.T) {
	t.Helper()
	if acctest.IsLive() {
		t.Skip("changes the cluster's firewall, which on a live cluster could cut off every node; runs against the simulator only")
	}
}

func optionsConfig(tg *acctest.Target, body string) string {
	return tg.Config("resource \"pve_firewall_options\" \"test\" {\n" + body + "\n}\n")
}

// pveOptions reads a firewall's options as PVE holds them.
func pveOptions(tg *acctest.Target, scope pveapi.FirewallScope) (map[string]string, error) {
	opts, _, err := tg.Client.FirewallOptions(context.Background(), scope)
	return opts, err
}

// expectOptions checks the options PVE holds: want's keys with their
// values, and none of absent.
func expectOptions(tg *acctest.Target, scope func() pveapi.FirewallScope, want map[string]string, absent ...string) error {
	opts, err := pveOptions(tg, scope())
	if err != nil {
		return err
	}
	for k, v := range want {
		if opts[k] != v {
			return fmt.Errorf("PVE has %s = %q, want %q (all: %v)", k, opts[k], v, opts)
		}
	}
	for _, k := range absent {
		if v, ok := opts[k]; ok {
			return fmt.Errorf("PVE still has %s = %q", k, v)
		}
	}
	return nil
}

func checkOptions(tg *acctest.Target, scope func() pveapi.FirewallScope, want map[string]string, absent ...string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error { return expectOptions(tg, scope, want, absent...) })
}

func fixed(scope pveapi.FirewallScope) func() pveapi.FirewallScope {
	return func() pveapi.FirewallScope { return scope }
}

func TestAccOptions_cluster(t *testing.T) {
	skipOnLiveCluster(t)
	t.Parallel()
	tg := acctest.New(t)
	cluster := fixed(clusterFirewall)

	first := `
  enabled   = true
  policy_in = "DROP"
  ebtables  = false
  log_ratelimit = {
    enabled = true
    rate    = "10/minute"
    burst   = 20
  }`
	second := `
  enabled    = true
  policy_in  = "REJECT"
  policy_out = "ACCEPT"
  ebtables   = true
  log_ratelimit = {
    enabled = false
    rate    = "2/second"
  }`
	third := `
  enabled    = true
  policy_in  = "REJECT"
  policy_out = "ACCEPT"`

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			// The managed options are deleted; the one set outside
			// Terraform stays.
			return expectOptions(tg, cluster, map[string]string{"policy_forward": "DROP"}, "enable", "policy_in", "policy_out")
		},
		Steps: []resource.TestStep{
			{
				Config:           optionsConfig(tg, first),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster")),
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("enabled"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("policy_out"), knownvalue.Null()),
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("log_ratelimit"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"enabled": knownvalue.Bool(true), "rate": knownvalue.StringExact("10/minute"), "burst": knownvalue.Int64Exact(20),
					})),
					checkOptions(tg, cluster, map[string]string{"enable": "1", "policy_in": "DROP", "ebtables": "0",
						"log_ratelimit": "enable=1,rate=10/minute,burst=20"}),
				},
			},
			{
				Config:           optionsConfig(tg, second),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("log_ratelimit"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"enabled": knownvalue.Bool(false), "rate": knownvalue.StringExact("2/second"), "burst": knownvalue.Null(),
					})),
					checkOptions(tg, cluster, map[string]string{"enable": "1", "policy_in": "REJECT", "policy_out": "ACCEPT",
						"ebtables": "1", "log_ratelimit": "enable=0,rate=2/second"}),
				},
			},
			{
				// Removed from configuration: deleted in PVE, whose
				// defaults apply again.
				Config:           optionsConfig(tg, third),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("ebtables"), knownvalue.Null()),
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("log_ratelimit"), knownvalue.Null()),
					checkOptions(tg, cluster, map[string]string{"policy_in": "REJECT"}, "ebtables", "log_ratelimit"),
				},
			},
			{
				ResourceName:      optionsAddr,
				ImportState:       true,
				ImportStateId:     "cluster",
				ImportStateVerify: true,
			},
			importBlockNoopStep(optionsConfig(tg, third), optionsAddr, "cluster"),
			{
				// A managed option changed outside Terraform shows as a
				// diff and is put back; an option the configuration does
				// not name is left alone.
				PreConfig: func() {
					setOutside(t, tg, clusterFirewall, map[string]string{"policy_in": "ACCEPT", "policy_forward": "DROP"})
				},
				Config:           optionsConfig(tg, third),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("policy_forward"), knownvalue.Null()),
					checkOptions(tg, cluster, map[string]string{"policy_in": "REJECT", "policy_forward": "DROP"}),
				},
			},
		},
	})
}

func setOutside(t *testing.T, tg *acctest.Target, scope pveapi.FirewallScope, set map[string]string, remove ...string) {
	t.Helper()
	if err := tg.Client.UpdateFirewallOptions(context.Background(), scope, set, remove, ""); err != nil {
		t.Fatalf("change firewall options outside Terraform: %v", err)
	}
}

// Options another client set, log_ratelimit in PVE's own printed form
// included, import into a configuration that plans no changes.
func TestAccOptions_importSetOutside(t *testing.T) {
	skipOnLiveCluster(t)
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					setOutside(t, tg, clusterFirewall, map[string]string{"policy_in": "ACCEPT", "ebtables": "0",
						"log_ratelimit": "1,burst=5,rate=1/second"})
				},
				Config:          optionsConfig(tg, "  policy_in = \"ACCEPT\"\n  ebtables = false\n  log_ratelimit = { enabled = true, burst = 5, rate = \"1/second\" }"),
				ResourceName:    optionsAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "cluster",
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(optionsAddr, plancheck.ResourceActionNoop)},
				},
			},
		},
	})
}

func TestAccOptions_node(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	node := fixed(pveapi.FirewallScope{Node: "pve1"})

	first := `
  node                     = "pve1"
  log_level_in             = "info"
  smurf_filter             = true
  nf_conntrack_max         = 65536
  nf_conntrack_helpers     = ["sip", "ftp"]
  protection_synflood      = true
  protection_synflood_rate = 100`
	second := `
  node                              = "pve1"
  log_level_in                      = "warning"
  log_level_forward                 = "nolog"
  smurf_filter                      = false
  tcp_flags_filter                  = true
  tcp_flags_log_level               = "err"
  smurf_log_level                   = "crit"
  ndp                               = false
  nf_conntrack_max                  = 131072
  nf_conntrack_tcp_timeout_established = 86400
  nf_conntrack_tcp_timeout_syn_recv = 45
  nf_conntrack_allow_invalid        = true
  nf_conntrack_helpers              = ["ftp", "sip", "tftp"]
  protection_synflood               = true
  protection_synflood_rate          = 150
  protection_synflood_burst         = 2000
  log_nf_conntrack                  = true
  log_level_out                     = "debug"`
	third := `
  node                 = "pve1"
  log_level_in         = "warning"
  nf_conntrack_helpers = ["ftp", "sip", "tftp"]`
	managed := []string{"log_level_in", "log_level_out", "log_level_forward", "nosmurfs", "tcpflags", "tcp_flags_log_level",
		"smurf_log_level", "ndp", "nf_conntrack_max", "nf_conntrack_tcp_timeout_established", "nf_conntrack_tcp_timeout_syn_recv",
		"nf_conntrack_allow_invalid", "nf_conntrack_helpers", "protection_synflood", "protection_synflood_rate",
		"protection_synflood_burst", "log_nf_conntrack"}

	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error { return expectOptions(tg, node, nil, managed...) },
		Steps: []resource.TestStep{
			{
				Config:           optionsConfig(tg, first),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("id"), knownvalue.StringExact("node/pve1")),
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("nf_conntrack_helpers"),
						knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("ftp"), knownvalue.StringExact("sip")})),
					checkOptions(tg, node, map[string]string{"log_level_in": "info", "nosmurfs": "1", "nf_conntrack_max": "65536",
						"nf_conntrack_helpers": "ftp,sip", "protection_synflood": "1", "protection_synflood_rate": "100"}),
				},
			},
			{
				Config:           optionsConfig(tg, second),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					checkOptions(tg, node, map[string]string{"log_level_in": "warning", "log_level_forward": "nolog", "nosmurfs": "0",
						"tcpflags": "1", "tcp_flags_log_level": "err", "smurf_log_level": "crit", "ndp": "0", "nf_conntrack_max": "131072",
						"nf_conntrack_tcp_timeout_established": "86400", "nf_conntrack_tcp_timeout_syn_recv": "45",
						"nf_conntrack_allow_invalid": "1", "nf_conntrack_helpers": "ftp,sip,tftp", "protection_synflood_rate": "150",
						"protection_synflood_burst": "2000", "log_nf_conntrack": "1", "log_level_out": "debug"}),
				},
			},
			{
				Config:           optionsConfig(tg, third),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("nf_conntrack_max"), knownvalue.Null()),
					checkOptions(tg, node, map[string]string{"log_level_in": "warning"},
						slices.DeleteFunc(slices.Clone(managed), func(k string) bool { return k == "log_level_in" || k == "nf_conntrack_helpers" })...),
				},
			},
			{
				ResourceName:      optionsAddr,
				ImportState:       true,
				ImportStateId:     "node/pve1",
				ImportStateVerify: true,
			},
			importBlockNoopStep(optionsConfig(tg, third), optionsAddr, "node/pve1"),
			{
				PreConfig:        func() { setOutside(t, tg, node(), nil, "nf_conntrack_helpers") },
				Config:           optionsConfig(tg, third),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					checkOptions(tg, node, map[string]string{"nf_conntrack_helpers": "ftp,sip,tftp"}),
				},
			},
		},
	})
}

// guestConfig is a stopped VM and the options of its firewall.
func guestConfig(tg *acctest.Target, name, options string) string {
	vm := fmt.Sprintf(`
resource "pve_vm" "guest" {
  node    = "pve1"
  name    = %q
  started = false
}
`, name)
	if options == "" {
		return tg.Config(vm)
	}
	return tg.Config(vm + "\nresource \"pve_firewall_options\" \"test\" {\n  vmid = pve_vm.guest.vmid\n" + options + "\n}\n")
}

func TestAccOptions_guest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc-fw")
	guest := acctest.NewGuest("pve_vm.guest")
	scope := func() pveapi.FirewallScope {
		return pveapi.FirewallScope{Node: guest.Node, GuestType: "qemu", VMID: guest.VMID}
	}
	check := func(want map[string]string, absent ...string) statecheck.StateCheck {
		return guest.Check(func() error { return expectOptions(tg, scope, want, absent...) })
	}

	first := `
  enabled      = true
  mac_filter   = false
  policy_in    = "DROP"
  log_level_in = "info"`
	second := `
  enabled              = false
  mac_filter           = true
  ip_filter            = true
  dhcp                 = true
  ndp                  = false
  router_advertisement = true
  policy_in            = "ACCEPT"
  policy_out           = "REJECT"
  log_level_in         = "nolog"
  log_level_out        = "warning"`
	third := `
  enabled   = false
  ip_filter = true`
	all := []string{"enable", "macfilter", "ipfilter", "dhcp", "ndp", "radv", "policy_in", "policy_out", "log_level_in", "log_level_out"}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:           guestConfig(tg, name, first),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					check(map[string]string{"enable": "1", "macfilter": "0", "policy_in": "DROP", "log_level_in": "info"}),
					acctest.CheckState(func(state *tfjson.State) error {
						id, err := acctest.StringAt(state, optionsAddr, tfjsonpath.New("id"))
						if err == nil && id != fmt.Sprintf("guest/%d", guest.VMID) {
							err = fmt.Errorf("id = %q, want guest/%d", id, guest.VMID)
						}
						return err
					}),
				},
			},
			{
				Config:            guestConfig(tg, name, second),
				ConfigPlanChecks:  expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{check(map[string]string{"enable": "0", "macfilter": "1", "ipfilter": "1", "dhcp": "1", "ndp": "0", "radv": "1", "policy_in": "ACCEPT", "policy_out": "REJECT", "log_level_in": "nolog", "log_level_out": "warning"})},
			},
			{
				Config:            guestConfig(tg, name, third),
				ConfigPlanChecks:  expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{check(map[string]string{"enable": "0", "ipfilter": "1"}, "macfilter", "dhcp", "ndp", "radv", "policy_in", "policy_out", "log_level_in", "log_level_out")},
			},
			{
				ResourceName:      optionsAddr,
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("guest/%d", guest.VMID), nil },
				ImportStateVerify: true,
			},
			{
				Config:            guestConfig(tg, name, third),
				ResourceName:      optionsAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return fmt.Sprintf("guest/%d", guest.VMID), nil },
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(optionsAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				PreConfig:        func() { setOutside(t, tg, scope(), map[string]string{"ipfilter": "0", "dhcp": "1"}) },
				Config:           guestConfig(tg, name, third),
				ConfigPlanChecks: expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(optionsAddr, tfjsonpath.New("dhcp"), knownvalue.Null()),
					check(map[string]string{"ipfilter": "1", "dhcp": "1"}),
				},
			},
			{
				// Without the resource, the guest's firewall has PVE's
				// defaults again, except what was set outside.
				Config:            guestConfig(tg, name, ""),
				ConfigStateChecks: []statecheck.StateCheck{check(map[string]string{"dhcp": "1"}, slices.DeleteFunc(slices.Clone(all), func(k string) bool { return k == "dhcp" })...)},
			},
		},
	})
}

func TestAccOptions_guestMissing(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc-fw")
	guest := acctest.NewGuest("pve_vm.guest")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      optionsConfig(tg, "  vmid    = 999999990\n  enabled = true"),
				ExpectError: regexp.MustCompile(`(?s)Guest Not Found.*No VM or container has VMID 999999990`),
			},
			{
				Config:            guestConfig(tg, name, "  enabled = true"),
				ConfigStateChecks: []statecheck.StateCheck{guest.Check(func() error { return nil })},
			},
			{
				// The guest is deleted outside Terraform: its firewall
				// went with it, so refresh drops the options from state
				// and the plan makes both again.
				PreConfig: func() {
					upid, err := tg.Client.DeleteGuest(context.Background(), guest.Node, "qemu", guest.VMID, true, true)
					tg.Outside(t, "delete the guest", upid, err)
				},
				Config: guestConfig(tg, name, "  enabled = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("pve_vm.guest", plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(optionsAddr, plancheck.ResourceActionCreate),
				}},
			},
		},
	})
}

// changeOutsideBeforeApply is a plan check that changes the options in
// PVE after the plan was made, as another client would between refresh and
// apply.
type changeOutsideBeforeApply struct {
	t     *testing.T
	tg    *acctest.Target
	scope pveapi.FirewallScope
	set   map[string]string
}

func (c changeOutsideBeforeApply) CheckPlan(context.Context, plancheck.CheckPlanRequest, *plancheck.CheckPlanResponse) {
	setOutside(c.t, c.tg, c.scope, c.set)
}

func TestAccOptions_digestRefusesConcurrentChange(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	node := pveapi.FirewallScope{Node: "pve1"}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: optionsConfig(tg, "  node = \"pve1\"\n  log_level_in = \"info\"")},
			{
				// Another client changes an option the resource does not
				// even manage: PVE's digest covers them all, so the write
				// is refused rather than made over a view that is stale.
				Config: optionsConfig(tg, "  node = \"pve1\"\n  log_level_in = \"err\""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					changeOutsideBeforeApply{t: t, tg: tg, scope: node, set: map[string]string{"log_level_out": "crit"}},
				}},
				ExpectError: regexp.MustCompile(`(?s)Firewall Options Changed Outside Terraform.*detected modified\s+configuration.*Run plan\s+again`),
			},
			{
				Config:            optionsConfig(tg, "  node = \"pve1\"\n  log_level_in = \"err\""),
				ConfigPlanChecks:  expectActionOn(optionsAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{checkOptions(tg, fixed(node), map[string]string{"log_level_in": "err", "log_level_out": "crit"})},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			return expectOptions(tg, fixed(node), map[string]string{"log_level_out": "crit"}, "log_level_in")
		},
	})
}

// Options out of a firewall's scope and bad values are refused at plan
// time, naming the attribute.
func TestOptionsPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range []struct {
		attrs map[string]any
		want  string
	}{
		{map[string]any{"mac_filter": true}, `(?s)Option Not Available For This Firewall.*mac_filter \(PVE option macfilter\) is\s+an\s+option\s+of\s+guests'\s+firewall\s+only.*the\s+cluster's\s+firewall`},
		{map[string]any{"vmid": 100, "policy_forward": "DROP"}, `(?s)policy_forward.*the\s+cluster's\s+firewall\s+only.*guest\s+100's\s+firewall\s+\(vmid\s+is\s+set\)`},
		// Each option out of scope is refused on its own.
		{map[string]any{"node": "pve1", "policy_in": "DROP", "ebtables": true}, `(?s)policy_in \(PVE option policy_in\).*cluster's\s+and\s+guests'\s+firewalls\s+only`},
		{map[string]any{"node": "pve1", "policy_in": "DROP", "ebtables": true}, `(?s)ebtables \(PVE option ebtables\).*cluster's\s+firewall\s+only`},
		{map[string]any{"node": "pve1", "vmid": 100}, `(?s)Conflicting Firewall Scope.*not\s+both`},
		{map[string]any{"log_ratelimit": map[string]any{"enabled": true, "rate": "0/second"}}, `(?s)log_ratelimit.rate.*N/second`},
		{map[string]any{"node": "pve1", "nf_conntrack_helpers": []string{"http"}}, `(?s)nf_conntrack_helpers.*value must be one of`},
		{map[string]any{"node": "pve1", "nf_conntrack_helpers": []string{}}, `(?s)nf_conntrack_helpers.*at least 1`},
		{map[string]any{"node": "pve1", "nf_conntrack_tcp_timeout_syn_recv": 61}, `(?s)nf_conntrack_tcp_timeout_syn_recv.*between 30 and 60`},
		{map[string]any{"policy_in": "drop"}, `(?s)policy_in.*value must be one of`},
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_firewall_options", c.attrs), "", regexp.MustCompile(c.want))
	}
	acctest.WantError(t, p.ImportDiagnostics(t, "pve_firewall_options", "vm/100"), "",
		regexp.MustCompile(`(?s)Invalid Import ID.*cluster, node/NAME or\s+guest/VMID`))
}

// A nested object's required attribute is Terraform's own check of the
// configuration, before the provider sees it.
func TestAccOptions_badInput(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      optionsConfig(tg, "  log_ratelimit = { rate = \"1/minute\" }"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)log_ratelimit.*attribute "enabled" is\s+required`),
		}},
	})
}

// A missing privilege is named with its path.
func TestAccOptions_privileges(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("restricts the token's privileges, which only the simulator can do")
	}
	t.Parallel()
	tg := acctest.New(t)
	tg.Sim.SetPrivileges("root@pam!acctest", "Sys.Audit", "VM.Audit")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      optionsConfig(tg, "  node = \"pve1\"\n  log_level_in = \"info\""),
				ExpectError: regexp.MustCompile(`(?s)Sys\.Modify on\s+/nodes/pve1`),
			},
			{
				Config:      optionsConfig(tg, "  policy_out = \"ACCEPT\""),
				ExpectError: regexp.MustCompile(`(?s)Sys\.Modify on\s+/[^n]`),
			},
		},
	})
}

// A guest's options need VM.Config.Network on the guest; the error names
// the privilege and the path.
func TestAccOptions_guestPrivileges(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("restricts the token's privileges, which only the simulator can do")
	}
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc-fw")
	guest := acctest.NewGuest("pve_vm.guest")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            guestConfig(tg, name, ""),
				ConfigStateChecks: []statecheck.StateCheck{guest.Check(func() error { return nil })},
			},
			{
				PreConfig:   func() { tg.Sim.SetPrivileges("root@pam!acctest", "VM.Audit", "Sys.Audit", "Datastore.Audit") },
				Config:      guestConfig(tg, name, "  enabled = true"),
				ExpectError: regexp.MustCompile(`(?s)VM\.Config\.Network on\s+/vms/\d+`),
			},
			{
				// Full privileges again, so the guest can be destroyed.
				PreConfig: func() { tg.Sim.ClearPrivileges("root@pam!acctest") },
				Config:    guestConfig(tg, name, ""),
			},
		},
	})
}
