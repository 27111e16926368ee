package sdn_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// labConfig is a simple zone, two vnets with a subnet each, and the
// applier listing them all; extra goes into the second subnet.
func labConfig(tg *acctest.Target, zone, extra string) string {
	return tg.Config(fmt.Sprintf(`
resource "pve_sdn_zone" "lab" {
  zone = %[1]q
  type = "simple"
  ipam = "pve"
}

resource "pve_sdn_vnet" "web" {
  vnet  = "%[1]sw"
  zone  = pve_sdn_zone.lab.zone
  alias = "web tier"
}

resource "pve_sdn_vnet" "db" {
  vnet = "%[1]sd"
  zone = pve_sdn_zone.lab.zone
}

resource "pve_sdn_subnet" "web" {
  vnet    = pve_sdn_vnet.web.vnet
  cidr    = "10.10.1.0/24"
  gateway = "10.10.1.1"
  snat    = true
}

resource "pve_sdn_subnet" "db" {
  vnet    = pve_sdn_vnet.db.vnet
  cidr    = "10.10.2.0/24"
  gateway = "10.10.2.1"
%[2]s}

resource "pve_sdn_applier" "this" {
  objects = [pve_sdn_zone.lab, pve_sdn_vnet.web, pve_sdn_vnet.db, pve_sdn_subnet.web, pve_sdn_subnet.db]
}
`, zone, extra))
}

// sdnWrite tells whether a request is a staged SDN write.
func sdnWrite(rec pvesim.RequestRecord) bool {
	if rec.Method == "GET" || !strings.HasPrefix(rec.Path, "/cluster/sdn/") {
		return false
	}
	return !strings.HasPrefix(rec.Path, "/cluster/sdn/lock") && rec.Path != "/cluster/sdn/rollback"
}

// lockedThroughout checks the SDN requests since mark: on PVE 9 one lock
// taken before the first write, every write and the one PUT /cluster/sdn
// with a token (the log redacts its value; the simulator refuses a wrong
// one, and every request must succeed), the apply releasing the lock and
// no release in between; on PVE 8.4 no token anywhere. Either way exactly
// one apply, and no lock left.
func lockedThroughout(tg *acctest.Target, mark *int, withLock bool, wantWrites int) resource.TestCheckFunc {
	return func(*terraform.State) error {
		recs := tg.Sim.Requests()[*mark:]
		var log []string
		token, applies, writes, locks := "", 0, 0, 0
		for _, rec := range recs {
			if !strings.HasPrefix(rec.Path, "/cluster/sdn") || rec.Method == "GET" {
				continue
			}
			got := ""
			if v := rec.Params["lock-token"]; len(v) > 0 {
				got = v[0]
			}
			log = append(log, fmt.Sprintf("%s %s token=%q status=%d", rec.Method, rec.Path, got, rec.Status))
			// PVE 8.4 answers the lock request (the probe) with 501.
			if rec.Status != 200 && (withLock || rec.Path != "/cluster/sdn/lock") {
				return fmt.Errorf("PVE refused an SDN request:\n%s", strings.Join(log, "\n"))
			}
			switch {
			case rec.Method == "POST" && rec.Path == "/cluster/sdn/lock" && withLock:
				locks++
			case rec.Method == "DELETE" && rec.Path == "/cluster/sdn/lock":
				return fmt.Errorf("the lock was released before the apply:\n%s", strings.Join(log, "\n"))
			case rec.Method == "PUT" && rec.Path == "/cluster/sdn":
				applies++
				if withLock && (got == "" || got != token || rec.Params["release-lock"][0] != "1") {
					return fmt.Errorf("the apply is not made with the run's lock:\n%s", strings.Join(log, "\n"))
				}
			case sdnWrite(rec):
				writes++
				if withLock && token == "" {
					token = got
				}
				if withLock && (got == "" || got != token || locks != 1) {
					return fmt.Errorf("a write without the run's lock:\n%s", strings.Join(log, "\n"))
				}
				if !withLock && got != "" {
					return fmt.Errorf("a lock-token sent to PVE 8.4:\n%s", strings.Join(log, "\n"))
				}
			}
		}
		if applies != 1 || writes != wantWrites {
			return fmt.Errorf("want %d writes and exactly one PUT /cluster/sdn, got %d and %d:\n%s", wantWrites, writes, applies, strings.Join(log, "\n"))
		}
		if tok := tg.Sim.SDNLockToken(); tok != "" {
			return fmt.Errorf("the SDN lock is still held after the apply")
		}
		return nil
	}
}

