package pveapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"
)

// logRequest writes the one debug line of a finished request: what was
// asked (extra gives the parameters, built only when there is a logger),
// what PVE answered, how long it took, and the task the answer started.
// Deferred by the request functions, so it sees their final answer and
// error through res and err.
func (c *Client) logRequest(ctx context.Context, method, path string, extra func() map[string]any, started time.Time, res **rawResponse, err *error) {
	if c.logger == nil {
		return
	}
	fields := extra()
	fields["method"] = method
	fields["path"] = path
	fields["duration_ms"] = time.Since(started).Milliseconds()
	if answer := *res; answer != nil {
		fields["status"] = answer.status
		if upid := startedTask(answer); upid != "" {
			fields["upid"] = upid
		}
	}
	if *err != nil {
		fields["error"] = c.redactor.redact((*err).Error())
	}
	c.logger.Debug(ctx, "PVE API request", fields)
}

// startedTask returns the UPID a successful answer carries as its data,
// which is how PVE answers every request that starts a task (W8).
func startedTask(res *rawResponse) string {
	if res.status < 200 || res.status > 299 || !bytes.Contains(res.body, []byte(`"UPID:`)) {
		return ""
	}
	var envelope struct {
		Data any `json:"data"`
	}
	if json.Unmarshal(res.body, &envelope) != nil {
		return ""
	}
	if upid, ok := envelope.Data.(string); ok && strings.HasPrefix(upid, "UPID:") {
		return upid
	}
	return ""
}
