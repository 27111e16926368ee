package fwutil

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestProblemValidator(t *testing.T) {
	t.Parallel()
	v := Problem(func(s string) string {
		if s == "bad" {
			return `"bad" is not allowed`
		}
		return ""
	}, "anything but bad")
	check := func(value types.String) string {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("name"), ConfigValue: value}, resp)
		if !resp.Diagnostics.HasError() {
			return ""
		}
		return resp.Diagnostics.Errors()[0].Detail()
	}
	if got := check(types.StringValue("bad")); !strings.Contains(got, `Attribute name: "bad" is not allowed.`) {
		t.Errorf("bad value: %q", got)
	}
	for _, ok := range []types.String{types.StringValue("good"), types.StringNull(), types.StringUnknown()} {
		if got := check(ok); got != "" {
			t.Errorf("%s refused: %s", ok, got)
		}
	}
}
