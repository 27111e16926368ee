package guestops

import "testing"

// W13: only a clone with a configured VMID or a planned name can be told
// apart from other guests on a later apply; only such a clone is left out
// of the state after a failure, to be taken up again.
func TestCloneRecognisableW13(t *testing.T) {
	t.Parallel()
	cases := []struct {
		req  CloneRequest
		want bool
	}{
		{CloneRequest{VMID: 150}, true},
		{CloneRequest{Name: "app-1"}, true},
		{CloneRequest{VMID: 150, Name: "app-1"}, true},
		{CloneRequest{}, false},
	}
	for _, c := range cases {
		if got := c.req.recognisable(); got != c.want {
			t.Errorf("recognisable(vmid %d, name %q) = %v, want %v", c.req.VMID, c.req.Name, got, c.want)
		}
	}
}

// W10, W11: a qemu clone is locked "clone" while its task runs, a
// container clone "create" (PVE's LXC clone swaps the source's "disk" lock
// for it).
func TestCloneLockPerKindW10W11(t *testing.T) {
	t.Parallel()
	if got := VM.cloneLock; got != "clone" {
		t.Errorf("VM clone lock %q, want clone", got)
	}
	if got := Container.cloneLock; got != "create" {
		t.Errorf("container clone lock %q, want create", got)
	}
}
