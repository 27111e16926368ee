package ha_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

const haResourceAddr = "pve_ha_resource.test"

// haResourceConfig is a pve_ha_resource "test" with the given attributes
// (name, value pairs; a string value is quoted, nil leaves it out).
func haResourceConfig(tg *acctest.Target, kv ...any) string {
	var b strings.Builder
	b.WriteString("resource \"pve_ha_resource\" \"test\" {\n")
	for i := 0; i+1 < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case nil:
		case string:
			fmt.Fprintf(&b, "  %s = %q\n", kv[i], v)
		default:
			fmt.Fprintf(&b, "  %s = %v\n", kv[i], v)
		}
	}
	b.WriteString("}\n")
	return tg.Config(b.String())
}

// haSeedGuests adds a VM 100 on pve1 and a container 101 on pve2 to the
// simulator. The tests need the simulator's guests (and its HA manager).
func haSeedGuests(t *testing.T, tg *acctest.Target) {
	t.Helper()
	if tg.Sim == nil {
		t.Skip("seeds guests into the simulator")
	}
	for _, g := range []pvesim.Guest{
		{VMID: 100, Node: "pve1", Type: pvesim.QEMU, Status: "stopped", Config: map[string]string{"name": "web", "memory": "1024"}},
		{VMID: 101, Node: "pve2", Type: pvesim.LXC, Status: "stopped", Config: map[string]string{"hostname": "db", "memory": "512"}},
	} {
		if err := tg.Sim.AddGuest(g); err != nil {
			t.Fatalf("add guest %d: %v", g.VMID, err)
		}
	}
}
