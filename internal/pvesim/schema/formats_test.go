package schema

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestNamedFormats(t *testing.T) {
	t.Parallel()
	cases := []struct {
		format string
		value  string
		want   string // "" when valid
	}{
		{"pve-vmid", "100", ""},
		{"pve-vmid", "099", "value does not look like a valid VM ID\n"},
		{"pve-node", "pve-1", ""},
		{"pve-node", "pve_1", "value does not look like a valid node name\n"},
		{"pve-configid", "a1", ""},
		{"pve-configid", "a", "invalid configuration ID 'a'\n"},
		{"pve-configid-list", "net0,scsi1;ide2 unused3", ""},
		{"pve-configid-list", "net0,1x", "invalid configuration ID '1x'\n"},
		{"pve-configid-list", "", ""}, // PVE allows empty lists
		{"pve-storage-id", "local-lvm", ""},
		{"pve-storage-id", "l", "storage ID 'l' cannot be shorter than 2 characters\n"},
		{"pve-storage-id", "local-", "storage ID 'local-' contains illegal characters\n"},
		{"pve-storage-id", "1local", "storage ID '1local' contains illegal characters\n"},
		{"pve-poolid", "prod/web/eu", ""},
		{"pve-poolid", "a/b/c/d", "pool name 'a/b/c/d' nested too deeply (max levels = 3)\n"},
		{"pve-poolid", "a//b", "pool name 'a//b' contains invalid characters\n"},
		{"pve-userid", "root@pam", ""},
		{"pve-userid", "a@", "user name 'a@' is too short\n"},
		{"pve-userid", "bob", "value 'bob' does not look like a valid user name\n"},
		{"pve-userid", strings.Repeat("u", 60) + "@pam", ""}, // 64 characters are allowed
		{"pve-userid", strings.Repeat("u", 62) + "@pam", "user name '" + strings.Repeat("u", 62) + "@pam' is too long (66 > 64)\n"},
		{"pve-tag-list", "prod;web,db Db", ""},
		{"pve-tag-list", "pr od", ""}, // whitespace separates tags
		{"pve-tag-list", "p@d", "invalid characters in tag\n"},
		{"pve-tag-list", "-x", "invalid characters in tag\n"},
		{"urlencoded", "ssh-rsa%20AAAA%0A", ""},
		{"urlencoded", "a b", "invalid urlencoded string: a b\n"},
		{"dns-name", "web-01.example.com", ""},
		{"dns-name", "web_01", "value does not look like a valid DNS name\n"},
		{"mac-addr", "BC:24:11:2a:3b:4c", ""},
		{"mac-addr", "01:24:11:2a:3b:4c", "value does not look like a valid unicast MAC address\n"},
		{"pve-bridge-id", "vmbr0", ""},
		{"pve-bridge-id", "vmbr 0", "invalid bridge ID 'vmbr 0'\n"},
		{"disk-size", "32G", ""},
		{"disk-size", "1.5T", ""},
		{"disk-size", "32GB", "value does not look like a valid disk size: 32GB\n"},
		{"ipv4", "192.168.1.10", ""},
		{"ipv4", "192.168.1.256", "value does not look like a valid IPv4 address\n"},
		{"ipv6", "fd00::1", ""},
		{"ipv6", "fd00:::1", "value does not look like a valid IPv6 address\n"},
		{"CIDR", "10.0.0.0/8", ""},
		{"CIDR", "fd00::/64", ""},
		{"CIDR", "10.0.0.0/7", "value does not look like a valid CIDR network\n"},
		{"CIDRv4", "10.0.0.1/33", "value does not look like a valid IPv4 CIDR network\n"},
		{"CIDRv6", "fd00::1/129", "value does not look like a valid IPv6 CIDR network\n"},
		{"pve-ipv4-config", "dhcp", ""},
		{"pve-ipv4-config", "manual", ""},
		{"pve-ipv4-config", "auto", "value does not look like a valid ipv4 network configuration\n"},
		{"pve-ipv4-config", "10.0.0.5", "value does not look like a valid ipv4 network configuration\n"},
		{"pve-ipv6-config", "auto", ""},
		{"pve-ipv6-config", "fd00::5/64", ""},
		{"pve-ipv6-config", "fd00::5", "value does not look like a valid ipv6 network configuration\n"},
		{"address-list", "1.1.1.1 9.9.9.9,dns.example", ""},
		{"address-list", "1.1.1.1 not_a_host", "value does not look like a valid address: not_a_host\n"},
		{"lxc-ip-with-ll-iface-list", "1.1.1.1 fe80::1%eth0", ""},
		{"lxc-ip-with-ll-iface-list", "fe80::1%", "value does not look like a valid IP address\n"},
		{"ipv4mask", "255.255.255.0", ""},
		{"ipv4mask", "255.0.255.0", "value does not look like a valid IP netmask\n"},
		{"pve-volume-id", "local:iso/debian-13.iso", ""},
		{"pve-volume-id", "iso/debian.iso", "unable to parse volume ID 'iso/debian.iso'\n"},
		{"pve-volume-id-or-qm-path", "none", ""},
		{"pve-volume-id-or-qm-path", "cdrom", ""},
		{"pve-volume-id-or-qm-path", "/dev/sdb", ""},
		{"pve-volume-id-or-qm-path", "local-lvm:32", ""},
		{"pve-volume-id-or-qm-path", "local-lvm:vm-100-disk-0", ""},
		{"pve-volume-id-or-qm-path", "local-lvm", "unable to parse volume ID 'local-lvm'\n"},
		{"pve-volume-id-or-absolute-path", "cdrom", "unable to parse volume ID 'cdrom'\n"},
		{"pve-lxc-mp-string", "/srv/data", ""},
		{"pve-lxc-mp-string", "local-lvm:8", ""},
		{"pve-lxc-mp-string", "/srv/./data", "/srv/./data contains illegal character sequences\n"},
		{"pve-lxc-mp-string", "/srv/..", "/srv/.. contains illegal character sequences\n"},
		{"pve-lxc-mp-string", "../srv", "../srv contains illegal character sequences\n"},
		{"pve-lxc-dev-string", "/dev/ttyUSB0", ""},
		{"pve-lxc-dev-string", "/srv/x", "/srv/x is not a valid device path\n"},
		{"pve-lxc-dev-string", "/dev/../etc", "/dev/../etc is not a valid device path\n"},
		{"pve-startup-order", "order=1,up=30,down=60", ""},
		{"pve-startup-order", "2", ""},
		{"pve-startup-order", "0", "unable to parse startup options\n"},
		{"pve-startup-order", "first", "unable to parse startup options\n"},
		{"pve-hotplug-features", "0", ""},
		{"pve-hotplug-features", "1", ""},
		{"pve-hotplug-features", "network,disk,usb,memory,cpu,cloudinit", ""},
		{"pve-hotplug-features", "network,gpu", "invalid hotplug feature 'gpu'\n"},
		{"pve-qm-bootdev-list", "scsi0;ide2;net0", ""},
		{"pve-qm-bootdev-list", "scsi31", "invalid boot device 'scsi31'\n"},
		{"pve-cpuset", "0-3,8", ""},
		{"pve-cpuset", "3-1", "unable to parse cpuset option\n"},
		{"pve-phys-bits", "host", ""},
		{"pve-phys-bits", "46", ""},
		{"pve-phys-bits", "7", "value must be an integer between 8 and 64 or 'host'\n"},
		{"pve-vlan-id-or-range-list", "2-100,200", ""},
		{"pve-vlan-id-or-range-list", "1", "invalid VLAN tag '1'\n"},
		{"pve-vlan-id-or-range-list", "100-50", "VLAN range must go from lower to higher tag '100-50'\n"},
		{"pve-vlan-id-or-range-list", "x", "invalid VLAN configuration 'x'\n"},
		{"storage-pair-list", "1", ""},
		{"storage-pair-list", "local:local-lvm,ceph", ""},
		{"storage-pair-list", "local:l", "entry 'local:l' contains invalid ID - storage ID 'l' cannot be shorter than 2 characters\n\n\n"},
		{"email-opt", "", ""},
		{"email-opt", "ops@example.com", ""},
		{"email-opt", "ops", "value does not look like a valid email address\n"},
		{"string-list", "anything at all", ""},
		{"pve-calendar-event", "sat 02:30", ""},
		{"pve-calendar-event", "not a calendar event", "invalid calendar event 'not a calendar event' - " +
			"unable to parse calendar event at 'not' - Context(\"weekday\")\n\n"},
		// Unchecked formats accept anything.
		{"pve-command-batch", "not a command batch", ""},
		{"no-such-format", "x", "undefined format 'no-such-format'\n"},
		{"pve-qm-ipconfig-list", "ip=dhcp", "'-list' format must have code ref, not hash\n"},
	}
	for _, tc := range cases {
		got := checkNamedFormat(tc.format, tc.value, "x")
		if got != tc.want {
			t.Errorf("%s %q:\n got  %q\n want %q", tc.format, tc.value, got, tc.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []string
	}{
		{"a;b,c d\te", []string{"a", "b", "c", "d", "e"}},
		{"  a;;b  ", []string{"a", "b"}},
		{"", []string{}},
		{"a\x00\x00b\x00", []string{"a", "", "b"}},
	}
	for _, tc := range cases {
		got := SplitList(tc.in)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPropertyString(t *testing.T) {
	t.Parallel()
	qemu, _, _ := Lookup("PUT", "/nodes/pve1/qemu/100/config")
	cases := []struct {
		param, value string
		want         map[string]string
		wantErr      string
	}{
		// A model name is an alias of macaddr that also records the model.
		{"net0", "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=on",
			map[string]string{"model": "virtio", "macaddr": "BC:24:11:2A:3B:4C", "bridge": "vmbr0", "firewall": "1"}, ""},
		{"net0", "virtio,bridge=vmbr0", map[string]string{"model": "virtio", "bridge": "vmbr0"}, ""},
		{"net0", "virtio=BC:24:11:2A:3B:4C,e1000=BC:24:11:2A:3B:4D", nil, "key alias 'model' is already defined\n"},
		{"net0", "bridge=vmbr0", nil, "format error\nnet0.model: property is missing and it is not optional\n"},
		{"net0", "virtio,bridge=vmbr0,bridge=vmbr1", nil, "duplicate key in comma-separated list property: bridge\n"},
		// volume is an alias of file; blank parts are skipped.
		{"scsi0", "volume=local-lvm:32, ,ssd=no", map[string]string{"file": "local-lvm:32", "ssd": "0"}, ""},
		// pve-common JSONSchema.pm parse_property_string: an alias naming a
		// key already given is refused, in either order.
		{"scsi0", "file=local-lvm:32,volume=local-lvm:64", nil, "key 'file' is already defined (via alias)\n"},
		{"scsi0", "local-lvm:32,volume=local-lvm:64", nil, "key 'file' is already defined (via alias)\n"},
		{"ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1", map[string]string{"ip": "10.0.0.5/24", "gw": "10.0.0.1"}, ""},
		{"ipconfig0", "10.0.0.5/24", nil, "value without key, but schema does not define a default key\n"},
		// pve-common JSONSchema.pm parse_property_string matches a part with
		// /^([^=]+)=(.+)$/: Perl's $ lets one final newline through.
		{"ipconfig0", "ip=10.0.0.5/24\n", map[string]string{"ip": "10.0.0.5/24"}, ""},
		{"ipconfig0", "ip=10.0.0.5/24\n\n", nil, "missing key in comma-separated list property\n"},
		{"cores", "4", nil, "parameter cores is not a property string"},
	}
	for _, tc := range cases {
		got, errMsg := qemu.PropertyString(tc.param, tc.value)
		if errMsg != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s=%q:\n got  %v %q\n want %v %q", tc.param, tc.value, got, errMsg, tc.want, tc.wantErr)
		}
	}
}

func TestPatternLengthBeyondRE2Limit(t *testing.T) {
	t.Parallel()
	// POST /access/users 'keys' is [0-9a-zA-Z!=]{0,4096} in PVE; RE2 cannot
	// count that far, so the tables check the length separately.
	ok := request(t, "POST", "/access/users", one("userid", "bob@pve", "keys", strings.Repeat("A", 4096)))
	if ok != nil {
		t.Errorf("4096 characters: %v", ok)
	}
	tooLong := request(t, "POST", "/access/users", one("userid", "bob@pve", "keys", strings.Repeat("A", 4097)))
	want := map[string]string{"keys": "value does not match the regex pattern"}
	if !reflect.DeepEqual(tooLong, want) {
		t.Errorf("4097 characters: %v", tooLong)
	}
}

func TestPatternIsAnchoredStrictly(t *testing.T) {
	t.Parallel()
	// Perl's '$' would accept a trailing newline; these checks do not.
	s := &schemaNode{Pattern: `(?:\d+(?:-\d+)?(?:;\d+(?:-\d+)?)*)`}
	for val, want := range map[string]bool{"10;20-30": true, "10;20-30\n": false, "x10": false, "10x": false} {
		if got := s.patternMatches(val); got != want {
			t.Errorf("%q: got %v, want %v", val, got, want)
		}
	}
}

// TestUncheckedFormats pins the named formats that are accepted without a
// check, so that adding one is a visible change.
func TestUncheckedFormats(t *testing.T) {
	t.Parallel()
	want := []string{
		"FullRangeCIDR", "pem-certificate", "pem-certificate-chain",
		"pem-string", "pve-acme-alias", "pve-acme-domain", "pve-command-batch",
		"pve-dir-override", "pve-priv", "pve-sdn-bgp-rt", "pve-sdn-fabric-wireguard-interface",
		"pve-sdn-prefix-list-id", "pve-sdn-route-map-id",
		"pve-storage-path-in-property-string", "pve-storage-portal-dns",
	}
	// Formats only PVE 8.4's dump uses (TableSets).
	want = append(want, "pve-ha-group-node", "pve-sdn-vnet-id", "pve-sdn-zone-id")
	sort.Strings(want)
	if got := UncheckedFormats(); !reflect.DeepEqual(got, want) {
		t.Errorf("UncheckedFormats:\n got  %q\n want %q", got, want)
	}
}

func TestEveryUsedFormatResolves(t *testing.T) {
	t.Parallel()
	// Every format a parameter names must be a hash format or a registered
	// code format, or validation would answer "undefined format".
	var walk func(where string, s *schemaNode)
	walk = func(where string, s *schemaNode) {
		if s == nil {
			return
		}
		if s.FormatName != "" && s.FormatName != "regex" {
			base, _ := splitFormatName(s.FormatName)
			_, hash := load().HashFormats[s.FormatName]
			_, code := load().Verifiers[base]
			if !hash && !code {
				t.Errorf("%s: format %s does not resolve", where, s.FormatName)
			}
		}
		for k, p := range s.FormatProps {
			walk(where+"."+k, p)
		}
		for k, p := range s.Properties {
			walk(where+"."+k, p)
		}
		walk(where+"[]", s.Items)
		for _, alt := range s.OneOf {
			walk(where+"|", alt)
		}
	}
	for _, m := range Methods() {
		walk(m.HTTPMethod()+" "+m.Path(), m.def.Params)
	}
}

// pve-network src/PVE/Network/SDN/SubnetPlugin.pm parse_sdn_subnet_id.
func TestSDNSubnetIDFormat(t *testing.T) {
	t.Parallel()
	f := verifierFunc("pve-sdn-subnet-id")
	for v, want := range map[string]string{
		"10.0.0.0/24":      "",
		"lab-10.0.0.0-24":  "",
		"lab-fd00::-64":    "",
		"10.0.0.0/4":       "value does not look like a valid CIDR network\n",
		"garbage":          "value does not look like a valid CIDR network\n",
		"lab-10.0.0.0-33":  "value does not look like a valid CIDR network\n",
		"lab-10.0.0.300-8": "value does not look like a valid CIDR network\n",
	} {
		if got := f(v); got != want {
			t.Errorf("%q: got %q, want %q", v, got, want)
		}
	}
}
