package qemu_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Keys whose comments carry ':' and '+', which must survive the
// percent-encoding round trip (W30).
const (
	sshKeyColon = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g admin:ops@host"
	sshKeyPlus  = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8w me+ci@host"
	ciPassword  = "Sup3r-Secret-Passw0rd"
)

// cloudInitVM is a VM with PVE's cloud-init drive; extra goes inside
// cloud_init.
func cloudInitVM(tg *acctest.Target, extra string) string {
	return vmConfig(tg, `
  node = "pve1"
  name = "tfacc-ci"
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
  network = { net0 = { bridge = "vmbr0" } }
  cloud_init = {
    storage = "local-lvm"
`+extra+`
  }
`)
}

const ciBase = `
    user     = "debian"
    ssh_keys = [` + "\"" + sshKeyColon + "\", \"" + sshKeyPlus + "\"" + `]
    dns      = { domain = "lan", servers = ["10.0.0.1", "10.0.0.2"] }
    ip_config = {
      ipconfig0 = { ipv4 = { address = "10.0.0.5/24", gateway = "10.0.0.1" }, ipv6 = { address = "auto" } }
    }
`

func withPassword(version int) string {
	return fmt.Sprintf("    password_wo = %q\n    password_wo_version = %d\n", ciPassword, version)
}

// passwordWrites counts config writes that carried cipassword, from the
// simulator's request log, where the value itself is redacted.
func passwordWrites(tg *acctest.Target) int {
	n := 0
	for _, rec := range tg.Sim.Requests() {
		if rec.Method == "GET" || !strings.HasSuffix(rec.Path, "/config") {
			continue
		}
		if v, ok := rec.Params["cipassword"]; ok {
			if len(v) != 1 || v[0] == ciPassword {
				panic("request log holds the password")
			}
			n++
		}
	}
	return n
}

func wantPasswordWrites(tg *acctest.Target, want int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		if got := passwordWrites(tg); got != want {
			return fmt.Errorf("cipassword written %d times, want %d", got, want)
		}
		return nil
	})
}

// sshKeysAre checks PVE's sshkeys as a decoded set (W30).
func (v *vmRef) sshKeysAre(keys ...string) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		got := wire.DecodeSSHKeys(config["sshkeys"])
		if !wire.SameSSHKeys(got, keys) {
			return fmt.Errorf("sshkeys in PVE = %q, want %q", got, keys)
		}
		return nil
	})
}

func TestAccVM_cloudInitKeysPasswordW27W30W31(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	update := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: cloudInitVM(tg, ciBase+withPassword(1)),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configHas(map[string]string{
						"ciuser": "debian", "nameserver": "10.0.0.1 10.0.0.2", "searchdomain": "lan",
						"cipassword": "**********",
					}),
					vm.cloudInitDriveAt("ide2", "local-lvm"),
					vm.ipConfigIs("ipconfig0", "ip=10.0.0.5/24,gw=10.0.0.1,ip6=auto"),
					vm.sshKeysAre(sshKeyColon, sshKeyPlus),
					wantPasswordWrites(tg, 1),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("cloud_init").AtMapKey("password_wo"), knownvalue.Null()),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("cloud_init").AtMapKey("slot"), knownvalue.StringExact("ide2")),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("cdroms"), knownvalue.Null()),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("disks"), knownvalue.MapSizeExact(1)),
				},
			},
			{
				// PVE reports no password, only a mask (W31): the import
				// carries neither, and the version is Terraform's own.
				ResourceName:            vmAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"cloud_init.password_wo_version"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
			},
			{
				// Adopted by an import block without a password in the
				// configuration: the live password is left alone (W31).
				Config:            cloudInitVM(tg, ciBase),
				ResourceName:      vmAddr,
				ImportState:       true,
				ImportStateKind:   resource.ImportBlockWithID,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionNoop)},
				},
			},
			{
				// Every cloud-init field changes in place; the password is
				// not written again.
				Config: cloudInitVM(tg, `
    user     = "admin"
    ssh_keys = ["`+sshKeyPlus+`"]
    dns      = { domain = "example.org", servers = ["10.0.0.53"] }
    upgrade  = false
    ip_config = {
      ipconfig0 = { ipv4 = { address = "dhcp" } }
      ipconfig1 = { ipv6 = { address = "2001:db8::5/64", gateway = "2001:db8::1" } }
    }
`+withPassword(1)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configHas(map[string]string{
						"ciuser": "admin", "nameserver": "10.0.0.53", "searchdomain": "example.org", "ciupgrade": "0",
						"cipassword": "**********",
					}),
					vm.cloudInitDriveAt("ide2", "local-lvm"),
					vm.ipConfigIs("ipconfig0", "ip=dhcp"),
					vm.ipConfigIs("ipconfig1", "ip6=2001:db8::5/64,gw6=2001:db8::1"),
					vm.sshKeysAre(sshKeyPlus),
					wantPasswordWrites(tg, 1),
				},
			},
			{
				// Rotation: a new version writes the password once.
				Config:           cloudInitVM(tg, ciBase+withPassword(2)),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configHas(map[string]string{"ciuser": "debian", "ciupgrade": "", "ipconfig1": ""}),
					wantPasswordWrites(tg, 2),
				},
			},
			{
				// The password leaves the configuration: PVE keeps it.
				Config:           cloudInitVM(tg, ciBase),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.configHas(map[string]string{"cipassword": "**********"}),
					wantPasswordWrites(tg, 2),
				},
			},
		},
	})
}

