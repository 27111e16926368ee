package pvesim

import (
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"strconv"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

// defaultTaskFailure is the exit status of a worker that was killed, as
// PVE's fork_worker reports it.
const defaultTaskFailure = "interrupted by signal"

// guestPathPattern finds the guest a request path names.
var guestPathPattern = regexp.MustCompile(`^/nodes/[^/]+/(qemu|lxc)/([0-9]+)(?:/|$)`)

// GuestLockFile is the flock file PVE holds while it changes a guest's
// config (qemu-server's and pve-container's lock_config).
func GuestLockFile(typ GuestType, vmid int) string {
	if typ == LXC {
		return fmt.Sprintf("/run/lock/lxc/pve-config-%d.lock", vmid)
	}
	return fmt.Sprintf("/var/lock/qemu-server/lock-%d.conf", vmid)
}

// GuestLockTimeout is lock_file_full's error when the guest's flock stayed
// busy for longer than the caller waits (10 s for a config change, 1 s for
// a clone's source and target): the text of a FaultLockTimeout answer, and
// a Message for FaultTaskFail when a worker gives up on the lock.
func GuestLockTimeout(typ GuestType, vmid int) string {
	return lockTimeoutMessage(GuestLockFile(typ, vmid))
}

func lockTimeoutMessage(file string) string {
	return fmt.Sprintf("can't lock file '%s' - got timeout", file)
}

// guestLockFile is the lock file of the guest path names, "" when it names
// none.
func guestLockFile(path string) string {
	m := guestPathPattern.FindStringSubmatch(path)
	if m == nil {
		return ""
	}
	vmid, err := strconv.Atoi(m[2])
	if err != nil {
		return ""
	}
	return GuestLockFile(GuestType(m[1]), vmid)
}

// armedTaskFault is a task failure drawn for the handler that runs now:
// every task it starts fails, and the first also undoes what the handler
// changed before it answered.
type armedTaskFault struct {
	rule    *faultRule
	message string
	before  clusterSnapshot
	doomed  []*Task
}

// handleArmed runs a handler, first drawing whether the tasks it starts
// fail. Call with the model locked.
func (s *Sim) handleArmed(c *call, rt *route, m *schema.Method, path string) (any, error) {
	armed := s.pickTaskFault(m.HTTPMethod(), path, m.Path())
	if armed == nil {
		return rt.handle(c)
	}
	armed.before = snapshotCluster(s.cluster)
	s.armed = armed
	data, err := rt.handle(c)
	s.armed = nil
	if len(armed.doomed) == 0 {
		s.hooksMu.Lock()
		armed.rule.hits-- // nothing failed: the draw does not count
		s.hooksMu.Unlock()
		return data, err
	}
	undo := armed.before.changesIn(s.cluster)
	armed.doomed[0].undo = &undo
	for _, t := range armed.doomed {
		if t.running && s.opts.TaskDuration <= 0 {
			s.finishTask(t, t.due)
		}
	}
	return data, err
}

// pickTaskFault draws the task failure for a request, if one fires. A GET
// never forks a worker, so it draws nothing.
func (s *Sim) pickTaskFault(method, path, template string) *armedTaskFault {
	if method == http.MethodGet {
		return nil
	}
	s.hooksMu.Lock()
	defer s.hooksMu.Unlock()
	for _, f := range s.faults {
		if f.Action != FaultTaskFail || !f.matches(method, path, template) {
			continue
		}
		if f.Rate > 0 && s.rng.Float64() >= f.Rate {
			continue
		}
		f.hits++
		return &armedTaskFault{rule: f, message: f.Message}
	}
	return nil
}

// doomTask marks a task the running handler starts as failing; it reports
// whether it did. Call with the model locked.
func (s *Sim) doomTask(t *Task) bool {
	if s.armed == nil {
		return false
	}
	t.failure = s.armed.message
	s.armed.doomed = append(s.armed.doomed, t)
	return true
}

// failTask ends a doomed task: its worker died before it changed anything
// and its error handling undid what the request had set up, so a failed
// create or clone leaves no guest, config or volume behind, and a failed
// resize, move, migrate, destroy or start leaves the guest as it was. The
// exit status carries the worker's own prefix.
// The prefixes are the workers' own: qemu-server src/PVE/API2/Qemu.pm create_vm
// ("$emsg $err"), pve-container src/PVE/API2/LXC.pm create_vm, and clone_vm of
// both ("clone failed: $err").
func (s *Sim) failTask(t *Task) error {
	if t.undo != nil {
		t.undo.restore(s.cluster)
	}
	switch t.Type {
	case "qmcreate":
		return errorf("unable to create VM %s - %s", t.ID, t.failure)
	case "vzcreate":
		return errorf("unable to create CT %s - %s", t.ID, t.failure)
	case "qmclone", "vzclone":
		return errorf("clone failed: %s", t.failure)
	}
	return errorf("%s", t.failure)
}

// clusterSnapshot holds copies of what a handler may change before it
// answers: guests, volumes and pools.
type clusterSnapshot struct {
	guests  map[int]Guest
	volumes map[volumeKey]Volume
	pools   map[string]Pool
}

func snapshotCluster(c *Cluster) clusterSnapshot {
	snap := clusterSnapshot{
		guests:  make(map[int]Guest, len(c.Guests)),
		volumes: make(map[volumeKey]Volume, len(c.volumes)),
		pools:   make(map[string]Pool, len(c.Pools)),
	}
	for id, g := range c.Guests {
		snap.guests[id] = g.clone()
	}
	for k, v := range c.volumes {
		snap.volumes[k] = *v
	}
	for id, p := range c.Pools {
		snap.pools[id] = p.clone()
	}
	return snap
}

// taskUndo is the state before a handler of everything it changed; a nil
// entry did not exist before.
type taskUndo struct {
	guests  map[int]*Guest
	volumes map[volumeKey]*Volume
	pools   map[string]*Pool
}

// changesIn returns the prior state of everything that differs in c.
func (snap clusterSnapshot) changesIn(c *Cluster) taskUndo {
	undo := taskUndo{guests: map[int]*Guest{}, volumes: map[volumeKey]*Volume{}, pools: map[string]*Pool{}}
	for id, g := range c.Guests {
		if before, ok := snap.guests[id]; !ok {
			undo.guests[id] = nil
		} else if !reflect.DeepEqual(before, g.clone()) {
			undo.guests[id] = &before
		}
	}
	for id, before := range snap.guests {
		if c.Guests[id] == nil {
			undo.guests[id] = &before
		}
	}
	for k, v := range c.volumes {
		if before, ok := snap.volumes[k]; !ok {
			undo.volumes[k] = nil
		} else if !reflect.DeepEqual(before, *v) {
			undo.volumes[k] = &before
		}
	}
	for k, before := range snap.volumes {
		if c.volumes[k] == nil {
			undo.volumes[k] = &before
		}
	}
	for id, p := range c.Pools {
		if before, ok := snap.pools[id]; !ok {
			undo.pools[id] = nil
		} else if !reflect.DeepEqual(before, p.clone()) {
			undo.pools[id] = &before
		}
	}
	for id, before := range snap.pools {
		if c.Pools[id] == nil {
			undo.pools[id] = &before
		}
	}
	return undo
}

// restore puts back the prior state. A guest keeps its identity (the
// pointer other code may hold) when it still exists.
func (u *taskUndo) restore(c *Cluster) {
	for id, before := range u.guests {
		switch g := c.Guests[id]; {
		case before == nil:
			delete(c.Guests, id)
		case g != nil:
			*g = before.clone()
		default:
			restored := before.clone()
			c.Guests[id] = &restored
		}
	}
	for k, before := range u.volumes {
		if before == nil {
			delete(c.volumes, k)
			continue
		}
		restored := *before
		c.volumes[k] = &restored
	}
	for id, before := range u.pools {
		switch p := c.Pools[id]; {
		case before == nil:
			delete(c.Pools, id)
		case p != nil:
			*p = before.clone()
		default:
			restored := before.clone()
			c.Pools[id] = &restored
		}
	}
}
