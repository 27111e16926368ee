package wire

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// ErrInvalidTag is PVE's text for a tag outside ^[a-z0-9_][a-z0-9_\-+.]*$
// (W19). Errors from ParseTags and NormalizeTags wrap it and name the tag.
var ErrInvalidTag = errors.New("invalid characters in tag")

// PVE checks tags case-insensitively, then folds them to lowercase. The check
// runs before folding so that non-ASCII letters whose lowercase is ASCII (the
// Kelvin sign) are refused as PVE refuses them.
var tagPattern = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9_\-+.]*$`)

// SplitList splits a PVE list value the way PVE's split_list does: on NUL
// bytes if there are any, otherwise on ",", ";" and whitespace, dropping
// empty items. PVE uses it for tag lists, delete lists and other "-list"
// formats.
func SplitList(s string) []string {
	if strings.IndexByte(s, 0) >= 0 {
		var items []string
		for _, item := range strings.Split(s, "\x00") {
			if item != "" {
				items = append(items, item)
			}
		}
		return items
	}
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ';' || (r < 0x80 && isPerlSpace(byte(r)))
	})
}

// ParseTags reads a tags value (W19): split with SplitList, folded to
// lowercase, each tag checked, repeats removed, sorted. This is the form PVE
// stores with its default tag style, so two values with the same ParseTags
// result show no difference on PVE.
func ParseTags(s string) ([]string, error) {
	return NormalizeTags(SplitList(s))
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
