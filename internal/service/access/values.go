package access

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Values shared by the access control resources: expiry dates, optional
// texts and sets of ids, each mapped between Terraform and PVE's form.

// expireFromAPI is an expiry date as PVE stores it, seconds since the
// epoch, as an RFC 3339 time in UTC; 0 (never expires) is null.
func expireFromAPI(seconds int64) timetypes.RFC3339 {
	if seconds <= 0 {
		return timetypes.NewRFC3339Null()
	}
	return timetypes.NewRFC3339TimeValue(time.Unix(seconds, 0).UTC())
}

// expireToAPI is an expiry date in PVE's form: seconds since the epoch, 0
// for null (never). expireProblem has refused what PVE cannot keep.
func expireToAPI(v timetypes.RFC3339) int64 {
	if v.IsNull() || v.IsUnknown() {
		return 0
	}
	t, diags := v.ValueRFC3339Time()
	if diags.HasError() {
		return 0
	}
	return t.Unix()
}

// expireProblem refuses an expiry PVE cannot store as given: PVE keeps
// whole seconds since the epoch, and reads 0 as "never expires".
func expireProblem(value string) string {
	t, err := time.Parse(time.RFC3339, value)
	switch {
	case err != nil:
		return "" // the RFC 3339 type reports it
	case t.Nanosecond() != 0:
		return fmt.Sprintf("%q has a fraction of a second; PVE keeps whole seconds", value)
	case t.Unix() <= 0:
		return fmt.Sprintf("%q is not after 1970-01-01T00:00:00Z, which PVE reads as never expires; "+
			"leave expire out for one that never expires", value)
	}
	return ""
}

// textFromAPI is an optional text PVE answered: "" (absent) is null.
func textFromAPI(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// textChange is the value an update sends for an optional text: nil when
// it is unchanged, "" to clear it (PVE stores any value sent and keeps no
// empty one).
func textChange(state, plan types.String) *string {
	if state.Equal(plan) {
		return nil
	}
	value := plan.ValueString()
	return &value
}

// idSetFromAPI is a set of ids, null when there are none: configurations
// leave an empty set out.
func idSetFromAPI(ids []string) types.Set {
	if len(ids) == 0 {
		return types.SetNull(types.StringType)
	}
	elems := make([]attr.Value, 0, len(ids))
	for _, id := range sortedUnique(ids) {
		elems = append(elems, types.StringValue(id))
	}
	return types.SetValueMust(types.StringType, elems)
}

// computedIDSet is a set of ids that is always known: empty, not null,
// when there are none.
func computedIDSet(ids []string) types.Set {
	elems := make([]attr.Value, 0, len(ids))
	for _, id := range sortedUnique(ids) {
		elems = append(elems, types.StringValue(id))
	}
	return types.SetValueMust(types.StringType, elems)
}

// idsOf lists the ids of a known set of strings, sorted; null is none.
func idsOf(ctx context.Context, set types.Set, diags *diag.Diagnostics) []string {
	if set.IsNull() || set.IsUnknown() {
		return nil
	}
	var ids []string
	diags.Append(set.ElementsAs(ctx, &ids, false)...)
	slices.Sort(ids)
	return ids
}

func sortedUnique(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}
