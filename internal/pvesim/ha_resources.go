package pvesim

import (
	"crypto/sha1" //nolint:gosec // PVE's section config digest is SHA-1
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// haResourceOptions are the options of the vm and ct resource types
// (pve-ha-manager src/PVE/HA/Resources/PVEVM.pm and PVECT.pm options),
// all optional; PVE 8.4 (pve-ha-manager 4.0) has no failback.
func haResourceOptions(pve8 bool) map[string]bool {
	opts := map[string]bool{"state": true, "group": true, "comment": true, "max_restart": true, "max_relocate": true}
	if !pve8 {
		opts["failback"] = true
	}
	return opts
}

// haSIDPattern is parse_sid's "type:name" form.
var haSIDPattern = regexp.MustCompile(`^(\S+):(\S+)$`)

// haVMIDName is the resource name the vm and ct types accept
// (pve-ha-manager src/PVE/HA/Resources/PVEVM.pm verify_name: at least
// two digits, no leading zero).
var haVMIDName = regexp.MustCompile(`^[1-9][0-9]+$`)

// haParseSID is parse_sid: "vm:100", "ct:101", or a bare VMID whose type
// comes from the guest list.
// pve-ha-manager src/PVE/HA/Config.pm parse_sid (PVE 9) and 4.0's, whose
// message has the "unable do detect" typo (PVE 8.4).
func (cl *Cluster) haParseSID(raw string, pve8 bool) (sid, typ, name string, err error) {
	if isAllDigits(raw) {
		vmid, _ := strconv.Atoi(raw)
		g := cl.Guests[vmid]
		// The guest list is keyed by the VMID as PVE writes it, so "0100"
		// names no guest.
		if g == nil || raw != strconv.Itoa(vmid) {
			verb := "to"
			if pve8 {
				verb = "do"
			}
			return "", "", "", errorf("unable %s detect SID from VMID - VM/CT %s does not exist", verb, raw)
		}
		typ = haTypeOf(g.Type)
		return typ + ":" + raw, typ, raw, nil
	}
	m := haSIDPattern.FindStringSubmatch(raw)
	if m == nil {
		return "", "", "", errorf("unable to parse service id '%s'", raw)
	}
	return raw, m[1], m[2], nil
}

func isAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// haTypeOf is get_ha_resource_type (pve-ha-manager src/PVE/HA/Tools.pm).
func haTypeOf(t GuestType) string {
	if t == LXC {
		return "ct"
	}
	return "vm"
}

// haCheckExists is the resource plugin's verify_name and exists
// (pve-ha-manager src/PVE/HA/Resources/PVEVM.pm and PVECT.pm), after
// PVE::HA::Resources->lookup (pve-common src/PVE/SectionConfig.pm lookup)
// has refused an unknown type.
func (cl *Cluster) haCheckExists(typ, name string) error {
	if typ != "vm" && typ != "ct" {
		return errorf("unknown section type '%s'", typ)
	}
	if !haVMIDName.MatchString(name) {
		return errorf("invalid VMID")
	}
	vmid, _ := strconv.Atoi(name)
	g := cl.Guests[vmid]
	if g == nil {
		return errorf("resource '%s:%s' does not exist in cluster", typ, name)
	}
	if typ == "vm" && g.Type != QEMU {
		return errorf("resource 'vm:%s' - guest with ID %s is not a VM", name, name)
	}
	if typ == "ct" && g.Type != LXC {
		return errorf("resource 'ct:%s' - guest with ID %s is not a container", name, name)
	}
	return nil
}

// haCheckLineFeeds is write_config's refusal of a value with a line feed
// (pve-common src/PVE/SectionConfig.pm format_config_line).
func haCheckLineFeeds(props map[string]string) error {
	for _, k := range sortedKeys(props) {
		if strings.ContainsAny(props[k], "\r\n") {
			return errorf("property '%s' contains a line feed", k)
		}
	}
	return nil
}

// haResourcesDigest is the section config digest of ha/resources.cfg: the
// SHA-1 of the file as write_config renders it ("type: name" headers,
// "\tkey value" lines, empty values left out).
func (h *HAState) haResourcesDigest() string {
	var b strings.Builder
	for _, sid := range sortedKeys(h.Resources) {
		r := h.Resources[sid]
		typ, name, _ := strings.Cut(sid, ":")
		b.WriteString(typ + ": " + name + "\n")
		for _, k := range sortedKeys(r.Props) {
			if r.Props[k] != "" {
				b.WriteString("\t" + k + " " + r.Props[k] + "\n")
			}
		}
		b.WriteString("\n")
	}
	sum := sha1.Sum([]byte(b.String())) //nolint:gosec // see the import
	return hex.EncodeToString(sum[:])
}

// haRequestedState is the resource's requested state with
// read_and_check_resources_config's defaults: absent is started and
// 'enabled' is an alias of started (pve-ha-manager src/PVE/HA/Config.pm).
func (r *HAResource) haRequestedState() string {
	switch st := r.Props["state"]; st {
	case "", "enabled":
		return "started"
	default:
		return st
	}
}

// haIntProp is a numeric option with its default of 1
// (read_and_check_resources_config: max_restart, max_relocate).
func (r *HAResource) haIntProp(key string) int {
	if v, ok := r.Props[key]; ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return 1
}

// haManaged is service_is_ha_managed / vm_is_ha_managed without a state:
// the guest has an HA resource (vm: or ct:) whose requested state is not
// 'ignored' (pve-ha-manager src/PVE/HA/Config.pm vm_is_ha_managed). Guest
// endpoints use it to turn start, stop and migrate into HA requests.
func (cl *Cluster) haManaged(vmid int) bool {
	for _, typ := range []string{"vm", "ct"} {
		if r := cl.HA.Resources[typ+":"+strconv.Itoa(vmid)]; r != nil {
			return r.Props["state"] != "ignored"
		}
	}
	return false
}

// haCheckServiceState is check_service_state: a managed service in the
// CRM's error state only takes a request to disable it.
// pve-ha-manager src/PVE/API2/HA/Resources.pm check_service_state.
func (cl *Cluster) haCheckServiceState(sid, reqState string) error {
	r := cl.HA.Resources[sid]
	if r == nil || r.Props["state"] == "ignored" {
		return nil
	}
	ss := cl.HA.Manager.Services[sid]
	if ss == nil || ss.State != "error" {
		return nil
	}
	if reqState == "disabled" {
		return nil
	}
	return errorf("service '%s' in error state, must be disabled and fixed first", sid)
}

// haRequestMove queues a migrate (or, with relocate, a relocate) command
// for the service, as POST /cluster/ha/resources/{sid}/migrate|relocate
// does after its checks: the service must be HA managed and not in the
// error state. The manager carries it out in its next rounds (migrate,
// then started on the target). Guest endpoints use it for an HA-managed
// guest's migration ('hamigrate').
// pve-ha-manager src/PVE/API2/HA/Resources.pm migrate, relocate;
// src/PVE/HA/Config.pm queue_crm_commands.
func (cl *Cluster) haRequestMove(sid, node string, relocate bool) error {
	r := cl.HA.Resources[sid]
	if r == nil || r.Props["state"] == "ignored" {
		return errorf("resource '%s' is not HA managed", sid)
	}
	if err := cl.haCheckServiceState(sid, ""); err != nil {
		return err
	}
	verb := "migrate"
	if relocate {
		verb = "relocate"
	}
	cl.HA.Commands = append(cl.HA.Commands, verb+" "+sid+" "+node)
	return nil
}

// haDeleteResource is delete_service_from_config: the entry goes, and
// with purge the sid leaves every rule naming it; a rule left without
// resources goes too (pve-ha-manager src/PVE/HA/Config.pm, PVE 9).
func (cl *Cluster) haDeleteResource(sid string, purge bool) {
	delete(cl.HA.Resources, sid)
	if !purge {
		return
	}
	for id, rule := range cl.HA.Rules {
		res, ok := rule.Props["resources"]
		if !ok {
			continue
		}
		var kept []string
		for _, s := range splitList(res) {
			if s != sid {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			delete(cl.HA.Rules, id)
			continue
		}
		rule.Props["resources"] = strings.Join(kept, ",")
	}
}

// haPurgeGuest is destroy's purge of the guest's HA resource: the
// entry goes with delete_service_from_config(sid, purge), so the rules
// lose it too, and the task log says so.
// qemu-server src/PVE/API2/Qemu.pm and pve-container
// src/PVE/API2/LXC.pm destroy_vm ("NOTE: removed VM|CT ... from HA
// resource configuration.").
func haPurgeGuest(cl *Cluster, vmid int, t *Task) {
	id := strconv.Itoa(vmid)
	for _, sid := range []string{"vm:" + id, "ct:" + id} {
		if cl.HA.Resources[sid] == nil {
			continue
		}
		cl.haDeleteResource(sid, true)
		if t != nil {
			kind := "VM"
			if strings.HasPrefix(sid, "ct:") {
				kind = "CT"
			}
			t.Log("NOTE: removed %s %d from HA resource configuration.", kind, vmid)
		}
	}
}

// haDestroyCheck is destroy_vm's early HA check: a guest with an HA
// resource (any state) is refused unless purge is set.
// qemu-server src/PVE/API2/Qemu.pm destroy_vm $early_checks and
// pve-container src/PVE/API2/LXC.pm destroy_vm.
func haDestroyCheck(cl *Cluster, g *Guest, purge bool) error {
	sid := haSIDOf(g)
	if purge || cl.HA.Resources[sid] == nil {
		return nil
	}
	if g.Type == LXC {
		return errorf("unable to remove CT %d - used in HA resources and purge parameter not set.", g.VMID)
	}
	return errorf("unable to remove VM %d - used in HA resources and purge parameter not set.", g.VMID)
}

// haResourceAffinity is what get_resource_motion_info reads from the
// resource-affinity rules: the services kept together with sid and those
// kept apart from it (enabled rules only).
// pve-ha-manager src/PVE/HA/Config.pm get_resource_motion_info,
// src/PVE/HA/Rules/ResourceAffinity.pm get_affinitive_resources.
func (cl *Cluster) haResourceAffinity(sid string) (together, separate []string) {
	tog, sep := map[string]bool{}, map[string]bool{}
	for _, id := range sortedKeys(cl.HA.Rules) {
		rule := cl.HA.Rules[id]
		if rule.Type != "resource-affinity" || pvegrammarTrue(rule.Props["disable"]) {
			continue
		}
		members := splitList(rule.Props["resources"])
		if !containsString(members, sid) {
			continue
		}
		for _, m := range members {
			if m == sid {
				continue
			}
			if rule.Props["affinity"] == "negative" {
				sep[m] = true
			} else {
				tog[m] = true
			}
		}
	}
	together, separate = sortedKeys(tog), sortedKeys(sep)
	return together, separate
}

func pvegrammarTrue(v string) bool { return v == "1" }

// haMotionInfo is get_resource_motion_info for a migrate or relocate
// answer (PVE 9): the services moved along (positive affinity) and, for
// the requested node, the services blocking it (negative affinity).
func (cl *Cluster) haMotionInfo(sid, node string) (comigrated []string, blocking []map[string]any) {
	r := cl.HA.Resources[sid]
	if r == nil || r.Props["state"] == "ignored" {
		return nil, nil
	}
	together, separate := cl.haResourceAffinity(sid)
	ss := cl.HA.Manager.Services
	for _, csid := range together {
		if s := ss[csid]; s != nil {
			comigrated = append(comigrated, csid)
		}
	}
	if cl.HA.Manager.NodeStatus[node] != "online" {
		return comigrated, nil
	}
	for _, csid := range separate {
		s := ss[csid]
		if s == nil {
			continue
		}
		if s.Node != "" && s.Node != node {
			continue
		}
		if s.Target != "" && s.Target != node {
			continue
		}
		blocking = append(blocking, map[string]any{"sid": csid, "cause": "resource-affinity"})
	}
	sort.Slice(blocking, func(i, j int) bool { return blocking[i]["sid"].(string) < blocking[j]["sid"].(string) })
	return comigrated, blocking
}

// haGuestState is a guest's "hastate" in /cluster/resources: its CRM
// state, or the requested state of a resource the CRM has not taken up
// yet; "" for a guest without an HA resource.
// pve-manager PVE/API2/Cluster.pm resources.
func (cl *Cluster) haGuestState(g *Guest) string {
	sid := haSIDOf(g)
	if sd := cl.HA.Manager.Services[sid]; sd != nil {
		return sd.State
	}
	if r := cl.HA.Resources[sid]; r != nil {
		return r.haRequestedState()
	}
	return ""
}

// haSetRequestedState is `ha-manager set SID --state STATE`, what an
// HA-managed guest's start runs in its 'hastart' worker (qemu-server
// src/PVE/API2/Qemu.pm vm_start, pve-container src/PVE/API2/LXC.pm
// vm_start): the update API's checks (check_service_state), then the
// state in the resources file. The manager acts on it in its next rounds.
// pve-ha-manager src/PVE/API2/HA/Resources.pm update.
func (cl *Cluster) haSetRequestedState(sid, state string) error {
	if err := cl.haCheckServiceState(sid, state); err != nil {
		return err
	}
	r := cl.HA.Resources[sid]
	if r == nil {
		return wrapLockError("update resources config failed", errorf("no such resource '%s'", sid))
	}
	r.Props["state"] = state
	return nil
}

// haRequestStop is `ha-manager crm-command stop SID TIMEOUT`, what an
// HA-managed guest's stop (timeout 0) and shutdown run in their 'hastop'
// worker (qemu-server src/PVE/API2/Qemu.pm vm_stop, vm_shutdown): a stop
// command for the manager, which sets the requested state to stopped and
// stops the guest (Manager.pm next_state_started, cmd 'stop').
// pve-ha-manager src/PVE/CLI/ha_manager.pm stop: the service must be HA
// managed and not in the error state.
func (cl *Cluster) haRequestStop(sid string, timeout int) error {
	r := cl.HA.Resources[sid]
	if r == nil || r.Props["state"] == "ignored" {
		return errorf("resource '%s' is not HA managed", sid)
	}
	if err := cl.haCheckServiceState(sid, ""); err != nil {
		return err
	}
	cl.HA.Commands = append(cl.HA.Commands, "stop "+sid+" "+strconv.Itoa(timeout))
	return nil
}
