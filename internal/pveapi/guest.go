package pveapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Guest types as they appear in API paths and in /cluster/resources.
const (
	GuestTypeQemu = "qemu"
	GuestTypeLXC  = "lxc"
)

// GuestConfig is a guest's configuration as PVE reports it: key -> value in
// its string form. PVE sends numbers as strings or numbers and booleans as
// 0/1 depending on the key (W5); every value is normalised to the text PVE
// would accept back (2048 -> "2048", true -> "1"). String values are kept
// verbatim, newlines included (W20). "digest" and "lock" are included when
// present; a null value counts as absent.
type GuestConfig map[string]string

// UnmarshalJSON implements json.Unmarshaler.
func (g *GuestConfig) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("guest config: %w", err)
	}
	config := make(GuestConfig, len(raw))
	for key, value := range raw {
		text, present, err := verbatimScalar(value)
		if err != nil {
			return fmt.Errorf("guest config key %q: %w", key, err)
		}
		if present {
			config[key] = text
		}
	}
	*g = config
	return nil
}

// Lock returns the config lock (W10), "" when the guest is not locked.
func (g GuestConfig) Lock() string { return g["lock"] }

// Digest returns the config digest, which a write can pass back to refuse
// changes made in between.
func (g GuestConfig) Digest() string { return g["digest"] }

// verbatimScalar renders one JSON value as the text PVE means by it. Unlike
// scalarText it does not trim strings: a description must survive as
// written (W20). Objects and arrays, which no config key is known to use,
// keep their compact JSON text rather than failing the whole read.
func verbatimScalar(value json.RawMessage) (text string, present bool, err error) {
	trimmed := bytes.TrimSpace(value)
	if len(trimmed) == 0 || bytes.Equal(trimmed, jsonNull) {
		return "", false, nil
	}
	switch trimmed[0] {
	case '"':
		var s string
		if err := json.Unmarshal(trimmed, &s); err != nil {
			return "", false, err
		}
		return s, true, nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(trimmed, &b); err != nil {
			return "", false, err
		}
		return FormBool(b), true, nil
	case '{', '[':
		var compact bytes.Buffer
		if err := json.Compact(&compact, trimmed); err != nil {
			return "", false, err
		}
		return compact.String(), true, nil
	}
	// A number keeps its JSON spelling: no float round trip may turn a
	// large integer or "1.50" into something PVE did not send.
	var n json.Number
	if err := json.Unmarshal(trimmed, &n); err != nil {
		return "", false, err
	}
	return n.String(), true, nil
}

