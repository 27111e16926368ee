package pveapi

import (
	"errors"
	"fmt"
	"testing"
)

// PVE's answers the HA group and rule calls recognise
// (pve-ha-manager src/PVE/API2/HA/Groups.pm, Rules.pm; pve-common
// src/PVE/Tools.pm assert_if_modified behind lock_ha_domain's prefix).
func TestHAConfigErrors(t *testing.T) {
	t.Parallel()
	e := func(msg string) error { return fmt.Errorf("wrapped: %w", &Error{StatusCode: 500, Message: msg + "\n"}) }
	if !IsHAGroupsMigrated(e("cannot index groups: ha groups have been migrated to rules")) ||
		!IsHAGroupsMigrated(e("cannot read group: ha groups have been migrated to rules")) ||
		IsHAGroupsMigrated(e("cannot create ha rule: ha groups have not been migrated yet")) {
		t.Error("IsHAGroupsMigrated")
	}
	if !IsHAGroupsNotMigrated(e("cannot update ha rule: ha groups have not been migrated yet")) {
		t.Error("IsHAGroupsNotMigrated")
	}
	if !IsHAConfigModified(e("update ha group failed: detected modified configuration - file changed by other user? Try again.")) ||
		!IsHAConfigModified(e("update HA rules failed: detected modified configuration - file changed by other user? Try again.")) ||
		IsHAConfigModified(e("update ha group failed: no such ha group 'x'")) {
		t.Error("IsHAConfigModified")
	}
	if !isNoSuchHAObject(e("no such ha group 'web'"), "group") || isNoSuchHAObject(e("no such ha group 'web'"), "rule") ||
		!isNoSuchHAObject(e("no such ha rule 'r1'"), "rule") || isNoSuchHAObject(errors.New("no such ha rule 'r1'"), "rule") {
		t.Error("isNoSuchHAObject")
	}
}
