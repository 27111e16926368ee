package access

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The pve_realm model is a map of attribute values, driven by the
// realmProps table: most attributes are one PVE option each, and a map
// keeps their mapping in one place instead of a field per option.
type realmValues map[string]attr.Value

// PVE option names the model writes besides the plain properties.
const (
	realmKeyComment      = "comment"
	realmKeyDefault      = "default"
	realmKeyTFA          = "tfa"
	realmKeySyncDefaults = "sync-defaults-options"
	realmKeyClientKey    = "client-key"
)

// builtinRealmComments are the comments PVE gives the pam and pve realms
// when theirs is empty (pve-access-control src/PVE/Auth/Plugin.pm
// parse_config): a realm showing one of them has no comment of its own.
var builtinRealmComments = map[string]string{
	pveapi.RealmTypePAM: "Linux PAM standard authentication",
	pveapi.RealmTypePVE: "Proxmox VE authentication server",
}

var (
	tfaAttrTypes = map[string]attr.Type{
		"type": types.StringType, "digits": types.Int64Type, "step": types.Int64Type,
		"id": types.StringType, "key": types.StringType, "url": types.StringType,
	}
	syncDefaultsAttrTypes = map[string]attr.Type{
		"scope": types.StringType, "remove_vanished": types.SetType{ElemType: types.StringType}, "enable_new": types.BoolType,
	}
	// removeVanishedOrder is the order remove-vanished flags are written
	// in (the API schema's typetext).
	removeVanishedOrder = []string{"acl", "properties", "entry"}
)

// newRealmValues is a model with every attribute null.
func newRealmValues(ctx context.Context, attrTypes map[string]attr.Type) (realmValues, error) {
	out := realmValues{}
	for name, typ := range attrTypes {
		v, err := typ.ValueFromTerraform(ctx, tftypes.NewValue(typ.TerraformType(ctx), nil))
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// Accessors; a null, unknown or missing value reads as absent.

func (v realmValues) str(name string) (string, bool) {
	s, ok := v[name].(types.String)
	if !ok || s.IsNull() || s.IsUnknown() {
		return "", false
	}
	return s.ValueString(), true
}

func (v realmValues) boolean(name string) (value, ok bool) {
	b, isBool := v[name].(types.Bool)
	if !isBool || b.IsNull() || b.IsUnknown() {
		return false, false
	}
	return b.ValueBool(), true
}

func (v realmValues) integer(name string) (int64, bool) {
	i, ok := v[name].(types.Int64)
	if !ok || i.IsNull() || i.IsUnknown() {
		return 0, false
	}
	return i.ValueInt64(), true
}

func (v realmValues) object(name string) (realmValues, bool) {
	o, ok := v[name].(types.Object)
	if !ok || o.IsNull() || o.IsUnknown() {
		return nil, false
	}
	return realmValues(o.Attributes()), true
}

func (v realmValues) strings(name string) ([]string, bool) {
	var elems []attr.Value
	switch c := v[name].(type) {
	case types.List:
		if c.IsNull() || c.IsUnknown() {
			return nil, false
		}
		elems = c.Elements()
	case types.Set:
		if c.IsNull() || c.IsUnknown() {
			return nil, false
		}
		elems = c.Elements()
	default:
		return nil, false
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out = append(out, s.ValueString())
		}
	}
	return out, true
}

func (v realmValues) stringMap(name string) (map[string]string, bool) {
	m, ok := v[name].(types.Map)
	if !ok || m.IsNull() || m.IsUnknown() {
		return nil, false
	}
	out := map[string]string{}
	for k, e := range m.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			out[k] = s.ValueString()
		}
	}
	return out, true
}

// set is true when the attribute holds a value or an unknown one.
func (v realmValues) set(name string) bool {
	a, ok := v[name]
	return ok && !a.IsNull()
}

func (v realmValues) kind() realmKinds {
	typ, _ := v.str("type")
	return realmKindOf(typ)
}

// isDefault is whether the values make the realm PVE's default one.
func (v realmValues) isDefault() bool {
	d, ok := v.boolean("default")
	return ok && d
}

