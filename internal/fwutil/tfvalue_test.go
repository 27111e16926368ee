package fwutil

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var (
	narrowAgent = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"enabled": tftypes.Bool}}
	wideAgent   = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"enabled": tftypes.Bool, "wait_for_ip": tftypes.Bool}}
	narrowDisk  = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"size": tftypes.String}}
	narrowGuest = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name":  tftypes.String,
		"agent": narrowAgent,
		"disks": tftypes.Map{ElementType: narrowDisk},
		"tags":  tftypes.Set{ElementType: tftypes.String},
	}}
	wideGuest = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name":    tftypes.String,
		"started": tftypes.Bool,
		"agent":   wideAgent,
		"disks":   tftypes.Map{ElementType: narrowDisk},
		"tags":    tftypes.Set{ElementType: tftypes.String},
	}}
)

// A template's values widen to the guest's shape with the missing
// attributes null (nested ones too), and narrow back unchanged.
func TestReshapeWidensAndNarrows(t *testing.T) {
	t.Parallel()
	disks := tftypes.NewValue(tftypes.Map{ElementType: narrowDisk}, map[string]tftypes.Value{
		"scsi0": tftypes.NewValue(narrowDisk, map[string]tftypes.Value{"size": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}),
	})
	tags := tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "a")})
	template := tftypes.NewValue(narrowGuest, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, "tpl"),
		"agent": tftypes.NewValue(narrowAgent, map[string]tftypes.Value{"enabled": tftypes.NewValue(tftypes.Bool, true)}),
		"disks": disks,
		"tags":  tags,
	})
	wide, err := Reshape(template, wideGuest)
	if err != nil {
		t.Fatal(err)
	}
	want := tftypes.NewValue(wideGuest, map[string]tftypes.Value{
		"name":    tftypes.NewValue(tftypes.String, "tpl"),
		"started": tftypes.NewValue(tftypes.Bool, nil),
		"agent": tftypes.NewValue(wideAgent, map[string]tftypes.Value{
			"enabled": tftypes.NewValue(tftypes.Bool, true), "wait_for_ip": tftypes.NewValue(tftypes.Bool, nil),
		}),
		"disks": disks,
		"tags":  tags,
	})
	if !wide.Equal(want) {
		t.Errorf("widened:\n%s\nwant:\n%s", wide, want)
	}

	narrow, err := Reshape(wide, narrowGuest)
	if err != nil {
		t.Fatal(err)
	}
	if !narrow.Equal(template) {
		t.Errorf("narrowed:\n%s\nwant:\n%s", narrow, template)
	}
}

// Null and unknown keep their kind in the new shape: a destroy plan stays
// null, an object known only after apply stays unknown.
func TestReshapeKeepsNullAndUnknown(t *testing.T) {
	t.Parallel()
	for _, v := range []tftypes.Value{tftypes.NewValue(narrowGuest, nil), tftypes.NewValue(narrowGuest, tftypes.UnknownValue)} {
		got, err := Reshape(v, wideGuest)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Type().Equal(wideGuest) || got.IsNull() != v.IsNull() || got.IsKnown() != v.IsKnown() {
			t.Errorf("Reshape(%s) = %s", v, got)
		}
	}
}

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
