package qemu

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Both VM data sources work from one GET /cluster/resources?type=vm, which
// covers every node in a single request; they never ask per VM.

const (
	resourceTypeQEMU = "qemu"
	bytesPerMiB      = 1 << 20
)

// vmSummary is what the cluster listing tells about one VM, in Terraform
// types. pve_vm embeds it; pve_vms lists it.
type vmSummary struct {
	VMID     types.Int64  `tfsdk:"vmid"`
	Name     types.String `tfsdk:"name"`
	Node     types.String `tfsdk:"node"`
	Status   types.String `tfsdk:"status"`
	Tags     types.Set    `tfsdk:"tags"`
	Template types.Bool   `tfsdk:"template"`
	Pool     types.String `tfsdk:"pool"`
	Lock     types.String `tfsdk:"lock"`
	Memory   types.Int64  `tfsdk:"memory"`
	CPUs     types.Int64  `tfsdk:"cpus"`
}

// detailsPending reports a VM entry the cluster's status daemon has not
// described yet: a VM mid-clone or mid-create carries only its id, node,
// lock and status "unknown" (W11). Once described, an entry always has a
// name, because PVE falls back to "VM <vmid>" when none is configured, so
// a missing name is the reliable sign. Such a VM exists; only its details
// are unknown.
func detailsPending(entry pveapi.Resource) bool {
	return entry.Name == ""
}

// summaryFromListing maps one qemu entry of the listing. For an entry whose
// details are pending (W11) the name, tags, template flag, memory and CPUs
// are null: unknown, not empty.
func summaryFromListing(entry pveapi.Resource) vmSummary {
	s := vmSummary{
		VMID:     types.Int64Value(int64(entry.VMID)),
		Name:     types.StringNull(),
		Node:     types.StringValue(entry.Node),
		Status:   types.StringValue(entry.Status),
		Tags:     types.SetNull(types.StringType),
		Template: types.BoolNull(),
		Pool:     optionalString(entry.Pool),
		Lock:     optionalString(entry.Lock),
		Memory:   types.Int64Null(),
		CPUs:     types.Int64Null(),
	}
	if s.Status.ValueString() == "" {
		s.Status = types.StringValue("unknown")
	}
	if detailsPending(entry) {
		return s
	}
	s.Name = types.StringValue(entry.Name.String())
	s.Tags = tagSetValue(listedTags(entry))
	s.Template = types.BoolValue(bool(entry.Template))
	s.Memory = types.Int64Value(int64(entry.MaxMem) / bytesPerMiB)
	s.CPUs = types.Int64Value(int64(math.Round(float64(entry.MaxCPU))))
	return s
}

func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// listedTags returns an entry's tags in PVE's normalised form (W19), so they
// compare equal to what pve_vm configures. PVE only stores valid tags; should
// an odd one slip through, it is kept folded to lowercase rather than
// failing the whole read.
func listedTags(entry pveapi.Resource) []string {
	raw := entry.Tags.String()
	if tags, err := wire.ParseTags(raw); err == nil {
		return tags
	}
	seen := map[string]bool{}
	tags := []string{}
	for _, tag := range wire.SplitList(raw) {
		tag = strings.ToLower(tag)
		if !seen[tag] {
			seen[tag] = true
			tags = append(tags, tag)
		}
	}
	sort.Strings(tags)
	return tags
}

func tagSetValue(tags []string) types.Set {
	elems := make([]attr.Value, 0, len(tags))
	for _, tag := range tags {
		elems = append(elems, types.StringValue(tag))
	}
	return types.SetValueMust(types.StringType, elems)
}

// qemuEntries keeps the VMs of a listing that also holds containers, sorted
// by vmid.
func qemuEntries(listing []pveapi.Resource) []pveapi.Resource {
	var vms []pveapi.Resource
	for _, entry := range listing {
		if entry.Type == resourceTypeQEMU {
			vms = append(vms, entry)
		}
	}
	sort.Slice(vms, func(i, j int) bool { return vms[i].VMID < vms[j].VMID })
	return vms
}

