package access_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// A user's password never reaches a trace log of Terraform and the
// provider: not when the user is created with it, nor when it changes
// (PUT /access/password, which also carries the provider's own password
// as PVE's confirmation). The harness echoes each configuration file into
// the log (lines starting with "  | "), so those lines are not scanned.
// Not parallel: it sets the environment of the whole test process.
func TestAccUser_passwordStaysOutOfLogs(t *testing.T) {
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	tg := acctest.NewWithPassword(t)
	userid := acctest.Name("tfacc") + "@pve"
	secrets := []string{testPassword, testNewPassword}
	if m := regexp.MustCompile(`password\s*=\s*"([^"]+)"`).FindStringSubmatch(tg.Config("")); m != nil {
		secrets = append(secrets, m[1])
	} else {
		t.Fatal("the provider block has no password: the test needs a password login")
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkUserDestroyed(tg, userid),
		Steps: []resource.TestStep{
			{Config: passwordUserConfig(tg, userid, testPassword, 1)},
			{Config: passwordUserConfig(tg, userid, testNewPassword, 2)},
		},
	})

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
		for i, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds password %d (of %d chars)", i, len(s))
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	for _, mark := range []string{"PVE API request", "/access/password", "/access/users"} {
		if !bytes.Contains(data, []byte(mark)) {
			t.Errorf("the trace log shows no user request (%q is missing)", mark)
		}
	}
}
