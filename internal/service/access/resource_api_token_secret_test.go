package access_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The token's secret is in the state (the one exception to secrets never
// being there), marked sensitive in plan and state, and never in a trace
// log of Terraform and the provider: not when PVE hands it out at
// creation, nor when it regenerates it (PVE 9.2). The harness echoes each
// configuration file into the log (lines starting with "  | "), with the
// test's own token in the provider block, so those lines are not scanned.
// Not parallel: it sets the environment of the whole test process.
func TestAccAPIToken_secretStaysOutOfLogs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	tg := pinnedRelease(t, "9.2")
	conf := newTokenConf(tg)
	conf.secretVersion = "1"
	rotated := conf
	rotated.secretVersion = "2"
	var secrets secretLog
	if m := regexp.MustCompile(`api_token\s*=\s*"[^"=]+=([^"]+)"`).FindStringSubmatch(tg.Config("")); m != nil {
		secrets.secrets = append(secrets.secrets, m[1])
	}
	sensitive := func(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(tokenAddr, action),
			plancheck.ExpectSensitiveValue(tokenAddr, tfjsonpath.New("value")),
			plancheck.ExpectSensitiveValue(tokenAddr, tfjsonpath.New("api_token")),
		}}
	}
	stateSensitive := []statecheck.StateCheck{
		statecheck.ExpectSensitiveValue(tokenAddr, tfjsonpath.New("value")),
		statecheck.ExpectSensitiveValue(tokenAddr, tfjsonpath.New("api_token")),
		secrets.capture(tokenAddr),
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkTokenDestroyed(tg, conf.userid, conf.name),
		Steps: []resource.TestStep{
			{Config: tg.Config(conf.hcl()), ConfigPlanChecks: sensitive(plancheck.ResourceActionCreate), ConfigStateChecks: stateSensitive},
			{Config: tg.Config(rotated.hcl()), ConfigPlanChecks: sensitive(plancheck.ResourceActionUpdate), ConfigStateChecks: stateSensitive},
		},
	})

	if len(secrets.secrets) != 3 {
		t.Fatalf("want the harness token and two token secrets, have %d secrets", len(secrets.secrets))
	}
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "  | ") {
			continue
		}
		scanned++
		for i, s := range secrets.secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds secret %d (of %d chars)", i, len(s))
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	// The provider's request log, with the token calls, is part of what
	// was scanned.
	for _, mark := range []string{"PVE API request", "/token/", "method=POST", "method=PUT"} {
		if !bytes.Contains(data, []byte(mark)) {
			t.Errorf("the trace log shows no token request (%q is missing)", mark)
		}
	}
}
