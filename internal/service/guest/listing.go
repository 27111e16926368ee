// Package guest holds the VM and container data sources, one
// implementation each for the lookup (pve_vm, pve_container) and the list
// (pve_vms, pve_containers): one read of the cluster listing, the rules for
// guests PVE has not described yet (W11), the filters, the lookups and
// their schemas.
package guest

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The guest data sources (pve_vm, pve_vms, pve_container, pve_containers)
// all work from one GET /cluster/resources?type=vm, which covers every node
// and both guest types in a single request; they never ask per guest. What
// differs between VMs and containers is only the entry type, the attribute
// holding the listed name and the words: the guestops.Kind carries the
// type and the nouns the resources use too, kindWords the rest.

const bytesPerMiB = 1 << 20

// kindWords is a guestops.Kind with the words and attribute names only its
// data sources use.
type kindWords struct {
	guestops.Kind
	// FullNoun opens descriptions; Described ends "is not ..." sentences.
	FullNoun, Described string
	// ListDataSource lists the kind, under an attribute named after it
	// without the prefix; the lookup data source is named after the
	// kind's resource. PVE lists a VM's name and a container's hostname in
	// the same field, which the kind's NameKey names.
	ListDataSource string

	nameDescription   string
	lookupNote        string
	statusDescription string
	lockExamples      string
	cpusDescription   string
}

// vmWords are the words of pve_vm and pve_vms.
var vmWords = &kindWords{
	Kind:            guestops.VM,
	FullNoun:        "QEMU VM",
	Described:       "a QEMU VM",
	ListDataSource:  "pve_vms",
	nameDescription: "The VM's name.",
	// W18: the listing carries status, never qmpstatus, so it cannot tell
	// paused from running.
	statusDescription: "`running` or `stopped` as the cluster listing reports it, or `unknown` while the VM is being created or cloned or its node is offline. " +
		"The listing does not tell a paused VM, or one suspended to RAM, from a running one: both show as `running` (the `pve_vm` resource reports `paused`). " +
		"A hibernated VM shows as `stopped` with `lock` `suspended`.",
	lockExamples:    "`clone`, `create`, `migrate`, `backup`, `suspended`...",
	cpusDescription: "Number of virtual CPUs (vcpus, or sockets times cores).",
}

// containerWords are the words of pve_container and pve_containers.
var containerWords = &kindWords{
	Kind:           guestops.Container,
	FullNoun:       "LXC container",
	Described:      "an LXC container",
	ListDataSource: "pve_containers",
	// PVE lists a container without a hostname as CT<vmid>, the name it
	// also gives the container's UTS namespace.
	nameDescription: "The container's hostname as PVE lists it: `CT<vmid>` for a container configured without one.",
	lookupNote:      " A container configured without a hostname is listed, and found, as `CT<vmid>`.",
	statusDescription: "`running` or `stopped` as the cluster listing reports it, " +
		"or `unknown` while the container is being created or cloned or its node is offline.",
	lockExamples: "`create`, `clone`, `migrate`, `backup`, `mounted`, `snapshot`...",
	// PVE lists cores, else cpulimit (which may be fractional), else the
	// node's CPU count.
	cpusDescription: "Number of CPUs the container may use: its `cores`, else its `cpulimit` rounded up, else the node's CPU count.",
}

// wordsOf picks the data source words of a kind by its guest type:
// guestops.VM or guestops.Container.
func wordsOf(kind guestops.Kind) *kindWords {
	switch kind.Type {
	case vmWords.Type:
		return vmWords
	case containerWords.Type:
		return containerWords
	}
	panic("guest: no data sources for guest type " + kind.Type)
}

// other is the kind a lookup of k can run into instead.
func (k *kindWords) other() *kindWords {
	if k.Type == vmWords.Type {
		return containerWords
	}
	return vmWords
}

func (k *kindWords) plural() string { return k.Noun + "s" }

