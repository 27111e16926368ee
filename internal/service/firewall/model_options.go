package firewall

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The options of the three kinds of firewall differ (pve-firewall
// src/PVE/Firewall.pm $cluster_option_properties, $host_option_properties,
// $vm_option_properties). pve_firewall_options has the union of them as
// attributes; optionSpecs is the one table the schema, the validation and the
// mapping to PVE's options all read.

// scopeSet is a set of scope kinds: the firewalls that have an option.
type scopeSet uint8

const (
	inCluster scopeSet = 1 << clusterScope
	inNode    scopeSet = 1 << nodeScope
	inGuest   scopeSet = 1 << guestScope
)

func (s scopeSet) has(k scopeKind) bool { return s&(1<<k) != 0 }

// describe names the firewalls of the set for a description or a message:
// "the cluster's firewall", "nodes' and guests' firewalls".
func (s scopeSet) describe() string {
	var names []string
	if s.has(clusterScope) {
		names = append(names, "the cluster's")
	}
	if s.has(nodeScope) {
		names = append(names, "nodes'")
	}
	if s.has(guestScope) {
		names = append(names, "guests'")
	}
	switch len(names) {
	case 1:
		return names[0] + " firewall"
	case 2:
		return names[0] + " and " + names[1] + " firewalls"
	default:
		return "every firewall (cluster, node and guest)"
	}
}

// optionKind is how an option's PVE text maps to a Terraform value.
type optionKind int

const (
	// boolOption: PVE's 0 or 1.
	boolOption optionKind = iota
	// intOption: a decimal number.
	intOption
	// enumOption: a word from a fixed list, kept as PVE writes it.
	enumOption
	// helperListOption: a comma-separated list of conntrack helpers, a set
	// in Terraform.
	helperListOption
	// rateLimitOption: the cluster's log_ratelimit property string, an
	// object in Terraform.
	rateLimitOption
)

// optionSpec is one option: its attribute, PVE's name, which firewalls have
// it and how its value maps.
type optionSpec struct {
	attr   string
	key    string
	scopes scopeSet
	kind   optionKind
	enum   []string // enumOption: the accepted words
	// min and max bound an intOption (max 0: no upper bound).
	min, max int64
	descr    string
}

var (
	policyWords        = []string{"ACCEPT", "REJECT", "DROP"}
	forwardPolicyWords = []string{"ACCEPT", "DROP"}
	// conntrackHelpers are the helpers pve-firewall knows
	// (src/PVE/Firewall.pm $pve_fw_helpers, pve_fw_verify_conntrack_helper).
	conntrackHelpers = []string{"amanda", "ftp", "irc", "netbios-ns", "pptp", "sane", "sip", "snmp", "tftp"}
)

// The log levels of pve-firewall's standard option pve-fw-loglevel
// (src/PVE/Firewall.pm) are logLevels, which rules share.

var optionSpecs = []optionSpec{
	{attr: "enabled", key: "enable", scopes: inCluster | inNode | inGuest, kind: boolOption,
		descr: "Whether the firewall is on. On the cluster's firewall it switches PVE's firewall on for the whole cluster " +
			"(off by default); on a node's it switches that node's own rules on (on by default, and only while the cluster's firewall is on); " +
			"on a guest's it switches the guest's rules on (off by default; each network device also needs `firewall` on). " +
			"PVE's transient cluster value (a timestamp set by the web interface's lock-out protection, which PVE itself turns off after a minute) reads as `false`."},
	{attr: "ebtables", key: "ebtables", scopes: inCluster, kind: boolOption,
		descr: "Whether PVE also installs ebtables (layer 2) rules cluster wide. PVE's default is on."},
	{attr: "policy_in", key: "policy_in", scopes: inCluster | inGuest, kind: enumOption, enum: policyWords,
		descr: "What happens to incoming traffic no rule matched: `ACCEPT`, `REJECT` or `DROP`. The cluster's applies to the nodes, " +
			"a guest's to the guest; PVE's default is `DROP` for both."},
	{attr: "policy_out", key: "policy_out", scopes: inCluster | inGuest, kind: enumOption, enum: policyWords,
		descr: "What happens to outgoing traffic no rule matched: `ACCEPT`, `REJECT` or `DROP`. PVE's default is `ACCEPT`."},
	{attr: "policy_forward", key: "policy_forward", scopes: inCluster, kind: enumOption, enum: forwardPolicyWords,
		descr: "What happens to forwarded traffic no rule matched: `ACCEPT` or `DROP` (only the nftables-based firewall applies it)."},
	{attr: "log_ratelimit", key: "log_ratelimit", scopes: inCluster, kind: rateLimitOption,
		descr: "How often the firewall may write log lines. PVE keeps the setting as one string; the provider writes it as " +
			"`enable=0|1,rate=RATE,burst=N` with the keys that are set. Unset: PVE logs at most 1 line a second after a burst of 5."},
	{attr: "log_level_in", key: "log_level_in", scopes: inNode | inGuest, kind: enumOption, enum: logLevels,
		descr: "Syslog level at which incoming traffic the policy handles is logged; `nolog` logs nothing."},
	{attr: "log_level_out", key: "log_level_out", scopes: inNode | inGuest, kind: enumOption, enum: logLevels,
		descr: "Syslog level at which outgoing traffic the policy handles is logged; `nolog` logs nothing."},
	{attr: "log_level_forward", key: "log_level_forward", scopes: inNode, kind: enumOption, enum: logLevels,
		descr: "Syslog level at which forwarded traffic the policy handles is logged; `nolog` logs nothing."},
	{attr: "tcp_flags_log_level", key: "tcp_flags_log_level", scopes: inNode, kind: enumOption, enum: logLevels,
		descr: "Syslog level at which the filter of illegal TCP flag combinations logs."},
	{attr: "smurf_log_level", key: "smurf_log_level", scopes: inNode, kind: enumOption, enum: logLevels,
		descr: "Syslog level at which the smurf filter logs."},
	{attr: "smurf_filter", key: "nosmurfs", scopes: inNode, kind: boolOption,
		descr: "Whether the node drops smurf packets (traffic from a broadcast source address). PVE's default is on."},
	{attr: "tcp_flags_filter", key: "tcpflags", scopes: inNode, kind: boolOption,
		descr: "Whether the node drops illegal combinations of TCP flags. PVE's default is off."},
	{attr: "ndp", key: "ndp", scopes: inNode | inGuest, kind: boolOption,
		descr: "Whether IPv6 neighbor discovery (NDP) is allowed."},
	{attr: "nf_conntrack_max", key: "nf_conntrack_max", scopes: inNode, kind: intOption, min: 32768,
		descr: "Maximum number of tracked connections, at least 32768. PVE's default is 262144."},
	{attr: "nf_conntrack_tcp_timeout_established", key: "nf_conntrack_tcp_timeout_established", scopes: inNode, kind: intOption, min: 7875,
		descr: "Seconds an established TCP connection stays tracked without traffic, at least 7875. PVE's default is 432000."},
	{attr: "nf_conntrack_tcp_timeout_syn_recv", key: "nf_conntrack_tcp_timeout_syn_recv", scopes: inNode, kind: intOption, min: 30, max: 60,
		descr: "Seconds a half-open TCP connection (SYN received) stays tracked, 30 to 60. PVE's default is 60."},
	{attr: "nf_conntrack_allow_invalid", key: "nf_conntrack_allow_invalid", scopes: inNode, kind: boolOption,
		descr: "Whether packets connection tracking marks invalid are let through. PVE's default is off."},
	{attr: "nf_conntrack_helpers", key: "nf_conntrack_helpers", scopes: inNode, kind: helperListOption,
		descr: "Connection tracking helpers to load, from `" + strings.Join(conntrackHelpers, "`, `") + "`. At least one; " +
			"remove the attribute to load none."},
	{attr: "protection_synflood", key: "protection_synflood", scopes: inNode, kind: boolOption,
		descr: "Whether SYN flood protection is on. PVE's default is off."},
	{attr: "protection_synflood_rate", key: "protection_synflood_rate", scopes: inNode, kind: intOption,
		descr: "SYN packets a second allowed per source address under SYN flood protection. PVE's default is 200."},
	{attr: "protection_synflood_burst", key: "protection_synflood_burst", scopes: inNode, kind: intOption,
		descr: "Burst of SYN packets allowed per source address under SYN flood protection. PVE's default is 1000."},
	{attr: "log_nf_conntrack", key: "log_nf_conntrack", scopes: inNode, kind: boolOption,
		descr: "Whether connection tracking information is logged. PVE's default is off."},
	{attr: "nftables", key: "nftables", scopes: inNode, kind: boolOption,
		descr: "Whether the node runs the nftables-based firewall (a technology preview in PVE) instead of the iptables one."},
	{attr: "mac_filter", key: "macfilter", scopes: inGuest, kind: boolOption,
		descr: "Whether the guest may send only from the MAC addresses of its network devices. PVE's default is on."},
	{attr: "ip_filter", key: "ipfilter", scopes: inGuest, kind: boolOption,
		descr: "Whether the guest may send only from its own addresses: as if each network device had an empty " +
			"`ipfilter-netN` IP set, which holds the link-local address derived from the device's MAC address " +
			"(and, for a container, its configured addresses)."},
	{attr: "dhcp", key: "dhcp", scopes: inGuest, kind: boolOption,
		descr: "Whether DHCP traffic is allowed. PVE's default is off."},
	{attr: "router_advertisement", key: "radv", scopes: inGuest, kind: boolOption,
		descr: "Whether the guest may send IPv6 router advertisements."},
}

// optionsModel is pve_firewall_options' Terraform state: the scope and the
// options by attribute name. An option not declared is null.
type optionsModel struct {
	ID     types.String
	Node   types.String
	VMID   types.Int64
	Values map[string]attr.Value
}

func (m optionsModel) scope() scopeRef { return scopeFromModel(m.Node, m.VMID) }

// kind is the kind of firewall the model configures, known from which of
// node and vmid are set even while their values are unknown (a vmid taken
// from a guest that is yet to be created).
func (m optionsModel) kind() scopeKind {
	switch {
	case !m.VMID.IsNull():
		return guestScope
	case !m.Node.IsNull():
		return nodeScope
	default:
		return clusterScope
	}
}

// value is the option's value, null when it is not there.
func (m optionsModel) value(spec optionSpec) attr.Value {
	if v, ok := m.Values[spec.attr]; ok && v != nil {
		return v
	}
	return nullValue(spec.kind)
}

// declared tells whether the configuration gives the option a value
// (unknown counts: it will be one).
func (m optionsModel) declared(spec optionSpec) bool { return !m.value(spec).IsNull() }

// rateLimitTypes are the attributes of log_ratelimit.
var rateLimitTypes = map[string]attr.Type{
	"enabled": types.BoolType,
	"rate":    types.StringType,
	"burst":   types.Int64Type,
}

func valueType(kind optionKind) attr.Type {
	switch kind {
	case boolOption:
		return types.BoolType
	case intOption:
		return types.Int64Type
	case helperListOption:
		return types.SetType{ElemType: types.StringType}
	case rateLimitOption:
		return types.ObjectType{AttrTypes: rateLimitTypes}
	default:
		return types.StringType
	}
}

func nullValue(kind optionKind) attr.Value {
	switch kind {
	case boolOption:
		return types.BoolNull()
	case intOption:
		return types.Int64Null()
	case helperListOption:
		return types.SetNull(types.StringType)
	case rateLimitOption:
		return types.ObjectNull(rateLimitTypes)
	default:
		return types.StringNull()
	}
}

// specsFor lists the options the scope's firewall has.
func specsFor(kind scopeKind) []optionSpec {
	var out []optionSpec
	for _, spec := range optionSpecs {
		if spec.scopes.has(kind) {
			out = append(out, spec)
		}
	}
	return out
}

// fromAPI fills the model from the scope's options as PVE answers them.
// Only declared options are read, so an option PVE has but the
// configuration does not name stays null; adopt reads every option PVE has
// (import).
func (m *optionsModel) fromAPI(options map[string]string, adopt bool) {
	values := make(map[string]attr.Value, len(optionSpecs))
	kind := m.kind()
	for _, spec := range optionSpecs {
		values[spec.attr] = nullValue(spec.kind)
		if !spec.scopes.has(kind) || (!adopt && !m.declared(spec)) {
			continue
		}
		if text, ok := options[spec.key]; ok {
			values[spec.attr] = parseOption(spec, text)
		}
	}
	m.Values = values
	m.ID = types.StringValue(m.scope().String())
}

// optionWrite is the PUT .../firewall/options that turns one model into
// another: options to set and options to delete.
type optionWrite struct {
	Set    map[string]string
	Delete []string
}

func (w optionWrite) empty() bool { return len(w.Set) == 0 && len(w.Delete) == 0 }

// toWrite is the write that turns from (what PVE has, as far as it is
// managed) into to (the plan): declared options that differ are set,
// options dropped from configuration are deleted, so PVE's defaults apply
// to them again. Create passes an empty from.
func toWrite(from, to optionsModel) optionWrite {
	w := optionWrite{Set: map[string]string{}}
	for _, spec := range specsFor(to.kind()) {
		want, wantSet := renderOption(spec, to.value(spec))
		have, haveSet := renderOption(spec, from.value(spec))
		switch {
		case wantSet && (!haveSet || want != have):
			w.Set[spec.key] = want
		case !wantSet && haveSet:
			w.Delete = append(w.Delete, spec.key)
		}
	}
	sort.Strings(w.Delete)
	return w
}

// managedKeys are PVE's names of the options the model declares: what a
// destroy deletes.
func (m optionsModel) managedKeys() []string {
	var keys []string
	for _, spec := range specsFor(m.kind()) {
		if m.declared(spec) {
			keys = append(keys, spec.key)
		}
	}
	sort.Strings(keys)
	return keys
}

// outOfScope lists the declared options the model's firewall lacks.
func (m optionsModel) outOfScope() []optionSpec {
	kind := m.kind()
	var out []optionSpec
	for _, spec := range optionSpecs {
		if !spec.scopes.has(kind) && m.declared(spec) {
			out = append(out, spec)
		}
	}
	return out
}

// parseOption reads PVE's text of an option. A value the provider cannot
// read is null, so the plan shows the configured value to be written again.
func parseOption(spec optionSpec, text string) attr.Value {
	switch spec.kind {
	case boolOption:
		if b, ok := parsePVEBool(text); ok {
			return types.BoolValue(b)
		}
	case intOption:
		if n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64); err == nil {
			return types.Int64Value(n)
		}
	case enumOption:
		// PVE's parser leaves an empty log level when the file names none
		// (parse_hostfw_option, parse_vmfw_option): as good as unset.
		if text != "" {
			return types.StringValue(text)
		}
	case helperListOption:
		var elems []attr.Value
		for _, h := range strings.Split(text, ",") {
			if h = strings.TrimSpace(h); h != "" {
				elems = append(elems, types.StringValue(h))
			}
		}
		if len(elems) > 0 {
			return types.SetValueMust(types.StringType, elems)
		}
	case rateLimitOption:
		return parseRateLimit(text)
	}
	return nullValue(spec.kind)
}

