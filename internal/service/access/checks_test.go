package access_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// testPassword and its successor must never reach state or a plan.
const (
	testPassword    = "correct-horse-battery"
	testNewPassword = "staple-battery-horse"
)

// noSecretInState fails when any attribute of any resource holds secret.
func noSecretInState(secret string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		raw, err := json.Marshal(state)
		if err != nil {
			return err
		}
		if strings.Contains(string(raw), secret) {
			return fmt.Errorf("the state JSON holds the password")
		}
		return nil
	})
}

// noSecretInPlan fails when the plan JSON holds secret: its planned
// values, resource changes, prior state or variables. The configuration
// section is left out: it echoes the literals of the .tf files as
// written, the test's own password among them (a real configuration
// passes a password in a variable).
type noSecretInPlan string

func (s noSecretInPlan) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	plan := *req.Plan
	plan.Config = nil
	raw, err := json.Marshal(plan)
	if err != nil {
		resp.Error = err
		return
	}
	if i := strings.Index(string(raw), string(s)); i >= 0 {
		resp.Error = fmt.Errorf("the plan JSON holds the password: %s", raw[max(0, i-300):i])
	}
}

// canLogIn tells whether userid logs in to the target with password.
func canLogIn(tg *acctest.Target, userid, password string) error {
	client, err := pveapi.New(pveapi.Config{Endpoint: tg.Client.Endpoint(), Username: userid, Password: password, Insecure: true})
	if err != nil {
		return err
	}
	_, err = client.Version(context.Background())
	return err
}

// checkLogin asserts that userid logs in with password, or that it does
// not when want is false.
func checkLogin(tg *acctest.Target, userid, password string, want bool) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		err := canLogIn(tg, userid, password)
		switch {
		case want && err != nil:
			return fmt.Errorf("%s cannot log in with its password: %w", userid, err)
		case !want && err == nil:
			return fmt.Errorf("%s still logs in with its old password", userid)
		}
		return nil
	})
}

func checkUserDestroyed(tg *acctest.Target, userids ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, userid := range userids {
			_, err := tg.Client.GetUser(context.Background(), userid)
			if err == nil {
				return fmt.Errorf("user %s still exists after destroy", userid)
			}
			if !pveapi.IsNoSuchUser(err) {
				return err
			}
		}
		return nil
	}
}

func checkGroupDestroyed(tg *acctest.Target, groupids ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, groupid := range groupids {
			_, err := tg.Client.GetGroup(context.Background(), groupid)
			if err == nil {
				return fmt.Errorf("group %s still exists after destroy", groupid)
			}
			if !pveapi.IsNoSuchGroup(err) {
				return err
			}
		}
		return nil
	}
}

// expr is an HCL expression written as it is (a reference, a list).
type expr string

// hcl renders attribute lines from name, value pairs: a nil value is left
// out, a string is quoted, an expr or a number is written as it is.
func hcl(attrs ...any) string {
	var b strings.Builder
	for i := 0; i+1 < len(attrs); i += 2 {
		name, value := attrs[i].(string), attrs[i+1]
		switch v := value.(type) {
		case nil:
			continue
		case string:
			fmt.Fprintf(&b, "  %s = %q\n", name, v)
		default:
			fmt.Fprintf(&b, "  %s = %v\n", name, v)
		}
	}
	return b.String()
}
