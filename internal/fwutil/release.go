package fwutil

import (
	"context"
	"fmt"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// versions memoises PVE's version answer per client: one client belongs to
// one provider configuration, which speaks to one cluster, so every
// plan-time check of a run (privilege names, ACL paths, token features)
// asks GET /version once.
var versions sync.Map // *pveapi.Client -> *versionMemo

type versionMemo struct {
	mu      sync.Mutex
	version *pveapi.Version
}

// PVEVersion returns what GET /version answers for the PVE the client
// speaks to. A failed lookup is not remembered: the next caller asks again.
func PVEVersion(ctx context.Context, client *pveapi.Client) (pveapi.Version, error) {
	entry, _ := versions.LoadOrStore(client, &versionMemo{})
	memo := entry.(*versionMemo)
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if memo.version == nil {
		v, err := client.Version(ctx)
		if err != nil {
			return pveapi.Version{}, err
		}
		memo.version = v
	}
	return *memo.version, nil
}

// PVERelease returns the release of the PVE the client speaks to.
func PVERelease(ctx context.Context, client *pveapi.Client) (wire.Release, error) {
	v, err := PVEVersion(ctx, client)
	if err != nil {
		return wire.Release{}, err
	}
	release, ok := wire.ParseRelease(v.Release)
	if !ok {
		if release, ok = wire.ParseRelease(v.Version); !ok {
			return wire.Release{}, fmt.Errorf("PVE answered release %q, version %q: not a release the provider can read", v.Release, v.Version)
		}
	}
	return release, nil
}
