package pvesim

import (
	"crypto/rand"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// BackupJob is one "vzdump" section of jobs.cfg: a cluster backup job.
// pve-common src/PVE/Job/Registry.pm and pve-guest-common
// src/PVE/VZDump/JobBase.pm: the section id is the job id, the options are
// the vzdump options plus schedule, enabled, comment and repeat-missed.
type BackupJob struct {
	ID string
	// Props are the options as jobs.cfg stores them: property strings
	// (fleecing, performance, prune-backups) as strings, lists joined
	// with commas.
	Props map[string]string
	// order is the section's position in jobs.cfg, which the listing
	// follows.
	order int
}

// BackupJobs is jobs.cfg's vzdump part.
type BackupJobs struct {
	Jobs map[string]*BackupJob
	next int
}

func newBackupJobs() *BackupJobs { return &BackupJobs{Jobs: map[string]*BackupJob{}} }

// add stores a new job at the end of jobs.cfg.
func (b *BackupJobs) add(id string, props map[string]string) *BackupJob {
	b.next++
	j := &BackupJob{ID: id, Props: props, order: b.next}
	b.Jobs[id] = j
	return j
}

// sorted is the jobs in jobs.cfg order (pve-manager PVE/API2/Backup.pm
// index sorts by the section order).
func (b *BackupJobs) sorted() []*BackupJob {
	out := make([]*BackupJob, 0, len(b.Jobs))
	for _, j := range b.Jobs {
		out = append(out, j)
	}
	sort.Slice(out, func(i, k int) bool { return out[i].order < out[k].order })
	return out
}

// backupJobOwnKeys are the options of a job that are not vzdump options:
// pve-manager PVE/API2/Backup.pm update_job lets only comment and
// repeat-missed of them be deleted ($deletable); schedule and enabled
// cannot.
var backupJobOwnKeys = map[string]bool{
	"id": true, "schedule": true, "starttime": true, "dow": true, "enabled": true,
	"repeat-missed": true, "comment": true, "delete": true,
}

// backupRootOnlyKeys are the options only root@pam may set.
// pve-manager PVE/API2/Backup.pm assert_param_permission_common.
var backupRootOnlyKeys = []string{"tmpdir", "dumpdir", "script", "job-id"}

// newJobUUID is the id create_job gives a job created without one:
// pve-manager PVE/API2/Backup.pm create_job, UUID::uuid() (a lowercase
// random UUID).
func newJobUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// convertToSchedule turns the deprecated starttime/dow pair into a
// schedule. pve-manager PVE/API2/Backup.pm $convert_to_schedule: no dow or
// every day means the time alone.
func convertToSchedule(starttime, dow string) string {
	if dow == "" {
		return starttime
	}
	d := strings.Join(pvegrammar.SplitList(dow), ",")
	if d == "mon,tue,wed,thu,fri,sat,sun" {
		return starttime
	}
	return d + " " + starttime
}

// scheduleParamCheck is pve-manager PVE/API2/Backup.pm
// $schedule_param_check: schedule and starttime exclude each other,
// starttime/dow become a schedule, and create needs one of them.
func scheduleParamCheck(params map[string]string, required bool) error {
	_, hasSchedule := params["schedule"]
	starttime, hasStart := params["starttime"]
	switch {
	case hasSchedule:
		if hasStart {
			return paramError(map[string]string{"starttime": "'starttime' and 'schedule' cannot both be set"})
		}
	case !hasStart:
		if required {
			return paramError(map[string]string{"schedule": "neither 'starttime' nor 'schedule' were set"})
		}
	default:
		params["schedule"] = convertToSchedule(starttime, params["dow"])
	}
	delete(params, "starttime")
	delete(params, "dow")
	return nil
}

// verifyVzdumpParameters is pve-manager PVE/VZDump.pm
// verify_vzdump_parameters: the selection options that conflict with a
// guest list, the notes template, exclude without pool meaning all, and
// (checkMissing) that the job selects something.
func verifyVzdumpParameters(p map[string]string, checkMissing bool) error {
	truthy := pvegrammar.PerlTruthy
	if truthy(p["vmid"]) {
		for _, k := range []string{"all", "exclude", "pool"} {
			if truthy(p[k]) {
				return paramError(map[string]string{k: "option conflicts with option 'vmid'"})
			}
		}
	}
	if t := p["notes-template"]; truthy(t) {
		if msg := verifyNotesTemplate(t); msg != "" {
			return paramError(map[string]string{"notes-template": msg})
		}
	}
	if _, ok := p["exclude"]; ok && !truthy(p["pool"]) {
		p["all"] = "1"
	}
	if !checkMissing {
		return nil
	}
	if !truthy(p["all"]) && !truthy(p["stop"]) && !truthy(p["pool"]) && !truthy(p["vmid"]) {
		return paramError(map[string]string{"vmid": "property is missing"})
	}
	return nil
}

// verifyNotesTemplate is pve-manager PVE/VZDump.pm $verify_notes_template:
// no line feed, only the \n and \\ escapes, only the cluster, guestname,
// node and vmid variables. Positions are character offsets as Perl's pos
// counts them.
func verifyNotesTemplate(t string) string {
	if strings.Contains(t, "\n") {
		return "contains a line feed\n"
	}
	r := []rune(t)
	var problems []string
	for i := 0; i+1 < len(r); i++ {
		if r[i] != '\\' {
			continue
		}
		if r[i+1] != 'n' && r[i+1] != '\\' {
			problems = append(problems, fmt.Sprintf("escape sequence '\\%c' at char %d", r[i+1], i))
		}
		i++
	}
	for i := 0; i+1 < len(r); i++ {
		if r[i] != '{' || r[i+1] != '{' {
			continue
		}
		j := i + 2
		for j < len(r) && r[j] != '{' && r[j] != '}' && !pvegrammar.IsPerlSpace(r[j]) {
			j++
		}
		if j == i+2 || j+1 >= len(r) || r[j] != '}' || r[j+1] != '}' {
			continue
		}
		name := string(r[i+2 : j])
		switch name {
		case "cluster", "guestname", "node", "vmid":
		default:
			// pos() after the closing braces minus the name's length.
			problems = append(problems, fmt.Sprintf("variable '%s' at char %d", name, i+4))
		}
		i = j + 1
	}
	if len(problems) > 0 {
		return "found unknown: " + strings.Join(problems, ", ") + "\n"
	}
	return ""
}

// includedGuests is pve-manager PVE/VZDump.pm get_included_guests, as the
// set of guest ids a job backs up: a pool's members, the guest list, or
// every guest but the excluded ones; a job bound to a node skips guests
// that live elsewhere. Listed ids of guests that do not exist count.
func (cl *Cluster) includedGuests(j *BackupJob) map[int]bool {
	truthy := pvegrammar.PerlTruthy
	var ids []int
	switch {
	case truthy(j.Props["pool"]):
		if p := cl.Pools[j.Props["pool"]]; p != nil {
			ids = append(ids, p.sortedVMs()...)
		}
	case truthy(j.Props["vmid"]):
		ids = vmidList(j.Props["vmid"])
	case truthy(j.Props["all"]):
		ex := map[int]bool{}
		for _, id := range vmidList(j.Props["exclude"]) {
			ex[id] = true
		}
		for id := range cl.Guests {
			if !ex[id] {
				ids = append(ids, id)
			}
		}
	}
	out := map[int]bool{}
	for _, id := range ids {
		if g := cl.Guests[id]; g != nil && j.Props["node"] != "" && j.Props["node"] != g.Node {
			continue
		}
		out[id] = true
	}
	return out
}

func vmidList(s string) []int {
	var out []int
	for _, f := range pvegrammar.SplitList(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// removeVMIDFromBackupJobs is pve-guest-common src/PVE/VZDump/Plugin.pm
// remove_vmid_from_backup_jobs (remove_vmid_from_job): the id leaves a
// job's guest list, and a job whose list becomes empty is deleted; in a
// job that backs up all guests it leaves the exclude list, which is
// dropped when empty.
func (cl *Cluster) removeVMIDFromBackupJobs(vmid int) {
	drop := func(list string) string {
		var keep []string
		for _, f := range pvegrammar.SplitList(list) {
			if f != strconv.Itoa(vmid) {
				keep = append(keep, f)
			}
		}
		return strings.Join(keep, ",")
	}
	for id, j := range cl.BackupJobs.Jobs {
		if v, ok := j.Props["vmid"]; ok {
			if rest := drop(v); rest != "" {
				j.Props["vmid"] = rest
			} else {
				delete(cl.BackupJobs.Jobs, id)
			}
			continue
		}
		if v, ok := j.Props["exclude"]; ok {
			if rest := drop(v); rest != "" {
				j.Props["exclude"] = rest
			} else {
				delete(j.Props, "exclude")
			}
		}
	}
}
