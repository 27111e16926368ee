package fwutil

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Retention is the nested retention attribute: PVE's prune-backups
// (wire/prune.go), shared by backup jobs and storages.
type Retention struct {
	KeepAll     types.Bool  `tfsdk:"keep_all"`
	KeepLast    types.Int64 `tfsdk:"keep_last"`
	KeepHourly  types.Int64 `tfsdk:"keep_hourly"`
	KeepDaily   types.Int64 `tfsdk:"keep_daily"`
	KeepWeekly  types.Int64 `tfsdk:"keep_weekly"`
	KeepMonthly types.Int64 `tfsdk:"keep_monthly"`
	KeepYearly  types.Int64 `tfsdk:"keep_yearly"`
}

// RetentionAttribute is the schema of a retention attribute; desc says
// what it applies to.
func RetentionAttribute(desc string) schema.SingleNestedAttribute {
	keep := func(d string) schema.Int64Attribute {
		return schema.Int64Attribute{MarkdownDescription: d, Optional: true, Validators: []validator.Int64{int64validator.AtLeast(0)}}
	}
	count := func(what string) schema.Int64Attribute {
		return keep("Keep the last backup of each of this many " + what + ".")
	}
	return schema.SingleNestedAttribute{
		MarkdownDescription: desc + " Either `keep_all = true`, or one or more `keep_*` counts above zero.",
		Optional:            true,
		Attributes: map[string]schema.Attribute{
			"keep_all":     schema.BoolAttribute{MarkdownDescription: "Keep every backup. Exclusive with the counts.", Optional: true},
			"keep_last":    keep("Keep this many most recent backups."),
			"keep_hourly":  count("hours"),
			"keep_daily":   count("days"),
			"keep_weekly":  count("weeks"),
			"keep_monthly": count("months"),
			"keep_yearly":  count("years"),
		},
	}
}

// KeepFields pairs the prune-backups counters with the attributes.
func (r *Retention) KeepFields() map[string]*types.Int64 {
	return map[string]*types.Int64{
		"keep-last": &r.KeepLast, "keep-hourly": &r.KeepHourly, "keep-daily": &r.KeepDaily,
		"keep-weekly": &r.KeepWeekly, "keep-monthly": &r.KeepMonthly, "keep-yearly": &r.KeepYearly,
	}
}

// PropertyString is the retention as declared, in PVE's key order; ""
// for none.
func (r *Retention) PropertyString() string {
	if r == nil {
		return ""
	}
	p := map[string]string{}
	if !r.KeepAll.IsNull() && !r.KeepAll.IsUnknown() {
		p["keep-all"] = wire.Bool(r.KeepAll.ValueBool())
	}
	for k, v := range r.KeepFields() {
		if !v.IsNull() && !v.IsUnknown() {
			p[k] = strconv.FormatInt(v.ValueInt64(), 10)
		}
	}
	return wire.FormatPropertyString(p, "")
}

// RetentionFromOption reads a prune-backups value; nil for "".
func RetentionFromOption(s string) *Retention {
	if s == "" {
		return nil
	}
	p, _ := wire.ParsePropertyString(s, "")
	r := &Retention{KeepAll: types.BoolNull()}
	if v, ok := p["keep-all"]; ok {
		r.KeepAll = types.BoolValue(v != "" && v != "0")
	}
	for k, v := range r.KeepFields() {
		*v = types.Int64Null()
		if s, ok := p[k]; ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				*v = types.Int64Value(n)
			}
		}
	}
	return r
}

// ValidateRetention checks the retention at as PVE's prune-backups
// validator does, and refuses what PVE would store differently (keep_all =
// false with counts, counts of zero only), which would show as a change
// after every apply. unset says what leaving retention out means.
func ValidateRetention(r *Retention, at path.Path, unset string, diags *diag.Diagnostics) {
	if r == nil || r.KeepAll.IsUnknown() {
		return
	}
	for _, v := range r.KeepFields() {
		if v.IsUnknown() {
			return
		}
	}
	declared := r.PropertyString()
	if declared == "" {
		diags.AddAttributeError(at, "Empty Retention",
			"retention needs keep_all = true or at least one keep_* count; leave retention out to "+unset+".")
		return
	}
	p, err := wire.ParsePruneBackups(declared)
	if err != nil {
		diags.AddAttributeError(at, "Invalid Retention", wire.PruneBackupsProblem(declared))
		return
	}
	if stored := p.String(); stored != declared {
		diags.AddAttributeError(at, "Retention PVE Would Store Differently",
			fmt.Sprintf("PVE stores this retention as %q: counts of 0 alone mean keep everything (keep_all = true), "+
				"and keep_all = false beside counts is dropped. Declare it the way PVE keeps it.", stored))
	}
}
