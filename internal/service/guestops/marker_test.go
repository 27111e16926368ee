package guestops

import (
	"net/url"
	"testing"

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

// W13: the create form carries the marker after the configured
// description, and the caller's form is left alone.
func TestWithCreateMarkerKeepsForm(t *testing.T) {
	t.Parallel()
	form := url.Values{KeyDescription: {"db"}, "name": {"db-1"}}
	got := API{Kind: VM}.withCreateMarker(form, "db-1")
	if want := "db\n" + CreateMarker(VM, "db-1"); got.Get(KeyDescription) != want {
		t.Errorf("description %q, want %q", got.Get(KeyDescription), want)
	}
	if form.Get(KeyDescription) != "db" || got.Get("name") != "db-1" {
		t.Errorf("form changed or name lost: %v / %v", form, got)
	}
	bare := API{Kind: Container}.withCreateMarker(url.Values{}, "")
	if bare.Get(KeyDescription) != CreateMarker(Container, "") {
		t.Errorf("description %q", bare.Get(KeyDescription))
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
