package qemu_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// inputVM is a small VM; extra lines are added to it.
func inputVM(tg *acctest.Target, extra string) string {
	return vmConfig(tg, `
  node    = "pve1"
  name    = "tfacc-inputs"
  disks   = { scsi0 = { storage = "local-lvm", size = 4 } }
  network = { net0 = { bridge = "vmbr0" } }
`+extra)
}

// TestAccVM_inputsRefusedAtPlan: what PVE refuses or ignores only at apply
// is an error at plan time, at the attribute, before any request.
func TestAccVM_inputsRefusedAtPlan(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	cases := []struct {
		extra string
		want  []string
	}{
		{`cloud_init = { user = "debian", ssh_keys = ["` + sshKeyColon + `"] }`,
			[]string{"Cloud-Init Drive Required", "cloud_init sets user, ssh_keys", "Set cloud_init.storage"}},
		{`cloud_init = { storage = "local-lvm", ip_config = { ipconfig0 = { ipv4 = { address = "10.0.0.300/24" } } } }`,
			[]string{"Invalid IP Address", `"10.0.0.300" in "10.0.0.300/24" is not an IPv4 address`}},
		{`cloud_init = { storage = "local-lvm", ip_config = { ipconfig0 = { ipv4 = { address = "10.0.0.5/33" } } } }`,
			[]string{"Invalid IP Address", "not a number from 8 to 32"}},
		{`cloud_init = { storage = "local-lvm", ip_config = { ipconfig0 = { ipv4 = { address = "10.0.0.5/24", gateway = "gw" } } } }`,
			[]string{"Invalid Gateway", `"gw" is not an IPv4 address`}},
		{`cloud_init = { storage = "local-lvm", ip_config = { ipconfig0 = { ipv6 = { gateway = "fd00::1" } } } }`,
			[]string{"Gateway Without Address"}},
		{`memory = { size = 1024, balloon = 2048 }`,
			[]string{"Balloon Larger Than Memory", "at most 1024"}},
	}
	steps := make([]resource.TestStep, 0, len(cases)+1)
	for _, c := range cases {
		steps = append(steps, resource.TestStep{Config: inputVM(tg, c.extra), PlanOnly: true, ExpectError: errorLike(c.want...)})
	}
	steps = append(steps, resource.TestStep{
		Config:      strings.Replace(inputVM(tg, ""), `node    = "pve1"`, `node    = "pve9"`, 1),
		PlanOnly:    true,
		ExpectError: errorLike("Node Not Found", `Node "pve9" is not a node of this PVE cluster`, "pve1"),
	})
	tg.Run(t, resource.TestCase{Steps: steps})
}

// TestAccVM_inputsPVEAccepts: the forms PVE's own formats take are not
// refused: manual, SLAAC, the shortest and longest prefix lengths, a
// balloon equal to the memory size.
func TestAccVM_inputsPVEAccepts(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{{
		Config: inputVM(tg, `
  memory = { size = 1024, balloon = 1024 }
  cloud_init = {
    storage = "local-lvm"
    ip_config = {
      ipconfig0 = { ipv4 = { address = "manual" }, ipv6 = { address = "auto" } }
    }
  }
`),
	}, {
		Config: inputVM(tg, `
  memory = { size = 1024, balloon = 1024 }
  cloud_init = {
    storage = "local-lvm"
    ip_config = {
      ipconfig0 = { ipv4 = { address = "10.0.0.5/8", gateway = "10.0.0.1" }, ipv6 = { address = "2001:db8::5/128", gateway = "2001:db8::1" } }
    }
  }
`),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)}},
	}}})
}

// TestAccVM_missingPoolSaysSo: creating a VM into a pool that does not
// exist fails, PVE answering with a permission error; the error says the
// pool is missing rather than sending the operator after a privilege.
func TestAccVM_missingPoolSaysSo(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	tg.Run(t, resource.TestCase{Steps: []resource.TestStep{{
		Config:      inputVM(tg, `  pool = "nope"`),
		ExpectError: errorLike(`Pool "nope" does not exist in PVE. Create it (pve_pool) or correct the pool name`),
	}}})
}

// TestVMPlanWarnsOfAddressWithoutDevice: an ipconfigN without netN is
// accepted by PVE and ignored by cloud-init: a warning, not an error.
func TestVMPlanWarnsOfAddressWithoutDevice(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	config := baseConfig()
	delete(config, "cdroms")
	config["cloud_init"] = map[string]any{"storage": "local-lvm", "ip_config": map[string]any{"ipconfig1": ipv4("10.0.0.5/24", "")}}
	var warned bool
	diags := v.diagnostics(t, config)
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Errorf("unexpected error: %s: %s", d.Summary, d.Detail)
		}
		if d.Severity == tfprotov6.DiagnosticSeverityWarning && d.Summary == "Address Without Network Device" && attrPath(d.Attribute) == "cloud_init.ip_config.ipconfig1" {
			warned = true
		}
	}
	if !warned {
		t.Errorf("want the warning Address Without Network Device at cloud_init.ip_config.ipconfig1, got %v", diags)
	}
}
