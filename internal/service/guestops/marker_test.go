package guestops

import (
	"net/url"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// W13: a plain create writes a marker naming the guest; it is recognised,
// stripped like a clone's and never mistaken for a user's own line.
func TestCreateMarkerRoundTripW13(t *testing.T) {
	t.Parallel()
	marker := CreateMarker(VM, "web-1")
	if want := "terraform-provider-pve: creating qemu web-1, not finished"; marker != want {
		t.Fatalf("CreateMarker = %q, want %q", marker, want)
	}
	if CreateMarker(Container, "web-1") == marker || CreateMarker(VM, "web-2") == marker {
		t.Error("markers of another kind or name must differ")
	}
	marked := WithCloneMarker("first\nsecond\n", marker)
	if !HasCloneMarker(pveapi.GuestConfig{KeyDescription: marked}, marker) {
		t.Errorf("%q: marker not found", marked)
	}
	if HasCloneMarker(pveapi.GuestConfig{KeyDescription: marked}, CreateMarker(VM, "web")) {
		t.Error("a marker of another name must not match")
	}
	if got, found := StripCloneMarker(marked); !found || got != "first\nsecond" {
		t.Errorf("StripCloneMarker = %q, %v", got, found)
	}
	if got, found := StripCloneMarker(marker); !found || got != "" {
		t.Errorf("StripCloneMarker of the marker alone = %q, %v", got, found)
	}
	own := "terraform-provider-pve: creating things is fun"
	if got, found := StripCloneMarker(own); found || got != own {
		t.Errorf("a user's line was taken for a marker: %q, %v", got, found)
	}
	if CreateMarker(VM, "") != "terraform-provider-pve: creating qemu, not finished" {
		t.Errorf("unnamed marker %q", CreateMarker(VM, ""))
	}
}

// W13: a create marker names its owner, its lease and the request's hash;
// it parses back, strips like any marker, and an earlier ownerless marker
// still parses.
func TestCreateMarkerOwnerRoundTripW13(t *testing.T) {
	t.Parallel()
	a := API{Kind: VM}
	form := url.Values{"name": {"db-1"}, "memory": {"1024"}}
	until := time.Date(2026, 12, 1, 20, 15, 0, 0, time.UTC)
	line := a.createMarker("db-1", form, until)
	m, ok := parseCreateMarker(line)
	if !ok || m.Owner == nil || m.Base != "terraform-provider-pve: creating qemu db-1" || m.Hash != formHash(form) ||
		!m.Owner.Until.Equal(until) || m.Owner.PID != self.PID || m.Owner.Run != self.Run {
		t.Fatalf("parse(%q) = %+v, %v", line, m, ok)
	}
	if desc, found := StripCloneMarker("db\n" + line); !found || desc != "db" {
		t.Errorf("strip = %q, %v", desc, found)
	}
	if formHash(url.Values{"memory": {"1024"}, "name": {"db-1"}}) != m.Hash || formHash(url.Values{"memory": {"2048"}}) == m.Hash {
		t.Error("the hash does not follow the request")
	}
	if old, ok := parseCreateMarker(CreateMarker(VM, "db-1")); !ok || old.Owner != nil || old.Base != m.Base {
		t.Errorf("ownerless marker: %+v, %v", old, ok)
	}
}

// W13: a marker's owner is gone once its lease ended, or when it ran on
// this host and its process is gone; this process is never gone.
func TestMarkerOwnerGoneW13(t *testing.T) {
	t.Parallel()
	now := time.Now()
	later := now.Add(time.Hour)
	for _, c := range []struct {
		name  string
		owner markerOwner
		gone  bool
	}{
		{"this process", markerOwner{Host: self.Host, PID: self.PID, Run: self.Run, Until: now.Add(-time.Hour)}, false},
		{"lease ended", markerOwner{Host: "elsewhere", PID: 1, Run: "x", Until: now.Add(-time.Second)}, true},
		{"other host, lease running", markerOwner{Host: "elsewhere", PID: 1, Run: "x", Until: later}, false},
		{"this host, process alive", markerOwner{Host: self.Host, PID: 1, Run: "x", Until: later}, false},
		{"this host, process gone", markerOwner{Host: self.Host, PID: 1 << 30, Run: "x", Until: later}, true},
	} {
		if got := c.owner.gone(now); got != c.gone {
			t.Errorf("%s: gone = %v, want %v", c.name, got, c.gone)
		}
	}
}

// W13, W20: Read never shows a marker left by an unfinished create or
// clone as part of the description.
func TestDescriptionFromAPIStripsMarkerW13(t *testing.T) {
	t.Parallel()
	cases := []struct {
		stored string
		prior  types.String
		want   types.String
	}{
		{WithCloneMarker("notes", CreateMarker(VM, "a")), types.StringNull(), types.StringValue("notes")},
		{WithCloneMarker("notes", CloneMarker(VM, 100)), types.StringValue("notes\n"), types.StringValue("notes\n")},
		{CreateMarker(VM, "a"), types.StringNull(), types.StringNull()},
		{"plain", types.StringNull(), types.StringValue("plain")},
	}
	for _, c := range cases {
		got := DescriptionFromAPI(pveapi.GuestConfig{KeyDescription: c.stored}, c.prior)
		if !got.Equal(c.want) {
			t.Errorf("DescriptionFromAPI(%q, %v) = %v, want %v", c.stored, c.prior, got, c.want)
		}
	}
}
