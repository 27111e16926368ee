package functions_test

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// TestAccFunctions calls every provider function from a configuration with
// the terraform binary: in outputs, with an argument known only after apply
// (the output plans as unknown, then holds the result), and with a bad
// argument (a plan-time error that names the function and the argument).
func TestAccFunctions(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)

	config := tg.Config(`
resource "terraform_data" "disk" {
  input = "local-lvm:vm-100-disk-0"
}

output "iso" {
  value = provider::pve::parse_volume_id("local:iso/debian-13.iso")
}

output "disk_owner" {
  value = provider::pve::parse_volume_id(terraform_data.disk.output).vmid
}

output "bytes" {
  value = provider::pve::size_to_bytes("1.5G")
}

output "size" {
  value = provider::pve::bytes_to_size(34359738368)
}

output "round_trip" {
  value = provider::pve::bytes_to_size(provider::pve::size_to_bytes("2048M"))
}

output "drive" {
  value = provider::pve::parse_property_string("local-lvm:vm-100-disk-0,discard=on,size=32G", "file")
}
`)
	tg.Run(t, resource.TestCase{
		TerraformVersionChecks: []tfversion.TerraformVersionCheck{
			// Provider-defined functions came with Terraform 1.8.
			tfversion.SkipBelow(tfversion.Version1_8_0),
		},
		Steps: []resource.TestStep{
			// First, so that the last step's configuration is the one destroyed.
			{
				Config: tg.Config(`
output "bad" {
  value = provider::pve::size_to_bytes("32GB")
}
`),
				ExpectError: regexp.MustCompile(`(?s)provider::pve::size_to_bytes.*Invalid value for "size" parameter: "32GB" is not a size in PVE's\s+notation`),
			},
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectUnknownOutputValue("disk_owner"),
						plancheck.ExpectKnownOutputValue("bytes", knownvalue.Int64Exact(1536<<20)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("iso", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"storage":   knownvalue.StringExact("local"),
						"name":      knownvalue.StringExact("iso/debian-13.iso"),
						"content":   knownvalue.StringExact("iso"),
						"file":      knownvalue.StringExact("debian-13.iso"),
						"vmid":      knownvalue.Null(),
						"format":    knownvalue.StringExact("raw"),
						"is_base":   knownvalue.Bool(false),
						"base_name": knownvalue.Null(),
						"base_vmid": knownvalue.Null(),
					})),
					statecheck.ExpectKnownOutputValue("disk_owner", knownvalue.Int64Exact(100)),
					statecheck.ExpectKnownOutputValue("bytes", knownvalue.Int64Exact(1536<<20)),
					statecheck.ExpectKnownOutputValue("size", knownvalue.StringExact("32G")),
					statecheck.ExpectKnownOutputValue("round_trip", knownvalue.StringExact("2G")),
					statecheck.ExpectKnownOutputValue("drive", knownvalue.MapExact(map[string]knownvalue.Check{
						"file":    knownvalue.StringExact("local-lvm:vm-100-disk-0"),
						"discard": knownvalue.StringExact("on"),
						"size":    knownvalue.StringExact("32G"),
					})),
				},
			},
		},
	})
}
