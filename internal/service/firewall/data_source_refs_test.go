package firewall_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func refCheck(typ, name, ref, scope string, comment knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{
		"type":    knownvalue.StringExact(typ),
		"name":    knownvalue.StringExact(name),
		"ref":     knownvalue.StringExact(ref),
		"scope":   knownvalue.StringExact(scope),
		"comment": comment,
	})
}

func TestAccRefs(t *testing.T) {
	skipOnLiveCluster(t)
	t.Parallel()
	tg := acctest.New(t)
	name := acctest.Name("tfacc-refs")
	guest := acctest.NewGuest("pve_vm.guest")
	ctx := context.Background()

	refs := `
data "pve_firewall_refs" "guest" {
  vmid = pve_vm.guest.vmid
}

data "pve_firewall_refs" "cluster_ipsets" {
  type = "ipset"
}

data "pve_firewall_refs" "guest_aliases" {
  vmid = pve_vm.guest.vmid
  type = "alias"
}
`
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            guestConfig(tg, name, ""),
				ConfigStateChecks: []statecheck.StateCheck{guest.Check(func() error { return nil })},
			},
			{
				PreConfig: func() {
					vm := pveapi.FirewallScope{Node: guest.Node, GuestType: "qemu", VMID: guest.VMID}
					for what, err := range map[string]error{
						"cluster alias": tg.Client.CreateFirewallAlias(ctx, clusterFirewall, "office", "10.0.0.0/24", "head office"),
						"cluster ipset": tg.Client.CreateIPSet(ctx, clusterFirewall, "admins", "admin desks"),
						"guest alias":   tg.Client.CreateFirewallAlias(ctx, vm, "gateway", "192.0.2.1", ""),
						"guest ipset":   tg.Client.CreateIPSet(ctx, vm, "peers", ""),
					} {
						if err != nil {
							t.Fatalf("create %s outside Terraform: %v", what, err)
						}
					}
				},
				Config: guestConfig(tg, name, "") + refs,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.pve_firewall_refs.guest", tfjsonpath.New("refs"), knownvalue.ListExact([]knownvalue.Check{
						refCheck("alias", "office", "office", "dc", knownvalue.StringExact("head office")),
						refCheck("ipset", "admins", "+admins", "dc", knownvalue.StringExact("admin desks")),
						refCheck("alias", "gateway", "gateway", "guest", knownvalue.Null()),
						refCheck("ipset", "peers", "+peers", "guest", knownvalue.Null()),
					})),
					statecheck.ExpectKnownValue("data.pve_firewall_refs.cluster_ipsets", tfjsonpath.New("id"), knownvalue.StringExact("cluster")),
					statecheck.ExpectKnownValue("data.pve_firewall_refs.cluster_ipsets", tfjsonpath.New("refs"), knownvalue.ListExact([]knownvalue.Check{
						refCheck("ipset", "admins", "+admins", "dc", knownvalue.StringExact("admin desks")),
					})),
					statecheck.ExpectKnownValue("data.pve_firewall_refs.guest_aliases", tfjsonpath.New("refs"), knownvalue.ListExact([]knownvalue.Check{
						refCheck("alias", "office", "office", "dc", knownvalue.StringExact("head office")),
						refCheck("alias", "gateway", "gateway", "guest", knownvalue.Null()),
					})),
					guest.Check(func() error { return nil }),
					acctest.CheckState(func(state *tfjson.State) error {
						id, err := acctest.StringAt(state, "data.pve_firewall_refs.guest", tfjsonpath.New("id"))
						if err == nil && id != fmt.Sprintf("guest/%d", guest.VMID) {
							err = fmt.Errorf("id = %q, want guest/%d", id, guest.VMID)
						}
						return err
					}),
				},
			},
		},
	})
}

func TestAccRefs_guestMissing(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      tg.Config("data \"pve_firewall_refs\" \"gone\" {\n  vmid = 999999990\n}\n"),
				ExpectError: regexp.MustCompile(`(?s)Guest Not Found.*No VM or container has VMID 999999990`),
			},
		},
	})
}