// ListAttribute is the list data source's attribute holding the selected
// guests ("vms", "containers").
func (k *kindWords) ListAttribute() string {
	return strings.TrimPrefix(k.ListDataSource, "pve_")
}

// RegexAttribute is the list data source's name filter ("name_regex",
// "hostname_regex").
func (k *kindWords) RegexAttribute() string { return k.NameKey + "_regex" }

// Summary is what the cluster listing tells about one guest, in Terraform
// types, apart from its name: the name's attribute differs by kind, so
// summaryObject puts the name under the kind's attribute next to these.
type Summary struct {
	VMID     types.Int64
	Node     types.String
	Status   types.String
	Tags     types.Set
	Template types.Bool
	Pool     types.String
	Lock     types.String
	Memory   types.Int64
	CPUs     types.Int64
}

// detailsPending reports a guest entry the cluster's status daemon has not
// described yet: a guest mid-clone or mid-create carries only its id, node,
// lock and status "unknown" (W11), and so does a guest whose node is
// offline. Once described, an entry always has a
// name, because PVE falls back to "VM <vmid>" or "CT<vmid>" when none is
// configured, so a missing name is the reliable sign. Such a guest exists;
// only its details are unknown.
func detailsPending(entry pveapi.Resource) bool {
	return entry.Name == ""
}

// SummaryOf maps one guest entry. For an entry whose details are pending
// (W11) the tags, template flag, memory and CPUs are null: unknown, not
// empty.
func SummaryOf(entry pveapi.Resource) Summary {
	s := Summary{
		VMID:     types.Int64Value(int64(entry.VMID)),
		Node:     types.StringValue(entry.Node),
		Status:   types.StringValue(entry.Status),
		Tags:     types.SetNull(types.StringType),
		Template: types.BoolNull(),
		Pool:     optionalString(entry.Pool),
		Lock:     optionalString(entry.Lock),
		Memory:   types.Int64Null(),
		CPUs:     types.Int64Null(),
	}
	if entry.Status == "" {
		s.Status = types.StringValue("unknown")
	}
	if detailsPending(entry) {
		return s
	}
	s.Tags = tagSetValue(listedTags(entry))
	s.Template = types.BoolValue(bool(entry.Template))
	s.Memory = types.Int64Value(int64(entry.MaxMem) / bytesPerMiB)
	// A container's cpulimit may be fractional; a VM's count never is.
	s.CPUs = types.Int64Value(int64(math.Ceil(float64(entry.MaxCPU))))
	return s
}

// NameOf is the entry's listed name (a container's hostname), null while
// its details are pending (W11).
func NameOf(entry pveapi.Resource) types.String {
	if detailsPending(entry) {
		return types.StringNull()
	}
	return types.StringValue(entry.Name.String())
}

// summaryAttrTypes are the types of SummaryAttributes, the listed name's
// attribute included.
func (k *kindWords) summaryAttrTypes() map[string]attr.Type {
	attrTypes := map[string]attr.Type{}
	for name, a := range k.SummaryAttributes() {
		attrTypes[name] = a.GetType()
	}
	return attrTypes
}

// summaryObject is one listed guest as an object of SummaryAttributes,
// whose types attrTypes holds: the Summary of the entry and its name under
// the kind's name attribute.
func (k *kindWords) summaryObject(entry pveapi.Resource, attrTypes map[string]attr.Type) (types.Object, diag.Diagnostics) {
	s := SummaryOf(entry)
	return types.ObjectValue(attrTypes, map[string]attr.Value{
		"vmid":     s.VMID,
		k.NameKey:  NameOf(entry),
		"node":     s.Node,
		"status":   s.Status,
		"tags":     s.Tags,
		"template": s.Template,
		"pool":     s.Pool,
		"lock":     s.Lock,
		"memory":   s.Memory,
		"cpus":     s.CPUs,
	})
}

func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// listedTags returns an entry's tags in PVE's normalised form (W19), so they
// compare equal to what the resources configure. PVE only stores valid tags;
// should an odd one slip through, it is kept folded to lowercase rather
// than failing the whole read.
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