// wireOptions is what the values hold as PVE options: the comment, the
// tfa and sync-defaults-options property strings and the plain properties
// of the realm's type, each in the form the provider writes. default,
// secrets and sync settings are not among them.
func (v realmValues) wireOptions() map[string]string {
	out := map[string]string{}
	kind := v.kind()
	if c, ok := v.str("comment"); ok {
		out[realmKeyComment] = c
	}
	if tfa, ok := v.object("tfa"); ok {
		out[realmKeyTFA] = formatTFA(tfa)
	}
	if sd, ok := v.object("sync_defaults"); ok {
		if s := formatSyncOptions(sd); s != "" {
			out[realmKeySyncDefaults] = s
		}
	}
	for _, p := range realmProps {
		if p.kinds&kind == 0 {
			continue
		}
		if s, ok := v.propWire(p); ok {
			out[p.key] = s
		}
	}
	return out
}

// propWire is a plain property as PVE takes it.
func (v realmValues) propWire(p realmProp) (string, bool) {
	switch p.kind {
	case propBool:
		b, ok := v.boolean(p.attr)
		return pveapi.FormBool(b), ok
	case propInt:
		i, ok := v.integer(p.attr)
		return strconv.FormatInt(i, 10), ok
	case propAttrList:
		list, ok := v.strings(p.attr)
		return strings.Join(list, ","), ok
	case propAttrMap:
		m, ok := v.stringMap(p.attr)
		if !ok {
			return "", false
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + m[k]
		}
		return strings.Join(parts, ","), true
	}
	return v.str(p.attr)
}

func formatTFA(tfa realmValues) string {
	m := map[string]string{}
	for _, k := range []string{"type", "id", "key", "url"} {
		if s, ok := tfa.str(k); ok {
			m[k] = s
		}
	}
	for _, k := range []string{"digits", "step"} {
		if i, ok := tfa.integer(k); ok {
			m[k] = strconv.FormatInt(i, 10)
		}
	}
	return wire.FormatPropertyStringOrdered(m, "", []string{"type"})
}

// formatSyncOptions is a realm-sync-options property string (the keys
// sorted, as PVE prints it); "" when nothing is set.
func formatSyncOptions(o realmValues) string {
	m := map[string]string{}
	if s, ok := o.str("scope"); ok {
		m["scope"] = s
	}
	if b, ok := o.boolean("enable_new"); ok {
		m["enable-new"] = pveapi.FormBool(b)
	}
	if flags, ok := o.strings("remove_vanished"); ok {
		m["remove-vanished"] = formatRemoveVanished(flags)
	}
	return wire.FormatPropertyString(m, "")
}

