package pveapi

import (
	"testing"
)

// W4: a missing backup job is read_job's and delete_job's 400 on id, or
// update_job's 500 (pve-manager PVE/API2/Backup.pm); nothing else.
func TestIsBackupJobNotFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  *Error
		want bool
	}{
		{&Error{StatusCode: 400, Message: "Parameter verification failed.", Errors: map[string]string{"id": "No such job 'nightly'"}}, true},
		{&Error{StatusCode: 500, Message: "no such vzdump job"}, true},
		{&Error{StatusCode: 400, Message: "Parameter verification failed.", Errors: map[string]string{"vmid": "property is missing"}}, false},
		{&Error{StatusCode: 500, Message: "Job 'nightly' already exists"}, false},
		{&Error{StatusCode: 403, Message: "Permission check failed (/, Sys.Audit)"}, false},
	} {
		if got := IsBackupJobNotFound(tc.err); got != tc.want {
			t.Errorf("IsBackupJobNotFound(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}
