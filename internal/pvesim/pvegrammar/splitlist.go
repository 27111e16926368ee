package pvegrammar

import (
	"strings"
	"unicode"
)

// SplitList is pve-common src/PVE/ParseUtils.pm split_list (called as
// PVE::Tools::split_list): a value holding a NUL byte is split on NUL with
// Perl's split, which keeps empty items in between and drops trailing empty
// ones; any other value has its commas and semicolons turned into spaces, its
// leading white space removed, and is split on runs of white space.
func SplitList(s string) []string {
	if strings.Contains(s, "\x00") {
		return perlSplitFixed(s, "\x00")
	}
	s = strings.Map(func(r rune) rune {
		if r == ',' || r == ';' {
			return ' '
		}
		return r
	}, s)
	return strings.FieldsFunc(s, IsPerlSpace)
}

// IsPerlSpace is Perl's \s on a character string: Unicode white space (the
// ASCII blanks, vertical tab included since Perl 5.18, and NEL, NBSP, the
// Unicode spaces and line separators). Go's unicode.IsSpace is the same set.
func IsPerlSpace(r rune) bool { return unicode.IsSpace(r) }

// IsBlank is Perl's /^\s*$/, which parse_property_string uses to skip parts.
func IsBlank(s string) bool { return strings.TrimFunc(s, IsPerlSpace) == "" }

// perlSplitFixed is Perl's split on a fixed separator: empty fields in
// between are kept, trailing empty fields dropped.
func perlSplitFixed(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
