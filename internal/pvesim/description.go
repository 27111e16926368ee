package pvesim

import "strings"

// A guest's description lives in its config file as comment lines at the
// top of each section, and every read of the config parses the file
// again. What a client reads back is therefore what the file round trip
// makes of the text it sent, which differs between the two guest kinds
// (W20).

// descriptionLines is how both writers split the description into comment
// lines: Perl's split on "\n", which drops trailing empty fields, so
// "a\n\n" gives the single line "a" and "\n" none at all. A description
// Perl reads as false ("" or "0") writes no line: write_pct_config takes
// `$conf->{description} || ”`, write_vm_config writes only `if ($descr)`.
func descriptionLines(d string) []string {
	if d == "" || d == "0" {
		return nil
	}
	lines := strings.Split(d, "\n")
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// ctDescriptionReadBack is a container description after
// pve-container src/PVE/LXC/Config.pm write_pct_config and
// parse_pct_config: every comment line is read back with a newline after
// it, the last one included, and nothing is trimmed ("one line" reads
// back as "one line\n"). No line at all leaves no description key (parse
// sets it only `if $descr`).
func ctDescriptionReadBack(d string) (string, bool) {
	lines := descriptionLines(d)
	if len(lines) == 0 {
		return "", false
	}
	return strings.Join(lines, "\n") + "\n", true
}

// vmDescriptionReadBack is a VM description after qemu-server
// src/PVE/QemuServer.pm write_vm_config and parse_vm_config: the comment
// lines are joined with newlines and the result loses its trailing
// whitespace ($descr =~ s/\s+$//). No line at all leaves no description
// key in the main section.
func vmDescriptionReadBack(d string) (string, bool) {
	lines := descriptionLines(d)
	if len(lines) == 0 {
		return "", false
	}
	return strings.TrimRight(strings.Join(lines, "\n"), perlSpace), true
}

// perlSpace is what Perl's \s matches in ASCII.
const perlSpace = " \t\n\r\f\v"

// storeDescription replaces cfg's description by what reading the written
// config file gives back, using readBack for the guest kind.
func storeDescription(cfg map[string]string, readBack func(string) (string, bool)) {
	d, ok := cfg["description"]
	if !ok {
		return
	}
	if stored, keep := readBack(d); keep {
		cfg["description"] = stored
	} else {
		delete(cfg, "description")
	}
}

// storePendingVMDescription is storeDescription for qemu-server's
// [PENDING] section, where write_vm_config writes a lone "#" for a
// description Perl reads as false, so that it reads back as "" and stays
// a pending change.
func storePendingVMDescription(pending map[string]string) {
	d, ok := pending["description"]
	if !ok {
		return
	}
	stored, keep := vmDescriptionReadBack(d)
	if !keep {
		stored = ""
	}
	pending["description"] = stored
}