// PendingEntry is one key of GET .../pending: the current value and a
// change that waits for the next guest restart (a value to set, or a
// delete). HasValue and HasPending tell an absent value from an empty one.
type PendingEntry struct {
	Key        string
	Value      string
	HasValue   bool
	Pending    string
	HasPending bool
	// Delete is 0 (no pending delete), 1 (delete pending) or 2 (forced
	// delete pending).
	Delete int
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *PendingEntry) UnmarshalJSON(data []byte) error {
	var raw struct {
		Key     StringOrNumber  `json:"key"`
		Value   json.RawMessage `json:"value"`
		Pending json.RawMessage `json:"pending"`
		Delete  IntOrString     `json:"delete"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("pending entry: %w", err)
	}
	entry := PendingEntry{Key: raw.Key.String(), Delete: raw.Delete.Int()}
	var err error
	if entry.Value, entry.HasValue, err = verbatimScalar(raw.Value); err != nil {
		return fmt.Errorf("pending entry %q value: %w", entry.Key, err)
	}
	if entry.Pending, entry.HasPending, err = verbatimScalar(raw.Pending); err != nil {
		return fmt.Errorf("pending entry %q pending value: %w", entry.Key, err)
	}
	*p = entry
	return nil
}

// DeletePending reports a delete that waits for the next restart.
func (p PendingEntry) DeletePending() bool { return p.Delete > 0 }

// Power states reported by GuestStatus.PowerState. Other QMP run states
// (inmigrate, postmigrate, io-error, guest-panicked, ...) are passed
// through as PVE names them.
const (
	PowerRunning   = "running"
	PowerStopped   = "stopped"
	PowerPaused    = "paused"
	PowerSuspended = "suspended" // suspended to RAM by the guest (QMP state)
	PowerPrelaunch = "prelaunch"
	// PowerHibernated is a VM suspended to disk: its process is stopped and
	// its config carries lock "suspended" (W10). Starting it resumes it.
	PowerHibernated = "hibernated"
	PowerUnknown    = "unknown"
)

// HAStatus is the "ha" member of status/current.
type HAStatus struct {
	Managed bool
	State   string // e.g. started, stopped, disabled; empty when not managed
	Group   string
}

// GuestStatus is GET .../status/current of a VM or container.
type GuestStatus struct {
	VMID      int
	Status    string // running or stopped: the process, not the guest (W18)
	QMPStatus string // qemu only: running, paused, prelaunch, suspended, ...
	Lock      string
	Name      string
	Tags      string
	Template  bool
	Uptime    int64 // seconds
	PID       int
	CPUs      float64
	Mem       int64 // bytes
	MaxMem    int64 // bytes
	MaxDisk   int64 // bytes
	Agent     bool  // qemu only: the guest agent is enabled in the config
	HA        HAStatus

	RunningMachine string // qemu only, while running
	RunningQEMU    string // qemu only, while running
}

// guestStatusWire is the shape PVE sends, decoded leniently (W5).
type guestStatusWire struct {
	VMID           IntOrString    `json:"vmid"`
	Status         string         `json:"status"`
	QMPStatus      string         `json:"qmpstatus"`
	Lock           string         `json:"lock"`
	Name           StringOrNumber `json:"name"`
	Tags           StringOrNumber `json:"tags"`
	Template       Bool01         `json:"template"`
	Uptime         IntOrString    `json:"uptime"`
	PID            IntOrString    `json:"pid"`
	CPUs           FloatOrString  `json:"cpus"`
	Mem            IntOrString    `json:"mem"`
	MaxMem         IntOrString    `json:"maxmem"`
	MaxDisk        IntOrString    `json:"maxdisk"`
	Agent          Bool01         `json:"agent"`
	RunningMachine string         `json:"running-machine"`
	RunningQEMU    string         `json:"running-qemu"`
	HA             struct {
		Managed Bool01         `json:"managed"`
		State   string         `json:"state"`
		Group   StringOrNumber `json:"group"`
	} `json:"ha"`
}

func (w guestStatusWire) status() *GuestStatus {
	return &GuestStatus{
		VMID:           w.VMID.Int(),
		Status:         w.Status,
		QMPStatus:      w.QMPStatus,
		Lock:           w.Lock,
		Name:           w.Name.String(),
		Tags:           w.Tags.String(),
		Template:       bool(w.Template),
		Uptime:         int64(w.Uptime),
		PID:            w.PID.Int(),
		CPUs:           float64(w.CPUs),
		Mem:            int64(w.Mem),
		MaxMem:         int64(w.MaxMem),
		MaxDisk:        int64(w.MaxDisk),
		Agent:          bool(w.Agent),
		RunningMachine: w.RunningMachine,
		RunningQEMU:    w.RunningQEMU,
		HA: HAStatus{
			Managed: bool(w.HA.Managed),
			State:   w.HA.State,
			Group:   w.HA.Group.String(),
		},
	}
}

// PowerState tells what the guest is doing, which "status" alone does not
// (W18): a paused VM has status running and qmpstatus paused, a VM
// suspended to RAM has qmpstatus suspended, one still waiting for its first
// instruction prelaunch. A stopped VM with lock "suspended" is hibernated.
// Containers have no QMP state and are running or stopped.
func (s GuestStatus) PowerState() string {
	switch s.Status {
	case "running":
		if s.QMPStatus == "" {
			return PowerRunning
		}
		return s.QMPStatus
	case "stopped":
		if s.Lock == lockSuspended {
			return PowerHibernated
		}
		return PowerStopped
	case "":
		return PowerUnknown
	}
	return s.Status
}

// guestPath is /nodes/{node}/{qemu|lxc}/{vmid} followed by suffix
// ("" or "/config", "/status/start", ...).
func guestPath(node, guestType string, vmid int, suffix string) string {
	return "/nodes/" + url.PathEscape(node) + "/" + guestType + "/" + strconv.Itoa(vmid) + suffix
}

// postForUPID sends a write that answers with a task id (W8). An empty
// UPID means PVE did the work synchronously (W9); WaitTask accepts it.
func (c *Client) postForUPID(ctx context.Context, path string, form url.Values) (string, error) {
	var upid string
	if err := c.Post(ctx, path, form, &upid); err != nil {
		return "", err
	}
	return upid, nil
}

// FindGuest looks a VM or container up by VMID with one GET
// /cluster/resources?type=vm, which covers every node. found is false only
// when no entry carries the id. An entry mid-clone has no name and a lock
// (W11): it is returned like any other, so callers treat it as present
// (Resource.InProgress) and never create over it. Check Type to tell qemu
// from lxc.
func (c *Client) FindGuest(ctx context.Context, vmid int) (guest *Resource, found bool, err error) {
	resources, err := c.ClusterResources(ctx, "vm")
	if err != nil {
		return nil, false, err
	}
	for i := range resources {
		if resources[i].IsGuest() && resources[i].VMID.Int() == vmid {
			entry := resources[i]
			return &entry, true, nil
		}
	}
	return nil, false, nil
}

// checkConfigUpdate refuses what PVE refuses on sight in a config update:
// nothing to change, and a key that is both set and deleted (W16).
func checkConfigUpdate(params url.Values) error {
	if len(params) == 0 {
		return errors.New("pve: config update without parameters")
	}
	if _, err := wire.ConfigDeltaFromValues(params); err != nil {
		return fmt.Errorf("pve: config update: %w", err)
	}
	return nil
}

// cloneValues copies v, so a call can add parameters without touching the
// caller's map.
func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+1)
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