// cloudInitDriveAt checks that slot holds PVE's cloud-init drive on
// storage (W27).
func (v *vmRef) cloudInitDriveAt(slot, storage string) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		drive, err := wire.ParseDrive(config[slot])
		if err != nil || !drive.IsCloudInit() || drive.Storage != storage {
			return fmt.Errorf("%s = %q, want a cloud-init drive on %s", slot, config[slot], storage)
		}
		return nil
	})
}

// ipConfigIs compares an ipconfigN value as a set of tokens.
func (v *vmRef) ipConfigIs(key, want string) statecheck.StateCheck {
	return v.Check(func() error {
		config, err := v.config()
		if err != nil {
			return err
		}
		got, errGot := wire.ParsePropertyString(config[key], "")
		exp, errExp := wire.ParsePropertyString(want, "")
		if errGot != nil || errExp != nil || fmt.Sprint(got) != fmt.Sprint(exp) {
			return fmt.Errorf("%s = %q, want %q", key, config[key], want)
		}
		return nil
	})
}

func TestAccVM_cloudInitRefusals(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	base := `
  node = "pve1"
  name = "tfacc-ci-bad"
`
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				// W27: the drive needs a storage with images content.
				Config:      vmConfig(tg, base+`  cloud_init = { storage = "local", user = "debian" }`),
				ExpectError: regexp.MustCompile(`(?s)Storage Cannot Hold Cloud-Init Data.*local on node pve1 does not carry images`),
			},
			{
				Config: vmConfig(tg, base+`
  cdroms = { ide2 = { file = "none" } }
  cloud_init = { storage = "local-lvm" }`),
				ExpectError: regexp.MustCompile(`(?s)Slot Used Twice.*Slot ide2 is declared in disks or cdroms`),
			},
			{
				Config:      vmConfig(tg, base+`  cloud_init = { storage = "local-lvm", user_data = "#cloud-config\n", seed_storage = "local" }`),
				ExpectError: regexp.MustCompile(`(?s)Seed ISO And Cloud-Init Drive Cannot Be Combined`),
			},
			{
				Config:      vmConfig(tg, base+`  cloud_init = { user_data = "#cloud-config\n" }`),
				ExpectError: regexp.MustCompile(`(?s)Seed Storage Required`),
			},
			{
				Config:      vmConfig(tg, base+`  cloud_init = { user_data = "#cloud-config\n", seed_storage = "local-lvm" }`),
				ExpectError: regexp.MustCompile(`(?s)Storage Cannot Hold Cloud-Init Data.*local-lvm on node pve1 does not carry iso`),
			},
		},
	})
}

