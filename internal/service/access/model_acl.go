package access

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// aclModel is pve_acl: one ACL entry, one role granted to one user, group
// or API token on one path.
type aclModel struct {
	ID               types.String `tfsdk:"id"`
	Path             types.String `tfsdk:"path"`
	Role             types.String `tfsdk:"role"`
	User             types.String `tfsdk:"user"`
	Group            types.String `tfsdk:"group"`
	Token            types.String `tfsdk:"token"`
	Propagate        types.Bool   `tfsdk:"propagate"`
	AllowSelfLockout types.Bool   `tfsdk:"allow_self_lockout"`
}

// aclKey names one ACL entry as PVE lists it: the normalized path, the
// member's type (pveapi.ACLType*) and id, and the role.
type aclKey struct {
	Path, Type, UGID, Role string
}

// aclMemberAttrs maps each member type to its attribute.
var aclMemberAttrs = map[string]string{
	pveapi.ACLTypeUser:  "user",
	pveapi.ACLTypeGroup: "group",
	pveapi.ACLTypeToken: "token",
}

// key is the entry the model describes; ok is false while a part of it is
// unknown or no member is set.
func (m *aclModel) key() (aclKey, bool) {
	if m.Path.IsUnknown() || m.Role.IsUnknown() || m.User.IsUnknown() || m.Group.IsUnknown() || m.Token.IsUnknown() {
		return aclKey{}, false
	}
	k := aclKey{Path: m.Path.ValueString(), Role: m.Role.ValueString()}
	switch {
	case !m.User.IsNull():
		k.Type, k.UGID = pveapi.ACLTypeUser, m.User.ValueString()
	case !m.Group.IsNull():
		k.Type, k.UGID = pveapi.ACLTypeGroup, m.Group.ValueString()
	case !m.Token.IsNull():
		k.Type, k.UGID = pveapi.ACLTypeToken, m.Token.ValueString()
	default:
		return aclKey{}, false
	}
	return k, true
}

// setKey sets the entry's identifying attributes and id.
func (m *aclModel) setKey(k aclKey) {
	m.ID = types.StringValue(k.id())
	m.Path = types.StringValue(k.Path)
	m.Role = types.StringValue(k.Role)
	m.User, m.Group, m.Token = types.StringNull(), types.StringNull(), types.StringNull()
	switch k.Type {
	case pveapi.ACLTypeUser:
		m.User = types.StringValue(k.UGID)
	case pveapi.ACLTypeGroup:
		m.Group = types.StringValue(k.UGID)
	case pveapi.ACLTypeToken:
		m.Token = types.StringValue(k.UGID)
	}
}

// fromAPI sets what PVE holds of the entry.
func (m *aclModel) fromAPI(e pveapi.ACLEntry) {
	m.setKey(aclKey{Path: e.Path, Type: e.Type, UGID: e.UGID, Role: e.RoleID})
	m.Propagate = types.BoolValue(bool(e.Propagate))
}

// id is the import id, PATH|TYPE|UGID|ROLE.
func (k aclKey) id() string { return strings.Join([]string{k.Path, k.Type, k.UGID, k.Role}, "|") }

// memberAttr is the attribute that names the member.
func (k aclKey) memberAttr() path.Path { return path.Root(aclMemberAttrs[k.Type]) }

// String names the entry in messages.
func (k aclKey) String() string { return describeEntry(k.Type, k.UGID, k.Role, k.Path) }

// find returns the entry among PVE's list.
func (k aclKey) find(entries []pveapi.ACLEntry) (pveapi.ACLEntry, bool) {
	for _, e := range entries {
		if e.Path == k.Path && e.Type == k.Type && e.UGID == k.UGID && e.RoleID == k.Role {
			return e, true
		}
	}
	return pveapi.ACLEntry{}, false
}

// change is the PUT /access/acl for this one entry.
func (k aclKey) change(propagate bool, remove bool) pveapi.ACLChange {
	c := pveapi.ACLChange{Path: k.Path, Roles: []string{k.Role}, Delete: remove}
	if !remove {
		c.Propagate = &propagate
	}
	switch k.Type {
	case pveapi.ACLTypeUser:
		c.Users = []string{k.UGID}
	case pveapi.ACLTypeGroup:
		c.Groups = []string{k.UGID}
	case pveapi.ACLTypeToken:
		c.Tokens = []string{k.UGID}
	}
	return c
}

// parseACLImportID reads PATH|TYPE|UGID|ROLE; the path may be in any
// spelling PVE accepts and comes back normalized.
func parseACLImportID(id string) (aclKey, string) {
	parts := strings.Split(id, "|")
	if len(parts) != 4 {
		return aclKey{}, fmt.Sprintf("the id must be PATH|TYPE|UGID|ROLE with TYPE user, group or token, e.g. /vms/100|user|alice@pve|PVEVMUser; got %q", id)
	}
	k := aclKey{Type: parts[1], UGID: parts[2], Role: parts[3]}
	normalized, ok := wire.NormalizeACLPath(parts[0])
	if !ok {
		return aclKey{}, fmt.Sprintf("ACL path %q must be a path like /, /vms/100, /storage/local or /pool/dev", parts[0])
	}
	k.Path = normalized
	if problem := memberProblem(k.Type, k.UGID); problem != "" {
		return aclKey{}, problem
	}
	if problem := wire.RoleNameProblem(k.Role); problem != "" {
		return aclKey{}, problem
	}
	return k, ""
}

// memberProblem checks a member id for its type.
func memberProblem(memberType, ugid string) string {
	switch memberType {
	case pveapi.ACLTypeUser:
		return aclUserProblem(ugid)
	case pveapi.ACLTypeGroup:
		return wire.GroupNameProblem(ugid)
	case pveapi.ACLTypeToken:
		return wire.TokenIDProblem(ugid)
	}
	return fmt.Sprintf("TYPE must be user, group or token, got %q", memberType)
}

// aclUserProblem checks the user of an entry. PVE accepts an entry for
// root@pam but never stores it: root@pam holds every privilege anyway
// (pve-access-control src/PVE/AccessControl.pm write_user_config leaves
// root@pam's entries out), so the entry would vanish after each apply.
func aclUserProblem(userid string) string {
	if problem := wire.UserIDProblem(userid); problem != "" {
		return problem
	}
	if userid == "root@pam" {
		return "root@pam holds every privilege on every path, and PVE does not store ACL entries for it"
	}
	return ""
}
