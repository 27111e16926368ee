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
