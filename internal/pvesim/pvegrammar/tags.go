package pvegrammar

import (
	"errors"
	"regexp"
	"sort"
	"strings"
)

// ErrInvalidTag is pve-common src/PVE/JSONSchema.pm pve_verify_tag's text.
var ErrInvalidTag = errors.New("invalid characters in tag")

// tagPattern is $PVE_TAG_RE (pve-common src/PVE/JSONSchema.pm), matched with
// /i as pve_verify_tag does. Go's (?i) folds like Perl's on a character
// string: the Kelvin sign matches k and the long s matches s. Perl's $ also
// matches before one trailing newline.
var tagPattern = regexp.MustCompile(`(?i)^[a-z0-9_][a-z0-9_\-+.]*\n?$`)

// CheckTagList is the pve-tag-list format check (pve-common
// src/PVE/JSONSchema.pm check_format with a "-list" format): every item of
// SplitList must pass pve_verify_tag. An empty list is allowed.
func CheckTagList(s string) error {
	for _, tag := range SplitList(s) {
		if !tagPattern.MatchString(tag) {
			return ErrInvalidTag
		}
	}
	return nil
}

// UniqueTags is pve-guest-common src/PVE/GuestHelpers.pm get_unique_tags
// with datacenter.cfg's default tag-style (case-insensitive, sorted): the
// items of SplitList sorted by their lowercase form, lowercased, repeats
// dropped, joined with ";". It does not check the tags (the schema did).
func UniqueTags(s string) string {
	tags := SplitList(s)
	sort.SliceStable(tags, func(i, j int) bool { return strings.ToLower(tags[i]) < strings.ToLower(tags[j]) })
	seen := make(map[string]bool, len(tags))
	out := make([]string, 0, len(tags))
	for _, tag := range tags {
		tag = strings.ToLower(tag)
		if seen[tag] {
			continue
		}
		seen[tag] = true
		out = append(out, tag)
	}
	return strings.Join(out, ";")
}

// ChangedTags is the tag comparison of pve-guest-common
// src/PVE/GuestHelpers.pm assert_tag_permissions: the tags (as SplitList
// gives them, case kept) that occur a different number of times in the old
// and the new value, sorted. Only these need the per-tag permission checks.
func ChangedTags(oldValue, newValue string) []string {
	count := map[string]int{}
	for _, tag := range SplitList(oldValue) {
		count[tag]++
	}
	for _, tag := range SplitList(newValue) {
		count[tag]--
	}
	var out []string
	for tag, n := range count {
		if n != 0 {
			out = append(out, tag)
		}
	}
	sort.Strings(out)
	return out
}
