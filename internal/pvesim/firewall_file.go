package pvesim

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
)

// What the firewall files keep of a change. PVE writes a section with
// pve-firewall src/PVE/Firewall.pm $format_rules / $format_options and the
// group headers of save_clusterfw_conf, and reads it back line by line with
// generic_fw_config_parser, parse_fw_rule and the parse_*_option
// functions. The simulator writes the same text and reads it back the same
// way, so every normalisation and loss of the round trip happens here too.

// firewallFileKind is which file a section lives in; it decides which
// section headers the parser recognises.
type firewallFileKind int

const (
	clusterFile firewallFileKind = iota
	hostFile
	guestFile
)

var (
	// generic_fw_config_parser's section headers, per file
	// ($empty_conf decides which a file has).
	fwHeaderOptions = regexp.MustCompile(`(?i)^\[options\]$`)
	fwHeaderAliases = regexp.MustCompile(`(?i)^\[aliases\]$`)
	fwHeaderRules   = regexp.MustCompile(`(?i)^\[rules\]$`)
	fwHeaderGroup   = regexp.MustCompile(`(?i)^\[group\s+(\S+)\]\s*(?:#\s*(.*?)\s*)?$`)
	fwHeaderIPSet   = regexp.MustCompile(`(?i)^\[ipset\s+(\S+)\]\s*(?:#\s*(.*?)\s*)?$`)
	fwBlankLine     = regexp.MustCompile(`^[ \t\n\f\r\v]*$`)

	// parse_fw_rule's pieces.
	fwRuleComment = regexp.MustCompile(`#[ \t\n\f\r\v]*(.*?)[ \t\n\f\r\v]*$`)
	fwRuleHead    = regexp.MustCompile(`^(\S+)[ \t\n\f\r\v]+(\S+)[ \t\n\f\r\v]*`)
	fwRuleMacro   = regexp.MustCompile(`^(\S+)\((ACCEPT|DROP|REJECT)\)$`)
	fwRuleIface   = regexp.MustCompile(`^-i (\S+)[ \t\n\f\r\v]*`)
	fwRuleArgs    = []struct {
		re  *regexp.Regexp
		key string
	}{
		{regexp.MustCompile(`^(?:-p|--?proto) (\S+)[ \t\n\f\r\v]*`), "proto"},
		{regexp.MustCompile(`^--?dport (\S+)[ \t\n\f\r\v]*`), "dport"},
		{regexp.MustCompile(`^--?sport (\S+)[ \t\n\f\r\v]*`), "sport"},
		{regexp.MustCompile(`^--?source (\S+)[ \t\n\f\r\v]*`), "source"},
		{regexp.MustCompile(`^--?dest (\S+)[ \t\n\f\r\v]*`), "dest"},
		{regexp.MustCompile(`^--?log (emerg|alert|crit|err|warning|notice|info|debug|nolog)[ \t\n\f\r\v]*`), "log"},
		{regexp.MustCompile(`^--?icmp-type (\S+)[ \t\n\f\r\v]*`), "icmp-type"},
	}
)

// isSectionHeader tells whether a line starts a section of the file.
func (k firewallFileKind) isSectionHeader(line string) bool {
	switch {
	case fwHeaderOptions.MatchString(line), fwHeaderRules.MatchString(line):
		return true
	case fwHeaderAliases.MatchString(line), fwHeaderIPSet.MatchString(line):
		return k != hostFile
	case fwHeaderGroup.MatchString(line):
		return k == clusterFile
	}
	return false
}