// ListGuests reads every guest of the cluster, VMs and containers alike, in
// one request.
func ListGuests(ctx context.Context, client *pveapi.Client, diags *diag.Diagnostics) ([]pveapi.Resource, bool) {
	listing, err := client.ClusterResources(ctx, "vm")
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To List PVE Guests", err)
		return nil, false
	}
	return listing, true
}

// entries keeps the guests of this kind, sorted by vmid.
func (k *kindWords) entries(listing []pveapi.Resource) []pveapi.Resource {
	var out []pveapi.Resource
	for _, entry := range listing {
		if entry.Type == k.Type {
			out = append(out, entry)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].VMID < out[j].VMID })
	return out
}

// Filter selects guests for the list data sources. The zero value selects
// every guest.
type Filter struct {
	Node      string
	Tags      []string // normalised (W19); a guest must carry all of them
	NameRegex *regexp.Regexp
	Template  *bool
}

// needsDetails tells whether the filter looks at attributes a guest whose
// details are pending (W11) does not have yet. Such a guest can neither
// match nor be ruled out by those filters, so it is left out of the result:
// it shows up once PVE has described it.
func (f Filter) needsDetails() bool {
	return len(f.Tags) > 0 || f.NameRegex != nil || f.Template != nil
}

func (f Filter) matches(entry pveapi.Resource) bool {
	if f.Node != "" && entry.Node != f.Node {
		return false
	}
	if detailsPending(entry) {
		return !f.needsDetails()
	}
	if f.Template != nil && bool(entry.Template) != *f.Template {
		return false
	}
	if f.NameRegex != nil && !f.NameRegex.MatchString(entry.Name.String()) {
		return false
	}
	if len(f.Tags) > 0 {
		carried := map[string]bool{}
		for _, tag := range listedTags(entry) {
			carried[tag] = true
		}
		for _, tag := range f.Tags {
			if !carried[tag] {
				return false
			}
		}
	}
	return true
}

// Select applies the filter to the guests of this kind in a listing; the
// result is sorted by vmid and never holds the other kind.
func (k *kindWords) Select(listing []pveapi.Resource, f Filter) []pveapi.Resource {
	var out []pveapi.Resource
	for _, entry := range k.entries(listing) {
		if f.matches(entry) {
			out = append(out, entry)
		}
	}
	return out
}

// FilterConfig is the list data sources' filter attributes as configured.
type FilterConfig struct {
	Node      types.String
	Tags      types.Set
	NameRegex types.String
	Template  types.Bool
}

// NewFilter builds the filter. The validators have already refused bad
// tags and patterns at plan time; the checks here only guard against a
// value that was unknown then.
func (k *kindWords) NewFilter(ctx context.Context, cfg FilterConfig) (Filter, diag.Diagnostics) {
	var (
		filter Filter
		diags  diag.Diagnostics
	)
	filter.Node = cfg.Node.ValueString()

	if !cfg.Tags.IsNull() {
		var tags []string
		diags.Append(cfg.Tags.ElementsAs(ctx, &tags, false)...)
		if diags.HasError() {
			return filter, diags
		}
		normalised, err := wire.NormalizeTags(tags)
		if err != nil {
			diags.AddAttributeError(path.Root("tags"), "Invalid Tag", err.Error())
			return filter, diags
		}
		filter.Tags = normalised
	}

	if !cfg.NameRegex.IsNull() {
		re, err := regexp.Compile(cfg.NameRegex.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root(k.RegexAttribute()), "Invalid Regular Expression", err.Error())
			return filter, diags
		}
		filter.NameRegex = re
	}

	if !cfg.Template.IsNull() {
		template := cfg.Template.ValueBool()
		filter.Template = &template
	}
	return filter, diags
}

// LookupError is a failed lookup, ready to become a diagnostic.
type LookupError struct {
	Summary string
	Detail  string
}

func (e *LookupError) Error() string { return e.Summary + ": " + e.Detail }

