package pveapi

import "testing"

// PVE's replication refusals, each recognised by its recogniser only.
func TestReplicationRefusalsAreRecognised(t *testing.T) {
	t.Parallel()
	recognisers := map[string]func(error) bool{
		"IsNoSuchReplicationJob": IsNoSuchReplicationJob, "IsReplicationJobExists": IsReplicationJobExists,
		"IsReplicationConfigChanged": IsReplicationConfigChanged,
	}
	for _, tc := range []struct {
		message, want string
	}{
		// pve-manager PVE/API2/ReplicationConfig.pm read; Replication.pm job_status.
		{"no such replication job '100-0'", "IsNoSuchReplicationJob"},
		// pve-manager PVE/API2/ReplicationConfig.pm update, delete.
		{"no such job '100-0'", "IsNoSuchReplicationJob"},
		// pve-manager PVE/API2/ReplicationConfig.pm create.
		{"replication job '100-0' already exists", "IsReplicationJobExists"},
		// pve-common src/PVE/SectionConfig.pm assert_if_modified.
		{"detected modified configuration - file changed by other user? Try again.", "IsReplicationConfigChanged"},
		// write_config's one job per guest and target is a real conflict.
		{"replication job for guest '100' to target 'local/pve2' already exists", ""},
		{"Guest '100' does not exist.", ""},
	} {
		err := &Error{Method: "POST", Path: "/cluster/replication", StatusCode: 500, Message: tc.message}
		for name, is := range recognisers {
			if got := is(err); got != (name == tc.want) {
				t.Errorf("%q: %s = %v", tc.message, name, got)
			}
		}
	}
}
