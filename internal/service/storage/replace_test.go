package storage_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A plan that replaces a file (another file name) warns, naming the file
// that is deleted.
func TestArtifactReplacementWarnsWithFile(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	const typeName = "pve_iso"
	state := p.Import(t, typeName, "pve1/local/debian-13-netinst.iso")
	config := p.WithAttribute(t, typeName, p.ConfigFromState(t, typeName, state), "file_name", tftypes.NewValue(tftypes.String, "debian-13.iso"))
	resp := p.PlanResponse(t, typeName, state, config)
	if len(resp.RequiresReplace) == 0 {
		t.Fatalf("a new file name plans no replacement")
	}
	warning := acctest.Warning(resp.Diagnostics, "ISO Image Will Be Replaced")
	acctest.WantAll(t, "the replacement warning", warning, "file_name changes", "the file local:iso/debian-13-netinst.iso on node pve1 is deleted")
}
