package qemu

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// checkImportPathPlan refuses, at plan time, a new disk imported from a
// plain file system path when the provider does not act as root@pam
// itself: PVE lets only root@pam pass such a path and refuses anyone
// else, an API token of root@pam included, with "Only root can pass
// arbitrary filesystem paths." (W49). A volume id (STORAGE:import/FILE)
// is checked by PVE against the storage's privileges instead. state is
// nil at create; a disk already in state is not imported again (W25).
func checkImportPathPlan(state, plan *vmModel, principal string) []guestops.Issue {
	if principal == "" || principal == rootPrincipal {
		return nil
	}
	var issues []guestops.Issue
	for _, slot := range slices.Sorted(maps.Keys(plan.Disks)) {
		source := plan.Disks[slot].ImportFrom
		if !guestops.Known(source) || !strings.HasPrefix(source.ValueString(), "/") {
			continue
		}
		if state != nil {
			if _, exists := state.Disks[slot]; exists {
				continue
			}
		}
		issues = append(issues, guestops.Issue{
			Path:    diskPath(slot, "import_from"),
			Summary: "Importing From A Path Needs root@pam",
			Detail: fmt.Sprintf("PVE lets only root@pam itself import a disk from a file system path (%s): the provider acts as %s, and PVE "+
				"refuses it (\"Only root can pass arbitrary filesystem paths.\"), an API token of root@pam included. Put the image on a storage "+
				"with the import content type and use its volume id (STORAGE:import/FILE), or configure the provider with the root@pam password.",
				source.ValueString(), principal),
		})
	}
	return issues
}
