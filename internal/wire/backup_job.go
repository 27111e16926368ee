package wire

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Cluster backup jobs (/cluster/backup): the options of a job as they
// travel in POST and PUT, which are the vzdump options plus schedule,
// enabled, comment and repeat-missed (pve-manager PVE/API2/Backup.pm,
// pve-guest-common src/PVE/VZDump/Common.pm). The API answers fleecing,
// performance and prune-backups as objects but takes them as property
// strings; BackupJobOptionsFromAPI turns an answer into the form a write
// sends, so the two compare.

// BackupJobRootOnlyKeys are the options PVE lets only root@pam (with a
// password: a token's user is "root@pam!name") set or delete
// (assert_param_permission_common).
var BackupJobRootOnlyKeys = []string{"dumpdir", "script", "tmpdir"}

// BackupJobOptionsFromAPI flattens a job as GET answers it into the
// options a write sends: objects become property strings (keys sorted, as
// PVE prints them), numbers and booleans decimal text. The section type,
// the id and next-run are not options and are left out.
func BackupJobOptionsFromAPI(raw map[string]any) map[string]string {
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		switch k {
		case "id", "type", "next-run", "digest":
			continue
		}
		if obj, ok := v.(map[string]any); ok {
			m := make(map[string]string, len(obj))
			for pk, pv := range obj {
				m[pk] = scalarText(pv)
			}
			if k == "prune-backups" {
				if p, err := PruneBackupsFromMap(m); err == nil {
					out[k] = p.String()
					continue
				}
			}
			out[k] = FormatPropertyString(m, "")
			continue
		}
		out[k] = scalarText(v)
	}
	return out
}

// scalarText prints a JSON scalar as PVE's form would carry it (W5:
// numbers may come as strings or numbers).
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return Bool(x)
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return fmt.Sprint(v)
}

// BackupJobDelta is the PUT that turns the options from into to: changed
// and new keys are set, dropped keys deleted. enabled cannot be deleted
// (update_job's delete list takes only vzdump options, comment and
// repeat-missed: "unknown option 'enabled'"), so dropping it sets the
// default, 1. The selection keys need no deletes PVE makes itself: setting
// vmid drops all, exclude and pool; all drops vmid and pool; pool drops
// vmid, all and exclude (update_job); the delta still lists them, which
// PVE accepts (W16 holds: no key is both set and deleted).
func BackupJobDelta(from, to map[string]string) *ConfigDelta {
	d := &ConfigDelta{}
	for _, k := range sortedKeys(to) {
		if v, ok := from[k]; !ok || v != to[k] {
			d.Set(k, to[k])
		}
	}
	for _, k := range sortedKeys(from) {
		if _, ok := to[k]; ok {
			continue
		}
		switch k {
		case "enabled":
			if from[k] != "1" {
				d.Set(k, "1")
			}
		case "schedule":
			// Always declared; never deleted.
		default:
			d.Delete(k)
		}
	}
	return d
}

// FormatVMIDList prints guest ids as PVE's pve-vmid-list, ascending.
func FormatVMIDList(ids []int64) string {
	s := slices.Clone(ids)
	slices.Sort(s)
	parts := make([]string, len(s))
	for i, id := range s {
		parts[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(parts, ",")
}

// ParseVMIDList reads a pve-vmid-list (commas, semicolons, spaces or NULs
// between ids, as PVE::Tools::split_list); entries that are not numbers
// are skipped.
func ParseVMIDList(s string) []int64 {
	var out []int64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == 0
	}) {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var (
	notesEscape   = regexp.MustCompile(`\\(.)`)
	notesVariable = regexp.MustCompile(`\{\{([^\s{}]+)\}\}`)
)

// NotesTemplateProblem is PVE's check of a notes template (pve-manager
// PVE/VZDump.pm $verify_notes_template): one line, only the \n and \\
// escapes, only the {{cluster}}, {{guestname}}, {{node}} and {{vmid}}
// variables. It returns "" or what is wrong.
func NotesTemplateProblem(t string) string {
	if strings.Contains(t, "\n") {
		return "the notes template contains a line feed; write \\n for a new line"
	}
	var bad []string
	for _, m := range notesEscape.FindAllStringSubmatch(t, -1) {
		if m[1] != "n" && m[1] != `\` {
			bad = append(bad, "escape sequence '\\"+m[1]+"'")
		}
	}
	for _, m := range notesVariable.FindAllStringSubmatch(t, -1) {
		switch m[1] {
		case "cluster", "guestname", "node", "vmid":
		default:
			bad = append(bad, "variable '{{"+m[1]+"}}'")
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "the notes template has " + strings.Join(bad, ", ") +
		"; PVE knows the variables {{cluster}}, {{guestname}}, {{node}} and {{vmid}} and the escapes \\n and \\\\"
}

// configIDRE is pve-configid (pve-common JSONSchema.pm parse_config_id).
var configIDRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9_-]+$`)

// IsBackupJobID tells whether s is a job id the provider creates: PVE's
// create takes a pve-configid of up to 64 characters (pve-common
// src/PVE/Job/Registry.pm), but reads, updates and deletes a job only by
// an id of at most 50 (pve-backup-jobid, pve-manager PVE/VZDump.pm), so a
// longer one could not be managed afterwards.
func IsBackupJobID(s string) bool { return len(s) <= 50 && configIDRE.MatchString(s) }

// IsBackupJobRef tells whether s can name an existing job: pve-backup-jobid,
// non-blank characters, at most 50. Jobs PVE named itself (a UUID, when a
// create had no id) are not pve-configids.
func IsBackupJobRef(s string) bool {
	return s != "" && len(s) <= 50 && !strings.ContainsFunc(s, unicode.IsSpace)
}