// notVisibleHint ends every "not found": the listing only shows guests the
// caller may audit, so a missing guest may be a missing privilege.
func (k *kindWords) notVisibleHint() string {
	return fmt.Sprintf("The listing only shows guests the user or API token may audit (VM.Audit on /vms/VMID); check the privileges if the %s does exist.", k.Noun)
}

// FindByID finds the guest of this kind with that vmid. A guest of the
// other kind with the id, or one whose details are still pending (W11), is
// an error that says so rather than "not found".
func (k *kindWords) FindByID(listing []pveapi.Resource, vmid int64) (pveapi.Resource, *LookupError) {
	for _, entry := range listing {
		if int64(entry.VMID) != vmid || !entry.IsGuest() {
			continue
		}
		if entry.Type != k.Type {
			other := k.other()
			return pveapi.Resource{}, &LookupError{
				Summary: "Guest Is Not A " + k.Title,
				Detail: fmt.Sprintf("VMID %d on node %s is a %s (%s), not %s. Use the %s data source for %s.",
					vmid, entry.Node, other.Noun, entry.Type, k.Described, other.Resource, other.plural()),
			}
		}
		if detailsPending(entry) && entry.Lock == "" {
			// No lock: nothing is making the guest, so its node is not
			// reporting (offline, or its status daemon is down).
			return pveapi.Resource{}, &LookupError{
				Summary: k.Title + " Details Unavailable",
				Detail: fmt.Sprintf("%s %d on node %s has no details in the cluster listing: the node is probably offline. Run the command again once node %s answers.",
					k.Title, vmid, entry.Node, entry.Node),
			}
		}
		if detailsPending(entry) {
			return pveapi.Resource{}, &LookupError{
				Summary: k.Title + " Is Being Created",
				Detail: fmt.Sprintf("%s %d on node %s is being created or cloned%s; PVE does not report its details until that finishes. Run the command again once the operation is done.",
					k.Title, vmid, entry.Node, lockSuffix(entry)),
			}
		}
		return entry, nil
	}
	return pveapi.Resource{}, &LookupError{
		Summary: k.Title + " Not Found",
		Detail:  fmt.Sprintf("No %s with VMID %d exists in the cluster. %s", k.Noun, vmid, k.notVisibleHint()),
	}
}

// FindByName finds the one guest of this kind with that exact listed name
// (a container's hostname). Guests whose details are pending (W11) have no
// name yet and cannot match; when nothing matches they are named in the
// error, since the guest sought may be one of them.
func (k *kindWords) FindByName(listing []pveapi.Resource, name string) (pveapi.Resource, *LookupError) {
	var matches, pending []pveapi.Resource
	for _, entry := range k.entries(listing) {
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
		detail := fmt.Sprintf("No %s named %q exists in the cluster.", k.Noun, name)
		if len(pending) > 0 {
			detail += fmt.Sprintf(" These %s are being created or cloned and have no %s yet, so the %s may be one of them: %s. Run the command again once they are done.",
				k.plural(), k.NameKey, k.Noun, describeEntries(pending))
		}
		return pveapi.Resource{}, &LookupError{Summary: k.Title + " Not Found", Detail: detail + " " + k.notVisibleHint()}
	default:
		return pveapi.Resource{}, &LookupError{
			Summary: fmt.Sprintf("%s %s Is Ambiguous", k.Title, titleCase(k.NameKey)),
			Detail: fmt.Sprintf("%d %s are named %q: %s. PVE does not require %ss to be unique; look the %s up by vmid instead, or list them all with the %s data source.",
				len(matches), k.plural(), name, describeEntries(matches), k.NameKey, k.Noun, k.ListDataSource),
		}
	}
}

