package schema

import (
	"sort"
	"testing"
)

// pve-container src/PVE/LXC/Config.pm verify_ct_timezone and pve-common
// src/PVE/JSONSchema.pm pve_verify_timezone: "host", "UTC" and the zones
// of zone.tab pass; anything else is "invalid time zone 'X'".
func TestCTTimezoneFormat(t *testing.T) {
	t.Parallel()
	if !sort.StringsAreSorted(zoneTabZones) {
		t.Fatal("zoneTabZones must be sorted")
	}
	for _, ok := range []string{"host", "UTC", "Europe/Vienna", "America/Argentina/Buenos_Aires", "Pacific/Auckland"} {
		if msg := checkNamedFormat("pve-ct-timezone", ok, "timezone"); msg != "" {
			t.Errorf("%q refused: %q", ok, msg)
		}
	}
	for _, bad := range []string{"Mars/Base", "utc", "Etc/UTC", "europe/vienna", ""} {
		if msg := checkNamedFormat("pve-ct-timezone", bad, "timezone"); msg != "invalid time zone '"+bad+"'\n" {
			t.Errorf("%q: %q", bad, msg)
		}
	}
	// The node's "timezone" format has no "host".
	if msg := checkNamedFormat("timezone", "host", "timezone"); msg != "invalid time zone 'host'\n" {
		t.Errorf("timezone host: %q", msg)
	}
}
