package pveapi

import (
	"context"
	"net/url"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// StorageConfig is one storage definition of storage.cfg (GET
// /storage/{storage}): its type, its options in the form a write sends them
// (wire.StorageOptionsFromAPI; sensitive options are never returned) and
// the digest of storage.cfg.
type StorageConfig struct {
	Storage string
	Type    string
	Options map[string]string
	Digest  string
}

func storageConfigPath(id string) string { return "/storage/" + url.PathEscape(id) }

// GetStorageConfig reads one storage definition. found is false for PVE's
// 500 "storage 'ID' does not exist" (pve-storage src/PVE/Storage.pm
// storage_config).
func (c *Client) GetStorageConfig(ctx context.Context, id string) (cfg StorageConfig, found bool, err error) {
	var raw map[string]any
	if err := c.Get(ctx, storageConfigPath(id), nil, &raw); err != nil {
		if IsStorageMissing(err) {
			return StorageConfig{}, false, nil
		}
		return StorageConfig{}, false, err
	}
	cfg = StorageConfig{Storage: id, Options: wire.StorageOptionsFromAPI(raw)}
	if s, ok := raw["type"].(string); ok {
		cfg.Type = s
	}
	if s, ok := raw["digest"].(string); ok {
		cfg.Digest = s
	}
	return cfg, true, nil
}

// ListStorageConfigs reads every storage definition of storage.cfg (GET
// /storage), only those of type typ when not empty, in one request. PVE
// lists the storages the caller may audit (Datastore.Audit or
// Datastore.AllocateSpace on /storage/{storage}).
func (c *Client) ListStorageConfigs(ctx context.Context, typ string) ([]StorageConfig, error) {
	var query url.Values
	if typ != "" {
		query = url.Values{"type": {typ}}
	}
	var raw []map[string]any
	if err := c.Get(ctx, "/storage", query, &raw); err != nil {
		return nil, err
	}
	out := make([]StorageConfig, 0, len(raw))
	for _, r := range raw {
		cfg := StorageConfig{Options: wire.StorageOptionsFromAPI(r)}
		cfg.Storage, _ = r["storage"].(string)
		cfg.Type, _ = r["type"].(string)
		cfg.Digest, _ = r["digest"].(string)
		out = append(out, cfg)
	}
	return out, nil
}

// CreateStorage defines storage id of type typ with the options (POST
// /storage). Sensitive options travel in the form only; the request log
// redacts them.
func (c *Client) CreateStorage(ctx context.Context, id, typ string, options map[string]string) error {
	form := url.Values{"storage": {id}, "type": {typ}}
	for k, v := range options {
		form.Set(k, v)
	}
	return c.Post(ctx, "/storage", form, nil)
}

// UpdateStorage applies a delta to storage id (PUT /storage/{storage}),
// guarded by digest when not empty. An empty delta sends nothing.
func (c *Client) UpdateStorage(ctx context.Context, id string, delta *wire.ConfigDelta, digest string) error {
	if delta.IsEmpty() {
		return nil
	}
	form := delta.Values()
	if digest != "" {
		form.Set("digest", digest)
	}
	return c.Put(ctx, storageConfigPath(id), form, nil)
}

// DeleteStorage removes the definition of storage id (DELETE
// /storage/{storage}); the volumes on it stay. A storage already gone is
// not an error.
func (c *Client) DeleteStorage(ctx context.Context, id string) error {
	err := c.Delete(ctx, storageConfigPath(id), nil, nil)
	if err != nil && IsStorageMissing(err) {
		return nil
	}
	return err
}

// IsStorageDigestMismatch reports PVE's refusal of an update whose digest
// is no longer storage.cfg's: any storage changed since the read
// (pve-storage src/PVE/API2/Storage/Config.pm update wraps
// assert_if_modified's die in "update storage failed: ").
func IsStorageDigestMismatch(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 &&
		strings.HasPrefix(firstLine(apiErr.Message), "update storage failed: detected modified configuration - file changed by other user?")
}
