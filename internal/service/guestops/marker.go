package guestops

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
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

// A plain create's marker tells more than the guest it is for: who is
// creating it and until when, and what was asked for.
//
//	terraform-provider-pve: creating qemu web-1 (by HOST pid PID run NONCE until 2026-12-01T20:15:00Z, config HASH), not finished
//
// A concurrent apply of the same configuration (another workspace, another
// machine) must never take up a guest its creator is still working on, so
// a half-made guest is a candidate only once its creator is gone: its lease
// (the creator's start plus its create timeout, after which the creator
// gives up) has ended, or its creator ran on this host and its terraform
// process (PID) no longer exists. HASH is a digest of the planned create request without the
// marker: it is what recognises a guest planned with neither a name nor a
// VMID. Markers of the earlier form (no owner) are recognised as before.

// markerOwner is the process that wrote a marker and how long it may work.
type markerOwner struct {
	Host  string
	PID   int
	Run   string
	Until time.Time
}

// self is this process, as its markers name it.
var self = func() markerOwner {
	host, err := os.Hostname()
	if err != nil || host == "" || strings.ContainsAny(host, " (),") {
		host = "unknown"
	}
	nonce := make([]byte, 6)
	_, _ = rand.Read(nonce)
	// The provider runs as a plugin of the terraform process: the apply
	// lives as long as that process. A plugin outlives a killed terraform
	// (it is orphaned, not stopped), so its own pid would say nothing.
	return markerOwner{Host: host, PID: os.Getppid(), Run: hex.EncodeToString(nonce)}
}()

// gone reports whether the owner no longer works on its guest at now.
func (o markerOwner) gone(now time.Time) bool {
	switch {
	case o.Run == self.Run:
		return false
	case !o.Until.IsZero() && now.After(o.Until):
		return true
	}
	return o.Host == self.Host && o.PID != self.PID && !processAlive(o.PID)
}

// createMarker is the marker line of a plain create of a guest named name
// (empty: none planned), written by this process until until, for form.
func (a API) createMarker(name string, form url.Values, until time.Time) string {
	base := strings.TrimSuffix(CreateMarker(a.Kind, name), markerSuffix)
	return fmt.Sprintf("%s (by %s pid %d run %s until %s, config %s)%s",
		base, self.Host, self.PID, self.Run, until.UTC().Format(time.RFC3339), formHash(form), markerSuffix)
}

