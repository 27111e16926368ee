package wire

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// W5: a job's answer carries numbers and objects; the options compare with
// what a write sends.
func TestBackupJobOptionsFromAPI(t *testing.T) {
	var raw map[string]any
	dec := json.NewDecoder(strings.NewReader(`{"id":"nightly","type":"vzdump","next-run":1700000000,"enabled":1,
		"vmid":"100,101","bwlimit":"1000","fleecing":{"enabled":1,"storage":"local-lvm"},
		"prune-backups":{"keep-last":3,"keep-daily":"7"},"performance":{"max-workers":4}}`))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	got := BackupJobOptionsFromAPI(raw)
	want := map[string]string{
		"enabled": "1", "vmid": "100,101", "bwlimit": "1000", "fleecing": "enabled=1,storage=local-lvm",
		"prune-backups": "keep-daily=7,keep-last=3", "performance": "max-workers=4",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// W16: the update never sets and deletes one key; enabled is set back to 1
// rather than deleted (PVE refuses "delete=enabled").
func TestBackupJobDelta(t *testing.T) {
	from := map[string]string{"schedule": "daily", "enabled": "0", "vmid": "100", "comment": "x", "storage": "local"}
	to := map[string]string{"schedule": "daily", "all": "1", "storage": "pbs"}
	d := BackupJobDelta(from, to)
	if got := d.SetKeys(); !reflect.DeepEqual(got, []string{"all", "enabled", "storage"}) {
		t.Errorf("set = %v", got)
	}
	if v, _ := d.Get("enabled"); v != "1" {
		t.Errorf("enabled = %q", v)
	}
	if got := d.Deleted(); !reflect.DeepEqual(got, []string{"comment", "vmid"}) {
		t.Errorf("deleted = %v", got)
	}
	if !BackupJobDelta(to, to).IsEmpty() {
		t.Error("no change must give an empty delta")
	}
}

func TestVMIDListRoundTrip(t *testing.T) {
	if got := FormatVMIDList([]int64{102, 100}); got != "100,102" {
		t.Errorf("format = %q", got)
	}
	if got := ParseVMIDList("102;100 101"); !reflect.DeepEqual(got, []int64{100, 101, 102}) {
		t.Errorf("parse = %v", got)
	}
}

func TestNotesTemplateProblem(t *testing.T) {
	for _, ok := range []string{"{{guestname}} on {{node}}\\n{{vmid}} \\\\", "plain"} {
		if p := NotesTemplateProblem(ok); p != "" {
			t.Errorf("%q: %s", ok, p)
		}
	}
	for _, bad := range []string{"{{name}}", "a\\tb", "two\nlines"} {
		if NotesTemplateProblem(bad) == "" {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestIsBackupJobID(t *testing.T) {
	for id, want := range map[string]bool{"backup-1a2b3c4d-5e6f": true, "nightly": true, "a": false, "1abc": false, strings.Repeat("a", 51): false} {
		if IsBackupJobID(id) != want {
			t.Errorf("%q: want %v", id, want)
		}
	}
	for id, want := range map[string]bool{"8bbdf1e8-9c2e-4d3b-9d2e-1c6f2a3b4c5d": true, "a b": false, "": false, strings.Repeat("a", 51): false} {
		if IsBackupJobRef(id) != want {
			t.Errorf("ref %q: want %v", id, want)
		}
	}
}
