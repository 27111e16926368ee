package guestops

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

var (
	cpuType   = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"cores": tftypes.Number, "sockets": tftypes.Number}}
	diskType  = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"size": tftypes.Number}}
	disksType = tftypes.Map{ElementType: diskType}
	guestType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "status": tftypes.String, "cpu": cpuType, "disks": disksType, "secret": tftypes.String,
	}}
)

func cpu(cores, sockets any) tftypes.Value {
	return tftypes.NewValue(cpuType, map[string]tftypes.Value{
		"cores": tftypes.NewValue(tftypes.Number, cores), "sockets": tftypes.NewValue(tftypes.Number, sockets),
	})
}

func disks(sizes map[string]int) tftypes.Value {
	if sizes == nil {
		return tftypes.NewValue(disksType, nil)
	}
	out := map[string]tftypes.Value{}
	for slot, size := range sizes {
		out[slot] = tftypes.NewValue(diskType, map[string]tftypes.Value{"size": tftypes.NewValue(tftypes.Number, size)})
	}
	return tftypes.NewValue(disksType, out)
}

func guest(name, status any, c tftypes.Value, d tftypes.Value, secret any) tftypes.Value {
	return tftypes.NewValue(guestType, map[string]tftypes.Value{
		"name": tftypes.NewValue(tftypes.String, name), "status": tftypes.NewValue(tftypes.String, status),
		"cpu": c, "disks": d, "secret": tftypes.NewValue(tftypes.String, secret),
	})
}

func nullCPU() tftypes.Value { return tftypes.NewValue(cpuType, nil) }

func TestMaskUndeclaredKeepsOnlyDeclared(t *testing.T) {
	t.Parallel()
	live := guest("app", "running", cpu(4, 2), disks(map[string]int{"scsi0": 40, "scsi1": 8}), "tmpl")
	declared := guest("app", tftypes.UnknownValue, cpu(4, nil), disks(map[string]int{"scsi0": 40}), nil)
	got, err := MaskUndeclared(live, declared)
	if err != nil {
		t.Fatal(err)
	}
	want := guest("app", "running", cpu(4, nil), disks(map[string]int{"scsi0": 40}), nil)
	if !got.Equal(want) {
		t.Errorf("masked:\n got %v\nwant %v", got, want)
	}
}

func TestFillInheritedLeavesInheritedAlone(t *testing.T) {
	t.Parallel()
	live := guest("app", "running", cpu(4, 2), disks(map[string]int{"scsi0": 40, "scsi1": 8}), "tmpl")
	noSecret := func(p *tftypes.AttributePath) bool {
		steps := p.Steps()
		return len(steps) == 1 && steps[0] == tftypes.AttributeName("secret")
	}

	// First reconfiguration: nothing declared before.
	plan := guest("app", "running", tftypes.NewValue(cpuType, nil), disks(map[string]int{"scsi0": 50}), nil)
	prior := tftypes.NewValue(guestType, nil)
	got, err := FillInherited(plan, prior, live, noSecret)
	if err != nil {
		t.Fatal(err)
	}
	want := guest("app", "running", cpu(4, 2), disks(map[string]int{"scsi0": 50, "scsi1": 8}), nil)
	if !got.Equal(want) {
		t.Errorf("first fill:\n got %v\nwant %v", got, want)
	}

	// Declared before, dropped now: not inherited, so the update removes it.
	prior = guest("app", "running", cpu(4, nil), disks(map[string]int{"scsi0": 50, "scsi2": 1}), nil)
	live = guest("app", "running", cpu(4, 2), disks(map[string]int{"scsi0": 50, "scsi1": 8, "scsi2": 1}), nil)
	got, err = FillInherited(plan, prior, live, noSecret)
	if err != nil {
		t.Fatal(err)
	}
	want = guest("app", "running", nullCPU(), disks(map[string]int{"scsi0": 50, "scsi1": 8}), nil)
	if !got.Equal(want) {
		t.Errorf("fill after removal:\n got %v\nwant %v", got, want)
	}
}

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
