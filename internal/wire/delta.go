package wire

import (
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// deleteParam is the config endpoints' parameter that lists keys to remove.
const deleteParam = "delete"

// configIDPattern is PVE's pve-configid format, which names config keys and
// the items of a delete list.
var configIDPattern = lazyPattern(`^[a-zA-Z][a-zA-Z0-9_-]+$`)

// ConfigDelta is one guest config update: keys to set and keys to delete.
// The two are disjoint by construction (W16: PVE refuses a request that sets
// and deletes the same key), so the last operation on a key wins. The zero
// value is an empty delta ready to use.
//
// Keys are taken literally: qemu's "cdrom" alias of "ide2" is not resolved,
// so use "ide2".
type ConfigDelta struct {
	set     map[string]string
	deleted map[string]bool
}

// SetDeleteConflictError is PVE's refusal of a request that both sets and
// deletes Key (W16). Its text is PVE's, unbalanced quote included; PVE
// reports it as a 400 parameter error on "delete".
type SetDeleteConflictError struct {
	Key string
}

// Error returns PVE's text for the conflict.
func (e *SetDeleteConflictError) Error() string {
	return fmt.Sprintf("you can't use '-%s' and -delete %s' at the same time", e.Key, e.Key)
}

// Set makes the delta write value to key, and no longer delete key.
func (d *ConfigDelta) Set(key, value string) {
	if d.set == nil {
		d.set = make(map[string]string)
	}
	delete(d.deleted, key)
	d.set[key] = value
}

// Delete makes the delta remove key, and no longer set it.
func (d *ConfigDelta) Delete(key string) {
	if d.deleted == nil {
		d.deleted = make(map[string]bool)
	}
	delete(d.set, key)
	d.deleted[key] = true
}

// Forget drops key from the delta: it is neither set nor deleted.
func (d *ConfigDelta) Forget(key string) {
	delete(d.set, key)
	delete(d.deleted, key)
}

// Get returns the value the delta sets for key.
func (d *ConfigDelta) Get(key string) (string, bool) {
	value, ok := d.set[key]
	return value, ok
}

// IsDeleted reports whether the delta deletes key.
func (d *ConfigDelta) IsDeleted(key string) bool {
	return d.deleted[key]
}

// IsEmpty reports whether the delta changes nothing. PVE refuses an empty
// config update ("no options specified"), so callers skip the request.
func (d *ConfigDelta) IsEmpty() bool {
	return len(d.set) == 0 && len(d.deleted) == 0
}

// SetKeys returns the keys the delta sets, sorted.
func (d *ConfigDelta) SetKeys() []string {
	return sortedKeys(d.set)
}

// Deleted returns the keys the delta deletes, sorted.
func (d *ConfigDelta) Deleted() []string {
	keys := make([]string, 0, len(d.deleted))
	for k := range d.deleted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Merge applies other's operations after d's: where both touch a key, other
// wins.
func (d *ConfigDelta) Merge(other *ConfigDelta) {
	if other == nil {
		return
	}
	for k, v := range other.set {
		d.Set(k, v)
	}
	for k := range other.deleted {
		d.Delete(k)
	}
}

// Clone returns an independent copy of d.
func (d *ConfigDelta) Clone() *ConfigDelta {
	c := &ConfigDelta{}
	c.Merge(d)
	return c
}

// Validate checks the keys, which PVE would refuse on sight: every set or
// deleted key must be a PVE config ID, and none may be "delete", which would
// collide with the delete list. Values are not checked: they travel as form
// values, and some (description, W20) keep newlines verbatim.
func (d *ConfigDelta) Validate() error {
	for _, k := range d.SetKeys() {
		if err := checkConfigKey(k); err != nil {
			return err
		}
	}
	for _, k := range d.Deleted() {
		if err := checkConfigKey(k); err != nil {
			return err
		}
	}
	return nil
}

func checkConfigKey(key string) error {
	if key == deleteParam {
		return fmt.Errorf("config key %q collides with the delete list", key)
	}
	if !configIDPattern().MatchString(key) {
		return fmt.Errorf("invalid configuration ID '%s'", key)
	}
	return nil
}

// Values returns the delta as form values: each set key with its value, and
// the deleted keys sorted and joined with "," under "delete", omitted when
// nothing is deleted.
func (d *ConfigDelta) Values() url.Values {
	values := make(url.Values, len(d.set)+1)
	for k, v := range d.set {
		values.Set(k, v)
	}
	if len(d.deleted) > 0 {
		values.Set(deleteParam, strings.Join(d.Deleted(), ","))
	}
	return values
}

// ConfigDeltaFromValues reads a config update request's form values, the
// inverse of Values: "delete" is split as PVE splits lists (SplitList) and
// every other key is a key to set. Strip path and control parameters (node,
// vmid, digest, skiplock, revert) first. A key both set and deleted is PVE's
// W16 refusal, returned as *SetDeleteConflictError for the first such key in
// the delete list.
func ConfigDeltaFromValues(values url.Values) (*ConfigDelta, error) {
	delta := &ConfigDelta{}
	for k, vs := range values {
		if k == deleteParam {
			continue
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("parameter %q given %d times", k, len(vs))
		}
		delta.Set(k, vs[0])
	}
	for _, list := range values[deleteParam] {
		for _, k := range SplitList(list) {
			if _, isSet := delta.set[k]; isSet {
				return nil, &SetDeleteConflictError{Key: k}
			}
			delta.Delete(k)
		}
	}
	return delta, nil
}

// IsSetDeleteConflict reports whether err is PVE's W16 refusal.
func IsSetDeleteConflict(err error) bool {
	var conflict *SetDeleteConflictError
	return errors.As(err, &conflict)
}