// stateJSON is the state as Terraform shows it, every attribute value
// included, for secret scans.
func stateJSON(state *tfjson.State) (string, error) {
	b, err := json.Marshal(state)
	return string(b), err
}

func stateLacks(secrets ...string) statecheck.StateCheck {
	return acctest.CheckState(func(state *tfjson.State) error {
		text, err := stateJSON(state)
		if err != nil {
			return err
		}
		for _, secret := range secrets {
			if strings.Contains(text, secret) {
				return fmt.Errorf("state holds a secret (%d chars)", len(secret))
			}
		}
		return nil
	})
}

const seedUserData = "#cloud-config\\npackages: [htop]\\n"

// seedVM is a VM whose cloud-init comes from a seed ISO (W32).
func seedVM(tg *acctest.Target, userData string) string {
	ci := ""
	if userData != "" {
		ci = `  cloud_init = { user_data = "` + userData + `", seed_storage = "local" }`
	}
	return vmConfig(tg, `
  node = "pve1"
  name = "tfacc-seed"
  disks = { scsi0 = { storage = "local-lvm", size = 4 } }
`+ci)
}

// seedIs checks the seed volume the simulator parsed and its attachment.
func (v *vmRef) seedIs(userData string) statecheck.StateCheck {
	return v.Check(func() error {
		volid := fmt.Sprintf("local:iso/pve-seed-%d.iso", v.VMID)
		var found bool
		for _, vol := range v.tg.Sim.Volumes("local") {
			if vol.VolID != volid {
				continue
			}
			found = true
			if userData == "" {
				return fmt.Errorf("seed %s still exists", volid)
			}
			if vol.Seed == nil {
				return fmt.Errorf("seed %s was not checked", volid)
			}
			if err := vol.Seed.IsSeed(); err != nil {
				return fmt.Errorf("seed %s: %w", volid, err)
			}
			if got := string(vol.Seed.Parsed.Files["user-data"]); got != userData || vol.Seed.Parsed.Label != "cidata" {
				return fmt.Errorf("seed label %q user-data %q, want %q", vol.Seed.Parsed.Label, got, userData)
			}
		}
		config, err := v.config()
		if err != nil {
			return err
		}
		if userData == "" {
			if found || config["ide3"] != "" {
				return fmt.Errorf("seed left behind: volume %v, ide3 %q", found, config["ide3"])
			}
			return nil
		}
		drive, err := wire.ParseDrive(config["ide3"])
		if !found || err != nil || drive.VolumeID() != volid || drive.Options["media"] != "cdrom" {
			return fmt.Errorf("seed volume %v, ide3 = %q", found, config["ide3"])
		}
		if strings.Contains(config["boot"], "ide3") {
			return fmt.Errorf("seed joined the boot order: %q", config["boot"])
		}
		return nil
	})
}

func uploads(tg *acctest.Target) int {
	n := 0
	for _, rec := range tg.Sim.Requests() {
		if rec.Method == "POST" && strings.HasSuffix(rec.Path, "/upload") {
			n++
		}
	}
	return n
}

func wantUploads(tg *acctest.Target, want int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		if got := uploads(tg); got != want {
			return fmt.Errorf("%d uploads, want %d", got, want)
		}
		return nil
	})
}

