package qemu

import (
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// W15, W31: the identity function sets what is declared and deletes the
// undeclared identity keys; only a clone's scope touches cipassword and
// cicustom.
func TestCloudInitKeysScopesW15W31(t *testing.T) {
	t.Parallel()
	live := pveapi.GuestConfig{
		"ciuser": "template", "cipassword": "**********", "cicustom": "user=local:snippets/u.yaml",
		"ipconfig0": "ip=dhcp", "ipconfig3": "ip=10.9.9.9/24", "sshkeys": "ssh-ed25519%20AAAA%20old",
	}
	ci := &cloudInitModel{
		User:     types.StringValue("debian"),
		SSHKeys:  types.ListNull(types.StringType),
		IPConfig: map[string]ipConfigModel{"ipconfig0": {IPv4: &ipAddressModel{Address: types.StringValue("dhcp"), Gateway: types.StringNull()}}},
	}
	for _, tc := range []struct {
		scope         identityScope
		wantSet       []string
		wantDeleted   []string
		passwordTouch bool
	}{
		{keepUnowned, []string{"ciuser"}, []string{"ipconfig3", "sshkeys"}, false},
		{overwriteInherited, []string{"ciuser"}, []string{"cicustom", "cipassword", "ipconfig3", "sshkeys"}, true},
	} {
		delta := &wire.ConfigDelta{}
		guestops.DiffKeys(delta, cloudInitKeys(ci, nil, live, tc.scope), live, sameCloudInitValue)
		if got := delta.SetKeys(); !slices.Equal(got, tc.wantSet) {
			t.Errorf("scope %d: set %v, want %v", tc.scope, got, tc.wantSet)
		}
		if got := delta.Deleted(); !slices.Equal(got, tc.wantDeleted) {
			t.Errorf("scope %d: deleted %v, want %v", tc.scope, got, tc.wantDeleted)
		}
	}
	// A password to write is set, never set and deleted at once (W16).
	password := "new"
	delta := &wire.ConfigDelta{}
	guestops.DiffKeys(delta, cloudInitKeys(ci, &password, live, overwriteInherited), live, sameCloudInitValue)
	if v, ok := delta.Get("cipassword"); !ok || v != "new" || delta.IsDeleted("cipassword") {
		t.Errorf("cipassword: %q %v deleted=%v", v, ok, delta.IsDeleted("cipassword"))
	}
}

// W30: keys are compared as a decoded set; ipconfig as a token set.
func TestSameCloudInitValueW30(t *testing.T) {
	t.Parallel()
	a := wire.EncodeSSHKeys([]string{"ssh-ed25519 AAAA a:b@h", "ssh-rsa BBBB c+d@h"})
	b := wire.EncodeSSHKeys([]string{"ssh-rsa BBBB c+d@h", "ssh-ed25519 AAAA a:b@h"})
	if !sameCloudInitValue("sshkeys", a, b) {
		t.Error("reordered keys differ")
	}
	if sameCloudInitValue("sshkeys", a, wire.EncodeSSHKeys([]string{"ssh-rsa BBBB c+d@h"})) {
		t.Error("a missing key compares equal")
	}
	if !sameCloudInitValue("ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1", "gw=10.0.0.1,ip=10.0.0.5/24") {
		t.Error("reordered ipconfig tokens differ")
	}
	if !sameCloudInitValue("nameserver", "10.0.0.1 10.0.0.2", "10.0.0.1,10.0.0.2") {
		t.Error("nameserver separators differ")
	}
}

// W30: PVE stores an sshkeys value whose key comment holds a "%" that starts
// no escape (pve-common JSONSchema.pm pve_verify_urlencoded checks the
// alphabet only; qemu-server API2/Qemu.pm decodes with URI::Escape's
// uri_unescape, which keeps the "%"). Reading such a VM must give the key,
// not fail.
func TestCloudInitFromAPIStrayPercentW30(t *testing.T) {
	const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB 50%off@host"
	m := &vmModel{}
	config := pveapi.GuestConfig{
		"ide2":    "local-lvm:vm-100-cloudinit,media=cdrom",
		"sshkeys": "ssh-ed25519%20AAAAC3NzaC1lZDI1NTE5AAAAIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB%2050%off%40host",
	}
	if err := m.cloudInitFromAPI(100, config); err != nil {
		t.Fatalf("cloudInitFromAPI: %v", err)
	}
	if m.CloudInit == nil {
		t.Fatal("no cloud-init read")
	}
	if got := listStrings(m.CloudInit.SSHKeys); !slices.Equal(got, []string{key}) {
		t.Fatalf("ssh keys = %q, want %q", got, []string{key})
	}
	if !sameCloudInitValue("sshkeys", config["sshkeys"], wire.EncodeSSHKeys([]string{key})) {
		t.Fatal("the stored value and the provider's encoding of the same key differ")
	}
}
