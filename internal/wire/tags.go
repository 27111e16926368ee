package wire

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// ErrInvalidTag is PVE's text for a tag outside ^[a-z0-9_][a-z0-9_\-+.]*$
// (W19). Errors from ParseTags and NormalizeTags wrap it and name the tag.
var ErrInvalidTag = errors.New("invalid characters in tag")

// PVE checks tags with $PVE_TAG_RE under /i (pve-common JSONSchema.pm
// pve_verify_tag) on the decoded request value, so Perl folds case the
// Unicode way: the Kelvin sign matches k and the long s matches s, as with
// Go's (?i). get_unique_tags then lowercases (the Kelvin sign becomes k).
var tagPattern = regexp.MustCompile(`(?i)^[a-z0-9_][a-z0-9_\-+.]*$`)

// SplitList splits a PVE list value the way PVE's split_list does
// (pve-common ParseUtils.pm): a value holding a NUL byte is split on NUL
// with Perl's split, which keeps empty items in between and drops trailing
// ones; any other value on ",", ";" and white space, dropping empty items.
// PVE works on the decoded value, so white space is Unicode's (NBSP and
// U+2028 separate too). PVE uses it for tag lists, delete lists and other
// "-list" formats.
func SplitList(s string) []string {
	if strings.IndexByte(s, 0) >= 0 {
		items := strings.Split(s, "\x00")
		for len(items) > 0 && items[len(items)-1] == "" {
			items = items[:len(items)-1]
		}
		return items
	}
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || unicode.IsSpace(r)
	})
}

// ParseTags reads a tags value (W19): split with SplitList, folded to
// lowercase, each tag checked, repeats removed, sorted. This is the form PVE
// stores with its default tag style, so two values with the same ParseTags
// result show no difference on PVE.
// An empty item (between two NULs) is an invalid tag, as in PVE.
func ParseTags(s string) ([]string, error) {
	items := SplitList(s)
	for _, item := range items {
		if item == "" {
			return nil, fmt.Errorf("%w: %q", ErrInvalidTag, item)
		}
	}
	return NormalizeTags(items)
}

// NormalizeTags is ParseTags for a list that is already split. Each item is
// trimmed; blank items are dropped.
func NormalizeTags(tags []string) ([]string, error) {
	seen := make(map[string]bool, len(tags))
	result := make([]string, 0, len(tags))
	for _, tag := range tags {
		tag = strings.TrimSpace(tag)
		if tag == "" {
			continue
		}
		if !tagPattern.MatchString(tag) {
			return nil, fmt.Errorf("%w: %q", ErrInvalidTag, tag)
		}
		tag = strings.ToLower(tag)
		if seen[tag] {
			continue
		}
		seen[tag] = true
		result = append(result, tag)
	}
	sort.Strings(result)
	return result, nil
}

// FormatTags joins tags with ";", PVE's separator. It does not normalise;
// pass the result of NormalizeTags to write PVE's own form.
func FormatTags(tags []string) string {
	return strings.Join(tags, ";")
}

// SameTags reports whether a and b name the same set of tags once folded to
// lowercase, trimmed and with blanks dropped (W19). Invalid tags are compared
// in the same folded form rather than rejected.
func SameTags(a, b []string) bool {
	return sameSet(tagSet(a), tagSet(b))
}

func tagSet(tags []string) map[string]bool {
	set := make(map[string]bool, len(tags))
	for _, tag := range tags {
		tag = strings.ToLower(strings.TrimSpace(tag))
		if tag != "" {
			set[tag] = true
		}
	}
	return set
}
