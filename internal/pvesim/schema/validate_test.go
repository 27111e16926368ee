package schema

import (
	"maps"
	"reflect"
	"testing"
)

// request resolves path, merges its variables into params the way PVE's
// HTTP server does, and validates.
func request(t *testing.T, httpMethod, path string, params map[string][]string) map[string]string {
	t.Helper()
	m, vars, found := Lookup(httpMethod, path)
	if m == nil {
		t.Fatalf("Lookup(%s %s): no method (pathFound=%v)", httpMethod, path, found)
	}
	all := map[string][]string{}
	maps.Copy(all, params)
	for k, v := range vars {
		all[k] = []string{v}
	}
	return m.Validate(all)
}

// one builds a parameter map with one value per key.
func one(kv ...string) map[string][]string {
	out := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = append(out[kv[i]], kv[i+1])
	}
	return out
}

const (
	notInSchema    = "property is not defined in schema and the schema does not allow additional properties"
	missingMessage = "property is missing and it is not optional"
	ostypeEnum     = "other, wxp, w2k, w2k3, w2k8, wvista, win7, win8, win10, win11, l24, l26, solaris"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		method string
		path   string
		params map[string][]string
		want   map[string]string // nil: valid
	}{
		{
			name:   "W6 top-level boolean accepts only 0 and 1",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "start", "true"),
			want:   map[string]string{"start": "type check ('boolean') failed - got 'true'"},
		},
		{
			name:   "W6 boolean 1 passes",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "start", "1"),
		},
		{
			name:   "W7 unknown parameter",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "bogus", "1"),
			want:   map[string]string{"bogus": notInSchema},
		},
		{
			name:   "W14 clone refuses start",
			method: "POST", path: "/nodes/pve1/qemu/9000/clone",
			params: one("newid", "101", "full", "1", "start", "1"),
			want:   map[string]string{"start": notInSchema},
		},
		{
			name:   "W33 top-level nesting is refused",
			method: "POST", path: "/nodes/pve1/lxc",
			params: one("vmid", "101", "ostemplate", "local:vztmpl/x.tar.zst", "nesting", "1"),
			want:   map[string]string{"nesting": notInSchema},
		},
		{
			name:   "required vmid missing",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("name", "web"),
			want:   map[string]string{"vmid": missingMessage},
		},
		{
			name:   "vmid below the VM ID format",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "99"),
			want:   map[string]string{"vmid": "invalid format - value does not look like a valid VM ID\n"},
		},
		{
			name:   "vmid above the maximum",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "1000000000"),
			want:   map[string]string{"vmid": "invalid format - value does not look like a valid VM ID\n"},
		},
		{
			name:   "nextid with a non-integer vmid",
			method: "GET", path: "/cluster/nextid",
			params: one("vmid", "abc"),
			want:   map[string]string{"vmid": "type check ('integer') failed - got 'abc'"},
		},
		{
			name:   "nextid with a valid vmid",
			method: "GET", path: "/cluster/nextid",
			params: one("vmid", "100"),
		},
		{
			name:   "enum error lists every value",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "ostype", "linux"),
			want:   map[string]string{"ostype": "value 'linux' does not have a value in the enumeration '" + ostypeEnum + "'"},
		},
		{
			name:   "net0 with a non-integer tag",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "net0", "virtio,bridge=vmbr0,tag=x"),
			want:   map[string]string{"net0": "invalid format - format error\nnet0.tag: type check ('integer') failed - got 'x'\n"},
		},
		{
			name:   "net0 tag out of range",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("net0", "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,tag=4095"),
			want:   map[string]string{"net0": "invalid format - format error\nnet0.tag: value must have a maximum value of 4094\n"},
		},
		{
			name:   "W30 raw sshkeys are not urlencoded",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "sshkeys", "ssh-ed25519 AAAAC3 me@host"),
			want:   map[string]string{"sshkeys": "invalid format - invalid urlencoded string: ssh-ed25519 AAAAC3 me@host\n"},
		},
		{
			name:   "W19 tag with an invalid character",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("tags", "prod;we/b"),
			want:   map[string]string{"tags": "invalid format - invalid characters in tag\n"},
		},
		{
			name:   "W19 uppercase tags pass the format",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("tags", "Prod;web"),
		},
		{
			name:   "ipconfig gw requires ip",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("ipconfig0", "gw=10.0.0.1"),
			want:   map[string]string{"ipconfig0": "invalid format - format error\nipconfig0.ip: missing property required by 'ipconfig0.gw'\n"},
		},
		{
			name:   "ipconfig with ip and gw",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1", "ipconfig1", "ip=dhcp,ip6=auto"),
		},
		{
			name:   "ipconfig with an invalid CIDR",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("ipconfig0", "ip=10.0.0.5/4"),
			want:   map[string]string{"ipconfig0": "invalid format - format error\nipconfig0.ip: invalid format - value does not look like a valid ipv4 network configuration\n\n"},
		},
		{
			name:   "top-level requires",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "force", "1"),
			want:   map[string]string{"archive": "missing property required by 'force'"},
		},
		{
			name:   "valid qemu create",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one(
				"vmid", "100", "name", "web-01", "memory", "4096", "cores", "2",
				"scsi0", "local-lvm:32,iothread=1,discard=on,ssd=1",
				"scsihw", "virtio-scsi-single",
				"net0", "virtio,bridge=vmbr0,firewall=1",
				"ide2", "local-lvm:cloudinit",
				"ipconfig0", "ip=dhcp",
				"sshkeys", "ssh-ed25519%20AAAAC3Nza%20me%40host",
				"tags", "a;b",
				"boot", "order=scsi0;ide2;net0",
				"cpu", "x86-64-v2-AES",
				"agent", "enabled=1,fstrim_cloned_disks=1",
				"onboot", "1",
				"startup", "order=1,up=30",
				"hotplug", "network,disk,usb",
			),
		},
		{
			name:   "W25 import-from with size 0 and other documented drive forms",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one(
				"vmid", "100",
				"scsi0", "local-lvm:0,import-from=local:import/debian-13.qcow2",
				"scsi1", "local-lvm:vm-100-disk-1,backup=0",
				"ide2", "local:iso/debian-13-netinst.iso,media=cdrom",
				"ide0", "none,media=cdrom",
				"ide1", "cdrom",
				"efidisk0", "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
				"tpmstate0", "local-lvm:1,version=v2.0",
			),
		},
		{
			name:   "valid lxc create",
			method: "POST", path: "/nodes/pve1/lxc",
			params: one(
				"vmid", "101", "hostname", "ct-01",
				"ostemplate", "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst",
				"rootfs", "local-lvm:8",
				"mp0", "local-lvm:16,mp=/srv/data,backup=1",
				"net0", "name=eth0,bridge=vmbr0,ip=dhcp,ip6=auto,firewall=1",
				"features", "nesting=1",
				"unprivileged", "1",
				"password", "s3cret!",
				"ssh-public-keys", "ssh-ed25519 AAAAC3 me@host",
				"nameserver", "1.1.1.1 9.9.9.9",
			),
		},
		{
			name:   "W38 lxc net without the required name",
			method: "POST", path: "/nodes/pve1/lxc",
			params: one("vmid", "101", "ostemplate", "local:vztmpl/x.tar.zst", "net0", "bridge=vmbr0,ip=dhcp"),
			want:   map[string]string{"net0": "invalid format - format error\nnet0.name: " + missingMessage + "\n"},
		},
		{
			name:   "lxc mount point escaping with ..",
			method: "PUT", path: "/nodes/pve1/lxc/101/config",
			params: one("mp0", "local-lvm:8,mp=/srv/../etc"),
			want:   map[string]string{"mp0": "invalid format - format error\nmp0.mp: invalid format - /srv/../etc contains illegal character sequences\n\n"},
		},
		{
			name:   "password shorter than its minimum",
			method: "POST", path: "/nodes/pve1/lxc",
			params: one("vmid", "101", "ostemplate", "local:vztmpl/x.tar.zst", "password", "abc"),
			want:   map[string]string{"password": "value must be at least 5 characters long"},
		},
		{
			name:   "valid pool create",
			method: "POST", path: "/pools",
			params: one("poolid", "prod", "comment", "production guests"),
		},
		{
			name:   "pool nested too deeply",
			method: "POST", path: "/pools",
			params: one("poolid", "a/b/c/d"),
			want:   map[string]string{"poolid": "invalid format - pool name 'a/b/c/d' nested too deeply (max levels = 3)\n"},
		},
		{
			name:   "pool with a space",
			method: "POST", path: "/pools",
			params: one("poolid", "my pool"),
			want:   map[string]string{"poolid": "invalid format - pool name 'my pool' contains invalid characters\n"},
		},
		{
			name:   "W48 pool membership through PUT /pools",
			method: "PUT", path: "/pools",
			params: one("poolid", "prod", "vms", "100,101"),
		},
		// pve-http-server src/PVE/APIServer/AnyEvent.pm decode_urlencoded:
		// a repeated form key is an array reference.
		{
			name:   "repeated form field is an ARRAY",
			method: "POST", path: "/nodes/pve1/qemu",
			params: map[string][]string{"vmid": {"100"}, "name": {"a", "b"}},
			want:   map[string]string{"name": "type check ('string') failed - got ARRAY"},
		},
		{
			name:   "repeated boolean form field",
			method: "POST", path: "/nodes/pve1/qemu",
			params: map[string][]string{"vmid": {"100"}, "start": {"1", "1"}},
			want:   map[string]string{"start": "type check ('boolean') failed - got ARRAY"},
		},
		{
			name:   "repeated -list form field is joined with commas",
			method: "POST", path: "/nodes/pve1/qemu",
			params: map[string][]string{"vmid": {"100"}, "tags": {"a", "b"}},
		},
		{
			name:   "repeated -list form field checks every item",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: map[string][]string{"delete": {"net1", "9bad"}},
			want:   map[string]string{"delete": "invalid format - invalid configuration ID '9bad'\n"},
		},
		{
			name:   "cache buster _dc is ignored",
			method: "GET", path: "/nodes/pve1/qemu",
			params: one("_dc", "1700000000000"),
		},
		{
			name:   "index beyond PVE's range",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "net32", "virtio,bridge=vmbr0", "ide4", "none"),
			want:   map[string]string{"net32": notInSchema, "ide4": notInSchema},
		},
		{
			name:   "index with a leading zero",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "net01", "virtio,bridge=vmbr0"),
			want:   map[string]string{"net01": notInSchema},
		},
		{
			name:   "boolean inside a property string is normalised",
			method: "PUT", path: "/nodes/pve1/lxc/101/config",
			params: one("features", "nesting=yes,keyctl=On"),
		},
		{
			name:   "boolean as the default key is not normalised",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("agent", "True"),
			want:   map[string]string{"agent": "invalid format - format error\nagent.enabled: type check ('boolean') failed - got 'True'\n"},
		},
		{
			name:   "unknown key in a property string",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("net0", "virtio,bridge=vmbr0,secure-boot=1"),
			want:   map[string]string{"net0": "invalid format - invalid key in comma-separated list property: secure-boot\n"},
		},
		{
			name:   "W41 there is no secure-boot token on efidisk0",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("efidisk0", "local-lvm:1,secure-boot=1"),
			want:   map[string]string{"efidisk0": "invalid format - invalid key in comma-separated list property: secure-boot\n"},
		},
		{
			name:   "two values for the default key",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("scsi0", "local-lvm:32,local-lvm:8"),
			want:   map[string]string{"scsi0": "invalid format - duplicate key in comma-separated list property: file\n"},
		},
		{
			name:   "empty value after the equals sign",
			method: "PUT", path: "/nodes/pve1/lxc/101/config",
			params: one("net0", "name=eth0,gw="),
			want:   map[string]string{"net0": "invalid format - missing key in comma-separated list property\n"},
		},
		{
			name:   "W26 ssd is not a virtio option",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("virtio0", "local-lvm:32,ssd=1"),
			want:   map[string]string{"virtio0": "invalid format - invalid key in comma-separated list property: ssd\n"},
		},
		{
			name:   "W42 hostpci forms",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("hostpci0", "0000:17:00.0,pcie=1,x-vga=1", "hostpci1", "17:00.0", "hostpci2", "mapping=gpu0"),
		},
		{
			name:   "W42 unknown hostpci token",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("hostpci0", "0000:17:00.0,vga=1"),
			want:   map[string]string{"hostpci0": "invalid format - invalid key in comma-separated list property: vga\n"},
		},
		{
			name:   "boot order with an unknown device",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("boot", "order=scsi0;floppy0"),
			want:   map[string]string{"boot": "invalid format - format error\nboot.order: invalid format - invalid boot device 'floppy0'\n\n"},
		},
		{
			name:   "unknown built-in cpu type",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("cpu", "pentium9"),
			want:   map[string]string{"cpu": "invalid format - Built-in cputype 'pentium9' is not defined (missing 'custom-' prefix?)\n"},
		},
		{
			name:   "cpu flag outside the VM-safe set",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("cpu", "host,flags=+avx"),
			want:   map[string]string{"cpu": "invalid format - VM-specific CPU flags must be a subset of: aes, amd-no-ssb, amd-ssbd, hv-evmcs, hv-tlbflush, ibpb, md-clear, nested-virt, pcid, pdpe1gb, spec-ctrl, ssbd, virt-ssbd\n"},
		},
		{
			name:   "cpu with VM-safe flags",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("cpu", "host,flags=+aes;-pcid", "cpulimit", "1.5"),
		},
		{
			name:   "number type check",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("cpulimit", "1,5"),
			want:   map[string]string{"cpulimit": "type check ('number') failed - got '1,5'"},
		},
		{
			name:   "maxLength",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("digest", "0123456789012345678901234567890123456789012345678901234567890123456789"),
			want:   map[string]string{"digest": "value may only be 40 characters long"},
		},
		{
			name:   "pattern",
			method: "PUT", path: "/nodes/pve1/qemu/100/config",
			params: one("vmgenid", "not-a-uuid"),
			want:   map[string]string{"vmgenid": "value does not match the regex pattern"},
		},
		{
			name:   "several failing parameters give one entry each",
			method: "POST", path: "/nodes/pve1/qemu",
			params: one("vmid", "100", "start", "yes", "cores", "0", "bios", "uefi"),
			want: map[string]string{
				"start": "type check ('boolean') failed - got 'yes'",
				"cores": "value must have a minimum value of 1",
				"bios":  "value 'uefi' does not have a value in the enumeration 'seabios, ovmf'",
			},
		},
		{
			name:   "conflicting path variable in the body is still one value",
			method: "GET", path: "/nodes/pve1/qemu/100/config",
			params: one("current", "1"),
		},
		{
			name:   "method without properties accepts any parameter",
			method: "GET", path: "/version",
			params: one("anything", "1"),
		},
		{
			name:   "method with properties rejects unknown ones",
			method: "GET", path: "/nodes/pve1/qemu",
			params: one("anything", "1"),
			want:   map[string]string{"anything": notInSchema},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := request(t, tc.method, tc.path, tc.params)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Validate:\n got  %#v\n want %#v", got, tc.want)
			}
		})
	}
}