// Lookup reads the listing once and finds the guest by vmid or, when vmid
// is null, by name. A failure is added to diags, on the attribute looked
// up by.
func (k *kindWords) Lookup(ctx context.Context, client *pveapi.Client, vmid types.Int64, name types.String, diags *diag.Diagnostics) (pveapi.Resource, bool) {
	listing, ok := ListGuests(ctx, client, diags)
	if !ok {
		return pveapi.Resource{}, false
	}
	var (
		entry     pveapi.Resource
		lookupErr *LookupError
		attrPath  path.Path
	)
	if !vmid.IsNull() {
		attrPath = path.Root("vmid")
		entry, lookupErr = k.FindByID(listing, vmid.ValueInt64())
	} else {
		attrPath = path.Root(k.NameKey)
		entry, lookupErr = k.FindByName(listing, name.ValueString())
	}
	if lookupErr != nil {
		diags.AddAttributeError(attrPath, lookupErr.Summary, lookupErr.Detail)
		return pveapi.Resource{}, false
	}
	return entry, true
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

func titleCase(word string) string {
	if word == "" {
		return word
	}
	return strings.ToUpper(word[:1]) + word[1:]
}

// TagValidator refuses, at plan time, a tag PVE would refuse (W19), with
// PVE's own reason.
type TagValidator struct{}

var _ validator.String = TagValidator{}

// Description implements validator.String.
func (v TagValidator) Description(_ context.Context) string {
	return "a PVE tag: letters, digits, '-', '_', '+' and '.', not starting with '-', '+' or '.'"
}

// MarkdownDescription implements validator.String.
func (v TagValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateString implements validator.String.
func (v TagValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := wire.NormalizeTags([]string{req.ConfigValue.ValueString()}); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Tag",
			fmt.Sprintf("%v. PVE tags may hold letters, digits, '-', '_', '+' and '.', and must start with a letter, a digit or '_'.", err))
	}
}

// RegexValidator refuses, at plan time, a pattern Go's RE2 cannot compile.
type RegexValidator struct{}

var _ validator.String = RegexValidator{}

// Description implements validator.String.
func (v RegexValidator) Description(_ context.Context) string {
	return "a valid RE2 regular expression"
}

// MarkdownDescription implements validator.String.
func (v RegexValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

// ValidateString implements validator.String.
func (v RegexValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := regexp.Compile(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Regular Expression",
			fmt.Sprintf("%q is not a valid RE2 regular expression: %v", req.ConfigValue.ValueString(), err))
	}
}

// SummaryAttributes are the computed attributes every listed guest
// carries, its name attribute included.
func (k *kindWords) SummaryAttributes() map[string]schema.Attribute {
	pending := fmt.Sprintf("while the %s is being created or cloned, or its node is offline", k.Noun)
	return map[string]schema.Attribute{
		"vmid": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: fmt.Sprintf("The %s's id.", k.Noun),
		},
		k.NameKey: schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: k.nameDescription + " Null " + pending + ": PVE reports no details until then.",
		},
		"node": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: fmt.Sprintf("The node the %s is on.", k.Noun),
		},
		"status": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: k.statusDescription,
		},
		"tags": schema.SetAttribute{
			Computed:    true,
			ElementType: types.StringType,
			MarkdownDescription: fmt.Sprintf("The %s's tags in PVE's normalised form (lowercase), comparable with the `tags` of a `%s` resource. Empty when the %s has none; null %s.",
				k.Noun, k.Resource, k.Noun, pending),
		},
		"template": schema.BoolAttribute{
			Computed:            true,
			MarkdownDescription: fmt.Sprintf("Whether the %s is a template. Null %s.", k.Noun, pending),
		},
		"pool": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: fmt.Sprintf("The resource pool the %s belongs to; null when it is in none (or the caller may not audit the pool).", k.Noun),
		},
		"lock": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: fmt.Sprintf("The %s's config lock while an operation holds it (%s); null when unlocked.", k.Noun, k.lockExamples),
		},
		"memory": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: "Configured memory in MiB. Null " + pending + ".",
		},
		"cpus": schema.Int64Attribute{
			Computed:            true,
			MarkdownDescription: k.cpusDescription + " Null " + pending + ".",
		},
	}
}

