package fwutil

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestListNameMatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"", "anything", true},
		{"web-*", "web-01", true},
		{"web-*", "db-01", false},
		{"web-*", "my-web-01", false},
		{"web-0?", "web-01", true},
		{"web-0?", "web-012", false},
		{"web-[0-4]*", "web-3a", true},
		{"web-[!0-4]*", "web-3a", false},
		{"web-[^0-4]*", "web-5", true},
		{"prod*", "prod/web", true},
		{"prod/*", "prod", false},
		{"a.b", "aXb", false},
		{"a+b(c)", "a+b(c)", true},
	}
	for _, c := range cases {
		if got := ListNameMatches(c.pattern, c.name); got != c.want {
			t.Errorf("ListNameMatches(%q, %q) = %t, want %t", c.pattern, c.name, got, c.want)
		}
	}
}

func TestListNamePatternRefusesBrokenClasses(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{"web-[0", "web-[]", "web-[!]"} {
		var diags diag.Diagnostics
		ListNamePattern(pattern, "name", &diags)
		if !diags.HasError() {
			t.Errorf("%q: no error", pattern)
		}
	}
	var diags diag.Diagnostics
	ListNamePattern("web-[a-z]*", "name", &diags)
	if diags.HasError() {
		t.Errorf("web-[a-z]*: %v", diags)
	}
}
