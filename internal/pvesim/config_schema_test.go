package pvesim

import "testing"

// defaultGuestSchema is the guest config schema of the default profile.
func defaultGuestSchema(t *testing.T) *guestSchema {
	t.Helper()
	p, err := lookupProfile("")
	if err != nil {
		t.Fatal(err)
	}
	return p.conf
}
