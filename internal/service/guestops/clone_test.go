package guestops

import (
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestCloneMarkerRoundTrip(t *testing.T) {
	t.Parallel()
	marker := CloneMarker(VM, 9000)
	for _, description := range []string{"", "golden image", "two\nlines\n"} {
		marked := WithCloneMarker(description, marker)
		if !HasCloneMarker(pveapi.GuestConfig{KeyDescription: marked}, marker) {
			t.Errorf("%q: marker not found in %q", description, marked)
		}
		stripped, found := StripCloneMarker(marked)
		if !found || stripped != trimDescription(description) {
			t.Errorf("%q: stripped to %q (found %v)", description, stripped, found)
		}
		clean := WithoutCloneMarker(pveapi.GuestConfig{KeyDescription: marked})
		if _, has := clean[KeyDescription]; has != (description != "") {
			t.Errorf("%q: WithoutCloneMarker left %q", description, clean[KeyDescription])
		}
	}
	if HasCloneMarker(pveapi.GuestConfig{KeyDescription: CloneMarker(VM, 9001)}, marker) {
		t.Error("a clone of another source carries another marker")
	}
}

func TestLocalVolumesCountsEveryVolume(t *testing.T) {
	t.Parallel()
	shared := map[string]bool{"nfs": true, "local-lvm": false, "local": false}
	vm := API{Kind: VM}
	if vm.localVolumes(pveapi.GuestConfig{"scsi0": "nfs:9000/base-9000-disk-0.qcow2,size=2G", "ide2": "none,media=cdrom"}, shared) {
		t.Error("a VM on shared storage only was reported local")
	}
	if !vm.localVolumes(pveapi.GuestConfig{"scsi0": "nfs:9000/base-9000-disk-0.qcow2", "unused0": "local-lvm:vm-9000-disk-1"}, shared) {
		t.Error("an unused local volume was missed")
	}
	ct := API{Kind: Container}
	if !ct.localVolumes(pveapi.GuestConfig{"rootfs": "nfs:subvol-9100-disk-0,size=2G", "mp0": "local-lvm:vm-9100-disk-1,mp=/srv"}, shared) {
		t.Error("a local mount point was missed")
	}
	if ct.localVolumes(pveapi.GuestConfig{"rootfs": "nfs:subvol-9100-disk-0,size=2G", "memory": "512"}, shared) {
		t.Error("a container on shared storage only was reported local")
	}
}
