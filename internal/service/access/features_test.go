package access

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// knownPrivileges are the privileges each release knows: pve-access-control
// src/PVE/AccessControl.pm ($privgroups, plus Permissions.Modify, which is
// in no group). PVE 8.4 is the stable-bookworm branch; PVE 9 dropped
// VM.Monitor and added VM.GuestAgent.* and VM.Replicate.
var knownPrivileges = func() map[Release][]string {
	common := []string{
		"Datastore.Allocate", "Datastore.AllocateSpace", "Datastore.AllocateTemplate", "Datastore.Audit",
		"Group.Allocate", "Mapping.Audit", "Mapping.Modify", "Mapping.Use", "Permissions.Modify",
		"Pool.Allocate", "Pool.Audit", "Realm.Allocate", "Realm.AllocateUser",
		"SDN.Allocate", "SDN.Audit", "SDN.Use",
		"Sys.AccessNetwork", "Sys.Audit", "Sys.Console", "Sys.Incoming", "Sys.Modify", "Sys.PowerMgmt", "Sys.Syslog",
		"User.Modify",
		"VM.Allocate", "VM.Audit", "VM.Backup", "VM.Clone", "VM.Config.CDROM", "VM.Config.CPU", "VM.Config.Cloudinit",
		"VM.Config.Disk", "VM.Config.HWType", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options",
		"VM.Console", "VM.Migrate", "VM.PowerMgmt", "VM.Snapshot", "VM.Snapshot.Rollback",
	}
	return map[Release][]string{
		PVE84: append(slices.Clone(common), "VM.Monitor"),
		PVE9: append(slices.Clone(common), "VM.GuestAgent.Audit", "VM.GuestAgent.FileRead",
			"VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.FileWrite", "VM.GuestAgent.Unrestricted", "VM.Replicate"),
	}
}()

// The table names only privileges the release knows: PVE refuses a role
// with an unknown privilege.
func TestFeaturePrivilegesExistOnTheirRelease(t *testing.T) {
	for _, release := range Releases {
		res, err := Compute(release, FeatureNames())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range res.Privileges {
			if !slices.Contains(knownPrivileges[release], p) {
				t.Errorf("PVE %s has no privilege %q", release, p)
			}
		}
	}
}

var (
	featureNamePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	aclPathPattern     = regexp.MustCompile(`^/([a-z]+|\{[a-z_]+\})?(/([a-z]+|\{[a-z_]+\}))*$`)
)

func TestFeatureTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range Features {
		if !featureNamePattern.MatchString(f.Name) {
			t.Errorf("feature %q: names are snake_case", f.Name)
		}
		if seen[f.Name] {
			t.Errorf("feature %q listed twice", f.Name)
		}
		seen[f.Name] = true
		if f.Summary == "" || len(f.Grants) == 0 {
			t.Errorf("feature %q needs a summary and grants", f.Name)
		}
		for _, g := range f.Grants {
			if len(g.Privileges) == 0 || g.Note == "" || !aclPathPattern.MatchString(g.Path) {
				t.Errorf("feature %q: grant %+v needs privileges, a note and an ACL path", f.Name, g)
			}
			if g.Only != "" && !slices.Contains(Releases, g.Only) {
				t.Errorf("feature %q: grant %+v is limited to an unknown release", f.Name, g)
			}
			if strings.Contains(g.Note, "|") || strings.Contains(f.Summary, "|") {
				t.Errorf("feature %q: a '|' would break the documentation table", f.Name)
			}
		}
	}
	if Features[0].Name != Read || !Features[0].Default {
		t.Errorf("read comes first and is a default feature")
	}
}

// The documentation's table and pveum lines are generated from the feature
// table; this fails when the template was not regenerated after a change.
func TestDocsTemplateMatchesFeatureTable(t *testing.T) {
	name := filepath.Join("..", "..", "..", "templates", "index.md.tmpl")
	text, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	want, err := UpdateTemplate(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if want != string(text) {
		t.Errorf("%s is stale: run 'go run ./tools/privdocs' (part of make generate)", name)
	}
	table, err := Region(string(text), TableBegin, TableEnd)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Features {
		if !strings.Contains(table, "| `"+f.Name+"`") {
			t.Errorf("the documentation table has no row for %q", f.Name)
		}
	}
}

func TestDocsPveumListsTheDefaultPrivileges(t *testing.T) {
	text := DocsPveum()
	var got []string
	for _, line := range strings.Split(text, "\n") {
		if m := regexp.MustCompile(`^PRIVS="(?:\$PRIVS,)?([^"]+)"$`).FindStringSubmatch(line); m != nil {
			got = append(got, strings.Split(m[1], ",")...)
		}
	}
	res, err := Compute(PVE9, DefaultFeatureNames())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, res.Privileges) {
		t.Errorf("pveum privileges\n got %v\nwant %v", got, res.Privileges)
	}
	if !strings.Contains(text, "On PVE 8.4, replace VM.GuestAgent.Audit with VM.Monitor.") {
		t.Errorf("pveum comment does not name the PVE 8.4 difference:\n%s", text)
	}
}

