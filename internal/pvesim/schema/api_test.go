package schema

import (
	"reflect"
	"sort"
	"testing"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	cases := []struct {
		method, path string
		wantName     string // "" when no method matches
		wantTemplate string
		wantVars     map[string]string
		wantFound    bool
	}{
		{"GET", "/nodes/pve1/qemu/100/config", "vm_config", "/nodes/{node}/qemu/{vmid}/config",
			map[string]string{"node": "pve1", "vmid": "100"}, true},
		{"PUT", "/nodes/pve1/qemu/100/config", "update_vm", "/nodes/{node}/qemu/{vmid}/config",
			map[string]string{"node": "pve1", "vmid": "100"}, true},
		{"POST", "/nodes/pve1/qemu", "create_vm", "/nodes/{node}/qemu", map[string]string{"node": "pve1"}, true},
		{"get", "/cluster/nextid", "nextid", "/cluster/nextid", map[string]string{}, true},
		{"GET", "//nodes//pve1/", "", "", nil, false}, // empty fragments are skipped: /nodes/pve1 has GET
		{"GET", "/version", "version", "/version", map[string]string{}, true},
		// W46: a volume id is one fragment below .../content, whether its '/'
		// is sent raw or percent-encoded.
		{"DELETE", "/nodes/pve1/storage/local/content/local:iso%2Fdebian-13.iso", "delete", "/nodes/{node}/storage/{storage}/content/{volume}",
			map[string]string{"node": "pve1", "storage": "local", "volume": "local:iso/debian-13.iso"}, true},
		{"GET", "/nodes/pve1/storage/local/content/local:vztmpl/a/b.tar.zst", "info", "/nodes/{node}/storage/{storage}/content/{volume}",
			map[string]string{"node": "pve1", "storage": "local", "volume": "local:vztmpl/a/b.tar.zst"}, true},
		{"GET", "/nodes/pve1/storage/local/content", "index", "/nodes/{node}/storage/{storage}/content",
			map[string]string{"node": "pve1", "storage": "local"}, true},
		// An IPSet entry's CIDR is one fragment below the set's name, raw or
		// percent-encoded; empty fragments are skipped before the join
		// (pve-firewall src/PVE/API2/Firewall/IPSet.pm fragmentDelimiter).
		{"GET", "/cluster/firewall/ipset/myset/10.0.0.0/24", "read_ip", "/cluster/firewall/ipset/{name}/{cidr}",
			map[string]string{"name": "myset", "cidr": "10.0.0.0/24"}, true},
		{"PUT", "/cluster/firewall/ipset/myset/10.0.0.0%2F24", "update_ip", "/cluster/firewall/ipset/{name}/{cidr}",
			map[string]string{"name": "myset", "cidr": "10.0.0.0/24"}, true},
		{"DELETE", "/cluster/firewall/ipset/myset/10.0.0.0//24/", "remove_ip", "/cluster/firewall/ipset/{name}/{cidr}",
			map[string]string{"name": "myset", "cidr": "10.0.0.0/24"}, true},
		{"GET", "/cluster/firewall/ipset/myset/10.0.0.5", "read_ip", "/cluster/firewall/ipset/{name}/{cidr}",
			map[string]string{"name": "myset", "cidr": "10.0.0.5"}, true},
		{"GET", "/cluster/firewall/ipset/myset/", "get_ipset", "/cluster/firewall/ipset/{name}",
			map[string]string{"name": "myset"}, true},
		{"DELETE", "/nodes/pve1/qemu/100/firewall/ipset/web/fe80::%2F64", "remove_ip", "/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}",
			map[string]string{"node": "pve1", "vmid": "100", "name": "web", "cidr": "fe80::/64"}, true},
		{"GET", "/nodes/pve1/lxc/200/firewall/ipset/web/dc/alias1", "read_ip", "/nodes/{node}/lxc/{vmid}/firewall/ipset/{name}/{cidr}",
			map[string]string{"node": "pve1", "vmid": "200", "name": "web", "cidr": "dc/alias1"}, true},
		// Aliases have no such mount: a '/' there is a fragment of its own.
		{"GET", "/cluster/firewall/aliases/a/b", "", "", nil, false},
		// The whole path is percent-decoded before it is split.
		{"GET", "/nodes/pve1%2Fqemu", "vmlist", "/nodes/{node}/qemu", map[string]string{"node": "pve1"}, true},
		// Known path, unknown method.
		{"DELETE", "/nodes/pve1/qemu", "", "", map[string]string{"node": "pve1"}, true},
		// W17: there is no untemplate endpoint.
		{"POST", "/nodes/pve1/qemu/100/untemplate", "", "", nil, false},
		{"GET", "/nodes/pve1/nonexistent", "", "", nil, false},
		// A directory without handlers is no path in this sense.
		{"GET", "/nodes/pve1/sdn/fabrics", "", "", nil, false},
	}
	for _, tc := range cases {
		m, vars, found := Lookup(tc.method, tc.path)
		if tc.path == "//nodes//pve1/" {
			if m == nil || m.Path() != "/nodes/{node}" || vars["node"] != "pve1" {
				t.Errorf("%s: got %v %v", tc.path, m, vars)
			}
			continue
		}
		if found != tc.wantFound {
			t.Errorf("%s %s: pathFound=%v, want %v", tc.method, tc.path, found, tc.wantFound)
		}
		if tc.wantName == "" {
			if m != nil {
				t.Errorf("%s %s: got method %s, want none", tc.method, tc.path, m.Name())
			}
		} else if m == nil || m.Name() != tc.wantName || m.Path() != tc.wantTemplate {
			t.Errorf("%s %s: got %v, want %s %s", tc.method, tc.path, m, tc.wantName, tc.wantTemplate)
		}
		if !reflect.DeepEqual(vars, tc.wantVars) {
			t.Errorf("%s %s: vars %v, want %v", tc.method, tc.path, vars, tc.wantVars)
		}
	}
}

