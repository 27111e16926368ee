package guestops

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// createMarkerPrefix starts the description line that marks a guest a
// plain create (no clone) is still setting up. The create request writes
// it, so the next apply after a killed one finds its own half-made guest
// by name and marker instead of allocating another VMID (W13).
const createMarkerPrefix = "terraform-provider-pve: creating"

// markerSuffix ends every marker line.
const markerSuffix = ", not finished"

// CreateMarker is the marker line of a plain create of a guest named name
// (the hostname for containers).
func CreateMarker(kind Kind, name string) string {
	if name == "" {
		return fmt.Sprintf("%s %s%s", createMarkerPrefix, kind.Type, markerSuffix)
	}
	return fmt.Sprintf("%s %s %s%s", createMarkerPrefix, kind.Type, name, markerSuffix)
}

func isMarkerLine(line string) bool {
	return strings.HasPrefix(line, cloneMarkerPrefix) ||
		strings.HasPrefix(line, createMarkerPrefix) && strings.HasSuffix(line, markerSuffix)
}

// withCreateMarker is form with the create marker of name appended to its
// description; form itself is left alone.
func (a API) withCreateMarker(form url.Values, name string) url.Values {
	out := make(url.Values, len(form)+1)
	for k, v := range form {
		out[k] = v
	}
	out.Set(KeyDescription, WithCloneMarker(form.Get(KeyDescription), CreateMarker(a.Kind, name)))
	return out
}

// claimKey is a guest one client created or adopted.
type claimKey struct {
	client *pveapi.Client
	vmid   int
}

// claimed holds the guests this process created or adopted. Two resources
// of one apply may plan the same name: the marker of the guest the first
// one is still creating must not lead the second to adopt it too.
var claimed sync.Map

func (a API) claim(vmid int) bool {
	_, taken := claimed.LoadOrStore(claimKey{a.Client, vmid}, true)
	return !taken
}

// findHalfMade looks for a guest an earlier, interrupted apply left
// half-made for this request: on req.Node, of this kind, named req.Name
// (or nameless while locked for creation, W11) and carrying marker. A
// candidate still locked for creation without the marker may be a restore
// whose task writes the final config only at its end: it is waited for,
// then read again. It costs one GET /cluster/resources and a config read
// per candidate. Without a planned name nothing tells our guest apart from
// another one being created, so nothing is looked for.
func (a API) findHalfMade(ctx context.Context, req CreateRequest, marker string) (int, bool, error) {
	if req.Name == "" {
		return 0, false, nil
	}
	guests, err := a.Client.ClusterResources(ctx, "vm")
	if err != nil {
		return 0, false, err
	}
	var candidates []int
	for _, g := range guests {
		if !g.IsGuest() || g.Type != a.Kind.Type || g.Node != req.Node || bool(g.Template) {
			continue
		}
		name := string(g.Name)
		if name != req.Name && (name != "" || !g.InProgress()) {
			continue
		}
		candidates = append(candidates, g.VMID.Int())
	}
	slices.Sort(candidates)
	for _, vmid := range candidates {
		config, err := a.Config(ctx, req.Node, vmid)
		if pveapi.IsNotFound(err) {
			continue
		}
		if err != nil {
			return 0, false, err
		}
		if config.Lock() == "create" && !HasCloneMarker(config, marker) {
			if _, err := a.Client.WaitUnlocked(ctx, req.Node, a.Kind.Type, vmid); err != nil && !pveapi.IsNotFound(err) {
				return 0, false, err
			}
			if config, err = a.Config(ctx, req.Node, vmid); pveapi.IsNotFound(err) {
				continue // its task failed and PVE removed it
			} else if err != nil {
				return 0, false, err
			}
		}
		if !HasCloneMarker(config, marker) {
			continue
		}
		if name, named := config[a.nameKey()]; named && name != req.Name {
			continue
		}
		if a.claim(vmid) {
			return vmid, true, nil
		}
	}
	return 0, false, nil
}

func (a API) nameKey() string {
	if a.isLXC() {
		return "hostname"
	}
	return "name"
}
