package wire

import "testing"

func TestParseFirewallReference(t *testing.T) {
	for _, tc := range []struct{ spec, kind, name, scope string }{
		{"+admins", "ipset", "admins", ""},
		{"+dc/admins", "ipset", "admins", "dc"},
		{"+guest/web-1", "ipset", "web-1", "guest"},
		{"+sdn/vnet1-all", "ipset", "vnet1-all", "sdn"},
		{"office", "alias", "office", ""},
		{"dc/office", "alias", "office", "dc"},
		{"guest/db_net", "alias", "db_net", "guest"},
		{"sdn/office", "", "", ""},
		{"10.0.0.0/8", "", "", ""},
		{"10.0.0.1,10.0.0.2", "", "", ""},
		{"2001:db8::/64", "", "", ""},
		{"+", "", "", ""},
		{"x", "", "", ""},
	} {
		kind, name, scope := ParseFirewallReference(tc.spec)
		if kind != tc.kind || name != tc.name || scope != tc.scope {
			t.Errorf("ParseFirewallReference(%q) = %q %q %q, want %q %q %q", tc.spec, kind, name, scope, tc.kind, tc.name, tc.scope)
		}
		if IsFirewallReference(tc.spec) != (tc.kind != "") {
			t.Errorf("IsFirewallReference(%q) = %v", tc.spec, tc.kind == "")
		}
	}
}