// LookupSchema is the schema of the kind's lookup data source: the summary
// attributes, with vmid and the name attribute as lookup arguments.
func (k *kindWords) LookupSchema() schema.Schema {
	attrs := k.SummaryAttributes()
	attrs["id"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "The VMID as a string.",
	}
	attrs["vmid"] = schema.Int64Attribute{
		Optional:            true,
		Computed:            true,
		MarkdownDescription: fmt.Sprintf("The VMID to look up. Exactly one of `vmid` and `%s` must be set.", k.NameKey),
		Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
	}
	attrs[k.NameKey] = schema.StringAttribute{
		Optional: true,
		Computed: true,
		MarkdownDescription: fmt.Sprintf("The exact %s to look up. Exactly one of `vmid` and `%s` must be set. PVE does not require %ss to be unique: when several %s share the %s the lookup fails and lists them.",
			k.NameKey, k.NameKey, k.NameKey, k.plural(), k.NameKey) + k.lookupNote,
		Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
	}
	return schema.Schema{
		MarkdownDescription: fmt.Sprintf("One %s anywhere in the cluster, looked up by `vmid` or by `%s`. ", k.FullNoun, k.NameKey) +
			"Reads the cluster listing once (`GET /cluster/resources`), whatever the cluster's size. " +
			fmt.Sprintf("A %s that is still being created or cloned has no details yet: looking it up by vmid fails with an error saying so.", k.Noun),
		Attributes: attrs,
	}
}

// LookupConfigValidators require exactly one of the lookup arguments.
func (k *kindWords) LookupConfigValidators() []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.ExactlyOneOf(path.MatchRoot("vmid"), path.MatchRoot(k.NameKey)),
	}
}

// ListSchema is the schema of the kind's list data source.
func (k *kindWords) ListSchema() schema.Schema {
	others := k.other().plural()
	return schema.Schema{
		MarkdownDescription: fmt.Sprintf("The %ss of the cluster, optionally filtered, sorted by vmid. ", k.FullNoun) +
			fmt.Sprintf("Reads the cluster listing once (`GET /cluster/resources`), whatever the cluster's size; %s are never included.\n\n", others) +
			fmt.Sprintf("A %s that is being created or cloned, or whose node is offline, has no details yet (null `%s`, `tags`, `template`, `memory` and `cpus`, `status` `unknown`, ", k.Noun, k.NameKey) +
			fmt.Sprintf("`lock` set). It is listed when only `node` filters the result, and left out when `tags`, `%s` or `template` is set, ", k.RegexAttribute()) +
			"since those filters cannot be evaluated for it yet.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: fmt.Sprintf("Always `%s`.", k.ListAttribute()),
			},
			"node": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("Only %s on this node.", k.plural()),
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"tags": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: fmt.Sprintf("Only %s that carry all of these tags. Compared in PVE's normalised form, so `Web` matches a %s tagged `web`.",
					k.plural(), k.Noun),
				Validators: []validator.Set{setvalidator.ValueStringsAre(TagValidator{})},
			},
			k.RegexAttribute(): schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Only %s whose %s matches this RE2 regular expression. The match is unanchored: ", k.plural(), k.NameKey) +
					"use `^web-` for a prefix, `^web-1$` for an exact name.",
				Validators: []validator.String{RegexValidator{}},
			},
			"template": schema.BoolAttribute{
				Optional:            true,
				MarkdownDescription: fmt.Sprintf("`true`: only templates; `false`: only %s that are not templates. Unset: both.", k.plural()),
			},
			"vmids": schema.ListAttribute{
				Computed:            true,
				ElementType:         types.Int64Type,
				MarkdownDescription: fmt.Sprintf("The vmids of the selected %s, ascending.", k.plural()),
			},
			k.ListAttribute(): schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: fmt.Sprintf("The selected %s, sorted by vmid.", k.plural()),
				NestedObject:        schema.NestedAttributeObject{Attributes: k.SummaryAttributes()},
			},
		},
	}
}
