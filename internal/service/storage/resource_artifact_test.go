package storage_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// serveFiles is the tiny web server download-url fetches from: it listens
// on 127.0.0.1, the only place the simulator downloads from.
func serveFiles(t *testing.T, files map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// qcow2Image is a small file PVE takes as a qcow2 image: it starts with
// qcow2's magic.
func qcow2Image(n int) []byte {
	b := bytes.Repeat([]byte{0x42}, n)
	copy(b, "QFI\xfb")
	return b
}

// artifactConfig is one artifact resource "test" on pve1's local storage.
func artifactConfig(tg *acctest.Target, typeName, fileName, attrs string) string {
	return tg.Config(fmt.Sprintf("resource %q \"test\" {\n  node      = \"pve1\"\n  storage   = \"local\"\n  file_name = %q\n%s}\n",
		typeName, fileName, attrs))
}

// volume looks the file up as the provider does.
func volume(tg *acctest.Target, content, volid string) (*pveapi.StorageVolume, error) {
	storage, _, _ := cutVolID(volid)
	return tg.Client.FindVolume(context.Background(), "pve1", storage, content, volid)
}

func cutVolID(volid string) (storage, rest string, ok bool) {
	for i := range volid {
		if volid[i] == ':' {
			return volid[:i], volid[i+1:], true
		}
	}
	return "", "", false
}

func checkFile(tg *acctest.Target, content, volid string, size int) statecheck.StateCheck {
	return acctest.CheckState(func(*tfjson.State) error {
		v, err := volume(tg, content, volid)
		if err != nil {
			return err
		}
		if v == nil {
			return fmt.Errorf("%s is not on the storage", volid)
		}
		if int(v.Size) != size {
			return fmt.Errorf("%s has %d bytes, want %d", volid, v.Size, size)
		}
		return nil
	})
}

func checkNoFile(tg *acctest.Target, content, volid string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		v, err := volume(tg, content, volid)
		if err != nil {
			return err
		}
		if v != nil {
			return fmt.Errorf("%s is still on the storage", volid)
		}
		return nil
	}
}

// W44: PVE downloads the file and checks the checksum; an import gives
// back the file without its url (W47), plans no change with a
// configuration that has none, and only an in-place update when one
// names a url.
func TestAccISO_downloadImportW44W47(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	iso := []byte("a small bootable image")
	srv := serveFiles(t, map[string][]byte{"/netinst.iso": iso})
	name := acctest.Name("tfacc") + ".iso"
	volid := "local:iso/" + name
	addr := "pve_iso.test"
	download := fmt.Sprintf("  url = %q\n  checksum = %q\n  checksum_algorithm = \"sha256\"\n", srv.URL+"/netinst.iso", sha256Hex(iso))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkNoFile(tg, "iso", volid),
		Steps: []resource.TestStep{
			{
				Config: artifactConfig(tg, "pve_iso", name, download),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("volume"), knownvalue.StringExact(volid)),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					checkFile(tg, "iso", volid, len(iso)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("pve1/local/"+name)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(int64(len(iso)))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_file_hash"), knownvalue.Null()),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "pve1/local/" + name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"url", "checksum", "checksum_algorithm"},
			},
			{
				// W47: imported without a source, nothing to change.
				Config:          artifactConfig(tg, "pve_iso", name, ""),
				ResourceName:    addr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithID,
				ImportStateId:   "pve1/local/" + name,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionNoop)},
				},
			},
			{
				// W47: a url set after the import is recorded in place.
				Config:             artifactConfig(tg, "pve_iso", name, download),
				ResourceName:       addr,
				ImportState:        true,
				ImportStateKind:    resource.ImportBlockWithID,
				ImportStateId:      "pve1/local/" + name,
				ExpectNonEmptyPlan: true,
				ImportPlanChecks: resource.ImportPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
			},
		},
	})
}

