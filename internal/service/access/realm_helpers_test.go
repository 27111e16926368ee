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

const realmAddr = "pve_realm.test"

// realmConfig is one pve_realm "test" with the given body.
func realmConfig(tg *acctest.Target, body string) string {
	return tg.Config("resource \"pve_realm\" \"test\" {\n" + body + "\n}\n")
}

func realmActions(addr string, action plancheck.ResourceActionType) resource.ConfigPlanChecks {
	return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, action)}}
}

// realmOptions reads a realm as PVE holds it.
func realmOptions(tg *acctest.Target, name string) (*pveapi.Realm, error) {
	return tg.Client.GetRealm(context.Background(), name)
}

// expectRealm checks PVE's options of a realm: want's keys with their
// values ("comment", "default", "tfa" included), and none of absent.
func expectRealm(tg *acctest.Target, name string, want map[string]string, absent ...string) error {
	r, err := realmOptions(tg, name)
	if err != nil {
		return err
	}
	all := map[string]string{}
	for k, v := range r.Options {
		all[k] = v
	}
	if r.Comment != "" {
		all["comment"] = r.Comment
	}
	if r.TFA != "" {
		all["tfa"] = r.TFA
	}
	if r.Default {
		all["default"] = "1"
	}
	for k, v := range want {
		if all[k] != v {
			return fmt.Errorf("realm %s: PVE has %s = %q, want %q (all: %v)", name, k, all[k], v, all)
		}
	}
	for _, k := range absent {
		if v, ok := all[k]; ok {
			return fmt.Errorf("realm %s: PVE still has %s = %q", name, k, v)
		}
	}
	return nil
}

func checkRealm(tg *acctest.Target, name string, want map[string]string, absent ...string) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error { return expectRealm(tg, name, want, absent...) })
}

func checkRealmDestroyed(tg *acctest.Target, name string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		_, err := realmOptions(tg, name)
		if err == nil {
			return fmt.Errorf("realm %s still exists after destroy", name)
		}
		if !pveapi.IsNoSuchRealm(err) {
			return err
		}
		return nil
	}
}

// realmStateLacks fails when a secret is anywhere in the state.
func realmStateLacks(secrets ...string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		data, err := json.Marshal(state)
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(string(data), s) {
				return fmt.Errorf("the state holds a secret of %d characters", len(s))
			}
		}
		return nil
	})
}

// realmPlanLacks fails when a secret is in the plan. The plan's
// configuration section echoes literal values as written in the test's
// configuration, so it is left out; what Terraform plans and stores is
// all the rest.
type realmPlanLacks []string

func (secrets realmPlanLacks) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	plan := *req.Plan
	plan.Config = nil
	data, err := json.Marshal(plan)
	if err != nil {
		resp.Error = err
		return
	}
	for _, s := range secrets {
		if strings.Contains(string(data), s) {
			resp.Error = fmt.Errorf("the plan holds a secret of %d characters", len(s))
			return
		}
	}
}

// realmWrites counts the simulator's requests of one method to one
// realm's path since mark.
type realmWrites struct {
	tg     *acctest.Target
	path   string
	method string
	before int
}

func (w *realmWrites) count() int {
	n := 0
	for _, rec := range w.tg.Sim.Requests() {
		if rec.Method == w.method && rec.Path == w.path {
			n++
		}
	}
	return n
}

func (w *realmWrites) mark() { w.before = w.count() }

func (w *realmWrites) want(n int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		if w.tg.Sim == nil {
			return nil
		}
		if got := w.count() - w.before; got != n {
			return fmt.Errorf("%d %s %s since the mark, want %d", got, w.method, w.path, n)
		}
		return nil
	})
}
