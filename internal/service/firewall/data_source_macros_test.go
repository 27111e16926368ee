package firewall_test

import (
	"fmt"
	"slices"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

func TestAccMacros(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	addr := "data.pve_firewall_macros.all"

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: tg.Config("data \"pve_firewall_macros\" \"all\" {}\n"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("macros")),
					acctest.CheckState(func(state *tfjson.State) error {
						names, descriptions, err := macrosIn(state, addr)
						if err != nil {
							return err
						}
						if !slices.IsSorted(names) {
							return fmt.Errorf("macros not sorted by name: %v", names)
						}
						for _, want := range []string{"SSH", "HTTPS", "DNS"} {
							i := slices.Index(names, want)
							if i < 0 {
								return fmt.Errorf("no macro %s among %v", want, names)
							}
							if descriptions[i] == "" {
								return fmt.Errorf("macro %s has no description", want)
							}
						}
						return nil
					}),
				},
			},
		},
	})
}

// macrosIn reads the macros' names and descriptions from the data source's
// state, in order.
func macrosIn(state *tfjson.State, addr string) (names, descriptions []string, err error) {
	if state == nil || state.Values == nil || state.Values.RootModule == nil {
		return nil, nil, fmt.Errorf("no state")
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address != addr {
			continue
		}
		entries, _ := r.AttributeValues["macros"].([]any)
		for _, e := range entries {
			m, _ := e.(map[string]any)
			name, _ := m["name"].(string)
			descr, _ := m["description"].(string)
			names = append(names, name)
			descriptions = append(descriptions, descr)
		}
		listed, _ := r.AttributeValues["names"].([]any)
		if len(listed) != len(names) {
			return nil, nil, fmt.Errorf("names has %d entries, macros %d", len(listed), len(names))
		}
		return names, descriptions, nil
	}
	return nil, nil, fmt.Errorf("%s not in state", addr)
}
