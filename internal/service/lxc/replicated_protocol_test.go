package lxc_test

import (
	"context"
	"net/url"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// A container with replication jobs: a new mount point on a storage that
// cannot replicate, or a bind mount, is refused at plan time as PVE
// refuses it at apply; one on ZFS, or one with replicate = false, is
// planned.
func TestContainer_replicatedRefusesMountItCannotReplicate(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	if err := p.Sim.AddZFSStorage(); err != nil {
		t.Fatal(err)
	}
	const vmid = 141
	upid, err := p.Client.CreateGuest(ctx, "pve1", pveapi.GuestTypeLXC, vmid, url.Values{
		"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"},
		"hostname":   {"replicated"},
		"rootfs":     {"local-zfs:1"},
		"mp0":        {"local-zfs:1,mp=/srv"},
	})
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err == nil {
		err = p.Client.CreateReplicationJob(ctx, "141-0", "pve2", nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	state := p.Import(t, "pve_container", "pve1/141")
	config := p.ConfigFromState(t, "pve_container", state)
	mp1 := func(attr string) *tftypes.AttributePath {
		return tftypes.NewAttributePath().WithAttributeName("mount_points").WithElementKeyString("mp1").WithAttributeName(attr)
	}

	for _, tc := range []struct {
		name string
		set  map[string]any
		want *regexp.Regexp
		at   *tftypes.AttributePath
	}{
		{"on LVM", map[string]any{"storage": "local-lvm", "volume": nil, "path": "/data"},
			regexp.MustCompile(`Container 141 has replication jobs \(141-0\).*mp1 goes on storage "local-lvm" of type lvmthin, which cannot replicate`), mp1("storage")},
		{"bind mount", map[string]any{"storage": nil, "size": nil, "volume": nil, "host_path": "/srv/share", "path": "/data"},
			regexp.MustCompile(`mp1 is a host path, which PVE cannot replicate`), mp1("host_path")},
	} {
		diags := p.PlanDiagnostics(t, "pve_container", state, p.WithSlot(t, "pve_container", config, "mount_points", "mp0", "mp1", tc.set))
		acctest.WantError(t, diags, "", tc.want)
		found := false
		for _, d := range diags {
			if d.Summary == "Volume Cannot Join A Replicated Container" {
				found = true
				if !d.Attribute.Equal(tc.at) {
					t.Errorf("%s: the refusal names %v, want %v", tc.name, d.Attribute, tc.at)
				}
			}
		}
		if !found {
			t.Errorf("%s: no replication refusal", tc.name)
		}
	}
	for name, set := range map[string]map[string]any{
		"on ZFS":     {"storage": "local-zfs", "volume": nil, "path": "/data"},
		"opting out": {"storage": "local-lvm", "volume": nil, "path": "/data", "replicate": false},
	} {
		diags := p.PlanDiagnostics(t, "pve_container", state, p.WithSlot(t, "pve_container", config, "mount_points", "mp0", "mp1", set))
		for _, d := range diags {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				t.Errorf("a new mount point %s was refused: %s: %s", name, d.Summary, d.Detail)
			}
		}
	}
}
