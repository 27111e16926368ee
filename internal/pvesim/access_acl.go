package pvesim

import (
	"regexp"
	"strings"
)

// The ACL tree as PVE writes and reads it back: pve-access-control
// src/PVE/AccessControl.pm check_path, write_user_config and
// parse_user_config.

// aclPathsCommon are the paths check_path takes on every simulated
// release, without the anchors.
var aclPathsCommon = []string{
	`/`,
	`/access`, `/access/groups`, `/access/groups/[[:alnum:]._-]+`,
	`/access/realm`, `/access/realm/[[:alnum:]._-]+`,
	`/nodes`, `/nodes/[[:alnum:]._-]+`,
	`/pool`, `/pool/[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+){0,2}`,
	`/sdn`, `/sdn/controllers`, `/sdn/controllers/[[:alnum:]_-]+`,
	`/sdn/dns`, `/sdn/dns/[[:alnum:]]+`,
	`/sdn/ipams`, `/sdn/ipams/[[:alnum:]]+`,
	`/sdn/zones`, `/sdn/zones/[[:alnum:]._-]+`, `/sdn/zones/[[:alnum:]._-]+/[[:alnum:]._-]+`,
	`/sdn/zones/[[:alnum:]._-]+/[[:alnum:]._-]+/[1-9][0-9]{0,3}`,
	`/storage`, `/storage/[[:alnum:]._-]+`,
	`/vms`, `/vms/[1-9][0-9]{2,}`,
	`/mapping`, `/mapping/[[:alnum:]._-]+`, `/mapping/[[:alnum:]._-]+/[[:alnum:]._-]+`,
}

var (
	aclPathsFabrics = []string{`/sdn/fabrics`, `/sdn/fabrics/[[:alnum:]]+`}
	aclPathsRouting = []string{
		`/sdn/prefix-lists`, `/sdn/prefix-lists/[[:alnum:]]+`,
		`/sdn/route-maps`, `/sdn/route-maps/[[:alnum:]]+`,
	}
	// aclPathPatterns by [fabrics][routing].
	aclPathPatterns = func() (out [2][2]*regexp.Regexp) {
		for f := 0; f < 2; f++ {
			for r := 0; r < 2; r++ {
				alts := append([]string{}, aclPathsCommon...)
				if f == 1 {
					alts = append(alts, aclPathsFabrics...)
				}
				if r == 1 {
					alts = append(alts, aclPathsRouting...)
				}
				out[f][r] = regexp.MustCompile(`^(?:` + strings.Join(alts, "|") + `)$`)
			}
		}
		return out
	}()
)

// validACLPath is AccessControl.pm check_path on a normalized path: the
// paths an ACL may name on the profile's release.
func (p *pveProfile) validACLPath(path string) bool {
	return aclPathPatterns[boolInt(p.aclPathsSDNFabrics)][boolInt(p.aclPathsSDNRouting)].MatchString(path)
}

// aclKinds are the member kinds in the order API2/ACL.pm read_acl lists
// them on each path, with the name of each in its answer.
var aclKinds = []struct {
	kind aclKind
	name string
}{{aclUser, "user"}, {aclGroup, "group"}, {aclToken, "token"}}

// entries are the node's member map of one kind, nil when it has none.
func (n *ACLNode) entries(kind aclKind) map[string]map[string]bool {
	switch kind {
	case aclGroup:
		return n.Groups
	case aclToken:
		return n.Tokens
	default:
		return n.Users
	}
}

// settleACL is what a user.cfg write and the next read do to the ACL tree:
// write_user_config leaves out root@pam's entries (root is Administrator
// everywhere) and members without roles; parse_user_config drops an entry
// whose role does not exist ("ignore invalid acl role", so a deleted
// role's entries vanish) and one of a token that does not exist ("ignore
// invalid acl token"), but keeps entries of users and groups that do not
// exist (it only warns); a path without entries has no node. The model
// lock must be held.
func (a *Access) settleACL(p *pveProfile) {
	for path, node := range a.ACL {
		empty := true
		for _, k := range aclKinds {
			members := node.entries(k.kind)
			for member, roles := range members {
				for role := range roles {
					if _, ok := a.role(p, role); !ok {
						delete(roles, role)
					}
				}
				gone := len(roles) == 0 ||
					(k.kind == aclUser && member == "root@pam") ||
					(k.kind == aclToken && a.token(member) == nil)
				if gone {
					delete(members, member)
				}
			}
			if len(members) > 0 {
				empty = false
			}
		}
		if empty {
			delete(a.ACL, path)
		}
	}
}

// deleteGroupACL is AccessControl.pm delete_group_acl: the group's
// entries go from every path.
func (a *Access) deleteGroupACL(group string) {
	for _, node := range a.ACL {
		delete(node.Groups, group)
	}
}
