package fwutil

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// SettleTask waits for a PVE task (W8) within ctx, which carries the
// resource's timeout. It reports success; on failure it adds an error with
// summary (Title Case, "Unable To Resize Disk"), PVE's exit status and the
// task log tail. A task that finished with warnings succeeds and adds a
// warning naming what, so nothing PVE said is lost. An empty upid is a
// write PVE finished synchronously (W9) and succeeds at once.
func SettleTask(ctx context.Context, client *pveapi.Client, upid, what, summary string, diags *diag.Diagnostics) bool {
	result, err := client.WaitTask(ctx, upid)
	return ReportTask(result, err, what, summary, diags)
}

// ReportTask is SettleTask for a task already waited for: the error or
// the warnings of its outcome as diagnostics.
func ReportTask(result *pveapi.TaskResult, err error, what, summary string, diags *diag.Diagnostics) bool {
	if err != nil {
		if running, ok := pveapi.IsTaskStillRunning(err); ok {
			diags.AddError(summary, fmt.Sprintf(
				"PVE task %s (%s) did not finish within the timeout and is still running in PVE. "+
					"Wait for it in the PVE task log, or raise the resource's timeouts, then run the command again.\n\n%v",
				running, what, err))
			return false
		}
		AddAPIError(diags, summary, err)
		return false
	}
	if result.WarningCount > 0 {
		detail := fmt.Sprintf("PVE finished %s with %d warning(s).", what, result.WarningCount)
		if len(result.Warnings) > 0 {
			detail += "\n\n" + strings.Join(result.Warnings, "\n")
		}
		diags.AddWarning("PVE Task Finished With Warnings", detail)
	}
	return true
}
