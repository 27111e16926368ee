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

const aliasAddr = "pve_firewall_alias.test"

var clusterFW = pveapi.FirewallScope{}

// aliasConfig is the test alias of the cluster's firewall; extra holds
// further attribute lines.
func aliasConfig(tg *acctest.Target, name, cidr, extra string) string {
	return tg.Config(fmt.Sprintf("resource \"pve_firewall_alias\" \"test\" {\n  name = %q\n  cidr = %q\n%s}\n", name, cidr, extra))
}

// pveAlias reads an alias as PVE holds it.
func pveAlias(client *pveapi.Client, fw pveapi.FirewallScope, name string) (pveapi.FirewallAlias, bool, error) {
	aliases, err := client.FirewallAliases(context.Background(), fw)
	if err != nil {
		return pveapi.FirewallAlias{}, false, err
	}
	for _, a := range aliases {
		if strings.EqualFold(a.Name, name) {
			return a, true, nil
		}
	}
	return pveapi.FirewallAlias{}, false, nil
}

// checkPVEAlias checks the alias PVE holds: its exact name, address and
// comment.
func checkPVEAlias(tg *acctest.Target, fw pveapi.FirewallScope, name, cidr, comment string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		a, found, err := pveAlias(tg.Client, fw, name)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("PVE has no alias %s", name)
		}
		if a.Name != name || a.CIDR != cidr || a.Comment != comment {
			return fmt.Errorf("PVE has alias %s %s comment %q, want %s %s comment %q", a.Name, a.CIDR, a.Comment, name, cidr, comment)
		}
		return nil
	})
}

func checkAliasGone(tg *acctest.Target, fw pveapi.FirewallScope, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, found, err := pveAlias(tg.Client, fw, name)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("alias %s still exists", name)
		}
		return nil
	}
}

func TestAccFirewallAlias_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	renamed := acctest.Name("tfacc")
	upper := strings.ToUpper(renamed[:1]) + renamed[1:]

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkAliasGone(tg, clusterFW, upper),
		Steps: []resource.TestStep{
			{
				Config:           aliasConfig(tg, name, "192.0.2.10", "  comment = \"office\"\n"),
				ConfigPlanChecks: expectActionOn(aliasAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster/"+name)),
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("vmid"), knownvalue.Null()),
					checkPVEAlias(tg, clusterFW, name, "192.0.2.10", "office"),
				},
			},
			{
				// A new address, in place.
				Config:            aliasConfig(tg, name, "192.0.2.0/24", "  comment = \"office\"\n"),
				ConfigPlanChecks:  expectActionOn(aliasAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEAlias(tg, clusterFW, name, "192.0.2.0/24", "office")},
			},
			{
				// A new comment, in place.
				Config:            aliasConfig(tg, name, "192.0.2.0/24", "  comment = \"head office\"\n"),
				ConfigPlanChecks:  expectActionOn(aliasAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEAlias(tg, clusterFW, name, "192.0.2.0/24", "head office")},
			},
			{
				// No comment: PVE's PUT drops a comment it is not sent.
				Config:           aliasConfig(tg, name, "192.0.2.0/24", ""),
				ConfigPlanChecks: expectActionOn(aliasAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("comment"), knownvalue.Null()),
					checkPVEAlias(tg, clusterFW, name, "192.0.2.0/24", ""),
				},
			},
			{
				// A rename is in place; the old name is gone.
				Config:           aliasConfig(tg, renamed, "192.0.2.0/24", "  comment = \"renamed\"\n"),
				ConfigPlanChecks: expectActionOn(aliasAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("id"), knownvalue.StringExact("cluster/"+renamed)),
					checkPVEAlias(tg, clusterFW, renamed, "192.0.2.0/24", "renamed"),
				},
				Check: checkAliasGone(tg, clusterFW, name),
			},
			{
				// A new spelling of the same name: PVE matches names without
				// regard to case and keeps the spelling it is given.
				Config:           aliasConfig(tg, upper, "192.0.2.0/24", "  comment = \"renamed\"\n"),
				ConfigPlanChecks: expectActionOn(aliasAddr, plancheck.ResourceActionUpdate),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("name"), knownvalue.StringExact(upper)),
					checkPVEAlias(tg, clusterFW, upper, "192.0.2.0/24", "renamed"),
				},
			},
			{
				ResourceName:      aliasAddr,
				ImportState:       true,
				ImportStateId:     "cluster/" + upper,
				ImportStateVerify: true,
			},
			// An import block plans no change after adoption.
			importBlockNoopStep(aliasConfig(tg, upper, "192.0.2.0/24", "  comment = \"renamed\"\n"), aliasAddr, "cluster/"+upper),
		},
	})
}

