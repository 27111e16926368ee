package provider_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// W2: ticket authentication end to end: login, CSRF token on every write.
func TestAccProvider_passwordAuth(t *testing.T) {
	t.Parallel()
	tg := acctest.NewWithPassword(t)
	poolID := acctest.Name("tfacc")

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: tg.Config(`resource "pve_pool" "test" {
  poolid  = "` + poolID + `"
  comment = "made with a ticket"
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("pve_pool.test", tfjsonpath.New("comment"), knownvalue.StringExact("made with a ticket")),
				},
			},
		},
	})
}

func TestAccProvider_badConfiguration(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	const ds = "\ndata \"pve_version\" \"v\" {}\n"

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: `provider "pve" {
  endpoint  = "https://pve.invalid:8006"
  api_token = "root@pam!tf=00000000-0000-0000-0000-000000000000"
  username  = "root@pam"
  password  = "secret"
}` + ds,
				ExpectError: regexp.MustCompile(`Both "api_token" and "username"/"password" are\s+set`),
			},
			{
				Config: `provider "pve" {
  endpoint  = "ftp://pve.example.com"
  api_token = "root@pam!tf=00000000-0000-0000-0000-000000000000"
}` + ds,
				ExpectError: regexp.MustCompile(`Invalid PVE Endpoint`),
			},
			{
				Config: `provider "pve" {
  endpoint = "https://pve.invalid:8006"
}` + ds,
				ExpectError: regexp.MustCompile(`Missing Authentication Settings`),
			},
		},
	})
}
