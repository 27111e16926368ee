package pveapi

import (
	"context"
	"net/url"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// SDNPluginObject is one SDN controller, IPAM or DNS server: its type and
// its options in the form a write sends them (sensitive options are never
// read). For a staged family (controllers) they are the staged values:
// what the next SDN apply makes running.
type SDNPluginObject struct {
	ID      string
	Type    string
	Options map[string]string
	// Digest guards an update of an unstaged family (ipams.cfg, dns.cfg);
	// empty for controllers (the pending view has none).
	Digest string
	// Pending tells whether a controller has changes the SDN apply has
	// not made running yet.
	Pending bool
}

func sdnPluginPath(f wire.SDNPluginFamily, id string) string {
	return f.Path + "/" + url.PathEscape(id)
}

// GetSDNPlugin reads one object of family f. A controller is read from
// the pending view (GET ...?pending=1, pve-network src/PVE/Network/SDN.pm
// pending_config): its staged values, and not found when its deletion is
// staged. found is false when PVE has no such object.
func (c *Client) GetSDNPlugin(ctx context.Context, f wire.SDNPluginFamily, id string) (obj SDNPluginObject, found bool, err error) {
	var query url.Values
	if f.Staged {
		query = url.Values{"pending": {"1"}}
	}
	var raw map[string]any
	if err := c.Get(ctx, sdnPluginPath(f, id), query, &raw); err != nil {
		if IsSDNNotFound(err) {
			return SDNPluginObject{}, false, nil
		}
		return SDNPluginObject{}, false, err
	}
	obj = SDNPluginObject{ID: id}
	if f.Staged {
		entry := sdnEntry(f.Kind, f.IDKey, raw)
		values, ok := entry.Effective()
		if !ok {
			return SDNPluginObject{}, false, nil
		}
		obj.Pending = entry.IsPending()
		raw = values
	}
	obj.Type, _ = raw["type"].(string)
	obj.Digest, _ = raw["digest"].(string)
	if t, ok := f.Type(obj.Type); ok {
		obj.Options = wire.SDNPluginOptionsFromAPI(t, raw)
	} else {
		obj.Options = map[string]string{}
	}
	return obj, true, nil
}

// formWithSDNLock adds PVE 9's SDN lock token when there is one.
func formWithSDNLock(form url.Values, lockToken string) url.Values {
	if lockToken != "" {
		form.Set("lock-token", lockToken)
	}
	return form
}

// CreateSDNPlugin creates object id of family f and type typ (POST
// f.Path). Sensitive options travel in the form only: the request log
// masks them and error texts never carry their values.
func (c *Client) CreateSDNPlugin(ctx context.Context, f wire.SDNPluginFamily, id, typ string, options map[string]string, lockToken string) error {
	c.noteSDNSecrets(f, typ, options)
	form := url.Values{f.IDKey: {id}, "type": {typ}}
	for k, v := range options {
		form.Set(k, v)
	}
	return c.Post(ctx, f.Path, formWithSDNLock(form, lockToken), nil)
}

// UpdateSDNPlugin applies a delta to object id of family f (PUT), guarded
// by digest when not empty. An empty delta sends nothing.
func (c *Client) UpdateSDNPlugin(ctx context.Context, f wire.SDNPluginFamily, id, typ string, delta *wire.ConfigDelta, digest, lockToken string) error {
	if delta.IsEmpty() {
		return nil
	}
	form := delta.Values()
	c.noteSDNSecrets(f, typ, firstFormValues(form))
	if digest != "" {
		form.Set("digest", digest)
	}
	return c.Put(ctx, sdnPluginPath(f, id), formWithSDNLock(form, lockToken), nil)
}

// DeleteSDNPlugin deletes object id of family f (DELETE). An object
// already gone is not an error.
func (c *Client) DeleteSDNPlugin(ctx context.Context, f wire.SDNPluginFamily, id, lockToken string) error {
	err := c.Delete(ctx, sdnPluginPath(f, id), formWithSDNLock(url.Values{}, lockToken), nil)
	if err != nil && IsSDNNotFound(err) {
		return nil
	}
	return err
}

// noteSDNSecrets hands the sensitive values among options to the redactor,
// so that no error text or log line carries them, even echoed by PVE.
func (c *Client) noteSDNSecrets(f wire.SDNPluginFamily, typ string, options map[string]string) {
	t, ok := f.Type(typ)
	if !ok {
		return
	}
	for _, o := range t.Options {
		if v := options[o.Key]; o.Sensitive && v != "" {
			c.redactor.add(v)
		}
	}
}

func firstFormValues(form url.Values) map[string]string {
	out := make(map[string]string, len(form))
	for k, v := range form {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}