// W44: a checksum mismatch fails the download and leaves no file.
func TestAccISO_downloadBadChecksumW44(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	srv := serveFiles(t, map[string][]byte{"/netinst.iso": []byte("the real bytes")})
	name := acctest.Name("tfacc") + ".iso"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkNoFile(tg, "iso", "local:iso/"+name),
		Steps: []resource.TestStep{{
			Config: artifactConfig(tg, "pve_iso", name, fmt.Sprintf("  url = %q\n  checksum = %q\n  checksum_algorithm = \"sha256\"\n",
				srv.URL+"/netinst.iso", sha256Hex([]byte("other bytes")))),
			ExpectError: regexp.MustCompile(`checksum mismatch`),
		}},
	})
}

// A new url or checksum downloads the file anew: a replacement, as PVE
// does not overwrite with download-url.
func TestAccOSTemplate_newURLReplaces(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	first, second := []byte("template one"), []byte("template two, longer")
	srv := serveFiles(t, map[string][]byte{"/one.tar.zst": first, "/two.tar.zst": second})
	name := acctest.Name("tfacc") + ".tar.zst"
	volid := "local:vztmpl/" + name
	addr := "pve_os_template.test"

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkNoFile(tg, "vztmpl", volid),
		Steps: []resource.TestStep{
			{
				Config:            artifactConfig(tg, "pve_os_template", name, fmt.Sprintf("  url = %q\n", srv.URL+"/one.tar.zst")),
				ConfigStateChecks: []statecheck.StateCheck{checkFile(tg, "vztmpl", volid, len(first))},
			},
			{
				Config: artifactConfig(tg, "pve_os_template", name, fmt.Sprintf("  url = %q\n", srv.URL+"/two.tar.zst")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					checkFile(tg, "vztmpl", volid, len(second)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(int64(len(second)))),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "pve1/local/" + name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"url"},
			},
		},
	})
}

// W45: source_file is uploaded; its SHA-256 is in state; a changed local
// file is uploaded again in place, and PVE overwrites it.
func TestAccDiskImage_uploadAndReuploadW45(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	source := filepath.Join(t.TempDir(), "cloud.qcow2")
	first, second := qcow2Image(4096), qcow2Image(12288)
	if err := os.WriteFile(source, first, 0o600); err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("tfacc") + ".qcow2"
	volid := "local:import/" + name
	addr := "pve_disk_image.test"
	config := artifactConfig(tg, "pve_disk_image", name, fmt.Sprintf("  source_file = %q\n", source))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkNoFile(tg, "import", volid),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					checkFile(tg, "import", volid, len(first)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_file_hash"), knownvalue.StringExact(sha256Hex(first))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("volume"), knownvalue.StringExact(volid)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(int64(len(first)))),
				},
			},
			{
				PreConfig: func() {
					if err := os.WriteFile(source, second, 0o600); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					checkFile(tg, "import", volid, len(second)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("source_file_hash"), knownvalue.StringExact(sha256Hex(second))),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("size"), knownvalue.Int64Exact(int64(len(second)))),
				},
			},
			{
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           "pve1/local/" + name,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"source_file", "source_file_hash"},
			},
		},
	})
}

