package fwutil

import "testing"

func TestCapitalize(t *testing.T) {
	for in, want := range map[string]string{"": "", "the cluster's firewall": "The cluster's firewall", "VM 100": "VM 100"} {
		if got := Capitalize(in); got != want {
			t.Errorf("Capitalize(%q) = %q, want %q", in, got, want)
		}
	}
}
