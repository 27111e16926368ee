package wire_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The managed protocols are in 9.1's protocol enum; 8.4 has no fabrics.
func TestSDNFabricProtocolsAreSchemaProtocols(t *testing.T) {
	t.Parallel()
	m, _, _ := schema.Default().Lookup("POST", "/cluster/sdn/fabrics/fabric")
	p, ok := m.Param("protocol")
	if !ok {
		t.Fatal("no protocol")
	}
	for _, proto := range wire.SDNFabricProtocols {
		found := false
		for _, e := range p.Enum {
			found = found || e == proto
		}
		if !found {
			t.Errorf("%s not in %v", proto, p.Enum)
		}
	}
	pve84, _ := schema.ForRelease("8.4")
	if pve84.Known("POST", "/cluster/sdn/fabrics/fabric") {
		t.Error("8.4 has fabrics")
	}
}

// Interfaces print with name first and PVE's key order, and parse back.
func TestSDNFabricInterfaceRoundTrip(t *testing.T) {
	t.Parallel()
	s := wire.FormatSDNFabricInterface("openfabric", "ens19", wire.SDNFabricInterface{"ip": "10.0.0.1/31", "hello_multiplier": "3"})
	if s != "name=ens19,hello_multiplier=3,ip=10.0.0.1/31" {
		t.Errorf("format: %s", s)
	}
	name, opts := wire.ParseSDNFabricInterface(s)
	if name != "ens19" || !reflect.DeepEqual(opts, wire.SDNFabricInterface{"ip": "10.0.0.1/31", "hello_multiplier": "3"}) {
		t.Errorf("parse: %s %v", name, opts)
	}
	got := wire.SortedSDNFabricInterfaces("ospf", map[string]wire.SDNFabricInterface{"b": {}, "a": {"ip": "10.0.0.2/31"}})
	if !reflect.DeepEqual(got, []string{"name=a,ip=10.0.0.2/31", "name=b"}) {
		t.Errorf("sorted: %v", got)
	}
}

// PVE stores a fabric's prefix with the host bits cleared and prints IPv6
// compressed (proxmox-ve-config); an OSPF area prints back as parsed.
func TestSDNFabricCanonicalForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		got, want string
	}{
		{wire.CanonicalPrefixProblem("10.0.0.0/24", 4), ""},
		{wire.CanonicalPrefixProblem("10.0.0.9/24", 4), `write 10.0.0.0/24`},
		{wire.CanonicalPrefixProblem("2001:db8::/64", 4), `not an IPv4 prefix`},
		{wire.CanonicalPrefixProblem("2001:0db8::/64", 6), `write 2001:db8::/64`},
		{wire.CanonicalAddressProblem("10.0.0.1", 4), ""},
		{wire.CanonicalAddressProblem("2001:db8:0::1", 6), `as PVE prints it: 2001:db8::1`},
		{wire.CanonicalInterfacePrefixProblem("10.0.0.1/31", 4), ""},
		{wire.SDNFabricAreaProblem("0.0.0.7"), ""},
		{wire.SDNFabricAreaProblem("7"), ""},
		{wire.SDNFabricAreaProblem("007"), `as 7`},
		{wire.SDNFabricAreaProblem("backbone"), `not an OSPF area`},
	} {
		if (tc.want == "") != (tc.got == "") || (tc.want != "" && !strings.Contains(tc.got, tc.want)) {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for id, ok := range map[string]bool{"fab1": true, "f": false, "abcdefghi": false, "-ab": false, "a-b": true} {
		if wire.IsSDNFabricID(id) != ok {
			t.Errorf("fabric id %q: %v", id, !ok)
		}
	}
}
