package fwutil

import (
	"context"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Format must say exactly what stringvalidator.RegexMatches said for the
// same rule, so moving a format into wire changes no text users read.
func TestFormatMatchesRegexValidatorDiagnostics(t *testing.T) {
	t.Parallel()
	const message = "must be a storage id"
	pattern := regexp.MustCompile(`^` + wire.StorageIDExpr + `$`)
	ours := Format(wire.IsStorageID, message)
	theirs := stringvalidator.RegexMatches(pattern, message)
	for _, value := range []types.String{
		types.StringValue("local-lvm"), types.StringValue("1bad"), types.StringValue(""),
		types.StringNull(), types.StringUnknown(),
	} {
		req := validator.StringRequest{Path: path.Root("disks").AtMapKey("scsi0").AtName("storage"), ConfigValue: value}
		var got, want validator.StringResponse
		ours.ValidateString(context.Background(), req, &got)
		theirs.ValidateString(context.Background(), req, &want)
		invalid := value.ValueString() == "1bad" || value.ValueString() == "" && !value.IsNull() && !value.IsUnknown()
		if invalid != got.Diagnostics.HasError() {
			t.Errorf("%s: error = %v, want %v", value, got.Diagnostics.HasError(), invalid)
		}
		if !got.Diagnostics.Equal(want.Diagnostics) {
			t.Errorf("%s: Format gave %v, RegexMatches gave %v", value, got.Diagnostics, want.Diagnostics)
		}
	}
	if got := ours.Description(context.Background()); got != message {
		t.Errorf("Description = %q, want %q", got, message)
	}
}
