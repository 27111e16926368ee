package access

import (
	"context"
	"fmt"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// allowSelfLockoutAttr is the opt-in every access control resource offers
// for removing what the provider itself runs on.
const allowSelfLockoutAttr = "allow_self_lockout"

// selfPrincipal is who the provider acts as, for the self-lockout checks:
// the API token (empty with a password login), its user, and the groups
// the user is in.
type selfPrincipal struct {
	id     string
	user   string
	token  string
	groups map[string]bool
}

// loadSelfPrincipal reads the groups of the provider's user from GET
// /access/groups (the groups the provider may see; one it cannot see is
// not counted), unless withGroups is false.
func loadSelfPrincipal(ctx context.Context, client *pveapi.Client, withGroups bool) (*selfPrincipal, error) {
	id := client.Principal()
	p := &selfPrincipal{id: id, user: id, groups: map[string]bool{}}
	if user, _, isToken := strings.Cut(id, "!"); isToken {
		p.user, p.token = user, id
	}
	if !withGroups {
		return p, nil
	}
	groups, err := client.Groups(ctx)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		for _, member := range g.Users {
			if member == p.user {
				p.groups[g.GroupID] = true
			}
		}
	}
	return p, nil
}

// grants tells whether an ACL entry gives the provider rights: an entry
// for its token, for its user, or for a group of its user. The user's
// entries count whether or not the token has privilege separation: a
// separated token holds only what its user also holds. A NoAccess entry
// takes rights away, so removing it locks nobody out.
func (p *selfPrincipal) grants(entryType, ugid, role string) bool {
	if role == "NoAccess" {
		return false
	}
	switch entryType {
	case pveapi.ACLTypeToken:
		return p.token != "" && ugid == p.token
	case pveapi.ACLTypeUser:
		return ugid == p.user
	case pveapi.ACLTypeGroup:
		return p.groups[ugid]
	}
	return false
}

// describeEntry names an ACL entry in an error text.
func describeEntry(entryType, ugid, role, path string) string {
	return fmt.Sprintf("role %s for %s %s on %s", role, entryType, ugid, path)
}

// selfLockoutWhat says how an entry reaches the provider's principal.
func (p *selfPrincipal) selfLockoutWhat(entryType, ugid string) string {
	switch entryType {
	case pveapi.ACLTypeToken:
		return "the provider's own API token " + ugid
	case pveapi.ACLTypeGroup:
		return fmt.Sprintf("group %s, which the provider's user %s is in", ugid, p.user)
	}
	if p.token != "" {
		return fmt.Sprintf("the provider's user %s, whose API token %s holds at most its user's privileges", ugid, p.token)
	}
	return "the provider's own user " + ugid
}