func TestLookupLiteralWinsOverVariable(t *testing.T) {
	t.Parallel()
	root, _ := buildRoutes(nil, &tables{Methods: []*methodDef{
		{Path: "/pools/{poolid}", HTTPMethod: "GET", Name: "read_pool", Params: &schemaNode{}},
		{Path: "/pools/special", HTTPMethod: "GET", Name: "special", Params: &schemaNode{}},
		{Path: "/pools/{poolid}/x", HTTPMethod: "GET", Name: "pool_x", Params: &schemaNode{}},
	}})
	vars := map[string]string{}
	if n := root.match([]string{"pools", "special"}, vars); n == nil || n.methods["GET"].Name() != "special" || len(vars) != 0 {
		t.Errorf("literal: got %v %v", n, vars)
	}
	// The literal branch has no /x below it, so the variable one is taken.
	vars = map[string]string{}
	if n := root.match([]string{"pools", "special", "x"}, vars); n == nil || n.methods["GET"].Name() != "pool_x" || vars["poolid"] != "special" {
		t.Errorf("fallback: got %v %v", n, vars)
	}
	vars = map[string]string{}
	if n := root.match([]string{"pools", "a b"}, vars); n != nil {
		t.Errorf("a variable matches \\S+ only, got %v", n)
	}
}

func TestMethodAttributes(t *testing.T) {
	t.Parallel()
	m, _, _ := Lookup("POST", "/nodes/pve1/qemu")
	if m.HTTPMethod() != "POST" || !m.Protected() || m.ProxyTo() != "node" || !m.AllowToken() {
		t.Errorf("create_vm attributes: %s protected=%v proxyto=%q allowtoken=%v", m.HTTPMethod(), m.Protected(), m.ProxyTo(), m.AllowToken())
	}
	if !Known("GET", "/nodes/pve1/lxc/101/status/current") || Known("PATCH", "/nodes/pve1/lxc/101/status/current") {
		t.Error("Known")
	}
	all := Methods()
	if len(all) < 600 {
		t.Fatalf("only %d methods", len(all))
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool {
		if all[i].Path() != all[j].Path() {
			return all[i].Path() < all[j].Path()
		}
		return all[i].HTTPMethod() < all[j].HTTPMethod()
	}) {
		t.Error("Methods is not ordered")
	}
}

func TestParam(t *testing.T) {
	t.Parallel()
	m, _, _ := Lookup("POST", "/nodes/pve1/qemu")
	cases := []struct {
		name string
		want ParamInfo
		ok   bool
	}{
		{"vmid", ParamInfo{Type: "integer", Format: "pve-vmid"}, true},
		{"net31", ParamInfo{Type: "string", Optional: true, PropertyString: true}, true},
		{"net32", ParamInfo{}, false},
		{"ipconfig0", ParamInfo{Type: "string", Optional: true, Format: "pve-qm-ipconfig", PropertyString: true}, true},
		{"numa", ParamInfo{Type: "boolean", Optional: true}, true},
		{"numa0", ParamInfo{Type: "string", Optional: true, PropertyString: true}, true},
		{"smbios1", ParamInfo{Type: "string", Optional: true, Format: "pve-qm-smbios1", PropertyString: true}, true},
		{"bios", ParamInfo{Type: "string", Optional: true, Enum: []string{"seabios", "ovmf"}}, true},
		{"nonexistent", ParamInfo{}, false},
	}
	for _, tc := range cases {
		got, ok := m.Param(tc.name)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Param(%s) = %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSplitIndexedName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		base string
		idx  int
		ok   bool
	}{
		{"net0", "net", 0, true},
		{"unused255", "unused", 255, true},
		{"net01", "", 0, false},
		{"net", "", 0, false},
		{"0", "", 0, false},
		{"Net1", "", 0, false},
		{"ip6", "ip", 6, true},
	}
	for _, tc := range cases {
		base, idx, ok := splitIndexedName(tc.in)
		if base != tc.base || idx != tc.idx || ok != tc.ok {
			t.Errorf("%s: got %q %d %v", tc.in, base, idx, ok)
		}
	}
}

func BenchmarkLookupAndValidate(b *testing.B) {
	params := one("vmid", "100", "name", "web-01", "memory", "4096", "cores", "2",
		"scsi0", "local-lvm:32,iothread=1", "net0", "virtio,bridge=vmbr0",
		"ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1", "tags", "a;b", "node", "pve1")
	for b.Loop() {
		m, _, _ := Lookup("POST", "/nodes/pve1/qemu")
		if m.Validate(params) != nil {
			b.Fatal("invalid")
		}
	}
}
