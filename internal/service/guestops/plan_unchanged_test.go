package guestops

import (
	"math/big"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// SameRaw answers as tftypes' Equal does, for every kind of value a
// guest's state holds.
func TestSameRawAgreesWithEqual(t *testing.T) {
	disk := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"size": tftypes.Number, "storage": tftypes.String}}
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name":    tftypes.String,
		"started": tftypes.Bool,
		"memory":  tftypes.Number,
		"tags":    tftypes.Set{ElementType: tftypes.String},
		"order":   tftypes.List{ElementType: tftypes.String},
		"disks":   tftypes.Map{ElementType: disk},
		"any":     tftypes.DynamicPseudoType,
	}}
	diskValue := func(size int64, storage any) tftypes.Value {
		return tftypes.NewValue(disk, map[string]tftypes.Value{
			"size":    tftypes.NewValue(tftypes.Number, big.NewFloat(float64(size))),
			"storage": tftypes.NewValue(tftypes.String, storage),
		})
	}
	strings := func(values ...string) []tftypes.Value {
		out := make([]tftypes.Value, len(values))
		for i, v := range values {
			out[i] = tftypes.NewValue(tftypes.String, v)
		}
		return out
	}
	guest := func(change func(map[string]tftypes.Value)) tftypes.Value {
		attrs := map[string]tftypes.Value{
			"name":    tftypes.NewValue(tftypes.String, "web"),
			"started": tftypes.NewValue(tftypes.Bool, true),
			"memory":  tftypes.NewValue(tftypes.Number, big.NewFloat(1024)),
			"tags":    tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, strings("a", "b")),
			"order":   tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, strings("scsi0", "net0")),
			"disks": tftypes.NewValue(tftypes.Map{ElementType: disk}, map[string]tftypes.Value{
				"scsi0": diskValue(4, "local-lvm"),
				"scsi1": diskValue(8, nil),
			}),
			"any": tftypes.NewValue(tftypes.String, "x"),
		}
		if change != nil {
			change(attrs)
		}
		return tftypes.NewValue(typ, attrs)
	}
	base := guest(nil)
	variants := map[string]tftypes.Value{
		"same":         guest(nil),
		"name":         guest(func(m map[string]tftypes.Value) { m["name"] = tftypes.NewValue(tftypes.String, "db") }),
		"null name":    guest(func(m map[string]tftypes.Value) { m["name"] = tftypes.NewValue(tftypes.String, nil) }),
		"unknown name": guest(func(m map[string]tftypes.Value) { m["name"] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue) }),
		"started":      guest(func(m map[string]tftypes.Value) { m["started"] = tftypes.NewValue(tftypes.Bool, false) }),
		"memory":       guest(func(m map[string]tftypes.Value) { m["memory"] = tftypes.NewValue(tftypes.Number, big.NewFloat(2048)) }),
		"tags reordered": guest(func(m map[string]tftypes.Value) {
			m["tags"] = tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, strings("b", "a"))
		}),
		"tags": guest(func(m map[string]tftypes.Value) {
			m["tags"] = tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, strings("a", "c"))
		}),
		"order reordered": guest(func(m map[string]tftypes.Value) {
			m["order"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, strings("net0", "scsi0"))
		}),
		"order shorter": guest(func(m map[string]tftypes.Value) {
			m["order"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, strings("scsi0"))
		}),
		"disk size": guest(func(m map[string]tftypes.Value) {
			m["disks"] = tftypes.NewValue(tftypes.Map{ElementType: disk}, map[string]tftypes.Value{"scsi0": diskValue(5, "local-lvm"), "scsi1": diskValue(8, nil)})
		}),
		"disk slot": guest(func(m map[string]tftypes.Value) {
			m["disks"] = tftypes.NewValue(tftypes.Map{ElementType: disk}, map[string]tftypes.Value{"scsi0": diskValue(4, "local-lvm"), "scsi2": diskValue(8, nil)})
		}),
		"dynamic type": guest(func(m map[string]tftypes.Value) { m["any"] = tftypes.NewValue(tftypes.Bool, true) }),
		"null":         tftypes.NewValue(typ, nil),
		"unknown":      tftypes.NewValue(typ, tftypes.UnknownValue),
	}
	for name, v := range variants {
		for _, pair := range [][2]tftypes.Value{{base, v}, {v, base}, {v, v}} {
			if got, want := SameRaw(pair[0], pair[1]), pair[0].Equal(pair[1]); got != want {
				t.Errorf("%s: SameRaw(%v, %v) = %v, Equal says %v", name, pair[0], pair[1], got, want)
			}
		}
	}
}
