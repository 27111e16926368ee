package pvesim

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"
)

// A stalled answer sends its headers, then nothing: a client without a
// deadline of its own would wait forever. The request does not run.
func TestFaultStall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := e.sim.InjectFault(Fault{Method: http.MethodGet, Path: "/pools", Action: FaultStall, Count: 1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.srv.URL+apiPrefix+"/pools", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.auth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the headers should come: %v", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK || resp.ContentLength <= 0 {
		t.Errorf("status %d, length %d", resp.StatusCode, resp.ContentLength)
	}
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the body should stall until the client gives up, got %v", err)
	}
	// Count 1: the next request is answered.
	e.call(t, http.MethodGet, "/pools", nil).wantOK(t)
	if recs := e.sim.Requests(); len(recs) != 2 || recs[0].Status != http.StatusOK || recs[0].Template != "/pools" {
		t.Errorf("records = %+v", recs)
	}
}
