package fwutil

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestValidateRetention(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Retention
		want string
	}{
		{"counts", Retention{KeepLast: types.Int64Value(3), KeepDaily: types.Int64Value(7)}, ""},
		{"keep all", Retention{KeepAll: types.BoolValue(true)}, ""},
		{"empty", Retention{}, "Empty Retention"},
		{"keep all with counts", Retention{KeepAll: types.BoolValue(true), KeepLast: types.Int64Value(1)}, "keep-all cannot be set together"},
		{"zero counts", Retention{KeepLast: types.Int64Value(0)}, `"keep-all=1"`},
		{"keep all false with counts", Retention{KeepAll: types.BoolValue(false), KeepLast: types.Int64Value(2)}, `"keep-last=2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r // zero values are null
			var diags diag.Diagnostics
			ValidateRetention(&r, path.Root("retention"), "use the storage's retention", &diags)
			text := ""
			for _, d := range diags.Errors() {
				text += d.Summary() + ": " + d.Detail()
			}
			if tc.want == "" && text != "" || tc.want != "" && !strings.Contains(text, tc.want) {
				t.Errorf("got %q, want %q", text, tc.want)
			}
		})
	}
}