// sdnName is a zone id unique to the run (vnets append one letter).
func sdnName() string { return "z" + acctest.Name("")[1:6] }

func markRequests(tg *acctest.Target, mark *int) func() {
	return func() { *mark = len(tg.Sim.Requests()) }
}

// One terraform apply of a zone, two vnets and two subnets stages five
// writes under one SDN lock and applies them with exactly one
// PUT /cluster/sdn, which releases the lock; an in-place change is one
// more such sequence; destroying everything stages five deletions under
// one lock and applies once more.
func TestAccSDNApplier_oneApplyUnderTheLock(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	testOneApply(t, tg, sdnName(), true)
}

// PVE 8.4 has no SDN lock: the same run without tokens, one apply.
func TestAccSDNApplier_oneApply_pve84(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "8.4")
	testOneApply(t, tg, sdnName(), false)
}

func testOneApply(t *testing.T, tg *acctest.Target, zone string, withLock bool) {
	var mark int
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(st *terraform.State) error {
			// The destroy: the applier first, then five deletions under one
			// lock, the last of which applies.
			if err := lockedThroughout(tg, &mark, withLock, 5)(st); err != nil {
				return err
			}
			if v := tg.Sim.SDNEntries(pvesim.SDNZones, pvesim.SDNViewRunning); len(v) != 0 {
				return fmt.Errorf("the running config still has zones: %v", v)
			}
			if tok := tg.Sim.SDNLockToken(); tok != "" {
				return fmt.Errorf("the SDN lock is still held after destroy")
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				PreConfig: markRequests(tg, &mark),
				Config:    labConfig(tg, zone, ""),
				Check:     lockedThroughout(tg, &mark, withLock, 5),
			},
			{
				PreConfig: markRequests(tg, &mark),
				Config:    labConfig(tg, zone, "  snat = true\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("pve_sdn_subnet.db", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				Check: resource.ComposeTestCheckFunc(lockedThroughout(tg, &mark, withLock, 1), func(*terraform.State) error {
					markRequests(tg, &mark)()
					return nil
				}),
			},
		},
	})
	if len(tg.Sim.SDNEntries(pvesim.SDNZones, pvesim.SDNViewPending)) != 0 {
		t.Error("the destroy left staged zones")
	}
}

// labDBTag is labConfig with a tag on the db vnet, which PVE refuses in a
// simple zone ("vlan tag is not allowed on simple zone") when the vnet is
// written, after the zone and the web vnet are staged.
func labDBTag(tg *acctest.Target, zone string) string {
	return strings.Replace(labConfig(tg, zone, ""), "  vnet = \"", "  tag  = 5\n  vnet = \"", 1)
}

// A write that fails releases the lock at once; what was staged stays
// pending, and the next apply's applier applies it with the rest, once.
func TestAccSDNApplier_failedWriteReleasesTheLock(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	var mark int
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      labDBTag(tg, zone),
				ExpectError: regexp.MustCompile(`(?s)Unable To Create SDN Vnet.*vlan tag is not allowed on simple\s+zone.*stay\s+pending\s+in\s+PVE\s+\(.*zone/`),
			},
			{
				PreConfig: func() {
					if tok := tg.Sim.SDNLockToken(); tok != "" {
						t.Error("the SDN lock is still held after the failed apply")
					}
					if e, ok := sdnEntry(tg, pvesim.SDNZones, zone); !ok || e.State != "new" {
						t.Errorf("the zone staged before the failure is not pending: %+v", e)
					}
					if tg.Sim.SDNRunningVersion() != 0 {
						t.Error("something was applied")
					}
					markRequests(tg, &mark)()
				},
				Config: labConfig(tg, zone, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionCreate)},
				},
				Check: lockedThroughout(tg, &mark, true, 2),
			},
		},
	})
}

func sdnEntry(tg *acctest.Target, kind, id string) (pvesim.SDNEntry, bool) {
	for _, e := range tg.Sim.SDNEntries(kind, pvesim.SDNViewPending) {
		if e.ID == id {
			return e, true
		}
	}
	return pvesim.SDNEntry{}, false
}