// parsePVEBool reads PVE's booleans. The cluster's enable is an integer:
// 1 is on; a larger value is the timestamp of the web interface's lock-out
// protection, which PVE's parser turns into 0 a minute later
// (parse_clusterfw_option) and which only a 1 makes permanent, so it reads
// as off.
func parsePVEBool(text string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "1", "yes", "on", "true":
		return true, true
	case "0", "no", "off", "false":
		return false, true
	}
	if n, err := strconv.Atoi(strings.TrimSpace(text)); err == nil && n > 1 {
		return false, true
	}
	return false, false
}

// parseRateLimit reads log_ratelimit's property string: enable is its
// default key, so a bare "0" or "1" is enable (pve-firewall
// src/PVE/Firewall.pm $cluster_option_properties). Keys not given stay
// null.
func parseRateLimit(text string) attr.Value {
	values := map[string]attr.Value{
		"enabled": types.BoolNull(),
		"rate":    types.StringNull(),
		"burst":   types.Int64Null(),
	}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, hasKey := strings.Cut(part, "=")
		if !hasKey {
			key, val = "enable", part
		}
		switch key {
		case "enable":
			if b, ok := parsePVEBool(val); ok {
				values["enabled"] = types.BoolValue(b)
			}
		case "rate":
			values["rate"] = types.StringValue(val)
		case "burst":
			if n, err := strconv.ParseInt(val, 10, 64); err == nil {
				values["burst"] = types.Int64Value(n)
			}
		}
	}
	return types.ObjectValueMust(rateLimitTypes, values)
}

