package acctest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// Guest follows the guest (VM or container) that a test created at a
// resource address. Its node and vmid come from state at each check, so a
// step that replaces or moves the guest is followed; checks of the guest
// as PVE holds it then use Node and VMID.
type Guest struct {
	Addr string
	Node string
	VMID int
}

// NewGuest follows the guest at the resource address addr.
func NewGuest(addr string) *Guest { return &Guest{Addr: addr} }

// Load reads the guest's node and vmid from state.
func (g *Guest) Load(state *tfjson.State) error {
	node, vmid, err := GuestFromState(state, g.Addr)
	if err != nil {
		return err
	}
	g.Node, g.VMID = node, vmid
	return nil
}

// Check is a state check that loads the guest from state, then runs fn,
// which checks the guest as PVE (or the simulator) holds it.
func (g *Guest) Check(fn func() error) statecheck.StateCheck {
	return CheckState(func(state *tfjson.State) error {
		if err := g.Load(state); err != nil {
			return err
		}
		return fn()
	})
}

// CheckState makes a state check of a function, for what no statecheck of
// the testing framework expresses: what PVE or the simulator holds or saw,
// or values of state compared with those.
func CheckState(fn func(state *tfjson.State) error) statecheck.StateCheck {
	return stateCheckFunc(fn)
}

type stateCheckFunc func(state *tfjson.State) error

func (f stateCheckFunc) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	resp.Error = f(req.State)
}

// GuestFromState reads the node and vmid of the guest at addr (such as
// "pve_vm.test" or "pve_vm.fleet[3]") from state.
func GuestFromState(state *tfjson.State, addr string) (node string, vmid int, err error) {
	rs := resourceIn(state, addr)
	if rs == nil {
		return "", 0, fmt.Errorf("%s not in state", addr)
	}
	node, _ = rs.AttributeValues["node"].(string)
	vmid, err = vmidOf(rs.AttributeValues["vmid"])
	if err != nil {
		return "", 0, fmt.Errorf("%s: vmid in state: %w", addr, err)
	}
	return node, vmid, nil
}

// InState reports whether state holds a resource at addr.
func InState(state *tfjson.State, addr string) bool {
	return resourceIn(state, addr) != nil
}

// StringAt reads the string at path of the resource at addr, for checks
// that compare it with what PVE holds; a null is "".
func StringAt(state *tfjson.State, addr string, path tfjsonpath.Path) (string, error) {
	rs := resourceIn(state, addr)
	if rs == nil {
		return "", fmt.Errorf("%s not in state", addr)
	}
	v, err := tfjsonpath.Traverse(rs.AttributeValues, path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", addr, err)
	}
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: %s is %T, not a string", addr, path, v)
	}
	return s, nil
}

func resourceIn(state *tfjson.State, addr string) *tfjson.StateResource {
	if state == nil || state.Values == nil || state.Values.RootModule == nil {
		return nil
	}
	for _, rs := range state.Values.RootModule.Resources {
		if rs.Address == addr {
			return rs
		}
	}
	return nil
}

// vmidOf reads a vmid attribute value: a json.Number, as tfjson decodes
// numbers.
func vmidOf(v any) (int, error) {
	switch n := v.(type) {
	case json.Number:
		return strconv.Atoi(n.String())
	case float64:
		return int(n), nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}
