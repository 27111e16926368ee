package fwutil

import (
	"context"
	"fmt"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// releases memoises the PVE release per client: one client belongs to one
// provider configuration, which speaks to one cluster, so every plan-time
// check of a run (privilege names, ACL paths) asks GET /version once.
var releases sync.Map // *pveapi.Client -> *releaseMemo

type releaseMemo struct {
	mu      sync.Mutex
	release wire.Release
	known   bool
}

// PVERelease returns the release of the PVE the client speaks to. A failed
// lookup is not remembered: the next caller asks again.
func PVERelease(ctx context.Context, client *pveapi.Client) (wire.Release, error) {
	entry, _ := releases.LoadOrStore(client, &releaseMemo{})
	memo := entry.(*releaseMemo)
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if memo.known {
		return memo.release, nil
	}
	v, err := client.Version(ctx)
	if err != nil {
		return wire.Release{}, err
	}
	release, ok := wire.ParseRelease(v.Release)
	if !ok {
		if release, ok = wire.ParseRelease(v.Version); !ok {
			return wire.Release{}, fmt.Errorf("PVE answered release %q, version %q: not a release the provider can read", v.Release, v.Version)
		}
	}
	memo.release, memo.known = release, true
	return release, nil
}
