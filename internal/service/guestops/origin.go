package guestops

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// Origin is what a guest was made from, whose undeclared settings it
// keeps: a clone source or a backup archive. It outlives the `clone` and
// `restore` attributes, which only record the source: removing or
// changing them must not turn the guest's inherited settings into diffs
// that an update would reset.
type Origin string

// The origins a guest can have; "" is a guest created from scratch (or
// imported with no source declared), which inherits nothing.
const (
	OriginNone    Origin = ""
	OriginClone   Origin = "clone"
	OriginRestore Origin = "restore"
)

// originKey is the private state key the origin is kept under.
const originKey = "origin"

// declaredOrigin is the origin the declared source attributes name: a
// restore, like qemu's archive origin, wins over a clone.
func (a Attributes) declaredOrigin() Origin {
	switch {
	case a.Restore != nil:
		return OriginRestore
	case a.Clone != nil:
		return OriginClone
	}
	return OriginNone
}

// KnownOrigin is the guest's origin: the one recorded when it was made,
// else the one its source attributes declare.
func (a Attributes) KnownOrigin() Origin {
	if a.Origin != nil && *a.Origin != OriginNone {
		return *a.Origin
	}
	return a.declaredOrigin()
}

// RecordedOrigin reads the origin kept in private state, if any.
func RecordedOrigin(ctx context.Context, private PrivateGetter) Origin {
	if private == nil {
		return OriginNone
	}
	raw, diags := private.GetKey(ctx, originKey)
	if diags.HasError() || len(raw) == 0 {
		return OriginNone
	}
	var o Origin
	if err := json.Unmarshal(raw, &o); err != nil {
		return OriginNone
	}
	return o
}

// loadOrigin sets the origin of the model behind a from private state, or
// from its declared source when none was recorded yet (a guest made before
// the origin was kept, or an import a source was declared for), and
// records it there.
func loadOrigin(ctx context.Context, from PrivateGetter, to PrivateSetter, a Attributes, diags *diag.Diagnostics) {
	recorded := RecordedOrigin(ctx, from)
	origin := recorded
	if origin == OriginNone {
		origin = a.declaredOrigin()
	}
	if a.Origin != nil {
		*a.Origin = origin
	}
	if origin != recorded && to != nil {
		recordOrigin(ctx, to, origin, diags)
	}
}

func recordOrigin(ctx context.Context, to PrivateSetter, origin Origin, diags *diag.Diagnostics) {
	raw, err := json.Marshal(origin)
	if err != nil {
		diags.AddError("Unable To Record Guest Origin", err.Error())
		return
	}
	diags.Append(to.SetKey(ctx, originKey, raw)...)
}

// sourceRecorded makes a change of a creation source (the clone source or
// the restored archive, any of their attributes, or the attribute's
// removal) an in-place update that sends nothing to PVE: the source only
// says how a new guest is made, and the plan says so with a warning.
func sourceRecorded(attribute string) planmodifier.Object {
	return sourceRecordedModifier{attribute: attribute}
}

type sourceRecordedModifier struct{ attribute string }

func (m sourceRecordedModifier) Description(context.Context) string {
	return fmt.Sprintf("Changing or removing %s is only recorded: it affects only guests created from then on.", m.attribute)
}

func (m sourceRecordedModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (m sourceRecordedModifier) PlanModifyObject(_ context.Context, req planmodifier.ObjectRequest, resp *planmodifier.ObjectResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || req.StateValue.IsNull() || req.PlanValue.IsUnknown() || req.PlanValue.Equal(req.StateValue) {
		return
	}
	what := "changes"
	if req.PlanValue.IsNull() {
		what = "is removed"
	}
	resp.Diagnostics.AddAttributeWarning(path.Root(m.attribute), "Creation Source Only Recorded",
		fmt.Sprintf("%s %s. It only says how the guest is created, so the change is recorded in state and nothing is sent to PVE: "+
			"the existing guest, its disks and the settings it inherited stay as they are. "+
			"It affects only a guest created from now on (after a destroy, or terraform apply -replace).", m.attribute, what))
}

// loadOrigins loads prior's origin, and gives planned the same one: the
// guest stays what it was made from whatever its source attributes now
// say. A guest with no origin gets the one planned declares (a source set
// after an import).
func loadOrigins(ctx context.Context, from PrivateGetter, to PrivateSetter, prior, planned Attributes, diags *diag.Diagnostics) {
	loadOrigin(ctx, from, to, prior, diags)
	if known := prior.KnownOrigin(); known != OriginNone {
		if planned.Origin != nil {
			*planned.Origin = known
		}
		return
	}
	loadOrigin(ctx, from, to, planned, diags)
}
