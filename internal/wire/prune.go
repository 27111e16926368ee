package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The prune-backups property string (retention of backups) is the format
// 'prune-backups' that pve-storage src/PVE/Storage/Plugin.pm registers with
// $prune_backups_format and the validator validate_prune_backups; storages,
// vzdump and backup jobs use it.
//
// Keys: keep-all (boolean) and keep-last, keep-hourly, keep-daily,
// keep-weekly, keep-monthly, keep-yearly (integers >= 0). PVE parses it with
// pve-common JSONSchema.pm parse_property_string, checks each key, then runs
// the validator: when no keep-* value is above zero the result is
// {keep-all=1}; otherwise a true keep-all is refused ("keep-all cannot be set
// together with other options.") and keep-all is dropped. print_property_string
// runs the same validator and prints the keys sorted.

// PruneKeepKeys are the keep-* counters of prune-backups, in PVE's print
// order (sorted).
var PruneKeepKeys = []string{"keep-daily", "keep-hourly", "keep-last", "keep-monthly", "keep-weekly", "keep-yearly"}

// PruneBackups is a parsed prune-backups value. A nil counter is absent.
type PruneBackups struct {
	// KeepAll is keep-all; nil when absent.
	KeepAll *bool
	// Keep maps each present keep-* key (see PruneKeepKeys) to its count.
	Keep map[string]int64
}

// msgPruneKeepAllConflict is validate_prune_backups's refusal.
const msgPruneKeepAllConflict = "keep-all cannot be set together with other options."

// ErrPruneKeepAllConflict is PVE's refusal of keep-all=1 with a positive
// keep-* count.
var ErrPruneKeepAllConflict = errors.New(msgPruneKeepAllConflict) //nolint:staticcheck // PVE's text ends with a full stop

// ParsePruneBackups parses and checks a prune-backups value as PVE does
// (parse_property_string, the per-key type checks, then
// validate_prune_backups). It returns the keys as given; Normalize gives
// what PVE keeps. Errors carry PVE's texts: the property-string errors, a
// per-key "format error" line such as "keep-last: value must have a minimum
// value of 0", or the keep-all conflict.
func ParsePruneBackups(s string) (PruneBackups, error) {
	raw, err := ParsePropertyString(s, "")
	if err != nil {
		return PruneBackups{}, err
	}
	return PruneBackupsFromMap(raw)
}

// PruneBackupsFromMap reads prune-backups from its keys and textual values,
// as PVE returns the setting as an object (a backup job's prune-backups in
// GET /cluster/backup/{id}, numbers possibly as strings) or as a parsed
// property string. The checks and errors are ParsePruneBackups's.
func PruneBackupsFromMap(raw map[string]string) (PruneBackups, error) {
	if err := CheckPropertyKeys(raw, append([]string{"keep-all"}, PruneKeepKeys...)...); err != nil {
		return PruneBackups{}, err
	}
	var p PruneBackups
	for _, k := range sortedKeys(raw) {
		v := raw[k]
		if k == "keep-all" {
			b, ok := parsePVEBoolean(v)
			if !ok {
				return PruneBackups{}, fmt.Errorf("format error: %s: type check ('boolean') failed - got '%s'", k, v)
			}
			p.KeepAll = &b
			continue
		}
		n, err := parsePruneCount(k, v)
		if err != nil {
			return PruneBackups{}, err
		}
		if p.Keep == nil {
			p.Keep = map[string]int64{}
		}
		p.Keep[k] = n
	}
	if _, err := p.Normalize(); err != nil {
		return PruneBackups{}, err
	}
	return p, nil
}

// parsePVEBoolean is pve-common's parse_boolean (W6).
func parsePVEBoolean(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return true, true
	case "0", "off", "no", "false":
		return false, true
	}
	return false, false
}

// parsePruneCount checks a keep-* count the way check_prop does for an
// integer with minimum 0: Perl's /^[+-]?\d+$/ (ASCII digits on PVE's
// decoded value), then the minimum.
func parsePruneCount(k, v string) (int64, error) {
	digits := strings.TrimLeft(v, "+-")
	if len(v)-len(digits) > 1 || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, fmt.Errorf("format error: %s: type check ('integer') failed - got '%s'", k, v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		// Beyond int64: Perl compares it as a float; a huge positive
		// number passes the minimum and is kept as given.
		if strings.HasPrefix(v, "-") {
			return 0, fmt.Errorf("format error: %s: value must have a minimum value of 0", k)
		}
		return 0, fmt.Errorf("format error: %s: value %s is out of range", k, v)
	}
	if n < 0 {
		return 0, fmt.Errorf("format error: %s: value must have a minimum value of 0", k)
	}
	return n, nil
}

// Normalize is validate_prune_backups: {keep-all=1} when no keep-* count is
// above zero (keep-all=0 alone included), else the counts as given without
// keep-all, or ErrPruneKeepAllConflict when keep-all is true.
func (p PruneBackups) Normalize() (PruneBackups, error) {
	positive := false
	for _, n := range p.Keep {
		if n > 0 {
			positive = true
		}
	}
	if !positive {
		t := true
		return PruneBackups{KeepAll: &t}, nil
	}
	if p.KeepAll != nil && *p.KeepAll {
		return PruneBackups{}, ErrPruneKeepAllConflict
	}
	keep := make(map[string]int64, len(p.Keep))
	for k, n := range p.Keep {
		keep[k] = n
	}
	return PruneBackups{Keep: keep}, nil
}

// String prints the value as PVE's print_property_string does: normalised
// first, then the keys sorted ("keep-all=1", or for example
// "keep-daily=7,keep-last=3,keep-weekly=4"). A value Normalize refuses is
// printed as given, keys sorted.
func (p PruneBackups) String() string {
	if n, err := p.Normalize(); err == nil {
		p = n
	}
	var parts []string
	if p.KeepAll != nil {
		v := "0"
		if *p.KeepAll {
			v = "1"
		}
		parts = append(parts, "keep-all="+v)
	}
	for _, k := range PruneKeepKeys {
		if n, ok := p.Keep[k]; ok {
			parts = append(parts, k+"="+strconv.FormatInt(n, 10))
		}
	}
	return strings.Join(parts, ",")
}

// PruneBackupsProblem returns "" when s is a prune-backups value PVE
// accepts, else what is wrong in plain words.
func PruneBackupsProblem(s string) string {
	_, err := ParsePruneBackups(s)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrPruneKeepAllConflict):
		return "keep-all cannot be set together with other keep-* options"
	}
	return "invalid prune-backups value '" + s + "': " + err.Error()
}
