package firewall_test

import (
	"context"
	"fmt"
	"regexp"
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
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// groupAndUsers is a security group with one rule and a guest's rule list
// that applies it.
func groupAndUsers(tg *acctest.Target, name, comment string, vmid int, extraGuestRules ...string) string {
	extra := ""
	for _, rule := range extraGuestRules {
		extra += "    " + rule + ",\n"
	}
	commentLine := ""
	if comment != "" {
		commentLine = fmt.Sprintf("comment = %q", comment)
	}
	return tg.Config(fmt.Sprintf(`
resource "pve_firewall_security_group" "web" {
  name = %q
  %s
}

resource "pve_firewall_rules" "web" {
  security_group = pve_firewall_security_group.web.name
  rules = [
    { type = "in", action = "ACCEPT", macro = "HTTPS" },
  ]
}

resource "pve_firewall_rules" "guest" {
  vmid = %d
  rules = [
    { type = "group", action = pve_firewall_security_group.web.ref, iface = "net0" },
%s    { type = "in", action = "DROP", log = "info" },
  ]
}
`, name, commentLine, vmid, extra))
}

// addGuest puts a VM into the simulated cluster, for firewall tests that
// need a guest but not its lifecycle.
func addGuest(t *testing.T, tg *acctest.Target, vmid int) {
	t.Helper()
	if err := tg.Sim.AddGuest(pvesim.Guest{VMID: vmid, Node: "pve1", Type: pvesim.QEMU,
		Config: map[string]string{"name": "web", "net0": "virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1"}}); err != nil {
		t.Fatal(err)
	}
}

// A security group renamed in place keeps its rules, and PVE carries the
// new name into every rule that uses it: the plan after is empty.
func TestAccFirewallSecurityGroup_renameInPlace(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("needs a guest made inside the simulator")
	}
	t.Parallel()
	tg := acctest.New(t)
	addGuest(t, tg, 100)
	guestRules := pveapi.FirewallRuleList{Scope: pveapi.FirewallScope{Node: "pve1", GuestType: "qemu", VMID: 100}}
	update := func(addr string) plancheck.PlanCheck {
		return plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(_ *terraform.State) error {
			groups, err := tg.Client.SecurityGroups(context.Background())
			if err == nil && len(groups) > 0 {
				err = fmt.Errorf("security groups left after destroy: %v", groups)
			}
			return err
		},
		Steps: []resource.TestStep{
			{
				Config: groupAndUsers(tg, "web", "web tier", 100),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_firewall_security_group.web", tfjsonpath.New("ref"), knownvalue.StringExact("web")),
					expectLiveRules(tg, guestRules, "group web enable=1", "in DROP enable=1"),
					expectLiveRules(tg, pveapi.FirewallRuleList{Group: "web"}, "in ACCEPT HTTPS enable=1"),
				},
			},
			{
				// Renamed, and a rule added in the same apply to a list
				// that uses the group.
				Config: groupAndUsers(tg, "webtier", "", 100, `{ type = "in", action = "ACCEPT", macro = "SSH" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					update("pve_firewall_security_group.web"), update("pve_firewall_rules.web"), update("pve_firewall_rules.guest"),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					expectLiveRules(tg, guestRules, "group webtier enable=1", "in ACCEPT SSH enable=1", "in DROP enable=1"),
					expectLiveRules(tg, pveapi.FirewallRuleList{Group: "webtier"}, "in ACCEPT HTTPS enable=1"),
					statecheck.ExpectKnownValue("pve_firewall_security_group.web", tfjsonpath.New("comment"), knownvalue.Null()),
				},
			},
			{
				ResourceName:      "pve_firewall_security_group.web",
				ImportState:       true,
				ImportStateId:     "webtier",
				ImportStateVerify: true,
			},
			{
				ResourceName:      "pve_firewall_rules.web",
				ImportState:       true,
				ImportStateId:     "group/webtier",
				ImportStateVerify: true,
			},
			{
				ResourceName:      "pve_firewall_rules.guest",
				ImportState:       true,
				ImportStateId:     "guest/100",
				ImportStateVerify: true,
			},
		},
	})
}

// Wire rules: W52.
func TestFirewallSecurityGroupPlanRefusesBadNames(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for name, want := range map[string]string{
		"Web":                 `lowercase`,
		"a":                   `name`,
		"1web":                `name`,
		"a-very-long-name-xx": `name`,
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_firewall_security_group", map[string]any{"name": name}), "name", regexp.MustCompile(want))
	}
}

// guestKind is a kind of guest and the configuration of one of it.
type guestKind struct {
	resource, guestType string
	body                func(vmid int, name string) string
}

var firewallGuestKinds = []guestKind{
	{"pve_vm", "qemu", func(vmid int, name string) string {
		return fmt.Sprintf(`
  node          = "pve1"
  vmid          = %d
  name          = %q
  scsi_hardware = "virtio-scsi-single"
  memory        = { size = 1024 }
  disks = {
    scsi0 = { storage = "local-lvm", size = 2 }
  }
  network = {
    net0 = { bridge = "vmbr0", firewall = true }
  }
`, vmid, name)
	}},
	{"pve_container", "lxc", func(vmid int, name string) string {
		return fmt.Sprintf(`
  node        = "pve1"
  vmid        = %d
  hostname    = %q
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  root_disk   = { storage = "local-lvm", size = 4 }
  network = {
    net0 = { name = "eth0", bridge = "vmbr0", firewall = true }
  }
`, vmid, name)
	}},
}

// A guest's firewall goes with the guest: updating the guest keeps it,
// replacing the guest leaves nothing of the old one's. Both kinds.
func TestAccFirewallRules_guestReplacedOrUpdated(t *testing.T) {
	if acctest.IsLive() {
		t.Skip("replaces guests at fixed VMIDs, which a live node may use")
	}
	t.Parallel()
	for _, kind := range firewallGuestKinds {
		t.Run(kind.resource, func(t *testing.T) {
			t.Parallel()
			testGuestReplacedOrUpdated(t, kind)
		})
	}
}

func testGuestReplacedOrUpdated(t *testing.T, kind guestKind) {
	tg := acctest.New(t)
	guest := kind.resource + ".web"
	config := func(vmid int, name string) string {
		return tg.Config(fmt.Sprintf(`
resource %q "web" {%s}

resource "pve_firewall_rules" "web" {
  vmid = %s.vmid
  rules = [
    { type = "in", action = "ACCEPT", macro = "SSH", iface = "net0" },
  ]
  lifecycle {
    replace_triggered_by = [%s.id]
  }
}
`, kind.resource, kind.body(vmid, name), guest, guest))
	}
	list := func(vmid int) pveapi.FirewallRuleList {
		return pveapi.FirewallRuleList{Scope: pveapi.FirewallScope{Node: "pve1", GuestType: kind.guestType, VMID: vmid}}
	}
	first, second := 120, 121
	watch := acctest.NewPathWriteWatch(tg, fmt.Sprintf("/nodes/pve1/%s/%d/firewall", kind.guestType, first))
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config(first, "web")},
			{
				// An update of the guest leaves its firewall alone.
				PreConfig: watch.Mark,
				Config:    config(first, "web-1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(guest, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction("pve_firewall_rules.web", plancheck.ResourceActionNoop),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					watch.None(),
					expectLiveRules(tg, list(first), "in ACCEPT SSH enable=1"),
				},
			},
			{
				// A replaced guest: the old one's firewall went with it,
				// the new one gets the rules.
				Config: config(second, "web-1"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(guest, plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectResourceAction("pve_firewall_rules.web", plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.CheckState(func(*tfjson.State) error {
						old, _, err := tg.Client.FirewallRules(context.Background(), list(first))
						if err == nil && len(old) > 0 {
							err = fmt.Errorf("the replaced guest %d still has firewall rules: %v", first, old)
						}
						return err
					}),
					expectLiveRules(tg, list(second), "in ACCEPT SSH enable=1"),
				},
			},
		},
	})
}
