package wire

import "testing"

func TestIPConfigGrammar(t *testing.T) {
	t.Parallel()
	cases := []struct {
		family IPFamily
		value  string
		ok     bool
	}{
		{IPv4, "dhcp", true},
		{IPv4, "manual", true},
		{IPv4, "auto", false},
		{IPv4, "10.0.0.5/24", true},
		{IPv4, "10.0.0.5/8", true},
		{IPv4, "10.0.0.5/32", true},
		{IPv4, "10.0.0.5/7", false},
		{IPv4, "10.0.0.5/33", false},
		{IPv4, "10.0.0.300/24", false},
		{IPv4, "10.0.0.05/24", false},
		{IPv4, "10.0.0.5", false},
		{IPv4, "10.0.0.5/", false},
		{IPv4, "2001:db8::5/64", false},
		{IPv6, "auto", true},
		{IPv6, "dhcp", true},
		{IPv6, "manual", true},
		{IPv6, "2001:db8::5/64", true},
		{IPv6, "::ffff:10.0.0.5/104", true},
		{IPv6, "2001:db8::5/129", false},
		{IPv6, "2001:db8::5/7", false},
		{IPv6, "2001:db8::g/64", false},
		{IPv6, "fe80::1%eth0/64", false},
		{IPv6, "10.0.0.5/24", false},
	}
	for _, c := range cases {
		if err := c.family.CheckConfig(c.value); (err == nil) != c.ok {
			t.Errorf("IPv%d %q: got %v, want ok=%v", c.family, c.value, err, c.ok)
		}
	}
}

func TestIPAddressGrammar(t *testing.T) {
	t.Parallel()
	cases := []struct {
		family IPFamily
		value  string
		ok     bool
	}{
		{IPv4, "10.0.0.1", true},
		{IPv4, "gw", false},
		{IPv4, "10.0.0.256", false},
		{IPv4, "10.0.0.1/24", false},
		{IPv6, "fe80::1", true},
		{IPv6, "::", true},
		{IPv6, "2001:db8::1::2", false},
		{IPv6, "10.0.0.1", false},
	}
	for _, c := range cases {
		if err := c.family.CheckAddress(c.value); (err == nil) != c.ok {
			t.Errorf("IPv%d %q: got %v, want ok=%v", c.family, c.value, err, c.ok)
		}
	}
}
