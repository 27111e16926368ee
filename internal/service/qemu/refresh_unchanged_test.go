package qemu_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// A refresh of a guest nothing changed returns the prior state as it was,
// value and private state, so a refresh-only plan has nothing to record.
// (Terraform 1.11 still exits 2 on such a plan with -detailed-exitcode: it
// compares decoded numbers by their internal precision, see
// docs/performance.md.)
func TestRefreshOfUnchangedVMReturnsPriorState(t *testing.T) {
	t.Parallel()
	p, state := benchVM(t)
	ctx := context.Background()
	var private []byte
	for i := range 3 {
		resp, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: "pve_vm", CurrentState: state, Private: private})
		if err != nil || len(resp.Diagnostics) != 0 || resp.NewState == nil {
			t.Fatalf("read %d: %v %v", i, err, resp.Diagnostics)
		}
		if !p.StateValue(t, "pve_vm", resp.NewState).Equal(p.StateValue(t, "pve_vm", state)) {
			t.Fatalf("read %d changed the state:\nbefore %v\nafter  %v", i, p.StateValue(t, "pve_vm", state), p.StateValue(t, "pve_vm", resp.NewState))
		}
		if i > 0 && !bytes.Equal(resp.Private, private) {
			t.Fatalf("read %d changed the private state: %q -> %q", i, private, resp.Private)
		}
		state, private = resp.NewState, resp.Private
	}
}
