package access_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

const tokenAddr = "pve_api_token.test"

// tokenConf is one pve_api_token configuration; empty strings and nil
// leave the attribute out.
type tokenConf struct {
	userid, name  string
	comment       string
	expire        string
	secretVersion string
	privsep       *bool
	allowLockout  bool
}

func (c tokenConf) hcl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "resource \"pve_api_token\" \"test\" {\n  userid     = %q\n  token_name = %q\n", c.userid, c.name)
	if c.comment != "" {
		fmt.Fprintf(&b, "  comment    = %q\n", c.comment)
	}
	if c.expire != "" {
		fmt.Fprintf(&b, "  expire     = %q\n", c.expire)
	}
	if c.secretVersion != "" {
		fmt.Fprintf(&b, "  secret_version = %s\n", c.secretVersion)
	}
	if c.privsep != nil {
		fmt.Fprintf(&b, "  privilege_separation = %t\n", *c.privsep)
	}
	if c.allowLockout {
		b.WriteString("  allow_self_lockout = true\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func (c tokenConf) id() string { return c.userid + "!" + c.name }

func boolPtr(b bool) *bool { return &b }

// testUser is the user the test itself runs as: tokens are made for it, so
// the tests need no user of their own (root@pam on the simulator).
func testUser(tg *acctest.Target) string {
	user, _, _ := strings.Cut(tg.Client.Principal(), "!")
	return user
}

// newTokenConf is a token of the test's user with a name of its own.
func newTokenConf(tg *acctest.Target) tokenConf {
	return tokenConf{userid: testUser(tg), name: acctest.Name("tfacc")}
}

// secretLog collects the secrets a test's token had, oldest first.
type secretLog struct{ secrets []string }

func (s *secretLog) last() string {
	if len(s.secrets) == 0 {
		return ""
	}
	return s.secrets[len(s.secrets)-1]
}

// capture records the token's secret and checks that api_token is the full
// token string made of id and value.
func (s *secretLog) capture(addr string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		value, err := acctest.StringAt(state, addr, tfjsonpath.New("value"))
		if err != nil {
			return err
		}
		id, _ := acctest.StringAt(state, addr, tfjsonpath.New("id"))
		full, _ := acctest.StringAt(state, addr, tfjsonpath.New("api_token"))
		if value == "" || full != id+"="+value {
			return fmt.Errorf("value is empty or api_token is not %s=VALUE", id)
		}
		if s.last() != value {
			s.secrets = append(s.secrets, value)
		}
		return nil
	})
}

// authenticates checks that the token string works against the target
// and that each of the older ones no longer does.
func authenticates(t *testing.T, tg *acctest.Target, tokenID string, current string, stale ...string) error {
	t.Helper()
	ctx := context.Background()
	if _, err := tg.ClientWithToken(t, tokenID+"="+current).Version(ctx); err != nil {
		return fmt.Errorf("the token's current secret does not authenticate: %w", err)
	}
	for _, old := range stale {
		_, err := tg.ClientWithToken(t, tokenID+"="+old).Version(ctx)
		if apiErr, ok := pveapi.AsError(err); !ok || apiErr.StatusCode != 401 {
			return fmt.Errorf("an old secret still authenticates, or fails otherwise than with 401: %w", err)
		}
	}
	return nil
}

// newUser creates a pve realm user with a role on path, deleted after the
// test, and returns its id.
func newUser(t *testing.T, tg *acctest.Target, path, role string) string {
	t.Helper()
	ctx := context.Background()
	userid := acctest.Name("tfacc") + "@pve"
	if err := tg.Client.CreateUser(ctx, pveapi.UserCreate{UserID: userid}); err != nil {
		t.Fatalf("create user %s: %v", userid, err)
	}
	t.Cleanup(func() { _ = tg.Client.DeleteUser(ctx, userid) })
	if err := tg.Client.UpdateACL(ctx, pveapi.ACLChange{Path: path, Roles: []string{role}, Users: []string{userid}}); err != nil {
		t.Fatalf("grant %s on %s to %s: %v", role, path, userid, err)
	}
	return userid
}

// grantToken gives the token a role on path through PUT /access/acl.
func grantToken(t *testing.T, tg *acctest.Target, tokenID, path, role string) {
	t.Helper()
	if err := tg.Client.UpdateACL(context.Background(), pveapi.ACLChange{Path: path, Roles: []string{role}, Tokens: []string{tokenID}}); err != nil {
		t.Fatalf("grant %s on %s to %s: %v", role, path, tokenID, err)
	}
}

// tokenHasRole tells whether an ACL entry gives the token the role on path.
func tokenHasRole(tg *acctest.Target, tokenID, path, role string) (bool, error) {
	entries, err := tg.Client.ACL(context.Background())
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if e.Type == pveapi.ACLTypeToken && e.UGID == tokenID && e.Path == path && e.RoleID == role {
			return true, nil
		}
	}
	return false, nil
}

// permissionsOf are the effective privileges of the token string, as it
// reads them itself.
func permissionsOf(t *testing.T, tg *acctest.Target, apiToken string) (pveapi.Permissions, error) {
	t.Helper()
	return tg.ClientWithToken(t, apiToken).GetPermissions(context.Background(), "", "")
}

func hasPrivilege(perms pveapi.Permissions, path, priv string) bool {
	_, ok := perms[path][priv]
	return ok
}

func checkTokenDestroyed(tg *acctest.Target, userid string, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			_, err := tg.Client.GetToken(context.Background(), userid, name)
			if err == nil {
				return fmt.Errorf("token %s!%s still exists after destroy", userid, name)
			}
			if pveapi.IsNoSuchToken(err) {
				continue
			}
			// A missing user's tokens are a permission error to a token.
			if _, userErr := tg.Client.GetUser(context.Background(), userid); !pveapi.IsNoSuchUser(userErr) {
				return err
			}
		}
		return nil
	}
}
