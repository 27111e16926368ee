package backupjob

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// W6, W5: what PVE answers maps to attributes and back to the same
// options, so a refreshed job plans no change.
func TestOptionsRoundTrip(t *testing.T) {
	ctx := context.Background()
	opts := map[string]string{
		"schedule": "mon..fri 21:00", "enabled": "0", "comment": "nightly", "vmid": "100,101",
		"storage": "pbs", "mode": "stop", "compress": "zstd", "zstd": "4", "notes-template": "{{guestname}}",
		"protected": "1", "prune-backups": "keep-daily=7,keep-last=3", "notification-mode": "legacy-sendmail",
		"mailto": "a@example.com,root@pam", "mailnotification": "failure", "bwlimit": "10000", "ionice": "5",
		"fleecing": "enabled=1,storage=local-lvm", "performance": "max-workers=8", "repeat-missed": "1",
	}
	var m backupJobModel
	m.fromOptions(opts)
	if m.Enabled.ValueBool() || m.Retention.KeepDaily.ValueInt64() != 7 || !m.Retention.KeepAll.IsNull() ||
		m.Fleecing.Storage.ValueString() != "local-lvm" || !m.All.IsNull() || len(m.VMIDs.Elements()) != 2 {
		t.Fatalf("model = %+v", m)
	}
	var diags diag.Diagnostics
	got := m.toOptions(ctx, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !reflect.DeepEqual(got, opts) {
		t.Errorf("options\n got %v\nwant %v", got, opts)
	}
}

// PVE answers enabled even when jobs.cfg does not hold it
// (Job/Registry.pm parse_config); all = false is never sent.
func TestOptionsDefaults(t *testing.T) {
	var m backupJobModel
	m.fromOptions(map[string]string{"schedule": "daily", "all": "1"})
	if !m.Enabled.ValueBool() || !m.All.ValueBool() || m.Retention != nil || m.Fleecing != nil {
		t.Fatalf("model = %+v", m)
	}
	m.All = types.BoolValue(false)
	var diags diag.Diagnostics
	if got := m.toOptions(context.Background(), &diags); got["all"] != "" || got["enabled"] != "1" {
		t.Errorf("options = %v", got)
	}
}

func TestValidateSelection(t *testing.T) {
	ids := types.SetValueMust(types.Int64Type, nil)
	for _, tc := range []struct {
		name string
		m    backupJobModel
		want string
	}{
		{"all", backupJobModel{All: types.BoolValue(true), Exclude: ids}, ""},
		{"vmids", backupJobModel{VMIDs: ids}, ""},
		{"pool", backupJobModel{Pool: types.StringValue("prod")}, ""},
		{"none", backupJobModel{}, "No Guests Selected"},
		{"all and vmids", backupJobModel{All: types.BoolValue(true), VMIDs: ids}, "all and vmids both select"},
		{"pool and exclude", backupJobModel{Pool: types.StringValue("prod"), Exclude: ids}, "Exclude Needs All"},
		{"all false", backupJobModel{All: types.BoolValue(false), VMIDs: ids}, "All Set To False"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m // zero values are null
			var diags diag.Diagnostics
			validateSelection(&m, &diags)
			text := ""
			for _, d := range diags.Errors() {
				text += d.Summary() + ": " + d.Detail()
			}
			if tc.want == "" && text != "" || tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want %q", text, tc.want)
			}
		})
	}
}

func TestUnmanagedOptions(t *testing.T) {
	got := unmanagedOptions(map[string]string{
		"schedule": "daily", "all": "1", "pigz": "2", "exclude-path": "/tmp", "prune-backups": "keep-all=1", "quiet": "1",
	})
	if want := []string{"exclude-path", "pigz", "quiet"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestChangedOutside(t *testing.T) {
	recorded := map[string]string{"schedule": "daily", "comment": "a", "vmid": "100,101", "storage": "local"}
	current := map[string]string{"schedule": "daily", "comment": "b", "vmid": "101", "mode": "stop"}
	if got, want := changedOutside(recorded, current), []string{"comment", "mode", "storage"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v (guest lists left out)", got, want)
	}
	if got := changedOutside(recorded, recorded); len(got) != 0 {
		t.Errorf("unchanged: %v", got)
	}
}