// A file deleted outside Terraform is gone from state at the next refresh,
// and the plan puts it back.
func TestAccISO_disappears(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	source := filepath.Join(t.TempDir(), "seed.iso")
	if err := os.WriteFile(source, []byte("cidata"), 0o600); err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("tfacc") + ".iso"
	volid := "local:iso/" + name
	config := artifactConfig(tg, "pve_iso", name, fmt.Sprintf("  source_file = %q\n", source))

	tg.Run(t, resource.TestCase{
		CheckDestroy: checkNoFile(tg, "iso", volid),
		Steps: []resource.TestStep{
			{Config: config, ConfigStateChecks: []statecheck.StateCheck{checkFile(tg, "iso", volid, len("cidata"))}},
			{
				PreConfig: func() {
					ctx := context.Background()
					upid, err := tg.Client.DeleteVolume(ctx, "pve1", "local", volid)
					if err == nil {
						_, err = tg.Client.WaitTask(ctx, upid)
					}
					if err != nil {
						t.Fatalf("delete outside Terraform: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("pve_iso.test", plancheck.ResourceActionCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{checkFile(tg, "iso", volid, len("cidata"))},
			},
		},
	})
}

// W44: a file name PVE would refuse for the content type fails the plan,
// naming the accepted extensions; a new file needs a source.
func TestAccArtifacts_planTimeErrorsW44(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	url := `  url = "https://example.org/x"` + "\n"
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:      artifactConfig(tg, "pve_iso", "cloud.qcow2", url),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid File Name.*\.iso,\s+\.img`),
			},
			{
				Config:      artifactConfig(tg, "pve_disk_image", "noble.img", url),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid File Name.*\.qcow2,\s+\.raw,\s+\.vmdk`),
			},
			{
				Config:      artifactConfig(tg, "pve_os_template", "debian.zip", url),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid File Name.*\.tar\.zst`),
			},
			{
				Config:      artifactConfig(tg, "pve_iso", "a b.iso", url),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)Invalid File Name.*may contain only`),
			},
			{
				Config:      artifactConfig(tg, "pve_iso", "x.iso", ""),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Missing File Source`),
			},
			{
				Config:      artifactConfig(tg, "pve_iso", "x.iso", url+"  source_file = \"x.iso\"\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Invalid Attribute Combination`),
			},
			{
				Config:      artifactConfig(tg, "pve_iso", "x.iso", url+"  checksum = \"abc\"\n  checksum_algorithm = \"sha256\"\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Invalid Checksum`),
			},
			{
				Config:      artifactConfig(tg, "pve_iso", "x.iso", "  source_file = \"does-not-exist.iso\"\n"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Unable To Read Source File`),
			},
		},
	})
}

// W25: a VM disk is created from a pve_disk_image with import_from, then
// grown to its size; the plan after apply is empty.
func TestAccDiskImage_seedsVMDiskW25(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	source := filepath.Join(t.TempDir(), "cloud.qcow2")
	if err := os.WriteFile(source, qcow2Image(65536), 0o600); err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("tfacc") + ".qcow2"
	config := tg.Config(fmt.Sprintf(`
resource "pve_disk_image" "cloud" {
  node        = "pve1"
  storage     = "local"
  file_name   = %q
  source_file = %q
}

resource "pve_vm" "test" {
  node          = "pve1"
  name          = "tfacc-cloud"
  started       = false
  scsi_hardware = "virtio-scsi-single"
  disks = {
    scsi0 = { storage = "local-lvm", import_from = pve_disk_image.cloud.volume, size = 2 }
  }
}
`, name, source))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("pve_vm.test", tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("import_from"),
					knownvalue.StringExact("local:import/"+name)),
				statecheck.ExpectKnownValue("pve_vm.test", tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("size"), knownvalue.StringExact("2")),
				acctest.CheckState(func(state *tfjson.State) error {
					_, vmid, err := acctest.GuestFromState(state, "pve_vm.test")
					if err != nil {
						return err
					}
					config, err := tg.Client.GuestConfig(context.Background(), "pve1", pveapi.GuestTypeQemu, vmid)
					if err != nil {
						return err
					}
					if !regexp.MustCompile(`^local-lvm:vm-\d+-disk-0,.*size=2G`).MatchString(config["scsi0"]) {
						return fmt.Errorf("scsi0 = %q", config["scsi0"])
					}
					return nil
				}),
			},
		}},
	})
}

// W46: destroying a file that is already gone succeeds without a word.
func TestDeleteOfAGoneFileSucceedsW46(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	const typeName = "pve_iso"
	state := p.Import(t, typeName, "pve1/local/debian-13-netinst.iso")

	upid, err := p.Client.DeleteVolume(ctx, "pve1", "local", "local:iso/debian-13-netinst.iso")
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatalf("delete outside Terraform: %v", err)
	}
	typ := p.StateValue(t, typeName, state).Type()
	destroyed, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: state, PlannedState: &destroyed, Config: &destroyed,
	})
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("destroy: %v %v", err, diagnostics(resp.Diagnostics))
	}
}

func diagnostics(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return out
}
