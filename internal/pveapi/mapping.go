package pveapi

import (
	"context"
	"net/url"
	"regexp"
	"strings"
)

// Hardware mappings: /cluster/mapping/{pci,usb,dir} (pve-manager
// PVE/API2/Cluster/Mapping/*.pm). Each kind is one file (mapping/pci.cfg,
// usb.cfg, directory.cfg); the digest a read returns is the whole file's.

// Mapping is one mapping as GET /cluster/mapping/<kind>/<id> answers it:
// the entries as stored ("node=...,path=...", one per map line) and the
// options set.
type Mapping struct {
	Description string `json:"description,omitempty"`
	// Mdev and LiveMigrationCapable are PCI's; nil when not set.
	Mdev                 *Bool01  `json:"mdev,omitempty"`
	LiveMigrationCapable *Bool01  `json:"live-migration-capable,omitempty"`
	Map                  []string `json:"map"`
	Digest               string   `json:"digest,omitempty"`
}

func mappingPath(kind, id string) string {
	return "/cluster/mapping/" + kind + "/" + url.PathEscape(id)
}

// GetMapping reads a mapping of the kind ("pci", "usb", "dir"); found is
// false when PVE says there is none.
func (c *Client) GetMapping(ctx context.Context, kind, id string) (m *Mapping, found bool, err error) {
	var out Mapping
	if err := c.Get(ctx, mappingPath(kind, id), nil, &out); err != nil {
		if IsMappingNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &out, true, nil
}

// CreateMapping creates a mapping. params holds the options (PVE's names)
// and "map" with one value per entry; several entries go as a JSON list.
func (c *Client) CreateMapping(ctx context.Context, kind, id string, params url.Values) error {
	form := url.Values{"id": {id}}
	for k, v := range params {
		form[k] = v
	}
	return c.Post(ctx, "/cluster/mapping/"+kind, form, nil)
}

// UpdateMapping replaces the mapping's entries (PVE requires "map" on
// every update), sets the options in params and deletes those in del.
// digest, when not empty, is the file's digest from a read: any change to
// any mapping of the kind since then makes PVE refuse
// (IsMappingDigestMismatch).
func (c *Client) UpdateMapping(ctx context.Context, kind, id string, params url.Values, del []string, digest string) error {
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	if len(del) > 0 {
		form.Set("delete", strings.Join(del, ","))
	}
	setDigest(form, digest)
	return c.Put(ctx, mappingPath(kind, id), form, nil)
}

// DeleteMapping removes a mapping; PVE answers success for one that is
// not there.
func (c *Client) DeleteMapping(ctx context.Context, kind, id string) error {
	return c.Delete(ctx, mappingPath(kind, id), nil, nil)
}

// mappingMissing is the read's and the update's answer for a mapping that
// does not exist ("mapping 'ID' not found"; update: "update ... mapping
// failed: <kind> ID 'ID' does not exist").
var mappingMissing = regexp.MustCompile(`^mapping '[^']*' not found|^update (?:hardware|directory) mapping failed: \w+ ID '[^']*' does not exist`)

// IsMappingNotFound reports PVE's answer for a mapping that is not there.
func IsMappingNotFound(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && mappingMissing.MatchString(firstLine(apiErr.Message))
}

// IsMappingDigestMismatch reports PVE's refusal of an update whose digest
// is not the mapping file's any more.
func IsMappingDigestMismatch(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 &&
		strings.Contains(firstLine(apiErr.Message), "detected modified configuration - file changed by other user?")
}
