package guestops

import (
	"errors"
	"maps"
	"net/url"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// testSlots is a family whose values are "NAME" for a new slot and
// "NAME,kept=OLD" over a live one; a live value "volume:ID" detaches ID
// when dropped, and "bad" cannot be read.
var testSlots = SlotFamily[string, string]{
	Attr: "things",
	Parse: func(value string) (string, error) {
		if value == "bad" {
			return "", errors.New("unreadable")
		}
		return value, nil
	},
	Value: func(want string, live *LiveSlot[string]) (string, error) {
		if want == "refused" {
			return "", errors.New("refused")
		}
		if live == nil {
			return want, nil
		}
		if strings.HasPrefix(live.Parsed, want) {
			return live.Parsed, nil
		}
		return want + ",kept=" + live.Value, nil
	},
	Same: func(want, have string) bool { return want == have },
	Remove: func(value string) (bool, string) {
		if id, ok := strings.CutPrefix(value, "volume:"); ok {
			return true, id
		}
		return value != "keep", ""
	},
}

func TestSlotFamilyReconcile(t *testing.T) {
	live := pveapi.GuestConfig{"s1": "a", "s2": "b", "s3": "volume:v3", "s4": "keep", "s5": "other"}
	planned := map[string]string{"s0": "new", "s1": "a", "s2": "c"}
	prior := map[string]string{"s1": "a", "s2": "b", "s3": "x", "s4": "x", "s5": "x", "s6": "x"}
	delta := &wire.ConfigDelta{}
	changes, err := testSlots.Reconcile(delta, planned, prior, live)
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{"s0": {"new"}, "s2": {"c,kept=b"}, "delete": {"s3,s5"}}
	if got := delta.Values(); !maps.EqualFunc(got, want, func(a, b []string) bool { return strings.Join(a, " ") == strings.Join(b, " ") }) {
		t.Errorf("delta %v, want %v", got, want)
	}
	if strings.Join(changes.Created, ",") != "s0" || !maps.Equal(changes.Detached, map[string]string{"s3": "v3"}) {
		t.Errorf("changes %+v", changes)
	}
}

func TestSlotFamilyReconcileErrors(t *testing.T) {
	for _, tc := range []struct {
		planned map[string]string
		live    pveapi.GuestConfig
		want    string
	}{
		{map[string]string{"s1": "a", "s2": "a"}, pveapi.GuestConfig{"s2": "bad"}, `things.s2: PVE reports "bad": unreadable`},
		{map[string]string{"s1": "refused"}, nil, "things.s1: refused"},
	} {
		_, err := testSlots.Reconcile(&wire.ConfigDelta{}, tc.planned, nil, tc.live)
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %s", err, tc.want)
		}
	}
}

func TestSlotFamilyWithoutRemoveKeepsDroppedSlots(t *testing.T) {
	family := testSlots
	family.Remove = nil
	delta := &wire.ConfigDelta{}
	if _, err := family.Reconcile(delta, nil, map[string]string{"s1": "a"}, pveapi.GuestConfig{"s1": "a"}); err != nil || !delta.IsEmpty() {
		t.Errorf("delta %v, error %v", delta.Values(), err)
	}
}

func TestSlotFamilyAddToCreate(t *testing.T) {
	form := url.Values{}
	if err := testSlots.AddToCreate(form, map[string]string{"s1": "a", "s0": "b"}); err != nil {
		t.Fatal(err)
	}
	if form.Encode() != "s0=b&s1=a" {
		t.Errorf("form %s", form.Encode())
	}
	if err := testSlots.AddToCreate(url.Values{}, map[string]string{"s1": "refused"}); err == nil || err.Error() != "things.s1: refused" {
		t.Errorf("error %v", err)
	}
}
