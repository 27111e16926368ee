package provider_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/provider"
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

// An endpoint with credentials in it that do not parse as a URL is refused
// with the credentials hidden, from the configuration and from PVE_ENDPOINT
// alike (the password holds '%', which breaks the URL parser).
func TestAccProvider_endpointCredentialsAreRedacted(t *testing.T) {
	t.Parallel()
	const ds = "\ndata \"pve_version\" \"v\" {}\n"
	const endpoint = "https://root@pam:Pa%zzw0rd-secret@pve.example.com:8006"
	// Only the redacted form matches: the error shows neither the user nor
	// the password.
	redacted := regexp.MustCompile(`pve endpoint "https://REDACTED@pve\.example\.com:8006" must not contain user\s+information`)

	acctest.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"pve": providerserver.NewProtocol6WithError(provider.NewWithEnv("test", func(name string) string {
				if name == "PVE_ENDPOINT" {
					return endpoint
				}
				return ""
			})()),
		},
		Steps: []resource.TestStep{
			{
				Config: `provider "pve" {
  endpoint  = "` + endpoint + `"
  api_token = "root@pam!tf=00000000-0000-0000-0000-000000000000"
}` + ds,
				ExpectError: redacted,
			},
			{
				Config: `provider "pve" {
  api_token = "root@pam!tf=00000000-0000-0000-0000-000000000000"
}` + ds,
				ExpectError: redacted,
			},
		},
	})
}

// A template never runs: its node text must not speak of a running guest
// (copied from pve_vm it said "online when it runs").
func TestTemplateNodeDescriptions(t *testing.T) {
	t.Parallel()
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for resourceType, want := range map[string]string{
		"pve_vm_template":        "Node the VM template is on",
		"pve_container_template": "Node the container template is on",
		"pve_vm":                 "Node the VM runs on",
		"pve_container":          "Node the container runs on",
	} {
		var node string
		for _, attr := range resp.ResourceSchemas[resourceType].Block.Attributes {
			if attr.Name == "node" {
				node = attr.Description
			}
		}
		if !strings.HasPrefix(node, want) {
			t.Errorf("%s: node is described as %q, want it to start with %q", resourceType, node, want)
		}
		if strings.HasSuffix(resourceType, "_template") && (strings.Contains(node, "online") || strings.Contains(node, "shut down")) {
			t.Errorf("%s: node speaks of a running guest: %q", resourceType, node)
		}
	}
}
