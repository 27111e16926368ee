package pvesim

import (
	"net/http"
	"testing"
)

// A VM's usbN and virtiofsN mappings are looked up when it starts, not
// when its config is written: a missing mapping, or one without an entry
// for the node, fails the start with PVE's texts (qemu-server
// src/PVE/QemuServer/USB.pm parse_usb_device, Virtiofs.pm
// assert_virtiofs_config; pve-guest-common src/PVE/Mapping/Dir.pm
// find_on_current_node).
func TestVMStartNeedsMappingsOnTheNode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	start := func(msg string) {
		t.Helper()
		a := e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/start", nil)
		if msg == "" {
			e.taskOK(t, a)
			e.taskOK(t, e.call(t, http.MethodPost, "/nodes/pve1/qemu/100/status/stop", nil))
			return
		}
		e.taskFails(t, a, msg)
	}
	seed := func(kind, id string, entries ...string) {
		t.Helper()
		if err := e.sim.Update(func(c *Cluster) error {
			c.Mappings.Put(kind, &Mapping{ID: id, Map: entries})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	e.createVM(t, "100", "usb0", "mapping=stick", "virtiofs0", "share,expose-acl=1")
	start("USB device mapping not found for 'stick'")
	seed(MappingUSB, "stick", "node=pve2,id=1234:5678")
	start("USB device mapping not found for 'stick'")
	seed(MappingUSB, "stick", "node=pve1,id=1234:5678", "node=pve1,path=1-2")
	start("More than one USB mapping per host not supported")
	seed(MappingUSB, "stick", "node=pve1,id=1234:5678")
	start("Directory ID share does not exist.")
	seed(MappingDir, "share", "node=pve2,path=/srv/share")
	start("No directory mapping for node pve1.")
	seed(MappingDir, "share", "node=pve1,path=/srv/share", "node=pve1,path=/srv/other")
	start("More than than one directory mapping for node pve1.")
	seed(MappingDir, "share", "node=pve1,path=/srv/share")
	start("")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("ostype", "win11")).wantOK(t)
	start("Please disable ACLs for virtiofs on Windows VMs, otherwise the virtiofs shared directory cannot be mounted.")
}
