package acctest

import (
	"strings"
	"testing"

	"github.com/hashicorp/go-version"
)

func TestIsOpenTofuVersionText(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"OpenTofu v1.12.6\non linux_amd64\n": true,
		"Warning: Unable to open CLI configuration file\n\nOpenTofu v1.12.6-dev\non linux_amd64\n": true,
		"Terraform v1.11.4\non linux_amd64\n":                                                      false,
		"":                                                                                         false,
	} {
		if got := isOpenTofuVersionText([]byte(text)); got != want {
			t.Errorf("isOpenTofuVersionText(%q) = %v, want %v", text, got, want)
		}
	}
}

// What needs a newer Terraform is gated by what OpenTofu has, not by
// OpenTofu's version number read as Terraform's.
func TestOpenTofuSkip(t *testing.T) {
	t.Parallel()
	v := func(s string) *version.Version { return version.Must(version.NewVersion(s)) }
	for _, tc := range []struct {
		minimum, have, want string
	}{
		{"1.12.0", "1.12.6-dev", ""},
		{"1.12.0", "1.11.5", "needs OpenTofu 1.12.0 or later, and this is OpenTofu 1.11.5"},
		{"1.14.0", "1.12.6", "does not support it"},
		{"1.14.0", "1.15.0", "does not support it"},
		{"1.8.0", "1.12.6", ""},
		{"1.8.0", "1.6.2", "needs OpenTofu 1.8.0 or later"},
	} {
		got := openTofuSkip(v(tc.minimum), "X", v(tc.have))
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("openTofuSkip(%s, %s) = %q, want %q", tc.minimum, tc.have, got, tc.want)
		}
	}
}