// formatRemoveVanished writes the flags in a fixed order; none is "none".
func formatRemoveVanished(flags []string) string {
	var out []string
	for _, f := range removeVanishedOrder {
		if slices.Contains(flags, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ";")
}

// realmFromAPI is the model of a realm as PVE holds it. prior is the
// state before (nil on import): the write-only versions and the sync
// settings, which PVE does not hold, come from it, and it tells how to
// show a setting that has two spellings in PVE: a pam or pve realm's
// built-in comment reads as no comment, and a realm that is not the
// default reads as default = false only where the state said so.
func realmFromAPI(ctx context.Context, r *pveapi.Realm, prior realmValues, attrTypes map[string]attr.Type) (realmValues, error) {
	out, err := newRealmValues(ctx, attrTypes)
	if err != nil {
		return nil, err
	}
	for _, keep := range []string{"password_wo_version", "client_key_wo_version", "sync", "sync_trigger", "timeouts"} {
		if a, ok := prior[keep]; ok {
			out[keep] = a
		}
	}
	out["id"] = types.StringValue(r.Realm)
	out["realm"] = types.StringValue(r.Realm)
	out["type"] = types.StringValue(r.Type)
	kind := realmKindOf(r.Type)

	_, priorHasComment := prior.str("comment")
	if r.Comment != "" && (kind&kindBuiltin == 0 || r.Comment != builtinRealmComments[r.Type] || priorHasComment) {
		out["comment"] = types.StringValue(r.Comment)
	}
	if d, ok := prior.boolean("default"); r.Default || ok && !d {
		out["default"] = types.BoolValue(r.Default)
	}
	if r.TFA != "" {
		if out["tfa"], err = tfaFromAPI(r.TFA); err != nil {
			return nil, err
		}
	}
	if s := r.Options[realmKeySyncDefaults]; s != "" && kind&kindDirectory != 0 {
		if out["sync_defaults"], err = syncDefaultsFromAPI(s); err != nil {
			return nil, err
		}
	}
	for _, p := range realmProps {
		text, ok := r.Options[p.key]
		if p.kinds&kind == 0 || !ok || text == "" {
			continue
		}
		value, err := propFromAPI(p, text)
		if err != nil {
			return nil, err
		}
		out[p.attr] = value
	}
	return out, nil
}

var (
	attrListSeparators = regexp.MustCompile(`[,;\s]+`)
	syncAttributePair  = regexp.MustCompile(`^\s*(\w+)\s*=\s*(.*?)\s*$`)
)

func propFromAPI(p realmProp, text string) (attr.Value, error) {
	switch p.kind {
	case propBool:
		b, ok := pveapi.ParseBool(text)
		if !ok {
			return nil, fmt.Errorf("PVE option %s is %q, not a boolean", p.key, text)
		}
		return types.BoolValue(b), nil
	case propInt:
		i, err := strconv.ParseInt(strings.TrimPrefix(text, "+"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("PVE option %s is %q, not an integer", p.key, text)
		}
		return types.Int64Value(i), nil
	case propAttrList:
		var elems []attr.Value
		for _, name := range attrListSeparators.Split(text, -1) {
			if name != "" {
				elems = append(elems, types.StringValue(name))
			}
		}
		if len(elems) == 0 {
			return types.ListNull(types.StringType), nil
		}
		return types.ListValueMust(types.StringType, elems), nil
	case propAttrMap:
		elems := map[string]attr.Value{}
		for _, pair := range strings.Split(text, ",") {
			if m := syncAttributePair.FindStringSubmatch(pair); m != nil && m[2] != "" {
				elems[m[1]] = types.StringValue(m[2])
			}
		}
		if len(elems) == 0 {
			return types.MapNull(types.StringType), nil
		}
		return types.MapValueMust(types.StringType, elems), nil
	}
	return types.StringValue(text), nil
}

func tfaFromAPI(text string) (attr.Value, error) {
	m, err := wire.ParsePropertyString(text, "type")
	if err != nil {
		return nil, fmt.Errorf("PVE option tfa %q: %w", text, err)
	}
	values := map[string]attr.Value{}
	for _, k := range []string{"type", "id", "key", "url"} {
		values[k] = types.StringNull()
		if s, ok := m[k]; ok {
			values[k] = types.StringValue(s)
		}
	}
	for _, k := range []string{"digits", "step"} {
		values[k] = types.Int64Null()
		if s, ok := m[k]; ok {
			i, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("PVE option tfa: %s is %q, not an integer", k, s)
			}
			values[k] = types.Int64Value(i)
		}
	}
	return types.ObjectValueMust(tfaAttrTypes, values), nil
}

// syncDefaultsFromAPI reads sync-defaults-options. PVE reads the
// deprecated full and purge flags into remove-vanished
// (src/PVE/API2/Domains.pm $map_sync_default_options) and shows both: the
// model takes remove-vanished only. Nothing the model knows reads as null.
func syncDefaultsFromAPI(text string) (attr.Value, error) {
	m, err := wire.ParsePropertyString(text, "")
	if err != nil {
		return nil, fmt.Errorf("PVE option %s %q: %w", realmKeySyncDefaults, text, err)
	}
	values := map[string]attr.Value{
		"scope": types.StringNull(), "enable_new": types.BoolNull(), "remove_vanished": types.SetNull(types.StringType),
	}
	known := false
	if s, ok := m["scope"]; ok {
		values["scope"], known = types.StringValue(s), true
	}
	if s, ok := m["enable-new"]; ok {
		b, _ := pveapi.ParseBool(s)
		values["enable_new"], known = types.BoolValue(b), true
	}
	if s, ok := m["remove-vanished"]; ok {
		values["remove_vanished"], known = removeVanishedValue(s), true
	}
	if !known {
		return types.ObjectNull(syncDefaultsAttrTypes), nil
	}
	return types.ObjectValueMust(syncDefaultsAttrTypes, values), nil
}

// removeVanishedValue is PVE's remove-vanished as a set; "none" is the
// empty set.
func removeVanishedValue(s string) types.Set {
	elems := []attr.Value{}
	for _, f := range strings.Split(s, ";") {
		if f != "" && f != "none" && !slices.ContainsFunc(elems, func(e attr.Value) bool { return e.Equal(types.StringValue(f)) }) {
			elems = append(elems, types.StringValue(f))
		}
	}
	return types.SetValueMust(types.StringType, elems)
}

// realmSecrets are the write-only values, read from the configuration.
type realmSecrets struct {
	password  types.String
	clientKey types.String
}

// realmToCreate is POST /access/domains for the planned values.
func realmToCreate(plan realmValues, secrets realmSecrets) pveapi.RealmCreate {
	opts := plan.wireOptions()
	realm, _ := plan.str("realm")
	typ, _ := plan.str("type")
	create := pveapi.RealmCreate{Realm: realm, Type: typ, Default: plan.isDefault(), Comment: opts[realmKeyComment], TFA: opts[realmKeyTFA]}
	delete(opts, realmKeyComment)
	delete(opts, realmKeyTFA)
	if plan.kind()&kindDirectory != 0 && !secrets.password.IsNull() && !secrets.password.IsUnknown() {
		create.Password = secrets.password.ValueString()
	}
	if plan.kind() == kindOpenID && !secrets.clientKey.IsNull() && !secrets.clientKey.IsUnknown() {
		opts[realmKeyClientKey] = secrets.clientKey.ValueString()
	}
	create.Options = opts
	return create
}

// realmToUpdate is the PUT that takes a realm from prior to plan: the
// options that differ are set, those plan lacks are deleted, the default
// flag changes only when being the default changes (PVE takes it from the
// other realms itself), and a secret is written or removed when its
// version changes. needed is false when there is nothing to send.
func realmToUpdate(prior, plan realmValues, secrets realmSecrets) (update pveapi.RealmUpdate, needed bool) {
	realm, _ := plan.str("realm")
	update = pveapi.RealmUpdate{Realm: realm, Options: map[string]string{}}
	before, after := prior.wireOptions(), plan.wireOptions()
	for _, key := range sortedStringKeys(after) {
		if before[key] == after[key] {
			continue
		}
		value := after[key]
		switch key {
		case realmKeyComment:
			update.Comment = &value
		case realmKeyTFA:
			update.TFA = &value
		default:
			update.Options[key] = value
		}
	}
	for _, key := range sortedStringKeys(before) {
		if _, kept := after[key]; !kept {
			update.Delete = append(update.Delete, key)
		}
	}
	switch {
	case plan.isDefault() && !prior.isDefault():
		on := true
		update.Default = &on
	case !plan.isDefault() && prior.isDefault():
		update.Delete = append(update.Delete, realmKeyDefault)
	}
	kind := plan.kind()
	if kind&kindDirectory != 0 && versionChanged(prior, plan, "password_wo_version") {
		pw := ""
		if !secrets.password.IsNull() && !secrets.password.IsUnknown() {
			pw = secrets.password.ValueString()
		}
		update.Password = &pw
	}
	if kind == kindOpenID && versionChanged(prior, plan, "client_key_wo_version") {
		if !secrets.clientKey.IsNull() && !secrets.clientKey.IsUnknown() {
			update.Options[realmKeyClientKey] = secrets.clientKey.ValueString()
		} else {
			update.Delete = append(update.Delete, realmKeyClientKey)
		}
	}
	needed = len(update.Options) > 0 || len(update.Delete) > 0 || update.Comment != nil || update.TFA != nil ||
		update.Default != nil || update.Password != nil
	return update, needed
}

func versionChanged(prior, plan realmValues, name string) bool {
	a, b := prior[name], plan[name]
	if a == nil || b == nil {
		return a != b
	}
	return !a.Equal(b)
}

// changedOutside names the attributes whose PVE options differ between
// two models of one realm, leaving out default, which PVE takes from a
// realm whenever another becomes the default.
func changedOutside(known, live realmValues) []string {
	before, after := known.wireOptions(), live.wireOptions()
	var keys []string
	for k, v := range before {
		if after[k] != v {
			keys = append(keys, k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	names := make([]string, 0, len(keys))
	for _, k := range keys {
		names = append(names, attributeOfKey(k))
	}
	sort.Strings(names)
	return slices.Compact(names)
}

// attributeOfKey is the attribute that holds a PVE option.
func attributeOfKey(key string) string {
	switch key {
	case realmKeyComment:
		return "comment"
	case realmKeyTFA:
		return "tfa"
	case realmKeySyncDefaults:
		return "sync_defaults"
	}
	for _, p := range realmProps {
		if p.key == key {
			return p.attr
		}
	}
	return key
}

func sortedStringKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
