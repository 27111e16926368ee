package firewall

import (
	"context"
	"fmt"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// entryWriter applies entry changes to one IP set, one request per changed
// address. It tracks what PVE holds after each of its writes and the
// digest PVE will give that, so a series of guarded writes needs no read
// in between: PVE checks deletions and updates of an entry against the
// set's digest, not additions (pve-firewall
// src/PVE/API2/Firewall/IPSet.pm update_ip, remove_ip, create_ip).
type entryWriter struct {
	client *pveapi.Client
	fw     pveapi.FirewallScope
	scope  scopeRef
	name   string
	// current is what PVE holds, as far as this writer knows.
	current entryMap
	// digest is PVE's digest of current; empty when not known.
	digest string
}

// apply sends changes: the guarded writes first, while the digest still
// describes the set, and the additions last. On error, current holds what
// was done.
func (w *entryWriter) apply(ctx context.Context, changes entryChanges) error {
	for _, cidr := range changes.Removes {
		err := w.guarded(ctx, func(digest string) error {
			return w.client.DeleteIPSetEntry(ctx, w.fw, w.name, cidr, digest)
		})
		if err != nil {
			return fmt.Errorf("remove %s: %w", cidr, err)
		}
		delete(w.current, cidr)
		w.digest = w.current.digest()
	}
	for _, e := range changes.Updates {
		entry := pveapi.IPSetEntry{CIDR: e.CIDR, NoMatch: pveapi.Bool01(e.NoMatch), Comment: e.Comment}
		err := w.guarded(ctx, func(digest string) error {
			return w.client.UpdateIPSetEntry(ctx, w.fw, w.name, entry, digest)
		})
		if err != nil {
			return fmt.Errorf("update %s: %w", e.CIDR, err)
		}
		w.current[e.CIDR] = e
		w.digest = w.current.digest()
	}
	for _, e := range changes.Adds {
		err := w.client.AddIPSetEntry(ctx, w.fw, w.name, pveapi.IPSetEntry{CIDR: e.CIDR, NoMatch: pveapi.Bool01(e.NoMatch), Comment: e.Comment})
		if err != nil {
			return fmt.Errorf("add %s: %w", e.CIDR, err)
		}
		w.current[e.CIDR] = e
	}
	if len(changes.Adds) > 0 {
		w.digest = w.current.digest()
	}
	return nil
}

// guarded sends one guarded write. When PVE refuses the digest, the set is
// read once: if it holds exactly what this writer expects, the write goes
// again with PVE's digest; otherwise the set changed outside Terraform.
func (w *entryWriter) guarded(ctx context.Context, write func(digest string) error) error {
	return guardedWrite(ctx, w.digest, write, w.recheck)
}

func (w *entryWriter) recheck(ctx context.Context) (string, error) {
	list, digest, err := w.client.IPSetEntries(ctx, w.fw, w.name)
	if err != nil {
		return "", err
	}
	if diff := firstDifference(w.current, entriesFromAPI(list)); diff != "" {
		return "", &changedOutsideError{what: fmt.Sprintf("IP set %s of %s", w.name, w.scope.describe()), detail: diff}
	}
	return digest, nil
}
