package sdn_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

func pluginActions(actions map[string]plancheck.ResourceActionType) resource.ConfigPlanChecks {
	var checks []plancheck.PlanCheck
	for addr, a := range actions {
		checks = append(checks, plancheck.ExpectResourceAction(addr, a))
	}
	return resource.ConfigPlanChecks{PreApply: checks}
}

// runningController reads the controller from PVE's running config.
func runningController(tg *acctest.Target, id string) (map[string]any, bool, error) {
	var raw map[string]any
	err := tg.Client.Get(context.Background(), "/cluster/sdn/controllers/"+id, map[string][]string{"running": {"1"}}, &raw)
	if err != nil {
		if pveapi.IsSDNNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return raw, true, nil
}

// An EVPN controller listed in an applier: created and applied in one run,
// an in-place update applied by the applier, import round trip, deleted
// outside Terraform (a staged deletion) and created again, and destroyed
// with the applier (the deletion applied too).
func TestAccSDNController_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	id := acctest.Name("tfacc")
	addr := "pve_sdn_controller.test"
	cfg := func(peers string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_sdn_controller" "test" {
  controller = %q
  type       = "evpn"
  asn        = 65000
  peers      = [%s]
}

resource "pve_sdn_applier" "sdn" {
  objects = [pve_sdn_controller.test]
}
`, id, peers))
	}
	wantRunningPeers := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			raw, found, err := runningController(tg, id)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("controller %s is not running", id)
			}
			if got := wire.JoinSDNList(wire.SplitSDNList(fmt.Sprint(raw["peers"]))); got != want {
				return fmt.Errorf("running peers %q, want %q", got, want)
			}
			return nil
		}
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			_, running, err := runningController(tg, id)
			if err != nil {
				return err
			}
			_, staged, err := tg.Client.GetSDNPlugin(context.Background(), wire.SDNControllers, id)
			if err != nil {
				return err
			}
			if running || staged {
				return fmt.Errorf("controller %s is still there after destroy (running %v, staged %v)", id, running, staged)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg(`"10.0.0.1", "10.0.0.2"`),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{
					addr: plancheck.ResourceActionCreate, "pve_sdn_applier.sdn": plancheck.ResourceActionCreate,
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("sdn_id"), knownvalue.StringExact("controller/"+id)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("fabric"), knownvalue.Null()),
				},
				Check: wantRunningPeers("10.0.0.1,10.0.0.2"),
			},
			{
				Config: cfg(`"10.0.0.1", "10.0.0.3"`),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{
					addr: plancheck.ResourceActionUpdate, "pve_sdn_applier.sdn": plancheck.ResourceActionUpdate,
				}),
				Check: wantRunningPeers("10.0.0.1,10.0.0.3"),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteSDNPlugin(context.Background(), wire.SDNControllers, id, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:           cfg(`"10.0.0.1", "10.0.0.3"`),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{addr: plancheck.ResourceActionCreate}),
				Check:            wantRunningPeers("10.0.0.1,10.0.0.3"),
			},
		},
	})
}

// An IPAM's token and a DNS server's key never reach state, plan output
// or a trace log of Terraform and the provider: not at creation, nor when
// they change, nor on import. The harness echoes each configuration file
// into the log (lines starting with "  | "), so those lines are not
// scanned. Not parallel: it sets the environment of the whole test process.
func TestAccSDNIPAMAndDNS_secretsStayOutOfStateAndLogs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	tg := acctest.New(t)
	netbox := newStandIn(t, "Authorization")
	pdns := newStandIn(t, "X-API-Key")
	ipamID := strings.ReplaceAll(acctest.Name("tfacc"), "-", "")
	dnsID := strings.ReplaceAll(acctest.Name("tfacc"), "-", "")
	secrets := []string{"nb-first-Token-4711", "pdns-first-Key-4712", "nb-second-Token-0815", "pdns-second-Key-0816"}
	cfg := func(step, version int, ttl string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_sdn_ipam" "test" {
  ipam             = %q
  type             = "netbox"
  url              = "%s/api"
  token_wo         = %q
  token_wo_version = %d
}

resource "pve_sdn_dns" "test" {
  dns            = %q
  type           = "powerdns"
  url            = "%s/api/v1/servers/localhost"
  key_wo         = %q
  key_wo_version = %d
  %s
}

resource "pve_sdn_applier" "sdn" {
  objects = [pve_sdn_ipam.test, pve_sdn_dns.test]
}
`, ipamID, netbox.URL, secrets[2*step], version, dnsID, pdns.URL, secrets[2*step+1], version, ttl))
	}
	noSecret := func(s *terraform.State) error {
		for _, r := range s.RootModule().Resources {
			for k, v := range r.Primary.Attributes {
				for _, secret := range secrets {
					if strings.Contains(v, secret) {
						return fmt.Errorf("state attribute %s holds a secret", k)
					}
				}
			}
		}
		return nil
	}
	sent := func(wantToken, wantKey string) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			if err := noSecret(s); err != nil {
				return err
			}
			if netbox.last() != "token "+wantToken || pdns.last() != wantKey {
				return fmt.Errorf("PVE called NetBox with %q and PowerDNS with %q", netbox.last(), pdns.last())
			}
			return nil
		}
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, c := range []struct {
				f  wire.SDNPluginFamily
				id string
			}{{wire.SDNIPAMs, ipamID}, {wire.SDNDNSServers, dnsID}} {
				_, found, err := tg.Client.GetSDNPlugin(context.Background(), c.f, c.id)
				if err != nil {
					return err
				}
				if found {
					return fmt.Errorf("%s %s still exists after destroy", c.f.Kind, c.id)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg(0, 1, ""),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{
					"pve_sdn_ipam.test": plancheck.ResourceActionCreate, "pve_sdn_dns.test": plancheck.ResourceActionCreate,
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_sdn_ipam.test", tfjsonpath.New("token_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue("pve_sdn_dns.test", tfjsonpath.New("key_wo"), knownvalue.Null()),
				},
				Check: sent(secrets[0], secrets[1]),
			},
			{
				Config: cfg(1, 2, `ttl = 600`),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{
					"pve_sdn_ipam.test": plancheck.ResourceActionUpdate, "pve_sdn_dns.test": plancheck.ResourceActionUpdate,
				}),
				Check: sent(secrets[2], secrets[3]),
			},
			{
				ResourceName: "pve_sdn_ipam.test", ImportState: true, ImportStateId: ipamID, ImportStateVerify: true,
				// PVE's token is not read, so an import cannot know its version.
				ImportStateVerifyIgnore: []string{"token_wo_version"},
			},
			{
				ResourceName: "pve_sdn_dns.test", ImportState: true, ImportStateId: dnsID, ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"key_wo_version"},
			},
		},
	})

	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "  | ") {
			continue
		}
		scanned++
		for i, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds secret %d", i)
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	for _, mark := range []string{"PVE API request", "/cluster/sdn/ipams", "/cluster/sdn/dns"} {
		if !bytes.Contains(data, []byte(mark)) {
			t.Errorf("the trace log shows no SDN request (%q is missing)", mark)
		}
	}
}