func TestAccVM_cloudInitSeedISOW32(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vm := newVMRef(tg)
	update := resource.ConfigPlanChecks{
		PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(vmAddr, plancheck.ResourceActionUpdate)},
	}
	tg.Run(t, resource.TestCase{
		CheckDestroy: func(s *terraform.State) error {
			if err := checkVMDestroyed(vm)(s); err != nil {
				return err
			}
			for _, vol := range tg.Sim.Volumes("local") {
				if strings.Contains(vol.VolID, "pve-seed-") {
					return fmt.Errorf("seed %s outlived the VM", vol.VolID)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: seedVM(tg, seedUserData),
				ConfigStateChecks: []statecheck.StateCheck{
					vm.seedIs("#cloud-config\npackages: [htop]\n"),
					wantUploads(tg, 1),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("cloud_init").AtMapKey("seed_sha256"),
						knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{64}$`))),
					statecheck.ExpectKnownValue(vmAddr, tfjsonpath.New("cdroms"), knownvalue.Null()),
				},
			},
			{
				Config:           seedVM(tg, "#cloud-config\\npackages: [vim]\\n"),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.seedIs("#cloud-config\npackages: [vim]\n"),
					wantUploads(tg, 2),
				},
			},
			{
				Config:           seedVM(tg, ""),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.seedIs(""),
					wantUploads(tg, 2),
				},
			},
			{
				Config:           seedVM(tg, seedUserData),
				ConfigPlanChecks: update,
				ConfigStateChecks: []statecheck.StateCheck{
					vm.seedIs("#cloud-config\npackages: [htop]\n"),
					wantUploads(tg, 3),
				},
			},
		},
	})
}

// Neither the password nor the token secret reaches the state or a trace
// log of Terraform and the provider (W31). The password comes in through a
// sensitive variable from the environment, as in real use. The test
// harness echoes each configuration file it writes into the log (lines
// starting with "  | "); the provider block there holds the token the test
// itself wrote, so those lines are not what is scanned. Not parallel: it
// sets the environment of the whole test process.
func TestAccVM_cloudInitSecretsStayOutOfStateAndLogs(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "trace.log")
	t.Setenv("TF_LOG", "trace")
	t.Setenv("TF_LOG_PATH", logFile)
	t.Setenv("TF_ACC_LOG", "trace")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	t.Setenv("TF_VAR_ci_password", ciPassword)
	tg := acctest.New(t)
	secrets := []string{ciPassword}
	if m := regexp.MustCompile(`api_token\s*=\s*"[^"=]+=([^"]+)"`).FindStringSubmatch(tg.Config("")); m != nil {
		secrets = append(secrets, m[1])
	}
	vm := newVMRef(tg)
	config := func(version int) string {
		return `variable "ci_password" {
  type      = string
  sensitive = true
}
` + cloudInitVM(tg, ciBase+fmt.Sprintf("    password_wo = var.ci_password\n    password_wo_version = %d\n", version))
	}

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkVMDestroyed(vm),
		Steps: []resource.TestStep{
			{
				Config: config(1),
				ConfigStateChecks: []statecheck.StateCheck{
					stateLacks(secrets...),
					vm.configHas(map[string]string{"cipassword": "**********"}),
					wantPasswordWrites(tg, 1),
				},
			},
			{
				Config: config(2),
				ConfigStateChecks: []statecheck.StateCheck{
					stateLacks(secrets...),
					wantPasswordWrites(tg, 2),
				},
			},
			{
				// An import reads the mask back (W31): neither the mask nor
				// the password may reach the imported state or the log.
				Config:                  config(2),
				ResourceName:            vmAddr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"cloud_init.password_wo_version"},
				ImportStateIdFunc:       func(*terraform.State) (string, error) { return strconv.Itoa(vm.VMID), nil },
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					for _, st := range states {
						for key, value := range st.Attributes {
							for _, secret := range append(secrets, "**********") {
								if strings.Contains(value, secret) {
									return fmt.Errorf("imported attribute %s holds a secret", key)
								}
							}
						}
					}
					return nil
				},
			},
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
		for _, s := range secrets {
			if strings.Contains(line, s) {
				t.Errorf("the trace log holds a secret of %d chars", len(s))
			}
		}
	}
	if scanned < 1000 || !bytes.Contains(data, []byte("sdk.framework")) {
		t.Fatalf("the trace log has %d lines and no provider lines: the scan proves nothing", scanned)
	}
	// The provider's own request log is part of what was scanned.
	if !bytes.Contains(data, []byte("PVE API request")) || !bytes.Contains(data, []byte("PVE API attempt")) {
		t.Error("the trace log shows no PVE API requests")
	}
}