// Someone else's pending change is reported at plan time: an error when
// the plan applies, naming the object and the ways out, a warning (and an
// empty plan) otherwise; once it is gone, the plan applies.
func TestAccSDNApplier_foreignPendingRefusedAtPlan(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: labConfig(tg, zone, "")},
			{
				PreConfig: func() {
					if err := tg.Sim.PlantSDNPending(pvesim.SDNZones, "other", &pvesim.SDNObject{Type: "simple"}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      labConfig(tg, zone, "  snat = true\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)SDN Changes Pending Outside This Configuration.*zone/other.*roll\s+them\s+back`),
			},
			{
				// A plan that applies nothing only warns: it is empty.
				Config:   labConfig(tg, zone, ""),
				PlanOnly: true,
			},
			{
				// A staged fabric is applied by the same PUT /cluster/sdn
				// (pve-network SDN.pm compile_running_cfg), so it is
				// someone else's pending change too.
				PreConfig: func() {
					if err := tg.Sim.PlantSDNPending(pvesim.SDNZones, "other", nil); err != nil {
						t.Fatal(err)
					}
					if err := tg.Client.CreateSDNFabric(context.Background(), "otherf", "openfabric", map[string]string{"ip_prefix": "10.66.0.0/24"}, ""); err != nil {
						t.Fatal(err)
					}
				},
				Config:      labConfig(tg, zone, "  snat = true\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)SDN Changes Pending Outside This Configuration.*fabric/otherf`),
			},
			{
				PreConfig: func() {
					if err := tg.Client.DeleteSDNFabric(context.Background(), "otherf", ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: labConfig(tg, zone, "  snat = true\n"),
			},
		},
	})
}

// While someone else holds PVE's SDN lock, the run waits for it, then
// takes it and applies as usual.
func TestAccSDNApplier_waitsForSomeoneElsesLock(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	var mark int
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					markRequests(tg, &mark)()
					token, err := tg.Sim.TakeSDNLock()
					if err != nil {
						t.Fatal(err)
					}
					go func() {
						time.Sleep(2 * time.Second)
						if err := tg.Client.ReleaseSDNLock(context.Background(), token); err != nil {
							t.Error(err)
						}
					}()
				},
				Config: labConfig(tg, zone, ""),
				Check: func(st *terraform.State) error {
					if n := tg.Sim.Count("POST", "/cluster/sdn/lock"); n < 2 {
						return fmt.Errorf("the run took the lock at once (%d requests) although someone held it", n)
					}
					return nil
				},
			},
		},
	})
}

// Removing objects from the configuration (and from objects): Terraform
// destroys them before it updates the applier, which depended on them, so
// the one apply of the run includes their deletions.
func TestAccSDNApplier_removedObjectsApplied(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	full := labConfig(tg, zone, "")
	start := strings.Index(full, "resource \"pve_sdn_subnet\" \"db\"")
	end := strings.Index(full, "resource \"pve_sdn_applier\"")
	less := strings.Replace(full[:start]+full[end:], ", pve_sdn_subnet.db]", "]", 1)
	var mark int
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: full},
			{
				PreConfig: markRequests(tg, &mark),
				Config:    less,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("pve_sdn_subnet.db", plancheck.ResourceActionDestroy),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				Check: resource.ComposeTestCheckFunc(lockedThroughout(tg, &mark, true, 1), func(*terraform.State) error {
					if _, ok := sdnEntry(tg, pvesim.SDNSubnets, zone+"-10.10.2.0-24"); ok {
						return fmt.Errorf("the removed subnet is still staged or running")
					}
					return nil
				}),
			},
		},
	})
}

// When PVE shows a listed object pending although its configuration did
// not change (here an option its type does not take, staged outside), the
// refresh plans an apply of the applier alone, and the apply clears it.
func TestAccSDNApplier_pendingListedObjectPlansAnApply(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	zone := sdnName()
	config := labConfig(tg, zone, "")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					obj := &pvesim.SDNObject{Type: "simple", Props: map[string]string{"ipam": "pve", "bridge": "vmbr9"}}
					if err := tg.Sim.PlantSDNPending(pvesim.SDNZones, zone, obj); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("pve_sdn_zone.lab", plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction("pve_sdn_applier.this", plancheck.ResourceActionUpdate),
					},
				},
				Check: func(*terraform.State) error {
					if e, _ := sdnEntry(tg, pvesim.SDNZones, zone); e.State != "" {
						return fmt.Errorf("the zone is still pending: %+v", e)
					}
					return nil
				},
			},
		},
	})
}

// objects takes whole SDN resources: anything else is refused at plan,
// naming the element.
func TestAccSDNApplier_objectsMustBeSDNResources(t *testing.T) {
	t.Parallel()
	tg := acctest.NewOnPVE(t, "9.1")
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:      tg.Config("resource \"pve_sdn_applier\" \"this\" {\n  objects = [\"zone/lab\"]\n}\n"),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(`(?s)Not An SDN Object.*Element 0 of objects`),
		}},
	})
}
