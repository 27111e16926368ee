package storage

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// warnReplacement warns that the plan replaces the file state holds,
// naming it and the attributes that force it: a file cannot move between
// nodes, storages or names, and a new download source is a new file.
func (k artifactKind) warnReplacement(state *artifactModel, replace path.Paths, diags *diag.Diagnostics) {
	if len(replace) == 0 {
		return
	}
	names := make([]string, len(replace))
	for i, p := range replace {
		names[i] = p.String()
	}
	diags.AddAttributeWarning(replace[0], k.title+" Will Be Replaced",
		fmt.Sprintf("%s changes, which PVE cannot apply to a stored file: the file %s on node %s is deleted and a new one is written. "+
			"To keep the old file as well, declare the new one as another resource instead.",
			strings.Join(names, ", "), state.Volume.ValueString(), state.Node.ValueString()))
}
