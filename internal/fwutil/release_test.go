package fwutil_test

import (
	"context"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The release is asked once per client, however many plan-time checks use
// it.
func TestPVEReleaseAskedOncePerClient(t *testing.T) {
	t.Parallel()
	for version, want := range map[string]wire.Release{"8.4": wire.PVE84, "9.2": wire.PVE92} {
		sim, err := pvesim.New(pvesim.Options{Tokens: []string{"root@pam!probe=0123456789abcdef"}, PVEVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := sim.StartHTTP("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = srv.Close() })
		client, err := pveapi.New(pveapi.Config{Endpoint: srv.URL, APIToken: "root@pam!probe=0123456789abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			got, err := fwutil.PVERelease(context.Background(), client)
			if err != nil || got != want {
				t.Fatalf("PVE %s: PVERelease = %v, %v; want %v", version, got, err, want)
			}
		}
		if n := sim.Count("GET", "/version"); n != 1 {
			t.Errorf("PVE %s: GET /version sent %d times, want 1", version, n)
		}
	}
}