// vmFilter selects VMs for pve_vms. The zero value selects every VM.
type vmFilter struct {
	node      string
	tags      []string // normalised (W19); a VM must carry all of them
	nameRegex *regexp.Regexp
	template  *bool
}

// needsDetails tells whether the filter looks at attributes a VM whose
// details are pending (W11) does not have yet. Such a VM can neither match
// nor be ruled out by those filters, so it is left out of the result: it
// shows up once PVE has described it.
func (f vmFilter) needsDetails() bool {
	return len(f.tags) > 0 || f.nameRegex != nil || f.template != nil
}

func (f vmFilter) matches(entry pveapi.Resource) bool {
	if f.node != "" && entry.Node != f.node {
		return false
	}
	if detailsPending(entry) {
		return !f.needsDetails()
	}
	if f.template != nil && bool(entry.Template) != *f.template {
		return false
	}
	if f.nameRegex != nil && !f.nameRegex.MatchString(entry.Name.String()) {
		return false
	}
	if len(f.tags) > 0 {
		carried := map[string]bool{}
		for _, tag := range listedTags(entry) {
			carried[tag] = true
		}
		for _, tag := range f.tags {
			if !carried[tag] {
				return false
			}
		}
	}
	return true
}

// selectVMs applies the filter to the VMs of a listing; the result is
// sorted by vmid and never holds containers.
func selectVMs(listing []pveapi.Resource, f vmFilter) []pveapi.Resource {
	var out []pveapi.Resource
	for _, entry := range qemuEntries(listing) {
		if f.matches(entry) {
			out = append(out, entry)
		}
	}
	return out
}

// lookupError is a failed pve_vm lookup, ready to become a diagnostic.
type lookupError struct {
	summary string
	detail  string
}

func (e *lookupError) Error() string { return e.summary + ": " + e.detail }

// notVisibleHint ends every "not found": the listing only shows guests the
// caller may audit, so a missing VM may be a missing privilege.
const notVisibleHint = "The listing only shows guests the user or API token may audit (VM.Audit on /vms/VMID); check the privileges if the VM does exist."

// findVMByID finds the VM with that vmid. A container with the id, or a VM
// whose details are still pending (W11), is an error that says so rather
// than "not found".
func findVMByID(listing []pveapi.Resource, vmid int64) (pveapi.Resource, *lookupError) {
	for _, entry := range listing {
		if int64(entry.VMID) != vmid || !entry.IsGuest() {
			continue
		}
		if entry.Type != resourceTypeQEMU {
			return pveapi.Resource{}, &lookupError{
				summary: "Guest Is Not A VM",
				detail:  fmt.Sprintf("VMID %d on node %s is a container (%s), not a QEMU VM. Use the pve_container data source for containers.", vmid, entry.Node, entry.Type),
			}
		}
		if detailsPending(entry) {
			return pveapi.Resource{}, &lookupError{
				summary: "VM Is Being Created",
				detail:  fmt.Sprintf("VM %d on node %s is being created or cloned%s; PVE does not report its details until that finishes. Run the command again once the operation is done.", vmid, entry.Node, lockSuffix(entry)),
			}
		}
		return entry, nil
	}
	return pveapi.Resource{}, &lookupError{
		summary: "VM Not Found",
		detail:  fmt.Sprintf("No VM with VMID %d exists in the cluster. %s", vmid, notVisibleHint),
	}
}