// PVE stores 10.0.0.5/32 as 10.0.0.5: the configured spelling stays in
// state and the plan after the apply is empty.
// Wire rules: W57.
func TestAccFirewallAlias_hostLengthNormalised(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkAliasGone(tg, clusterFW, name),
		Steps: []resource.TestStep{
			{
				Config: aliasConfig(tg, name, "10.0.0.5/32", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("cidr"), knownvalue.StringExact("10.0.0.5/32")),
					checkPVEAlias(tg, clusterFW, name, "10.0.0.5", ""),
				},
			},
			{
				// A plan of its own after a refresh: still empty.
				Config:   aliasConfig(tg, name, "10.0.0.5/32", ""),
				PlanOnly: true,
			},
			{
				Config: aliasConfig(tg, "x"+name[1:], "2001:db8::1/128", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("cidr"), knownvalue.StringExact("2001:db8::1/128")),
					checkPVEAlias(tg, clusterFW, "x"+name[1:], "2001:db8::1", ""),
				},
			},
		},
	})
}

// A change made outside Terraform shows in the plan and the apply undoes
// it; an alias deleted outside Terraform is created again.
func TestAccFirewallAlias_outsideChange(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkAliasGone(tg, clusterFW, name),
		Steps: []resource.TestStep{
			{Config: aliasConfig(tg, name, "192.0.2.1", "  comment = \"kept\"\n")},
			{
				PreConfig: func() {
					if err := tg.Client.UpdateFirewallAlias(context.Background(), clusterFW, name, "", "192.0.2.99", "edited", ""); err != nil {
						t.Fatalf("change alias outside Terraform: %v", err)
					}
				},
				Config: aliasConfig(tg, name, "192.0.2.1", "  comment = \"kept\"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(aliasAddr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(aliasAddr, tfjsonpath.New("cidr"), knownvalue.StringExact("192.0.2.1")),
				}},
				ConfigStateChecks: []statecheck.StateCheck{checkPVEAlias(tg, clusterFW, name, "192.0.2.1", "kept")},
			},
			{
				// Deleted outside Terraform: the refresh drops it and the
				// plan creates it again.
				PreConfig: func() {
					if err := tg.Client.DeleteFirewallAlias(context.Background(), clusterFW, name, ""); err != nil {
						t.Fatalf("delete alias outside Terraform: %v", err)
					}
				},
				Config:            aliasConfig(tg, name, "192.0.2.1", "  comment = \"kept\"\n"),
				ConfigPlanChecks:  expectActionOn(aliasAddr, plancheck.ResourceActionCreate),
				ConfigStateChecks: []statecheck.StateCheck{checkPVEAlias(tg, clusterFW, name, "192.0.2.1", "kept")},
			},
		},
	})
}

func TestFirewallAliasPlanRefusesBadInput(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	alias := func(name, cidr string, more ...any) map[string]any {
		attrs := map[string]any{"name": name, "cidr": cidr}
		for i := 0; i+1 < len(more); i += 2 {
			attrs[more[i].(string)] = more[i+1]
		}
		return attrs
	}
	for _, c := range []struct {
		attrs     map[string]any
		attribute string
		want      *regexp.Regexp
	}{
		{alias("1office", "192.0.2.1"), "name",
			wrapped(`Attribute name is not a name PVE accepts: alias name "1office" must be at least 2 characters: a letter, then letters, digits,`)},
		{alias("office", "192.0.2.300"), "cidr",
			wrapped(`Attribute cidr must be an IPv4 or IPv6 address or a network in CIDR notation: "192.0.2.300" does not look like a valid IP address`)},
		{alias("office", "192.0.2.0/33"), "cidr",
			wrapped(`Attribute cidr must be an IPv4 or IPv6 address or a network in CIDR notation: prefix length 33 in "192.0.2.0/33" is longer than the address`)},
		{alias("office", "192.0.2.1", "comment", " padded"), "comment",
			wrapped(`Attribute comment must not start or end with white space: PVE would store "padded"`)},
		{alias("office", "192.0.2.1", "vmid", 99), "vmid", regexp.MustCompile(`Attribute vmid value must be between 100 and 999999999`)},
	} {
		acctest.WantError(t, p.PlanCreate(t, "pve_firewall_alias", c.attrs), c.attribute, c.want)
	}
}

// A guest's alias: created on the guest's firewall, imported as
// guest/VMID/NAME, refused for a guest that does not exist, and dropped
// from state when the guest goes.
func TestAccFirewallAlias_guest(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc")
	guest := acctest.NewGuest(guestAddr)
	config := tg.Config(guestVMConfig + fmt.Sprintf(`
resource "pve_firewall_alias" "test" {
  vmid = pve_vm.fw.vmid
  name = %q
  cidr = "10.0.0.0/24"
}
`, name))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			missingGuestStep(tg.Config(fmt.Sprintf("resource \"pve_firewall_alias\" \"test\" {\n  vmid = %d\n  name = %q\n  cidr = \"10.0.0.1\"\n}\n", missingVMID, name))),
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					guest.Check(func() error {
						a, found, err := pveAlias(tg.Client, guestFW(guest), name)
						if err != nil || !found || a.CIDR != "10.0.0.0/24" {
							return fmt.Errorf("guest alias %s: %+v found %t: %w", name, a, found, err)
						}
						return nil
					}),
				},
			},
			guestImportStep(aliasAddr, guest, name),
			guestGoneStep(t, tg, guest, aliasAddr),
		},
	})
}
