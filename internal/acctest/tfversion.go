package acctest

import (
	"context"
	"fmt"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// NeedsTerraform skips a Terraform-level test when the Terraform CLI it
// runs (TF_ACC_TERRAFORM_PATH, else terraform on PATH) is older than
// minimum, saying what needs the newer one: such a test counts as passed
// only where it ran. Under OpenTofu it is skipped when OpenTofu lacks the
// feature that needs Terraform minimum (openTofuSince).
func NeedsTerraform(minimum, what string) tfversion.TerraformVersionCheck {
	return needsTerraform{minimum: version.Must(version.NewVersion(minimum)), what: what}
}

type needsTerraform struct {
	minimum *version.Version
	what    string
}

func (n needsTerraform) CheckTerraformVersion(_ context.Context, req tfversion.CheckTerraformVersionRequest, resp *tfversion.CheckTerraformVersionResponse) {
	if usesOpenTofu() {
		resp.Skip = openTofuSkip(n.minimum, n.what, req.TerraformVersion)
		return
	}
	if req.TerraformVersion.Core().LessThan(n.minimum) {
		resp.Skip = fmt.Sprintf("%s needs Terraform %s or later, and this is Terraform %s: not run. "+
			"Set TF_ACC_TERRAFORM_PATH to a newer terraform to run it.", n.what, n.minimum, req.TerraformVersion)
	}
}