// formHash digests a create request: same request, same hash.
func formHash(form url.Values) string {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		for _, v := range form[k] {
			fmt.Fprintf(h, "%s=%s\n", k, v)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ownerPattern is the owner part of a create marker.
var ownerPattern = regexp.MustCompile(`^(.*) \(by (\S+) pid (\d+) run (\S+) until (\S+), config ([0-9a-f]+)\)$`)

// parsedMarker is a create marker line taken apart.
type parsedMarker struct {
	// Base is the marker without owner and suffix: its kind and name.
	Base  string
	Owner *markerOwner // nil for the earlier form
	Hash  string
}

func parseCreateMarker(line string) (parsedMarker, bool) {
	if !strings.HasPrefix(line, createMarkerPrefix) || !strings.HasSuffix(line, markerSuffix) {
		return parsedMarker{}, false
	}
	body := strings.TrimSuffix(line, markerSuffix)
	m := ownerPattern.FindStringSubmatch(body)
	if m == nil {
		return parsedMarker{Base: body}, true
	}
	pid, _ := strconv.Atoi(m[3])
	until, _ := time.Parse(time.RFC3339, m[5])
	return parsedMarker{Base: m[1], Owner: &markerOwner{Host: m[2], PID: pid, Run: m[4], Until: until}, Hash: m[6]}, true
}

// MarkerLine is the create marker line config carries, or fallback.
func MarkerLine(config pveapi.GuestConfig, fallback string) string {
	for _, line := range strings.Split(config[KeyDescription], "\n") {
		if _, ok := parseCreateMarker(line); ok {
			return line
		}
	}
	return fallback
}

// claim records vmid as created or adopted by this resource; false means
// another resource of this provider configuration took it first.
func (a API) claim(vmid int) bool {
	return a.Claims.Claim(vmid)
}

// halfMadeOf tells whether config is a guest an earlier apply left
// half-made for req, whose creator is gone: it carries a create marker for
// req's name (and, without a name, req's hash) and names no other guest.
// busy is set for a matching guest whose creator may still be at work.
func (a API) halfMadeOf(req CreateRequest, vmid int, config pveapi.GuestConfig, hash string) (ours, busy bool, owner *markerOwner) {
	if name, named := config[a.Kind.NameKey]; named && name != req.Name && (req.Name != "" || name != a.Kind.defaultNameOf(vmid)) {
		return false, false, nil
	}
	if req.Send != nil {
		// A restore's marker has no owner: it is the archive's alone.
		return HasCloneMarker(config, req.Marker), false, nil
	}
	base := strings.TrimSuffix(CreateMarker(a.Kind, req.Name), markerSuffix)
	for _, line := range strings.Split(config[KeyDescription], "\n") {
		m, ok := parseCreateMarker(line)
		if !ok || m.Base != base || req.Name == "" && m.Hash != hash {
			continue
		}
		if m.Owner != nil && !m.Owner.gone(time.Now()) {
			return false, true, m.Owner
		}
		return true, false, m.Owner
	}
	return false, false, nil
}

// takeOver makes a half-made guest ours: its marker becomes marker, written
// with the digest of config, so of two later applies reaching for the same
// guest only the first gets it. A write refused because the config changed
// or was locked meanwhile is tried again on a fresh read while the guest is
// still a half-made one of req. false means another apply was faster or the
// guest is no longer half-made.
func (a API) takeOver(ctx context.Context, req CreateRequest, vmid int, config pveapi.GuestConfig, marker, hash string) bool {
	for attempt := 0; attempt < 3; attempt++ {
		description, _ := StripCloneMarker(config[KeyDescription])
		params := url.Values{KeyDescription: {WithCloneMarker(description, marker)}}
		if digest := config.Digest(); digest != "" {
			params.Set("digest", digest)
		}
		if a.UpdateConfig(ctx, req.Node, vmid, params) == nil {
			return a.claim(vmid)
		}
		if _, err := a.Client.WaitUnlocked(ctx, req.Node, a.Kind.Type, vmid); err != nil {
			return false
		}
		fresh, err := a.Config(ctx, req.Node, vmid)
		if err != nil {
			return false
		}
		if ours, _, _ := a.halfMadeOf(req, vmid, fresh, hash); !ours {
			return false
		}
		config = fresh
	}
	return false
}

// findHalfMade looks for a guest an earlier, interrupted apply left
// half-made for this request and whose creator is gone: on req.Node, of
// this kind, carrying a create marker for req.Name (for a nameless request,
// with the same request hash), and either named req.Name or nameless. A
// nameless candidate still locked for creation may be such a guest whose
// create (or restore) task writes the config only at its end: it is waited
// for only when the running task is one this provider's user started;
// another user's create on the node is none of our business (W11). It
// costs one GET /cluster/resources and a config read per candidate. A
// matching guest whose creator may still be at work (a concurrent apply) is
// left alone, with a warning.
func (a API) findHalfMade(ctx context.Context, req CreateRequest, marker, hash string, diags *diag.Diagnostics) (int, bool, error) {
	guests, err := a.Client.ClusterResources(ctx, "vm")
	if err != nil {
		return 0, false, err
	}
	var candidates []int
	for _, g := range guests {
		vmid := g.VMID.Int()
		if !g.IsGuest() || g.Type != a.Kind.Type || g.Node != req.Node || bool(g.Template) {
			continue
		}
		name := string(g.Name)
		// The listing's name is what pvestatd last reported, up to one cycle
		// old: a guest being created is listed without a name until it is
		// reported, then under the name listedName makes up for its
		// nameless placeholder config until the cycle after its create
		// ended. Either may be ours; the config read below decides.
		nameless := name == "" || name == a.Kind.listedNameOf(vmid)
		if name != req.Name && !nameless {
			continue
		}
		if req.Name == "" && a.VMIDRange.Min != 0 && (vmid < a.VMIDRange.Min || vmid > a.VMIDRange.Max) {
			continue
		}
		if a.Claims.Claimed(vmid) {
			// Another resource of this apply created or adopted it: never
			// one to take over (claim would refuse it), so its config is
			// not read. In a large apply most nameless guests in the
			// listing are this apply's own, still being created.
			continue
		}
		candidates = append(candidates, vmid)
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
		if config.Lock() == "create" && MarkerLine(config, "") == "" {
			// The task may end between the config read and the task
			// list: what decides is whether a task of ours still runs.
			if a.ownTaskRuns(ctx, req.Node, vmid) {
				if _, err := a.Client.WaitUnlocked(ctx, req.Node, a.Kind.Type, vmid); err != nil && !pveapi.IsNotFound(err) {
					return 0, false, err
				}
			}
			if config, err = a.Config(ctx, req.Node, vmid); pveapi.IsNotFound(err) {
				continue // its task failed and PVE removed it
			} else if err != nil {
				return 0, false, err
			}
		}
		ours, busy, owner := a.halfMadeOf(req, vmid, config, hash)
		if busy && owner.Run != self.Run {
			diags.AddWarning("Half-Made "+a.Kind.Title+" Of Another Apply Left Alone", fmt.Sprintf(
				"%s %d on node %s carries the creation marker of this configuration, but the apply creating it (host %s, process %d) "+
					"may still be at work until %s: it is left to that apply, and this one creates another %s.",
				fwutil.Capitalize(a.Kind.Noun), vmid, req.Node, owner.Host, owner.PID, owner.Until.UTC().Format(time.RFC3339), a.Kind.Noun))
			continue
		}
		if ours && a.takeOver(ctx, req, vmid, config, marker, hash) {
			return vmid, true, nil
		}
	}
	return 0, false, nil
}

// ownTaskRuns reports whether a task this provider's user started runs on
// the guest: only then may a guest locked for creation be our own.
func (a API) ownTaskRuns(ctx context.Context, node string, vmid int) bool {
	tasks, err := a.Client.ActiveTasks(ctx, node, vmid)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		if t.Principal() == a.Client.Principal() {
			return true
		}
	}
	return false
}
