package access_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

const privilegesAddr = "data.pve_provider_privileges.this"

func stringSet(values ...string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.SetExact(checks)
}

func expect(attr string, check knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(privilegesAddr, tfjsonpath.New(attr), check)
}

// readPrivileges is what every configuration needs: the read feature.
var readPrivileges = []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "VM.Audit"}

// The default features on PVE 9: the role the provider documentation gave
// before this data source, plus VM.Backup (restore) and SDN.Audit (SDN IP
// sets in guest firewall rules).
var pve9DefaultPrivileges = []string{
	"Datastore.Allocate", "Datastore.AllocateSpace", "Datastore.AllocateTemplate", "Datastore.Audit",
	"Pool.Allocate", "Pool.Audit", "SDN.Audit", "SDN.Use", "Sys.AccessNetwork", "Sys.Audit",
	"VM.Allocate", "VM.Audit", "VM.Backup", "VM.Clone", "VM.Config.CDROM", "VM.Config.CPU", "VM.Config.Cloudinit",
	"VM.Config.Disk", "VM.Config.HWType", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options",
	"VM.GuestAgent.Audit", "VM.Migrate", "VM.PowerMgmt",
}

func TestAccProviderPrivilegesDefaultsOnPVE9(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	if tg.Sim == nil {
		t.Skip("pins the simulator's PVE 9.1")
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_provider_privileges" "this" {}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expect("release", knownvalue.StringExact("9")),
				expect("features", stringSet("read", "vm", "container", "clone", "restore", "migrate",
					"guest_agent", "cloud_init_seed", "images", "pools", "guest_firewall")),
				expect("privileges", stringSet(pve9DefaultPrivileges...)),
			},
		}},
	})
}

func TestAccProviderPrivilegesOnPVE84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	if tg.Sim == nil {
		t.Skip("pins the simulator's PVE 8.4")
	}

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			// PVE 8.4 reads the guest agent with VM.Monitor and lets anyone
			// who may create containers create privileged ones.
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  features = ["guest_agent", "privileged_containers"]
}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expect("id", knownvalue.StringExact("8.4:read,guest_agent,privileged_containers")),
				expect("release", knownvalue.StringExact("8.4")),
				expect("features", stringSet("guest_agent", "privileged_containers")),
				expect("privileges", stringSet(append([]string{"VM.Monitor"}, readPrivileges...)...)),
			},
		}, {
			// The same features on PVE 9, computed without asking PVE.
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  features    = ["guest_agent", "privileged_containers"]
  pve_version = "9.2"
}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expect("release", knownvalue.StringExact("9")),
				expect("privileges", stringSet(append([]string{"Sys.Modify", "VM.GuestAgent.Audit"}, readPrivileges...)...)),
			},
		}},
	})
}

func TestAccProviderPrivilegesGrantsPerPath(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	grant := func(path string, privileges ...string) knownvalue.Check {
		return knownvalue.ObjectExact(map[string]knownvalue.Check{
			"path":       knownvalue.StringExact(path),
			"privileges": stringSet(privileges...),
		})
	}
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  features    = ["firewall", "pools"]
  pve_version = "8.4"
}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expect("release", knownvalue.StringExact("8.4")),
				expect("privileges", stringSet("Datastore.Allocate", "Datastore.Audit", "Pool.Allocate", "Pool.Audit",
					"SDN.Audit", "Sys.Audit", "Sys.Modify", "VM.Allocate", "VM.Audit")),
				expect("grants", knownvalue.ListExact([]knownvalue.Check{
					grant("/", "Sys.Audit", "Sys.Modify"),
					grant("/nodes/{node}", "Sys.Audit", "Sys.Modify"),
					grant("/pool/{pool}", "Pool.Allocate", "Pool.Audit"),
					grant("/sdn/zones/{zone}/{vnet}", "SDN.Audit"),
					grant("/storage/{storage}", "Datastore.Allocate", "Datastore.Audit"),
					grant("/vms/{vmid}", "VM.Allocate", "VM.Audit"),
				})),
			},
		}},
	})
}

func TestAccProviderPrivilegesAccessControl(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  features    = ["access"]
  pve_version = "9"
}`),
			ConfigStateChecks: []statecheck.StateCheck{
				expect("privileges", stringSet("Datastore.Audit", "Group.Allocate", "Permissions.Modify", "Pool.Audit",
					"Realm.Allocate", "Realm.AllocateUser", "Sys.Audit", "Sys.Modify", "User.Modify", "VM.Audit")),
			},
		}},
	})
}

func TestAccProviderPrivilegesBadInput(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  features = ["vm", "vms"]
}`),
			// The error names the attribute and lists the valid features.
			ExpectError: regexp.MustCompile(`(?s)features\[Value\("vms"\)\].*must be one of:.*"guest_agent".*"access"`),
		}, {
			Config: tg.Config(`data "pve_provider_privileges" "this" {
  pve_version = "8.3"
}`),
			ExpectError: regexp.MustCompile(`(?s)pve_version.*must be "8.4" or "9"`),
		}},
	})
}
