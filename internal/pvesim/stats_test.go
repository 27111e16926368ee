package pvesim

import (
	"net/http"
	"testing"
	"time"
)

// /cluster/resources takes name, status, template, uptime and usage from
// what pvestatd last broadcast (pve-manager PVE/API2/Cluster.pm resources,
// PVE/API2Tools.pm extract_vm_stats), every 10 s (PVE/Service/pvestatd.pm
// $updatetime); the vm list, lock, tags (get_guest_config_properties) and
// pool (user.cfg) are read live.
func TestStatsCycleLagsResources(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now})
	e.call(t, http.MethodPost, "/pools", form("poolid", "prod")).wantOK(t)
	e.createVM(t, "100", "name", "web", "tags", "db", "pool", "prod")

	r := resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if keysOf(r) != "id,node,pool,status,tags,type,vmid" || r["status"] != "unknown" || r["tags"] != "db" {
		t.Errorf("entry before the cycle = %v", r)
	}
	clock.Advance(10 * time.Second)
	r = resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if r["name"] != "web" || r["status"] != "stopped" || r["uptime"] != float64(0) {
		t.Errorf("entry after the cycle = %v", r)
	}

	e.taskOK(t, e.power(t, "100", "start"))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("name", "api", "tags", "web")).wantOK(t)
	if err := e.sim.SetLock(100, "backup"); err != nil {
		t.Fatal(err)
	}
	r = resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if r["name"] != "web" || r["status"] != "stopped" || r["tags"] != "web" || r["lock"] != "backup" {
		t.Errorf("entry right after start and rename = %v", r)
	}
	clock.Advance(5 * time.Second)
	if r = resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["status"] != "stopped" {
		t.Errorf("entry within the cycle = %v", r)
	}
	clock.Advance(5 * time.Second)
	r = resourceByID(t, resources(t, e, "vm"), "qemu/100")
	if r["name"] != "api" || r["status"] != "running" || r["uptime"] != float64(10) {
		t.Errorf("entry after the next cycle = %v", r)
	}
	clock.Advance(9 * time.Second)
	if r = resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["uptime"] != float64(10) {
		t.Errorf("uptime within the cycle = %v", r["uptime"])
	}
	// The guest's own status is read live.
	if st := e.status(t, "100"); st["status"] != "running" || st["uptime"] != float64(19) {
		t.Errorf("status/current = %v", st)
	}
}

// A destroyed guest leaves the listing at once (the vm list is live).
func TestStatsDestroyedGuestGoes(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	e := newEnv(t, Options{Now: clock.Now})
	e.createVM(t, "100", "name", "web")
	clock.Advance(10 * time.Second)
	e.taskOK(t, e.call(t, http.MethodDelete, "/nodes/pve1/qemu/100", nil))
	for _, r := range resources(t, e, "vm") {
		if r["id"] == "qemu/100" {
			t.Errorf("destroyed guest listed: %v", r)
		}
	}
}

// A negative StatsInterval reports every change at once.
func TestStatsIntervalNegativeIsLive(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{StatsInterval: -1})
	e.createVM(t, "100", "name", "web")
	if r := resourceByID(t, resources(t, e, "vm"), "qemu/100"); r["name"] != "web" || r["status"] != "stopped" {
		t.Errorf("entry = %v", r)
	}
}