func TestValidateJSONLists(t *testing.T) {
	t.Parallel()
	m, _, _ := Lookup("POST", "/nodes/pve1/qemu")
	cases := []struct {
		name   string
		params map[string][]string
		want   map[string]string
	}{
		{"a list for a string parameter is an ARRAY",
			map[string][]string{"node": {"pve1"}, "vmid": {"100"}, "name": {"a", "b"}},
			map[string]string{"name": "type check ('string') failed - got ARRAY"}},
		{"a list for a boolean parameter is an ARRAY",
			map[string][]string{"node": {"pve1"}, "vmid": {"100"}, "start": {"1", "0"}},
			map[string]string{"start": "type check ('boolean') failed - got ARRAY"}},
		{"a list for a -list parameter is joined with commas",
			map[string][]string{"node": {"pve1"}, "vmid": {"100"}, "tags": {"a", "b"}},
			nil},
		{"joined list items are each checked",
			map[string][]string{"node": {"pve1"}, "vmid": {"100"}, "tags": {"a", "b c", "d/e"}},
			map[string]string{"tags": "invalid format - invalid characters in tag\n"}},
	}
	for _, tc := range cases {
		if got := m.Validate(tc.params); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestValidateArrayParameter(t *testing.T) {
	t.Parallel()
	// A single value of an array parameter becomes a one-element list
	// (RESTHandler's legacy normalisation); items are checked one by one.
	m, _, _ := Lookup("POST", "/cluster/sdn/fabrics/node/f1")
	if m == nil {
		t.Fatal("no method")
	}
	base := one("fabric_id", "f1", "node_id", "pve1", "protocol", "openfabric")
	good := maps.Clone(base)
	good["interfaces"] = []string{"name=ens18"}
	if errs := m.Validate(good); errs != nil {
		t.Errorf("one interface: %v", errs)
	}
	bad := maps.Clone(base)
	bad["interfaces"] = []string{"name=ens18", "mtu=9000"}
	want := map[string]string{"interfaces[1]": "invalid format - invalid key in comma-separated list property: mtu\n"}
	if got := m.Validate(bad); !reflect.DeepEqual(got, want) {
		t.Errorf("second interface: got %#v, want %#v", got, want)
	}
	// A scalar for an array parameter that is Perl-false is not wrapped.
	// The oneOf variant for the protocol and the outer schema both check
	// the type, so PVE reports it twice.
	zero := maps.Clone(base)
	zero["interfaces"] = []string{"0"}
	want = map[string]string{"interfaces": `type check ('array') failed\ntype check ('array') failed`}
	if got := m.Validate(zero); !reflect.DeepEqual(got, want) {
		t.Errorf("Perl-false scalar: got %#v, want %#v", got, want)
	}
}

func TestErrorSetJoinsWithLiteralBackslashN(t *testing.T) {
	t.Parallel()
	errs := errorSet{}
	errs.add("archive", "first")
	errs.add("archive", "second")
	if got, want := errs["archive"], `first\nsecond`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	errs.add("", "root")
	if errs["_root"] != "root" {
		t.Errorf("empty path: %v", errs)
	}
}

func TestValidateRequiresAndMissingJoin(t *testing.T) {
	t.Parallel()
	// Two keys requiring the same absent key give two messages on it, in
	// key order.
	d := &methodDef{Params: &schemaNode{Closed: true, Properties: map[string]*schemaNode{
		"a": {Type: "string"},
		"b": {Type: "string", Optional: true, Requires: "a"},
		"c": {Type: "string", Optional: true, Requires: "a"},
	}}}
	m := &Method{def: d}
	got := m.Validate(one("b", "x", "c", "y"))
	want := map[string]string{"a": missingMessage + `\n` + "missing property required by 'b'" + `\n` + "missing property required by 'c'"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}