// renderOption writes a value as PVE takes it; false when the value is null
// or unknown.
func renderOption(spec optionSpec, v attr.Value) (string, bool) {
	if v == nil || v.IsNull() || v.IsUnknown() {
		return "", false
	}
	switch t := v.(type) {
	case types.Bool:
		return formBool(t.ValueBool()), true
	case types.Int64:
		return strconv.FormatInt(t.ValueInt64(), 10), true
	case types.String:
		return t.ValueString(), true
	case types.Set:
		var helpers []string
		for _, e := range t.Elements() {
			if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
				helpers = append(helpers, s.ValueString())
			}
		}
		// PVE keeps the list as given; a sorted list is one form for
		// one set.
		sort.Strings(helpers)
		return strings.Join(slices.Compact(helpers), ","), len(helpers) > 0
	case types.Object:
		return renderRateLimit(t)
	}
	panic(fmt.Sprintf("option %s: unexpected value type %T", spec.attr, v))
}

// renderRateLimit writes log_ratelimit in one canonical form: the keys that
// are set, in the order enable, rate, burst, each named. PVE stores the
// string as given (its parser keeps log_ratelimit verbatim,
// parse_clusterfw_option), so one form keeps refreshes quiet.
func renderRateLimit(obj types.Object) (string, bool) {
	attrs := obj.Attributes()
	var parts []string
	if b, ok := attrs["enabled"].(types.Bool); ok && !b.IsNull() && !b.IsUnknown() {
		parts = append(parts, "enable="+formBool(b.ValueBool()))
	}
	if s, ok := attrs["rate"].(types.String); ok && !s.IsNull() && !s.IsUnknown() {
		parts = append(parts, "rate="+s.ValueString())
	}
	if n, ok := attrs["burst"].(types.Int64); ok && !n.IsNull() && !n.IsUnknown() {
		parts = append(parts, "burst="+strconv.FormatInt(n.ValueInt64(), 10))
	}
	return strings.Join(parts, ","), len(parts) > 0
}

