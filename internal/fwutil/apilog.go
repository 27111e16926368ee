package fwutil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// APILogger hands the PVE client's request log to Terraform's provider
// log, with the context of the request so that each line lands in the log
// of the operation that made it: TF_LOG=debug shows every API request
// (method, path, status, duration, task id), TF_LOG=trace also each
// attempt. The client redacts secrets before a line gets here.
type APILogger struct{}

func (APILogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

func (APILogger) Trace(ctx context.Context, msg string, fields map[string]any) {
	tflog.Trace(ctx, msg, fields)
}