// firewallFileLines splits written text into the lines the parser looks
// at: generic_fw_config_parser's /^\h*(.*?)\h*$/gm trims horizontal white
// space from both ends of each line. The file is read as bytes, where \h
// also takes the byte 0xA0 (so a UTF-8 text ending in "à" or a no-break
// space loses its last byte). Comment lines and blank lines are skipped.
func firewallFileLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = trimHorizontalBytes(line)
		if strings.HasPrefix(line, "#") || fwBlankLine.MatchString(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

func trimHorizontalBytes(s string) string {
	isH := func(b byte) bool { return b == ' ' || b == '\t' || b == 0xa0 }
	for len(s) > 0 && isH(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isH(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// decodeFileText is decode('utf8', ...) on bytes read from the file:
// malformed sequences become U+FFFD.
func decodeFileText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// commentWritten is the test every section writer makes before it writes
// a comment: $comment && $comment !~ m/^\s*$/ (pve-firewall
// src/PVE/Firewall.pm $format_rules, $format_aliases, $format_ipsets).
func commentWritten(s string) bool { return pvegrammar.PerlTruthy(s) && !pvegrammar.IsBlank(s) }

// formatFirewallRules is pve-firewall src/PVE/Firewall.pm $format_rules.
// A rule of a type the writer does not know (one the parser made out of a
// stray line) makes it die, and with it every save of the file.
func formatFirewallRules(rules []FirewallRule, allowIface bool) (string, error) {
	var b strings.Builder
	for _, r := range rules {
		f := r.Fields
		switch f["type"] {
		case "in", "out", "forward", "group":
		default:
			// pve-firewall src/PVE/Firewall.pm $format_rules dies without a
			// newline; Perl's " at FILE line N." is left out.
			return "", errorf("unknown rule type '%s'", f["type"])
		}
		if e, ok := f["enable"]; ok && !pvegrammar.PerlTruthy(e) {
			b.WriteByte('|')
		}
		b.WriteString(strings.ToUpper(f["type"]))
		if pvegrammar.PerlTruthy(f["macro"]) {
			b.WriteString(" " + f["macro"] + "(" + f["action"] + ")")
		} else {
			b.WriteString(" " + f["action"])
		}
		if allowIface && pvegrammar.PerlTruthy(f["iface"]) {
			b.WriteString(" -i " + f["iface"])
		}
		if f["type"] != "group" {
			for _, a := range [][2]string{{"source", "-source"}, {"dest", "-dest"}, {"proto", "-p"},
				{"dport", "-dport"}, {"sport", "-sport"}, {"log", "-log"}} {
				if pvegrammar.PerlTruthy(f[a[0]]) {
					b.WriteString(" " + a[1] + " " + f[a[0]])
				}
			}
			if t, ok := f["icmp-type"]; ok && t != "" {
				b.WriteString(" -icmp-type " + t)
			}
		}
		if c := f["comment"]; commentWritten(c) {
			b.WriteString(" # " + c)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// fileRulesSection names a file's own rule list (its [RULES] section) to
// firewallFileWritable; a security group is named by its name.
const fileRulesSection = "[RULES]"

// firewallFileWritable formats a file's rule lists as its save does
// (pve-firewall src/PVE/Firewall.pm save_clusterfw_conf, save_hostfw_conf,
// save_vmfw_conf): the whole file is written whatever section changed, so
// a rule the writer cannot format fails every save of the file, of its
// options, aliases and IPSets too. replaced is the rule list the save
// writes anew (fileRulesSection or a group's name), which the caller
// formats itself, or "".
func firewallFileWritable(conf *FirewallConf, kind firewallFileKind, replaced string) error {
	if replaced != fileRulesSection {
		if _, err := formatFirewallRules(conf.Rules, true); err != nil {
			return err
		}
	}
	if kind != clusterFile {
		return nil
	}
	for _, name := range sortedKeys(conf.Groups) {
		if name == replaced {
			continue
		}
		// The groups section is written without interfaces.
		if _, err := formatFirewallRules(conf.Groups[name], false); err != nil {
			return err
		}
	}
	return nil
}

// parseFirewallRuleLine is pve-firewall src/PVE/Firewall.pm parse_fw_rule
// before its verify_rule: the rule's fields, or false for a line the
// parser warns about and skips.
func parseFirewallRuleLine(line string) (map[string]string, bool) {
	rule := map[string]string{}
	if loc := fwRuleComment.FindStringSubmatchIndex(line); loc != nil {
		rule["comment"] = decodeFileText(line[loc[2]:loc[3]])
		line = line[:loc[0]]
	}
	rule["enable"] = "1"
	if strings.HasPrefix(line, "|") {
		rule["enable"] = "0"
		line = line[1:]
	}
	m := fwRuleHead.FindStringSubmatch(line)
	if m == nil {
		return nil, false // "unable to parse rule"
	}
	line = line[len(m[0]):]
	rule["type"] = strings.ToLower(m[1])
	rule["action"] = m[2]
	switch rule["type"] {
	case "in", "out", "forward":
		if mm := fwRuleMacro.FindStringSubmatch(rule["action"]); mm != nil {
			rule["macro"], rule["action"] = mm[1], mm[2]
		}
	}
	for line != "" {
		if mm := fwRuleIface.FindStringSubmatch(line); mm != nil {
			rule["iface"] = mm[1]
			line = line[len(mm[0]):]
			continue
		}
		if rule["type"] == "group" {
			break
		}
		matched := false
		for _, a := range fwRuleArgs {
			if mm := a.re.FindStringSubmatch(line); mm != nil {
				rule[a.key] = mm[1]
				line = line[len(mm[0]):]
				matched = true
				break
			}
		}
		if !matched {
			break
		}
	}
	if line != "" {
		return nil, false // "unable to parse rule parameters"
	}
	return rule, true
}

// firewallRuleContext is what the parser verifies a section's rules
// against: the cluster's config and the file's own (nil where PVE passes
// none), and the rule_env.
type firewallRuleContext struct {
	cluster, fw *FirewallConf
	env         string
}

// reparse is parse_fw_rule's verify_rule on a rule's fields (without the
// ipversion an earlier verify added): the rule with its errors and IP
// version, or false when verify_rule dies and the parser drops the rule.
func (rc firewallRuleContext) reparse(fields map[string]string) (FirewallRule, bool) {
	f := make(map[string]string, len(fields))
	for k, v := range fields {
		if k != "ipversion" {
			f[k] = v
		}
	}
	errs, err := verifyFirewallRule(f, rc.cluster, rc.fw, rc.env, true)
	if err != nil {
		return FirewallRule{}, false
	}
	return FirewallRule{Fields: f, Errors: errs}, true
}

// reparseAll is a rule list as a fresh load of the file reads it.
func (rc firewallRuleContext) reparseAll(rules []FirewallRule) []FirewallRule {
	out := make([]FirewallRule, 0, len(rules))
	for _, r := range rules {
		if nr, ok := rc.reparse(r.Fields); ok {
			out = append(out, nr)
		}
	}
	return out
}

// checkContinuations refuses written text whose lines, split by newlines
// inside a value, would start a new section of the file.
func (k firewallFileKind) checkContinuations(written string) error {
	lines := strings.Split(written, "\n")
	for _, l := range lines[1:] {
		if k.isSectionHeader(trimHorizontalBytes(l)) {
			// not simulated: a comment with a line that the parser would
			// take as a section header of the file
			return errorf("a comment line that starts a firewall config section ('%s') is not supported by the simulator", trimHorizontalBytes(l))
		}
	}
	return nil
}

// roundTripRules writes a rule list and reads it back as one section: a
// newline in a comment ends the rule's line there, and what follows is read
// as further lines of the section (a rule when it parses as one).
func roundTripRules(rules []FirewallRule, allowIface bool, kind firewallFileKind, rc firewallRuleContext) ([]FirewallRule, error) {
	out := []FirewallRule{}
	for _, r := range rules {
		text, err := formatFirewallRules([]FirewallRule{r}, allowIface)
		if err != nil {
			return nil, err
		}
		if err := kind.checkContinuations(strings.TrimSuffix(text, "\n")); err != nil {
			return nil, err
		}
		for _, line := range firewallFileLines(text) {
			fields, ok := parseFirewallRuleLine(line)
			if !ok {
				continue
			}
			if nr, ok := rc.reparse(fields); ok {
				out = append(out, nr)
			}
		}
	}
	return out, nil
}

// firewallOptionInts are the options whose parser stores int($value): they
// answer as JSON numbers.
var firewallOptionInts = map[string]bool{
	"enable": true, "ebtables": true, "dhcp": true, "ndp": true, "radv": true, "macfilter": true,
	"ipfilter": true, "ips": true, "nosmurfs": true, "tcpflags": true, "log_nf_conntrack": true,
	"nf_conntrack_allow_invalid": true, "protection_synflood": true, "nftables": true,
	"nf_conntrack_max": true, "nf_conntrack_tcp_timeout_established": true,
	"nf_conntrack_tcp_timeout_syn_recv": true, "protection_synflood_rate": true,
	"protection_synflood_burst": true, "protection_limit": true,
}

const fwLogLevels = `emerg|alert|crit|err|warning|notice|info|debug|nolog`

var (
	fwClusterEnable    = regexp.MustCompile(`(?i)^(enable):\s*(\d+)\s*$`)
	fwClusterEbtables  = regexp.MustCompile(`(?i)^(ebtables):\s*(0|1)\s*$`)
	fwClusterPolicy    = regexp.MustCompile(`(?i)^(policy_(in|out|forward)):\s*(ACCEPT|DROP|REJECT)\s*$`)
	fwClusterRateLimit = regexp.MustCompile(`^(log_ratelimit):\s*(\S+)\s*$`)

	fwHostBool     = regexp.MustCompile(`(?i)^(enable|nosmurfs|tcpflags|ndp|log_nf_conntrack|nf_conntrack_allow_invalid|protection_synflood|nftables):\s*(0|1)\s*$`)
	fwHostLogLevel = regexp.MustCompile(`(?i)^(log_level_(?:in|out|forward)|tcp_flags_log_level|smurf_log_level):\s*((` + fwLogLevels + `)\s*)?$`)
	fwHostHelpers  = regexp.MustCompile(`(?i)^(nf_conntrack_helpers):\s*(((\S+)[,]?)+)\s*$`)
	fwHostInt      = regexp.MustCompile(`(?i)^(nf_conntrack_max|nf_conntrack_tcp_timeout_established|nf_conntrack_tcp_timeout_syn_recv|protection_synflood_rate|protection_synflood_burst|protection_limit):\s*(\d+)\s*$`)

	fwGuestBool     = regexp.MustCompile(`(?i)^(enable|dhcp|ndp|radv|macfilter|ipfilter|ips):\s*(0|1)\s*$`)
	fwGuestLogLevel = regexp.MustCompile(`(?i)^(log_level_in|log_level_out):\s*((` + fwLogLevels + `)\s*)?$`)
	fwGuestPolicy   = regexp.MustCompile(`(?i)^(policy_(in|out)):\s*(ACCEPT|DROP|REJECT)\s*$`)
)

// perlInt is int() of a digit string.
func perlInt(s string) string {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return s
	}
	return strconv.FormatUint(n, 10)
}

// parseFirewallOption reads one "[OPTIONS]" line back (pve-firewall
// src/PVE/Firewall.pm parse_clusterfw_option, parse_hostfw_option,
// parse_vmfw_option); false for a line the parser cannot read, which it
// warns about and drops. now is the Unix time of the read: the cluster's
// enable holds a timestamp for 60 seconds after an anti-lockout enable.
func parseFirewallOption(kind firewallFileKind, line string, now int64) (string, string, bool) {
	switch kind {
	case clusterFile:
		if m := fwClusterEnable.FindStringSubmatch(line); m != nil {
			v := perlInt(m[2])
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 1 && now-n > 60 {
				v = "0"
			}
			return strings.ToLower(m[1]), v, true
		}
		if m := fwClusterEbtables.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), perlInt(m[2]), true
		}
		if m := fwClusterPolicy.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), strings.ToUpper(m[3]), true
		}
		if m := fwClusterRateLimit.FindStringSubmatch(line); m != nil {
			return m[1], m[2], true
		}
	case hostFile:
		if m := fwHostBool.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), perlInt(m[2]), true
		}
		if m := fwHostLogLevel.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), strings.ToLower(m[3]), true
		}
		if m := fwHostHelpers.FindStringSubmatch(line); m != nil {
			v := strings.ToLower(m[2])
			for _, h := range strings.Split(v, ",") {
				if !pvegrammar.FirewallConntrackHelpers[h] {
					return "", "", false // pve_fw_verify_conntrack_helper dies
				}
			}
			if strings.HasSuffix(v, ",") {
				return "", "", false // "extraneous commas in list"
			}
			return strings.ToLower(m[1]), v, true
		}
		if m := fwHostInt.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), perlInt(m[2]), true
		}
	case guestFile:
		if m := fwGuestBool.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), perlInt(m[2]), true
		}
		if m := fwGuestLogLevel.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), strings.ToLower(m[3]), true
		}
		if m := fwGuestPolicy.FindStringSubmatch(line); m != nil {
			return strings.ToLower(m[1]), strings.ToUpper(m[3]), true
		}
	}
	return "", "", false
}

// roundTripOptions writes options as $format_options does ("key: value"
// lines) and reads them back.
func roundTripOptions(kind firewallFileKind, opts map[string]string, now int64) map[string]string {
	out := map[string]string{}
	for k, v := range opts {
		for _, line := range firewallFileLines(k + ": " + v) {
			if key, val, ok := parseFirewallOption(kind, line, now); ok {
				out[key] = val
			}
		}
	}
	return out
}