// findVMByName finds the one VM with that exact name. VMs whose details are
// pending (W11) have no name yet and cannot match; when nothing matches they
// are named in the error, since the VM sought may be one of them.
func findVMByName(listing []pveapi.Resource, name string) (pveapi.Resource, *lookupError) {
	var matches, pending []pveapi.Resource
	for _, entry := range qemuEntries(listing) {
		switch {
		case detailsPending(entry):
			pending = append(pending, entry)
		case entry.Name.String() == name:
			matches = append(matches, entry)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		detail := fmt.Sprintf("No VM named %q exists in the cluster.", name)
		if len(pending) > 0 {
			detail += fmt.Sprintf(" These VMs are being created or cloned and have no name yet, so the VM may be one of them: %s. Run the command again once they are done.", describeEntries(pending))
		}
		return pveapi.Resource{}, &lookupError{summary: "VM Not Found", detail: detail + " " + notVisibleHint}
	default:
		return pveapi.Resource{}, &lookupError{
			summary: "VM Name Is Ambiguous",
			detail: fmt.Sprintf("%d VMs are named %q: %s. PVE does not require names to be unique; look the VM up by vmid instead, or list them all with the pve_vms data source.",
				len(matches), name, describeEntries(matches)),
		}
	}
}

// describeEntries renders "101 on pve1, 205 on pve2".
func describeEntries(entries []pveapi.Resource) string {
	parts := make([]string, 0, len(entries))
	for _, entry := range entries {
		parts = append(parts, fmt.Sprintf("%d on %s", entry.VMID, entry.Node))
	}
	return strings.Join(parts, ", ")
}

func lockSuffix(entry pveapi.Resource) string {
	if entry.Lock == "" {
		return ""
	}
	return " (lock: " + entry.Lock + ")"
}

// tagValidator refuses, at plan time, a tag PVE would refuse (W19).
type tagValidator struct{}

var _ validator.String = tagValidator{}

func (v tagValidator) Description(_ context.Context) string {
	return "a PVE tag: letters, digits, '-', '_', '+' and '.', not starting with '-', '+' or '.'"
}

func (v tagValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v tagValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := wire.NormalizeTags([]string{req.ConfigValue.ValueString()}); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Tag",
			fmt.Sprintf("%v. PVE tags may hold letters, digits, '-', '_', '+' and '.', and must start with a letter, a digit or '_'.", err))
	}
}

// regexValidator refuses, at plan time, a pattern Go's RE2 cannot compile.
type regexValidator struct{}

var _ validator.String = regexValidator{}

func (v regexValidator) Description(_ context.Context) string {
	return "a valid RE2 regular expression"
}

func (v regexValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v regexValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := regexp.Compile(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Regular Expression",
			fmt.Sprintf("%q is not a valid RE2 regular expression: %v", req.ConfigValue.ValueString(), err))
	}
}

// summaryAttributes are the computed attributes every VM entry carries.
// pve_vm replaces vmid and name with its lookup arguments.
func summaryAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"vmid": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "The VM's id.",
		},
		"name": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The VM's name. Null while the VM is being created or cloned: PVE reports no details until then.",
		},
		"node": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The node the VM is on.",
		},
		// W18: the listing carries status, never qmpstatus, so it cannot
		// tell paused from running.
		"status": schema.StringAttribute{
			Computed: true,
			MarkdownDescription: "`running` or `stopped` as the cluster listing reports it, or `unknown` while the VM is being created or cloned. " +
				"The listing does not tell a paused VM, or one suspended to RAM, from a running one: both show as `running` (the `pve_vm` resource reports `paused`). " +
				"A hibernated VM shows as `stopped` with `lock` `suspended`.",
		},
		"tags": schema.SetAttribute{
			Computed:            true,
			ElementType:         types.StringType,
			MarkdownDescription: "The VM's tags in PVE's normalised form (lowercase), comparable with the `tags` of a `pve_vm` resource. Empty when the VM has none; null while the VM is being created or cloned.",
		},
		"template": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: "Whether the VM is a template. Null while the VM is being created or cloned.",
		},
		"pool": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The resource pool the VM belongs to; null when it is in none (or the caller may not audit the pool).",
		},
		"lock": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "The VM's config lock while an operation holds it (`clone`, `create`, `migrate`, `backup`, `suspended`...); null when unlocked.",
		},
		"memory": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Configured memory in MiB. Null while the VM is being created or cloned.",
		},
		"cpus": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Number of virtual CPUs (vcpus, or sockets times cores). Null while the VM is being created or cloned.",
		},
	}
}
