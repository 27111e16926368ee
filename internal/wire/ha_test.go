package wire

import (
	"reflect"
	"testing"
)

func TestHANodeList(t *testing.T) {
	t.Parallel()
	got, err := ParseHANodeList("pve2:2, pve1;pve3:0 pve2:1")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]int64{"pve1": 0, "pve2": 2, "pve3": 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("parse = %v", got)
	}
	if s := FormatHANodeList(got); s != "pve1,pve2:2,pve3" {
		t.Errorf("format = %q", s)
	}
	for _, bad := range []string{"pve1:x", "-pve", "pve1:", "pve_1", "pve1:-1"} {
		if _, err := ParseHANodeList(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if m, _ := ParseHANodeList(""); len(m) != 0 {
		t.Errorf("empty = %v", m)
	}
}

func TestHAIDs(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"prod": true, "a": false, "1a": false, "web-tier_2": true, "a.b": false} {
		if IsHAConfigID(s) != want {
			t.Errorf("IsHAConfigID(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{"vm:100": true, "ct:101": true, "100": false, "VM:100": false, "vm:": false} {
		if IsHARuleResource(s) != want {
			t.Errorf("IsHARuleResource(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{"pve1": true, "a": true, "pve-1": true, "pve-": false, "pve.1": false} {
		if IsHANodeName(s) != want {
			t.Errorf("IsHANodeName(%q) != %v", s, want)
		}
	}
}