// An OpenFabric fabric with two nodes and the EVPN controller on it,
// applied by one applier: create, an in-place change of a node's
// interfaces, import round trips of the fabric and a node, and destroy
// (every deletion applied).
func TestAccSDNFabric_lifecycle(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	fabric := "f" + acctest.Name("x")[2:8]
	ctl := acctest.Name("tfacc")
	cfg := func(iface2 string) string {
		return tg.Config(fmt.Sprintf(`
resource "pve_sdn_fabric" "test" {
  fabric         = %[1]q
  protocol       = "openfabric"
  ip_prefix      = "10.77.0.0/24"
  hello_interval = 3
}

resource "pve_sdn_fabric_node" "pve1" {
  fabric     = pve_sdn_fabric.test.fabric
  node       = "pve1"
  ip         = "10.77.0.1"
  interfaces = { ens19 = {}, %[2]s = {} }
}

resource "pve_sdn_fabric_node" "pve2" {
  fabric     = pve_sdn_fabric.test.fabric
  node       = "pve2"
  ip         = "10.77.0.2"
  interfaces = { ens19 = {} }
}

resource "pve_sdn_controller" "evpn" {
  controller = %[3]q
  type       = "evpn"
  asn        = 65000
  fabric     = pve_sdn_fabric.test.fabric
}

resource "pve_sdn_applier" "sdn" {
  objects = [pve_sdn_fabric.test, pve_sdn_fabric_node.pve1, pve_sdn_fabric_node.pve2, pve_sdn_controller.evpn]
}
`, fabric, iface2, ctl))
	}
	running := func(path string) (bool, error) {
		var raw []map[string]any
		if err := tg.Client.Get(context.Background(), path, map[string][]string{"running": {"1"}}, &raw); err != nil {
			return false, err
		}
		return len(raw) > 0, nil
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(*terraform.State) error {
			for _, path := range []string{"/cluster/sdn/fabrics/fabric", "/cluster/sdn/controllers"} {
				found, err := running(path)
				if err != nil {
					return err
				}
				if found {
					return fmt.Errorf("%s still has running objects after destroy", path)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: cfg("ens20"),
				Check: func(*terraform.State) error {
					found, err := running("/cluster/sdn/fabrics/fabric")
					if err != nil {
						return err
					}
					if !found {
						return fmt.Errorf("the fabric is not running after the apply")
					}
					return nil
				},
			},
			{
				Config: cfg("ens21"),
				ConfigPlanChecks: pluginActions(map[string]plancheck.ResourceActionType{
					"pve_sdn_fabric_node.pve1": plancheck.ResourceActionUpdate, "pve_sdn_applier.sdn": plancheck.ResourceActionUpdate,
				}),
			},
			{ResourceName: "pve_sdn_fabric.test", ImportState: true, ImportStateId: fabric, ImportStateVerify: true},
			{ResourceName: "pve_sdn_fabric_node.pve1", ImportState: true, ImportStateId: fabric + "/pve1", ImportStateVerify: true},
		},
	})
}
