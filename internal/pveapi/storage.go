package pveapi

import (
	"context"
	"net/url"
	"strings"
)

// StorageFilter narrows GET /nodes/{node}/storage. Zero values do not
// filter.
type StorageFilter struct {
	Content []string // only storages that support all of these content types
	Enabled bool     // only enabled storages
	Storage string   // only this storage
	Target  string   // only storages also available on this node
}

// NodeStorage is a storage as seen from one node.
type NodeStorage struct {
	Storage      string        `json:"storage"`
	Type         string        `json:"type"`
	Content      string        `json:"content"` // comma list: images,rootdir,iso,vztmpl,import,...
	Active       Bool01        `json:"active,omitempty"`
	Enabled      Bool01        `json:"enabled,omitempty"`
	Shared       Bool01        `json:"shared,omitempty"`
	Total        IntOrString   `json:"total,omitempty"`
	Used         IntOrString   `json:"used,omitempty"`
	Avail        IntOrString   `json:"avail,omitempty"`
	UsedFraction FloatOrString `json:"used_fraction,omitempty"`
}

// ContentTypes splits Content.
func (s NodeStorage) ContentTypes() []string {
	var out []string
	for _, part := range strings.Split(s.Content, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// HasContent reports whether the storage accepts a content type.
func (s NodeStorage) HasContent(content string) bool {
	for _, c := range s.ContentTypes() {
		if c == content {
			return true
		}
	}
	return false
}

// Storages lists the storages of a node.
func (c *Client) Storages(ctx context.Context, node string, filter StorageFilter) ([]NodeStorage, error) {
	query := url.Values{}
	if len(filter.Content) > 0 {
		query.Set("content", strings.Join(filter.Content, ","))
	}
	if filter.Enabled {
		query.Set("enabled", FormBool(true))
	}
	if filter.Storage != "" {
		query.Set("storage", filter.Storage)
	}
	if filter.Target != "" {
		query.Set("target", filter.Target)
	}
	var out []NodeStorage
	if err := c.Get(ctx, "/nodes/"+url.PathEscape(node)+"/storage", query, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// StorageStatus reads one storage on one node.
func (c *Client) StorageStatus(ctx context.Context, node, storage string) (*NodeStorage, error) {
	var out NodeStorage
	path := "/nodes/" + url.PathEscape(node) + "/storage/" + url.PathEscape(storage) + "/status"
	if err := c.Get(ctx, path, nil, &out); err != nil {
		return nil, err
	}
	out.Storage = storage
	return &out, nil
}

// StorageVolume is one entry of a storage's content list.
type StorageVolume struct {
	VolID        string         `json:"volid"` // STORAGE:VOLNAME, e.g. local:iso/debian.iso
	Content      string         `json:"content,omitempty"`
	Format       string         `json:"format"`
	Size         IntOrString    `json:"size"`
	Used         IntOrString    `json:"used,omitempty"`
	CTime        IntOrString    `json:"ctime,omitempty"`
	VMID         IntOrString    `json:"vmid,omitempty"`
	Notes        StringOrNumber `json:"notes,omitempty"`
	Parent       string         `json:"parent,omitempty"`
	Protected    Bool01         `json:"protected,omitempty"`
	Encrypted    StringOrNumber `json:"encrypted,omitempty"`
	Verification *struct {
		State string `json:"state"`
		UPID  string `json:"upid"`
	} `json:"verification,omitempty"`
}

// StorageContent lists a storage's volumes; content ("iso", "vztmpl",
// "import", "images", ...) filters and may be empty.
func (c *Client) StorageContent(ctx context.Context, node, storage, content string) ([]StorageVolume, error) {
	var query url.Values
	if content != "" {
		query = url.Values{"content": {content}}
	}
	var out []StorageVolume
	path := "/nodes/" + url.PathEscape(node) + "/storage/" + url.PathEscape(storage) + "/content"
	if err := c.Get(ctx, path, query, &out); err != nil {
		return nil, err
	}
	return out, nil
}