func formBool(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// object is the model as the Terraform object the schema describes.
func (m optionsModel) object() types.Object {
	values := map[string]attr.Value{"id": m.ID, "node": m.Node, "vmid": m.VMID}
	for _, spec := range optionSpecs {
		values[spec.attr] = m.value(spec)
	}
	return types.ObjectValueMust(optionsObjectTypes(), values)
}

// optionsFromObject reads the model from the Terraform object.
func optionsFromObject(obj types.Object) optionsModel {
	attrs := obj.Attributes()
	m := optionsModel{ID: types.StringNull(), Node: types.StringNull(), VMID: types.Int64Null(), Values: map[string]attr.Value{}}
	if v, ok := attrs["id"].(types.String); ok {
		m.ID = v
	}
	if v, ok := attrs["node"].(types.String); ok {
		m.Node = v
	}
	if v, ok := attrs["vmid"].(types.Int64); ok {
		m.VMID = v
	}
	for _, spec := range optionSpecs {
		if v, ok := attrs[spec.attr]; ok {
			m.Values[spec.attr] = v
		}
	}
	return m
}

func optionsObjectTypes() map[string]attr.Type {
	attrTypes := map[string]attr.Type{"id": types.StringType, "node": types.StringType, "vmid": types.Int64Type}
	for _, spec := range optionSpecs {
		attrTypes[spec.attr] = valueType(spec.kind)
	}
	return attrTypes
}
