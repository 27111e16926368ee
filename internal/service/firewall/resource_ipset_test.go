package firewall_test

import (
	"context"
	"fmt"
	"regexp"
	"sort"
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

const ipsetAddr = "pve_firewall_ipset.test"

// ipsetConfig is the test IP set of the cluster's firewall; body holds
// its attribute lines after name.
func ipsetConfig(tg *acctest.Target, name, body string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_firewall_ipset\" \"test\" {\n  name = %q\n%s}\n", name, body))
}

// pveEntries lists an IP set's entries as PVE holds them, one line each:
// "[!]CIDR[ # comment]", sorted.
func pveEntries(client *pveapi.Client, fw pveapi.FirewallScope, name string) ([]string, error) {
	entries, _, err := client.IPSetEntries(context.Background(), fw, name)
	if err != nil {
		return nil, err
	}
	lines := make([]string, 0, len(entries))
	for _, e := range entries {
		line := e.CIDR
		if e.NoMatch {
			line = "!" + line
		}
		if e.Comment != "" {
			line += " # " + e.Comment
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	return lines, nil
}

// checkPVEEntries checks the entries PVE holds, written as pveEntries
// writes them.
func checkPVEEntries(tg *acctest.Target, fw pveapi.FirewallScope, name string, want ...string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		got, err := pveEntries(tg.Client, fw, name)
		if err != nil {
			return err
		}
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			return fmt.Errorf("IP set %s holds\n  %s\nwant\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		return nil
	})
}

// checkPVESet checks the set's comment as PVE holds it.
func checkPVESet(tg *acctest.Target, fw pveapi.FirewallScope, name, comment string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		set, found, err := pveIPSet(tg, fw, name)
		if err != nil {
			return err
		}
		if !found || set.Comment != comment {
			return fmt.Errorf("IP set %s: found %t, comment %q, want comment %q", name, found, set.Comment, comment)
		}
		return nil
	})
}

func pveIPSet(tg *acctest.Target, fw pveapi.FirewallScope, name string) (pveapi.IPSet, bool, error) {
	sets, err := tg.Client.IPSets(context.Background(), fw)
	if err != nil {
		return pveapi.IPSet{}, false, err
	}
	for _, s := range sets {
		if s.Name == name {
			return s, true, nil
		}
	}
	return pveapi.IPSet{}, false, nil
}

func checkIPSetGone(tg *acctest.Target, fw pveapi.FirewallScope, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := pveIPSet(tg, fw, name)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("IP set %s still exists", name)
		}
		return nil
	}
}

func expectIPSetAction(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(ipsetAddr, action)}}
}

