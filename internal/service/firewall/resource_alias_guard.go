package firewall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// PVE guards edits of a firewall list with the list's digest: the alias
// list of a firewall, its IP set list, each IP set's entries. The resources
// keep the digest of their last read (or the one they predict after their
// own writes) in private state and send it with each guarded write.

// guardedWrite sends write with digest. When PVE refuses the digest (the
// list changed since it was taken, possibly by another object of the same
// list), recheck reads the list again and answers its new digest if what
// this resource manages is still as expected, or a *changedOutsideError if
// not; the write then goes once more with the new digest. An empty digest
// (none known) goes to recheck first.
func guardedWrite(ctx context.Context, digest string, write func(digest string) error, recheck func(context.Context) (string, error)) error {
	if digest != "" {
		err := write(digest)
		if err == nil || !pveapi.IsDigestMismatch(err) {
			return err
		}
	}
	fresh, err := recheck(ctx)
	if err != nil {
		return err
	}
	return write(fresh)
}

// changedOutsideError says that PVE holds something other than what the
// state describes, so a change planned against the state is not sent.
type changedOutsideError struct {
	what   string // "Alias office of the cluster's firewall"
	detail string // what differs
}

func (e *changedOutsideError) Error() string {
	return fmt.Sprintf("%s changed outside Terraform since it was last read (%s). Nothing more was changed: "+
		"run terraform plan again to see PVE's current state and plan against it.", e.what, e.detail)
}

// addWriteError reports a failed write: a change outside Terraform with its
// own summary, anything else as PVE's error.
func addWriteError(diags *diag.Diagnostics, summary string, err error) {
	var outside *changedOutsideError
	if errors.As(err, &outside) {
		diags.AddError("Changed Outside Terraform", outside.Error())
		return
	}
	fwutil.AddAPIError(diags, summary, err)
}

// digestKey is the private state key of the digests a resource keeps.
const digestKey = "digests"

// digests are the list digests a resource keeps between runs (privateGetter
// and privateSetter are in rules_writer.go).
type digests struct {
	// Aliases is the digest of the firewall's alias list.
	Aliases string `json:"aliases,omitempty"`
	// IPSets is the digest of the firewall's IP set list (names and
	// comments), Entries that of the IP set's entries.
	IPSets  string `json:"ipsets,omitempty"`
	Entries string `json:"entries,omitempty"`
}

// readDigests reads the kept digests; none kept (an old state, an import)
// is no digest.
func readDigests(ctx context.Context, p privateGetter) digests {
	var d digests
	if p == nil {
		return d
	}
	raw, diags := p.GetKey(ctx, digestKey)
	if diags.HasError() || len(raw) == 0 {
		return d
	}
	_ = json.Unmarshal(raw, &d)
	return d
}

func writeDigests(ctx context.Context, p privateSetter, d digests, diags *diag.Diagnostics) {
	raw, err := json.Marshal(d)
	if err != nil {
		diags.AddError("Unable To Keep Digests", err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, digestKey, raw)...)
}

func asChangedOutside(err error, target **changedOutsideError) bool { return errors.As(err, target) }
