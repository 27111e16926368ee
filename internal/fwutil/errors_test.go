package fwutil

import (
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// W10: a lock timeout that outlasted the client's retries is reported with
// the lock it waited for and the guest that lock belongs to.
func TestAPIErrorDetailNamesTheBusyLockW10(t *testing.T) {
	t.Parallel()
	err := &pveapi.Error{Method: "PUT", Path: "/nodes/pve1/qemu/100/config", StatusCode: 500,
		Message: "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout"}
	detail := APIErrorDetail(err)
	for _, want := range []string{
		"500 can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout",
		"the configuration lock of guest 100 (/var/lock/qemu-server/lock-100.conf)",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, detail)
		}
	}
	storage := &pveapi.TaskError{UPID: "UPID:pve1:00000001:00000001:00000001:imgdel:x:root@pam:",
		ExitStatus: "can't lock file '/var/lock/pve-manager/pve-storage-local-lvm' - got timeout"}
	if detail := APIErrorDetail(storage); !strings.Contains(detail, "held the lock file /var/lock/pve-manager/pve-storage-local-lvm") {
		t.Errorf("a storage lock is named as such:\n%s", detail)
	}
}