// Wire rules: W51.
func TestAccFirewallIPSet_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	renamed := acctest.Name("tfacc")
	renamedConfig := ipsetConfig(tg, renamed, `  entries = {
    "10.0.0.0/8" = { comment = "internal" }
    "10.9.9.9"   = { nomatch = true }
  }
`)

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkIPSetGone(tg, clusterFW, renamed),
		Steps: []resource.TestStep{
			{
				Config: ipsetConfig(tg, name, `  comment = "trusted hosts"
  entries = {
    "192.0.2.0/24"  = { comment = "office" }
    "192.0.2.99"    = { nomatch = true }
    "2001:db8::/64" = {}
  }
`),
				ConfigPlanChecks: expectIPSetAction(plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster/"+name)),
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("entries"), knownvalue.MapExact(map[string]knownvalue.Check{
						"192.0.2.0/24":  knownvalue.ObjectExact(map[string]knownvalue.Check{"nomatch": knownvalue.Bool(false), "comment": knownvalue.StringExact("office")}),
						"192.0.2.99":    knownvalue.ObjectExact(map[string]knownvalue.Check{"nomatch": knownvalue.Bool(true), "comment": knownvalue.Null()}),
						"2001:db8::/64": knownvalue.ObjectExact(map[string]knownvalue.Check{"nomatch": knownvalue.Bool(false), "comment": knownvalue.Null()}),
					})),
					checkPVESet(tg, clusterFW, name, "trusted hosts"),
					checkPVEEntries(tg, clusterFW, name, "192.0.2.0/24 # office", "!192.0.2.99", "2001:db8::/64"),
				},
			},
			{
				// A changed comment and nomatch of two entries, one removed
				// and one added: in place.
				Config: ipsetConfig(tg, name, `  comment = "trusted hosts"
  entries = {
    "192.0.2.0/24" = { comment = "head office" }
    "192.0.2.99"   = {}
    "198.51.100.7" = { comment = "vpn" }
  }
`),
				ConfigPlanChecks:  expectIPSetAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEEntries(tg, clusterFW, name, "192.0.2.0/24 # head office", "192.0.2.99", "198.51.100.7 # vpn")},
			},
			{
				// A rename and a new comment of the set, in place.
				Config: ipsetConfig(tg, renamed, `  comment = "renamed"
  entries = {
    "192.0.2.0/24" = { comment = "head office" }
    "192.0.2.99"   = {}
    "198.51.100.7" = { comment = "vpn" }
  }
`),
				ConfigPlanChecks: expectIPSetAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster/"+renamed)),
					checkPVESet(tg, clusterFW, renamed, "renamed"),
					checkPVEEntries(tg, clusterFW, renamed, "192.0.2.0/24 # head office", "192.0.2.99", "198.51.100.7 # vpn"),
				},
				Check: checkIPSetGone(tg, clusterFW, name),
			},
			{
				// No comment and no entries: both cleared in place.
				Config:           ipsetConfig(tg, renamed, ""),
				ConfigPlanChecks: expectIPSetAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("entries"), knownvalue.Null()),
					checkPVESet(tg, clusterFW, renamed, ""),
					checkPVEEntries(tg, clusterFW, renamed),
				},
			},
			{
				Config:           renamedConfig,
				ConfigPlanChecks: expectIPSetAction(plancheck.ResourceActionUpdate),
			},
			{
				ResourceName:      ipsetAddr,
				ImportState:       true,
				ImportStateId:     "cluster/" + renamed,
				ImportStateVerify: true,
			},
			importBlockNoopStep(renamedConfig, ipsetAddr, "cluster/"+renamed),
		},
	})
}

// PVE clears host bits and strips /32 and /128; the configured spelling
// stays in state and the plan after the apply is empty.
// Wire rules: W52, W57.
func TestAccFirewallIPSet_addressesNormalised(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	body := `  entries = {
    "10.0.0.5/32"     = {}
    "10.1.2.3/16"     = { comment = "host bits set" }
    "2001:db8::1/128" = {}
  }
`
	tg.Run(t, resource.TestCase{
		CheckDestroy: checkIPSetGone(tg, clusterFW, name),
		Steps: []resource.TestStep{
			{
				Config: ipsetConfig(tg, name, body),
				ConfigStateChecks: []statecheck.StateCheck{
					checkPVEEntries(tg, clusterFW, name, "10.0.0.5", "10.1.0.0/16 # host bits set", "2001:db8::1"),
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("entries"), knownvalue.MapSizeExact(3)),
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("entries").AtMapKey("10.0.0.5/32").AtMapKey("nomatch"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(ipsetAddr, tfjsonpath.New("entries").AtMapKey("10.1.2.3/16").AtMapKey("comment"), knownvalue.StringExact("host bits set")),
				},
			},
			{
				ResourceName:            ipsetAddr,
				ImportState:             true,
				ImportStateId:           "cluster/" + name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"entries"},
			},
		},
	})
}

// Entries added and changed outside Terraform show in the plan, and the
// apply puts the set back as configured; a set deleted outside Terraform
// is created again.
func TestAccFirewallIPSet_outsideChanges(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	config := ipsetConfig(tg, name, "  entries = { \"192.0.2.1\" = { comment = \"mine\" } }\n")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkIPSetGone(tg, clusterFW, name),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					ctx := context.Background()
					if err := tg.Client.AddIPSetEntry(ctx, clusterFW, name, pveapi.IPSetEntry{CIDR: "203.0.113.5"}); err != nil {
						t.Fatalf("add an entry outside Terraform: %v", err)
					}
					if err := tg.Client.UpdateIPSetEntry(ctx, clusterFW, name, pveapi.IPSetEntry{CIDR: "192.0.2.1", NoMatch: true}, ""); err != nil {
						t.Fatalf("change an entry outside Terraform: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(ipsetAddr, plancheck.ResourceActionUpdate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{checkPVEEntries(tg, clusterFW, name, "192.0.2.1 # mine")},
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteIPSet(context.Background(), clusterFW, name, true); err != nil {
						t.Fatalf("delete IP set outside Terraform: %v", err)
					}
				},
				Config:            config,
				ConfigPlanChecks:  expectIPSetAction(plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEEntries(tg, clusterFW, name, "192.0.2.1 # mine")},
			},
		},
	})
}

func TestFirewallIPSetPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	type entries = map[string]map[string]any
	for _, c := range []struct {
		name      string
		entries   entries
		attribute string
		want      *regexp.Regexp
	}{
		{"Trusted", nil, "name", wrapped(`Attribute name is not a name PVE accepts: IP set name "Trusted" must be lowercase: PVE would store the IP set as "trusted"`)},
		{"t", nil, "name", wrapped(`Attribute name is not a name PVE accepts: IP set name "t" must be at least 2 characters`)},
		{"trusted", entries{"192.0.2.300": {}}, "",
			wrapped(`Attribute entries["192.0.2.300"] must be an IPv4 or IPv6 address, a network in CIDR notation, or an alias`)},
		{"trusted", entries{"0.0.0.0/0": {}}, "", wrapped(`a zero prefix is not allowed in ipset entries`)},
		{"trusted", entries{"10.0.0.5": {}, "10.0.0.5/32": {"comment": "again"}}, "entries",
			regexp.MustCompile(`Attribute entries: entries "10.0.0.5" and "10.0.0.5/32" are the same\s+address\s+to\s+PVE`)},
		{"trusted", entries{"10.0.0.0/24": {"comment": "two\nlines"}}, "", wrapped(`Attribute entries["10.0.0.0/24"].comment must be a single line`)},
	} {
		attrs := map[string]any{"name": c.name}
		if c.entries != nil {
			attrs["entries"] = c.entries
		}
		acctest.WantError(t, p.PlanCreate(t, "pve_firewall_ipset", attrs), c.attribute, c.want)
	}
}

// An entry that names an alias: the alias must exist first, so the entry
// refers to the alias resource.
func TestAccFirewallIPSet_aliasEntry(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	alias := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkIPSetGone(tg, clusterFW, name),
		Steps: []resource.TestStep{
			{
				Config: tg.Config(fmt.Sprintf(`
resource "pve_firewall_alias" "office" {
  name = %q
  cidr = "192.0.2.0/24"
}

resource "pve_firewall_ipset" "test" {
  name    = %q
  entries = { "dc/${pve_firewall_alias.office.name}" = {} }
}
`, alias, name)),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEEntries(tg, clusterFW, name, "dc/"+alias)},
			},
		},
	})
}

// A guest's IP set: refused for a guest that does not exist, created on
// the guest's firewall, imported as guest/VMID/NAME, and dropped from
// state when the guest goes.
func TestAccFirewallIPSet_guest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	guest := acctest.NewGuest(guestAddr)
	config := tg.Config(guestVMConfig + fmt.Sprintf(`
resource "pve_firewall_ipset" "test" {
  vmid    = pve_vm.fw.vmid
  name    = %q
  entries = { "10.0.0.0/24" = {}, "10.0.0.7" = { nomatch = true } }
}
`, name))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			missingGuestStep(tg.Config(fmt.Sprintf("resource \"pve_firewall_ipset\" \"test\" {\n  vmid = %d\n  name = %q\n}\n", missingVMID, name))),
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					guest.Check(func() error {
						lines, err := pveEntries(tg.Client, guestFW(guest), name)
						if err != nil || strings.Join(lines, ",") != "!10.0.0.7,10.0.0.0/24" {
							return fmt.Errorf("guest IP set %s holds %v: %w", name, lines, err)
						}
						return nil
					}),
				},
			},
			guestImportStep(ipsetAddr, guest, name),
			guestGoneStep(t, tg, guest, ipsetAddr),
		},
	})
}
