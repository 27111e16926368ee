package schema

import (
	"reflect"
	"testing"
)

func TestReleasesHaveTheirOwnMethods(t *testing.T) {
	t.Parallel()
	pve8, ok := ForRelease("8.4")
	if !ok {
		t.Fatal("no tables for PVE 8.4")
	}
	if _, ok := ForRelease("7.4"); ok {
		t.Fatal("PVE 7.4 has no tables")
	}
	if Default().Release() != "9.1" || pve8.Release() != "8.4" {
		t.Fatalf("releases: %s, %s", Default().Release(), pve8.Release())
	}
	// HA rules replaced HA groups in PVE 9.0 (pve-ha-manager); the 8.4
	// dump has no such path.
	if !Default().Known("GET", "/cluster/ha/rules") || pve8.Known("GET", "/cluster/ha/rules") {
		t.Error("GET /cluster/ha/rules must exist in 9.1 only")
	}
	// OCI containers (entrypoint, env) came with pve-container 6.x (PVE 9).
	m91, _, _ := Default().Lookup("POST", "/nodes/pve1/lxc")
	m84, _, _ := pve8.Lookup("POST", "/nodes/pve1/lxc")
	if _, ok := m91.Param("entrypoint"); !ok {
		t.Error("9.1 lxc create lacks entrypoint")
	}
	if _, ok := m84.Param("entrypoint"); ok {
		t.Error("8.4 lxc create has entrypoint")
	}
	errs := m84.Validate(one("node", "pve1", "vmid", "100", "ostemplate", "local:vztmpl/x.tar.zst", "entrypoint", "/bin/sh"))
	if errs["entrypoint"] != "property is not defined in schema and the schema does not allow additional properties" {
		t.Errorf("8.4 entrypoint: %#v", errs)
	}
}

// pve-common src/PVE/JSONSchema.pm check_object: 0f0e791 ("schema: clarify
// error on missing property dependency", pve-common 9.0.8, PVE 9.0) changed
// the text of a missing required-by property.
func TestRequiresWordingByRelease(t *testing.T) {
	t.Parallel()
	params := one("node", "pve1", "vmid", "100", "force", "1")
	m91, _, _ := Default().Lookup("POST", "/nodes/pve1/qemu")
	if got, want := m91.Validate(params), map[string]string{"archive": "missing property required by 'force'"}; !reflect.DeepEqual(got, want) {
		t.Errorf("9.1: got %#v, want %#v", got, want)
	}
	pve8, _ := ForRelease("8.4")
	m84, _, _ := pve8.Lookup("POST", "/nodes/pve1/qemu")
	if got, want := m84.Validate(params), map[string]string{"archive": "missing property - 'force' requires this property"}; !reflect.DeepEqual(got, want) {
		t.Errorf("8.4: got %#v, want %#v", got, want)
	}
	ip := one("node", "pve1", "vmid", "100", "ipconfig0", "gw=10.0.0.1")
	m84c, _, _ := pve8.Lookup("PUT", "/nodes/pve1/qemu/100/config")
	want := "invalid format - format error\nipconfig0.ip: missing property - 'ipconfig0.gw' requires this property\n"
	if got := m84c.Validate(ip)["ipconfig0"]; got != want {
		t.Errorf("8.4 nested: got %q, want %q", got, want)
	}
}
