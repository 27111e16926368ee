package access

import (
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// realmKinds is a set of realm types, for the properties each type has
// (pve-access-control src/PVE/Auth/PAM.pm, PVE.pm, LDAP.pm, AD.pm and
// OpenId.pm options).
type realmKinds uint8

const (
	kindPAM realmKinds = 1 << iota
	kindPVE
	kindLDAP
	kindAD
	kindOpenID

	kindBuiltin   = kindPAM | kindPVE
	kindDirectory = kindLDAP | kindAD
	kindAll       = kindBuiltin | kindDirectory | kindOpenID
)

var realmKindNames = []struct {
	kind realmKinds
	name string
}{
	{kindPAM, pveapi.RealmTypePAM}, {kindPVE, pveapi.RealmTypePVE}, {kindLDAP, pveapi.RealmTypeLDAP},
	{kindAD, pveapi.RealmTypeAD}, {kindOpenID, pveapi.RealmTypeOpenID},
}

// realmKindOf is the kind of a realm type name; 0 for an unknown one.
func realmKindOf(typ string) realmKinds {
	for _, k := range realmKindNames {
		if k.name == typ {
			return k.kind
		}
	}
	return 0
}

// describe names the types of the set: "ldap and ad realms".
func (k realmKinds) describe() string {
	var names []string
	for _, n := range realmKindNames {
		if k&n.kind != 0 {
			names = append(names, n.name)
		}
	}
	switch len(names) {
	case 0:
		return "no realms"
	case 1:
		return names[0] + " realms"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " realms"
}

// propKind is how a realm property is typed in Terraform and written for
// PVE.
type propKind int

const (
	propString propKind = iota
	propBool
	propInt
	// propAttrList is PVE's ldap-simple-attr-list: attribute names
	// separated by commas; a list in Terraform.
	propAttrList
	// propAttrMap is sync_attributes, "field=attribute" pairs separated by
	// commas; a map from the PVE user field to the directory attribute.
	propAttrMap
)

// realmProp is one plain realm property: a Terraform attribute that maps
// to one PVE option of the types in kinds. required names the types that
// must have it (SectionConfig check_config on create).
type realmProp struct {
	attr     string
	key      string
	kind     propKind
	kinds    realmKinds
	required realmKinds
	descr    string
	// replace marks a property PVE cannot change (a fixed option).
	replace    bool
	validators []validator.String
}

var (
	ldapSimpleAttr = regexp.MustCompile(`^[a-zA-Z0-9]+$`)
	// syncTargetFields are the user fields sync_attributes may fill
	// (src/PVE/Auth/LDAP.pm get_users, the targets other than username).
	syncTargetFields = []string{"comment", "email", "enable", "expire", "firstname", "keys", "lastname"}
)

// realmAddress is a loose form of PVE's address format (an IP address or
// a DNS name): PVE checks the rest.
var realmAddress = realmPattern(`^[^\s/,]+$`, "must be an IP address or a DNS name")

func realmMaxLen(n int) validator.String { return stringvalidator.LengthBetween(1, n) }

func realmPattern(re, message string) validator.String {
	return stringvalidator.RegexMatches(regexp.MustCompile(re), message)
}

// realmProps are the plain properties, in the order the documentation
// lists them. Their limits are the API schema's (POST and PUT
// /access/domains, the same in PVE 8.4 and 9.1).
var realmProps = []realmProp{
	// LDAP and Active Directory: connection.
	{attr: "server1", key: "server1", kinds: kindDirectory, required: kindDirectory, validators: []validator.String{realmMaxLen(256), realmAddress},
		descr: "The directory server's address (IP address or DNS name)."},
	{attr: "server2", key: "server2", kinds: kindDirectory, validators: []validator.String{realmMaxLen(256), realmAddress},
		descr: "A fallback server, tried when `server1` cannot be reached."},
	{attr: "port", key: "port", kind: propInt, kinds: kindDirectory,
		descr: "The server port. Unset: PVE's default for the `mode` (389, or 636 for `ldaps`)."},
	{attr: "mode", key: "mode", kinds: kindDirectory,
		validators: []validator.String{stringvalidator.OneOf("ldap", "ldaps", "ldap+starttls")},
		descr:      "`ldap`, `ldaps` or `ldap+starttls`. Unset: PVE's default, `ldap`."},
	{attr: "sslversion", key: "sslversion", kinds: kindDirectory,
		validators: []validator.String{stringvalidator.OneOf("tlsv1", "tlsv1_1", "tlsv1_2", "tlsv1_3")},
		descr:      "The TLS version for `ldaps` and `ldap+starttls`: `tlsv1`, `tlsv1_1`, `tlsv1_2` or `tlsv1_3`. Unset: PVE uses `tlsv1_2`."},
	{attr: "verify", key: "verify", kind: propBool, kinds: kindDirectory,
		descr: "Whether PVE verifies the server's TLS certificate. Unset: PVE's default, false."},
	{attr: "capath", key: "capath", kinds: kindDirectory, validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		descr: "Path on the nodes to the CA certificate store or file. Unset: PVE's default, `/etc/ssl/certs`."},
	{attr: "cert", key: "cert", kinds: kindDirectory, validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		descr: "Path on the nodes to a client certificate."},
	{attr: "certkey", key: "certkey", kinds: kindDirectory, validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		descr: "Path on the nodes to the client certificate's key."},
	// LDAP and Active Directory: users.
	{attr: "domain", key: "domain", kinds: kindAD, required: kindAD,
		validators: []validator.String{realmMaxLen(256), realmPattern(`^\S+$`, "must not contain white space")},
		descr:      "The Active Directory domain (`ad` realms only, required there)."},
	{attr: "base_dn", key: "base_dn", kinds: kindDirectory, required: kindLDAP, validators: []validator.String{realmMaxLen(256)},
		descr: "The base DN under which users are searched (required for `ldap` realms)."},
	{attr: "user_attr", key: "user_attr", kinds: kindDirectory, required: kindLDAP,
		validators: []validator.String{realmMaxLen(256), realmPattern(`^\S{2,}$`, "must be at least 2 characters without white space")},
		descr:      "The attribute holding the user name, for example `uid` (required for `ldap` realms; `ad` realms default to `sAMAccountName`)."},
	{attr: "bind_dn", key: "bind_dn", kinds: kindDirectory, validators: []validator.String{realmMaxLen(256)},
		descr: "The DN PVE binds as to search the directory; unset: anonymous bind. Its password is `password_wo`."},
	{attr: "case_sensitive", key: "case-sensitive", kind: propBool, kinds: kindDirectory,
		descr: "Whether user names are case-sensitive. Unset: PVE's default, true."},
	{attr: "filter", key: "filter", kinds: kindDirectory, validators: []validator.String{realmMaxLen(2048)},
		descr: "An LDAP filter the users of a sync must match."},
	{attr: "user_classes", key: "user_classes", kind: propAttrList, kinds: kindDirectory,
		descr: "The object classes of users, for a sync. Unset: PVE's default, `inetorgperson`, `posixaccount`, `person`, `user`."},
	{attr: "sync_attributes", key: "sync_attributes", kind: propAttrMap, kinds: kindDirectory,
		descr: "Which directory attribute fills which PVE user field in a sync: a map from the field (`email`, `firstname`, `lastname`, `comment`, " +
			"`expire`, `enable`, `keys`) to the attribute, for example `{ email = \"mail\" }`."},
	// LDAP and Active Directory: groups.
	{attr: "group_dn", key: "group_dn", kinds: kindDirectory, validators: []validator.String{realmMaxLen(256)},
		descr: "The base DN under which groups are searched in a sync. Unset: `base_dn`."},
	{attr: "group_filter", key: "group_filter", kinds: kindDirectory, validators: []validator.String{realmMaxLen(2048)},
		descr: "An LDAP filter the groups of a sync must match."},
	{attr: "group_name_attr", key: "group_name_attr", kinds: kindDirectory,
		validators: []validator.String{realmMaxLen(256), realmPattern(`^[a-zA-Z0-9]+$`, "must be an LDAP attribute name: letters and digits")},
		descr:      "The attribute holding a group's name. Unset: the first value of the group's DN."},
	{attr: "group_classes", key: "group_classes", kind: propAttrList, kinds: kindDirectory,
		descr: "The object classes of groups, for a sync. Unset: PVE's default, `groupOfNames`, `group`, `univentionGroup`, `ipausergroup`."},
	// OpenID Connect.
	{attr: "issuer_url", key: "issuer-url", kinds: kindOpenID, required: kindOpenID, validators: []validator.String{realmMaxLen(256)},
		descr: "The OpenID provider's issuer URL (required for `openid` realms)."},
	{attr: "client_id", key: "client-id", kinds: kindOpenID, required: kindOpenID, validators: []validator.String{realmMaxLen(256)},
		descr: "The client id PVE uses with the OpenID provider (required for `openid` realms). The client secret is `client_key_wo`."},
	{attr: "username_claim", key: "username-claim", kinds: kindOpenID, replace: true, validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		descr: "The claim that makes the user name (for example `email`). Unset: PVE's default, `sub`. PVE cannot change it: a change replaces the realm."},
	{attr: "scopes", key: "scopes", kinds: kindOpenID, validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		descr: "The scopes requested, separated by spaces. Unset: PVE's default, `email profile`."},
	{attr: "prompt", key: "prompt", kinds: kindOpenID, validators: []validator.String{realmPattern(`^\S+$`, "must not contain white space")},
		descr: "What the OpenID provider asks the user for: `none`, `login`, `consent`, `select_account` or another value the provider knows."},
	{attr: "acr_values", key: "acr-values", kinds: kindOpenID,
		validators: []validator.String{realmPattern(`^[^\x00-\x1F\x7F <>#"]+$`, `must not contain spaces, control characters or any of < > # "`)},
		descr:      "The Authentication Context Class Reference values the provider should use."},
	{attr: "autocreate", key: "autocreate", kind: propBool, kinds: kindOpenID,
		descr: "Whether PVE creates a user at their first login. Unset: PVE's default, false."},
	{attr: "groups_claim", key: "groups-claim", kinds: kindOpenID,
		validators: []validator.String{realmMaxLen(256), realmPattern(`^[A-Za-z0-9.\-_]+$`, "must be letters, digits, '.', '-' or '_'")},
		descr:      "The claim that lists the user's groups."},
	{attr: "groups_autocreate", key: "groups-autocreate", kind: propBool, kinds: kindOpenID,
		descr: "Whether PVE creates the groups of `groups_claim` that do not exist. Unset: PVE's default, false."},
	{attr: "groups_overwrite", key: "groups-overwrite", kind: propBool, kinds: kindOpenID,
		descr: "Whether a login replaces the user's groups with those of `groups_claim`. Unset: PVE's default, false."},
	{attr: "query_userinfo", key: "query-userinfo", kind: propBool, kinds: kindOpenID,
		descr: "Whether PVE queries the userinfo endpoint for claims. Unset: PVE's default, true."},
}

// propAttribute is the schema attribute of a plain property.
func propAttribute(p realmProp) schema.Attribute {
	descr := p.descr + " PVE option `" + p.key + "`; " + p.kinds.describe() + " only."
	switch p.kind {
	case propBool:
		return schema.BoolAttribute{MarkdownDescription: descr, Optional: true}
	case propInt:
		return schema.Int64Attribute{MarkdownDescription: descr, Optional: true,
			Validators: []validator.Int64{int64validator.Between(1, 65535)}}
	case propAttrList:
		return schema.ListAttribute{MarkdownDescription: descr, Optional: true, ElementType: types.StringType,
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.ValueStringsAre(
				stringvalidator.RegexMatches(ldapSimpleAttr, "must be an LDAP attribute name: letters and digits"))}}
	case propAttrMap:
		return schema.MapAttribute{MarkdownDescription: descr, Optional: true, ElementType: types.StringType,
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(stringvalidator.OneOf(syncTargetFields...)),
				mapvalidator.ValueStringsAre(realmPattern(`^[^,\s]+$`, "must be a directory attribute name, without commas or white space")),
			}}
	}
	attr := schema.StringAttribute{MarkdownDescription: descr, Optional: true,
		Validators: append([]validator.String{realmNoLineBreak{}}, p.validators...)}
	if p.replace {
		attr.PlanModifiers = []planmodifier.String{stringplanmodifier.RequiresReplace()}
	}
	return attr
}
