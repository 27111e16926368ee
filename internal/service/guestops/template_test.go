package guestops

import (
	"strings"
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

// W17: the import errors name the resource type to use instead.
func TestWrongTemplateKindW17(t *testing.T) {
	t.Parallel()
	summary, detail := wrongTemplateKind(VM, 120)
	if summary != "VM Is A Template" || !strings.Contains(detail, "import it as pve_vm_template") {
		t.Errorf("VM: %q %q", summary, detail)
	}
	summary, detail = wrongTemplateKind(ContainerTemplate, 130)
	if summary != "Not A Container Template" || !strings.Contains(detail, "import it as pve_container.") {
		t.Errorf("container template: %q %q", summary, detail)
	}
}
