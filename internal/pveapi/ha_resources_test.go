package pveapi

import "testing"

func TestHAResourceErrors(t *testing.T) {
	t.Parallel()
	missing := []string{
		"no such resource 'vm:100'\n",
		"update resources config failed: no such resource 'vm:100'\n",
		"cannot delete service 'vm:100', not HA managed!\n",
		"unable to detect SID from VMID - VM/CT 100 does not exist\n",
		"unable do detect SID from VMID - VM/CT 100 does not exist\n",
	}
	for _, msg := range missing {
		if !IsHAResourceNotFound(&Error{StatusCode: 500, Message: msg}) {
			t.Errorf("%q not read as a missing resource", msg)
		}
	}
	for _, msg := range []string{"resource 'vm:100' does not exist in cluster\n", "no such option 'x'\n"} {
		if IsHAResourceNotFound(&Error{StatusCode: 500, Message: msg}) {
			t.Errorf("%q read as a missing resource", msg)
		}
	}
	digest := &Error{StatusCode: 500, Message: "update resources config failed: detected modified configuration - file changed by other user? Try again.\n"}
	if !IsHADigestMismatch(digest) {
		t.Error("digest mismatch behind the update prefix not recognised")
	}
}
