package fwutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// UnmanagedSummary is the title of the warning an import gives when the
// imported object has settings no attribute represents: a guest's config
// keys, a pool's storage members.
const UnmanagedSummary = "Settings Not Managed By The Configuration"

// AddAPIError turns an error from the PVE client into one diagnostic. The
// summary says what the provider was doing, in Title Case ("Unable To Create
// Pool"); the detail carries what PVE said, the task log tail when a task
// failed, and what the operator can do about it.
func AddAPIError(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, APIErrorDetail(err))
}

// AddAttributeAPIError is AddAPIError pinned to the attribute the failure is
// about, so Terraform points at the offending line of configuration.
func AddAttributeAPIError(diags *diag.Diagnostics, attr path.Path, summary string, err error) {
	diags.AddAttributeError(attr, summary, APIErrorDetail(err))
}

// APIErrorDetail renders an error for a diagnostic's detail.
func APIErrorDetail(err error) string {
	var b strings.Builder
	b.WriteString(err.Error())

	var taskErr *pveapi.TaskError
	if errors.As(err, &taskErr) && len(taskErr.LogTail) > 0 && !strings.Contains(err.Error(), taskErr.LogTail[len(taskErr.LogTail)-1]) {
		b.WriteString("\n\nTask log (last lines):\n")
		for _, line := range taskErr.LogTail {
			b.WriteString("  ")
			b.WriteString(line)
			b.WriteString("\n")
		}
	}

	if pool, ok := pveapi.MissingPool(err); ok {
		fmt.Fprintf(&b, "\n\nPool %q does not exist in PVE. Create it (pve_pool) or correct the pool name, and try again.", pool)
	} else if permPath, priv, ok := pveapi.IsPermission(err); ok {
		if priv != "" && permPath != "" {
			fmt.Fprintf(&b, "\n\nThe user or API token lacks the privilege %s on %s. Grant a role that includes %s on %s (or a parent path with propagation) and try again.", priv, permPath, priv, permPath)
		} else {
			b.WriteString("\n\nThe user or API token lacks a privilege for this operation; PVE's message above names it.")
		}
	}
	if file, ok := pveapi.IsLockTimeout(err); ok {
		holder := "the lock file " + file
		if vmid, isGuest := pveapi.LockedGuest(file); isGuest {
			holder = fmt.Sprintf("the configuration lock of guest %d (%s)", vmid, file)
		}
		fmt.Fprintf(&b, "\n\nAnother operation held %s for longer than PVE waits, through every retry. Wait for that operation to finish (see the node's task list) and run the command again.", holder)
	}
	if pveapi.IsRequestTimeout(err) {
		b.WriteString("\n\nPVE did not answer in time (a read is tried again first). Check that the node and its pveproxy respond; " +
			"if answers are merely slow, raise request_timeout in the provider block (or PVE_REQUEST_TIMEOUT).")
	}
	if lock, ok := pveapi.IsLocked(err); ok {
		fmt.Fprintf(&b, "\n\nThe guest is locked (%s) by another operation. Wait for it to finish and run the command again.", lock)
	}
	return b.String()
}

// AddVanishedAfterWrite reports an object that PVE no longer has when the
// provider reads it back right after writing it: another client deleted
// it in between. title names its kind in Title Case ("HA Rule"), object
// the object in a sentence ("HA rule prefer-fast").
func AddVanishedAfterWrite(diags *diag.Diagnostics, title, object string) {
	diags.AddError(title+" Vanished", object+" no longer exists in PVE right after it was written; "+
		"another client may have deleted it. Run apply again to recreate it.")
}
