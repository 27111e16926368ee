package lxc_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// needsSim returns the simulator, for tests that inject faults or play
// root@pam behind the provider's back; against a live node they have
// nothing to run on.
func needsSim(t *testing.T, tg *acctest.Target) *pvesim.Sim {
	t.Helper()
	if tg.Sim == nil {
		t.Skip("needs the simulator")
	}
	return tg.Sim
}

// errorLike matches a diagnostic whose text holds every part in order,
// whatever the line wrapping Terraform applies.
func errorLike(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		quoted[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}
