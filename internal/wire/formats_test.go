package wire

import "testing"

// Each format is checked with values PVE accepts and values it refuses
// (pve-common src/PVE/JSONSchema.pm, pve-access-control
// src/PVE/AccessControl.pm).
func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		check   func(string) bool
		valid   []string
		invalid []string
	}{
		{"pve-storage-id", IsStorageID,
			[]string{"local", "local-lvm", "Ceph_1.pool", "a1", "nfs.backup"},
			[]string{"", "a", "1local", "-local", "local-", "local.", "lo cal", "lo:cal", "lo/cal", "löcal"}},
		{"pve-poolid", IsPoolID,
			[]string{"prod", "a", "1", "team.a-b_c", "a/b", "a/b/c", "-x"},
			[]string{"", "a/b/c/d", "/a", "a/", "a//b", "a b", "a:b", "pööl"}},
		{"pve-node", IsNodeName,
			[]string{"pve", "pve1", "p", "1", "node-a", "PVE-01"},
			[]string{"", "-pve", "pve-", "pve.example", "pve_1", "pve 1"}},
		{"dns-name", IsDNSName,
			[]string{"web", "web-1", "web.example.com", "a.b", "1.2"},
			[]string{"", ".web", "web.", "web..example", "-web", "web-.example", "web_1", "web example"}},
		{"pve-bridge-id", IsBridgeID,
			[]string{"vmbr0", "vmbr0.100", "br-lan", "br_lan", "x"},
			[]string{"", "vm br0", "vmbr0,tag=1", "vmbr0=x", "vmbr/0", "brü"}},
		{"mac-addr", IsMACAddress,
			[]string{"BC:24:11:2A:3B:4C", "bc:24:11:2a:3b:4c", "00:00:00:00:00:00"},
			[]string{"", "BC:24:11:2A:3B", "BC:24:11:2A:3B:4C:5D", "BC-24-11-2A-3B-4C", "BC:24:11:2A:3B:4G", "BC2411:2A:3B:4C"}},
	}
	for _, tt := range tests {
		for _, s := range tt.valid {
			if !tt.check(s) {
				t.Errorf("%s: %q refused, want accepted", tt.name, s)
			}
		}
		for _, s := range tt.invalid {
			if tt.check(s) {
				t.Errorf("%s: %q accepted, want refused", tt.name, s)
			}
		}
	}
}

// pve-vmid is three to nine digits without a leading zero: 100 to 999999999.
func TestIsVMID(t *testing.T) {
	t.Parallel()
	for _, id := range []int64{100, 101, 999999999} {
		if !IsVMID(id) {
			t.Errorf("IsVMID(%d) = false, want true", id)
		}
	}
	for _, id := range []int64{-1, 0, 99, 1000000000} {
		if IsVMID(id) {
			t.Errorf("IsVMID(%d) = true, want false", id)
		}
	}
}

// The storage id grammar composes into volume-id patterns elsewhere; it must
// stay unanchored.
func TestStorageIDExprUnanchored(t *testing.T) {
	t.Parallel()
	if StorageIDExpr[0] == '^' || StorageIDExpr[len(StorageIDExpr)-1] == '$' {
		t.Errorf("StorageIDExpr %q is anchored", StorageIDExpr)
	}
}
