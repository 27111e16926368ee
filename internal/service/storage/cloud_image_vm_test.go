package storage_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

var regexpHex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ed25519PublicKey builds a well-formed ssh-ed25519 public key line from a
// seed, so PVE's key check (W30) accepts it without a key generator.
func ed25519PublicKey(seed, comment string) string {
	sum := sha256.Sum256([]byte(seed))
	var blob []byte
	for _, field := range [][]byte{[]byte("ssh-ed25519"), sum[:]} {
		blob = binary.BigEndian.AppendUint32(blob, uint32(len(field)))
		blob = append(blob, field...)
	}
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(blob) + " " + comment
}

// The API-only path to cloud-image VMs, end to end: an uploaded disk image
// seeds the system disk (W25), one VM is configured through PVE's
// cloud-init drive (W27, W30) and one through a NoCloud seed ISO with full
// user-data (W32). The plan after apply is empty.
func TestAccCloudImageVMsWithCloudInit(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	source := filepath.Join(t.TempDir(), "cloud.qcow2")
	if err := os.WriteFile(source, qcow2Image(65536), 0o600); err != nil {
		t.Fatal(err)
	}
	name := acctest.Name("tfacc") + ".qcow2"
	key := ed25519PublicKey(name, "ops@example.org")

	config := tg.Config(fmt.Sprintf(`
resource "pve_disk_image" "cloud" {
  node        = "pve1"
  storage     = "local"
  file_name   = %[1]q
  source_file = %[2]q
}

resource "pve_vm" "keys" {
  node          = "pve1"
  name          = "tfacc-ci-keys"
  started       = false
  scsi_hardware = "virtio-scsi-single"
  disks = {
    scsi0 = { storage = "local-lvm", import_from = pve_disk_image.cloud.volume, size = 2 }
  }
  network = { net0 = { bridge = "vmbr0" } }
  cloud_init = {
    storage   = "local-lvm"
    user      = "debian"
    ssh_keys  = [%[3]q]
    dns       = { domain = "lan", servers = ["10.0.0.1"] }
    ip_config = { ipconfig0 = { ipv4 = { address = "10.0.0.5/24", gateway = "10.0.0.1" } } }
  }
}

resource "pve_vm" "seed" {
  node          = "pve1"
  name          = "tfacc-ci-seed"
  started       = false
  scsi_hardware = "virtio-scsi-single"
  disks = {
    scsi0 = { storage = "local-lvm", import_from = pve_disk_image.cloud.volume, size = 2 }
  }
  network = { net0 = { bridge = "vmbr0" } }
  cloud_init = {
    seed_storage = "local"
    user_data    = "#cloud-config\npackages: [nginx]\n"
  }
}
`, name, source, key))

	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("pve_vm.keys", tfjsonpath.New("disks").AtMapKey("scsi0").AtMapKey("import_from"),
					knownvalue.StringExact("local:import/"+name)),
				statecheck.ExpectKnownValue("pve_vm.keys", tfjsonpath.New("cloud_init").AtMapKey("ssh_keys"),
					knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact(key)})),
				statecheck.ExpectKnownValue("pve_vm.seed", tfjsonpath.New("cloud_init").AtMapKey("seed_sha256"),
					knownvalue.StringRegexp(regexpHex64)),
			},
		}},
	})
}
