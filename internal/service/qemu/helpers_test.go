package qemu_test

import (
	"regexp"
	"strings"
)

// errorLike matches a Terraform error holding the parts in order. Terraform
// wraps long lines, so every space in a part matches any whitespace.
func errorLike(parts ...string) *regexp.Regexp {
	quoted := make([]string, 0, len(parts))
	for _, part := range parts {
		quoted = append(quoted, strings.ReplaceAll(regexp.QuoteMeta(part), " ", `\s+`))
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}