func TestComputeDefaultFeatures(t *testing.T) {
	// The role the documentation gave before the data source existed, plus
	// what restore (VM.Backup) and SDN IP sets in guest firewall rules
	// (SDN.Audit) need.
	pve9 := []string{
		"Datastore.Allocate", "Datastore.AllocateSpace", "Datastore.AllocateTemplate", "Datastore.Audit",
		"Pool.Allocate", "Pool.Audit", "SDN.Audit", "SDN.Use", "Sys.AccessNetwork", "Sys.Audit",
		"VM.Allocate", "VM.Audit", "VM.Backup", "VM.Clone", "VM.Config.CDROM", "VM.Config.CPU", "VM.Config.Cloudinit",
		"VM.Config.Disk", "VM.Config.HWType", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options",
		"VM.GuestAgent.Audit", "VM.Migrate", "VM.PowerMgmt",
	}
	pve84 := slices.Clone(pve9)
	pve84[slices.Index(pve84, "VM.GuestAgent.Audit")] = "VM.Monitor"
	slices.Sort(pve84)

	for release, want := range map[Release][]string{PVE9: pve9, PVE84: pve84} {
		res, err := Compute(release, DefaultFeatureNames())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Privileges, want) {
			t.Errorf("PVE %s default privileges\n got %v\nwant %v", release, res.Privileges, want)
		}
	}
}

func TestComputeReleaseDifferences(t *testing.T) {
	for _, tc := range []struct {
		release  Release
		features []string
		want     []string
	}{
		{PVE9, []string{"privileged_containers"}, []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "Sys.Modify", "VM.Audit"}},
		{PVE84, []string{"privileged_containers"}, []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "VM.Audit"}},
		{PVE9, []string{"guest_agent"}, []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "VM.Audit", "VM.GuestAgent.Audit"}},
		{PVE84, []string{"guest_agent"}, []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "VM.Audit", "VM.Monitor"}},
		{PVE9, nil, []string{"Datastore.Audit", "Pool.Audit", "Sys.Audit", "VM.Audit"}},
	} {
		res, err := Compute(tc.release, tc.features)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Privileges, tc.want) {
			t.Errorf("PVE %s %v\n got %v\nwant %v", tc.release, tc.features, res.Privileges, tc.want)
		}
		if res.Features[0] != Read {
			t.Errorf("PVE %s %v: read is always computed, got %v", tc.release, tc.features, res.Features)
		}
	}
}

func TestComputeGrantsPerPath(t *testing.T) {
	res, err := Compute(PVE9, []string{"access", "images"})
	if err != nil {
		t.Fatal(err)
	}
	want := []PathGrant{
		{Path: "/", Privileges: []string{"Permissions.Modify", "Sys.Audit"}},
		{Path: "/access", Privileges: []string{"Sys.Audit", "Sys.Modify"}},
		{Path: "/access/groups", Privileges: []string{"Group.Allocate", "User.Modify"}},
		{Path: "/access/realm", Privileges: []string{"Realm.Allocate"}},
		{Path: "/access/realm/{realm}", Privileges: []string{"Realm.AllocateUser"}},
		{Path: "/nodes/{node}", Privileges: []string{"Sys.AccessNetwork"}},
		{Path: "/pool/{pool}", Privileges: []string{"Pool.Audit"}},
		{Path: "/storage/{storage}", Privileges: []string{"Datastore.Allocate", "Datastore.AllocateTemplate", "Datastore.Audit"}},
		{Path: "/vms/{vmid}", Privileges: []string{"VM.Audit"}},
	}
	if len(res.Grants) != len(want) {
		t.Fatalf("grants\n got %v\nwant %v", res.Grants, want)
	}
	for i := range want {
		if res.Grants[i].Path != want[i].Path || !slices.Equal(res.Grants[i].Privileges, want[i].Privileges) {
			t.Errorf("grant %d\n got %v\nwant %v", i, res.Grants[i], want[i])
		}
	}
}

func TestComputeRefusesUnknownNames(t *testing.T) {
	_, err := Compute(PVE9, []string{"vm", "vms"})
	if err == nil || !strings.Contains(err.Error(), `unknown feature "vms"`) || !strings.Contains(err.Error(), `"guest_agent"`) {
		t.Errorf("unknown feature: got %v", err)
	}
	if _, err := Compute("8.3", nil); err == nil {
		t.Errorf("unknown release: no error")
	}
}

func TestReleaseOf(t *testing.T) {
	for in, want := range map[string]Release{"8.4": PVE84, "9": PVE9, "9.0": PVE9, "9.1": PVE9, "9.2": PVE9, " 9.1 ": PVE9} {
		got, err := ReleaseOf(in)
		if err != nil || got != want {
			t.Errorf("ReleaseOf(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "8", "8.3", "7.4", "10", "9.1.4", "nine"} {
		if got, err := ReleaseOf(in); err == nil {
			t.Errorf("ReleaseOf(%q) = %q, want an error", in, got)
		}
	}
}
