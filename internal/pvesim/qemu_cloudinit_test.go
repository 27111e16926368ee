package pvesim

import (
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
	"github.com/proxops/terraform-provider-pve/internal/seediso"
)

// W32: an uploaded .iso is parsed; a NoCloud seed shows its label and
// files, other bytes show why they are no image.
func TestUploadRecordsSeedW32(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	img, err := seediso.Build(seediso.Seed{UserData: "#cloud-config\npackages: [htop]\n", Hostname: "web1"})
	if err != nil {
		t.Fatal(err)
	}
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "iso"), filePart("pve-seed-100.iso", img)))
	v, ok := volumeOn(e.sim, "pve1", "local:iso/pve-seed-100.iso")
	if !ok || v.Seed == nil {
		t.Fatalf("volume %v, seed check missing", ok)
	}
	if err := v.Seed.IsSeed(); err != nil {
		t.Fatalf("seed rejected: %v", err)
	}
	if v.Seed.Parsed.Label != "cidata" || string(v.Seed.Parsed.Files["user-data"]) != "#cloud-config\npackages: [htop]\n" ||
		!strings.Contains(string(v.Seed.Parsed.Files["meta-data"]), "local-hostname: web1") {
		t.Errorf("parsed seed = %q %q", v.Seed.Parsed.Label, v.Seed.Parsed.Files)
	}

	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "iso"), filePart("fake.iso", []byte("not an image"))))
	v, _ = volumeOn(e.sim, "pve1", "local:iso/fake.iso")
	if v.Seed == nil || v.Seed.IsSeed() == nil {
		t.Errorf("bytes that are no ISO 9660 image passed as a seed: %+v", v.Seed)
	}
	e.taskOK(t, e.upload(t, "pve1", "local", field("content", "vztmpl"), filePart("t.tar.gz", []byte("x"))))
	if v, _ := volumeOn(e.sim, "pve1", "local:vztmpl/t.tar.gz"); v.Seed != nil {
		t.Errorf("a template was checked as a seed")
	}
}

// W31: writing the mask back sets the password to the mask itself.
func TestW31MaskWrittenBackBecomesThePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cipassword", "s3cret")).wantOK(t)
	before, _ := e.sim.GuestConfig(100)
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("cipassword", cipasswordMask)).wantOK(t)
	after, _ := e.sim.GuestConfig(100)
	if after["cipassword"] == before["cipassword"] || !cryptMatches(after["cipassword"], cipasswordMask) {
		t.Errorf("stored cipassword %q is not the mask's hash", after["cipassword"])
	}
	if got := e.vmConfig(t, "pve1", "100")["cipassword"]; got != cipasswordMask {
		t.Errorf("cipassword reads %q", got)
	}
}

// cryptMatches checks a password against the simulator's $6$ hash.
func cryptMatches(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 4 || parts[1] != "6" {
		return false
	}
	sum := sha512.Sum512([]byte(parts[2] + password))
	return parts[3] == base64.RawStdEncoding.EncodeToString(sum[:])
}

// W30: keys whose comments carry ':' and '+' are stored percent-encoded
// and decode to the same keys.
func TestSSHKeysRoundTripW30(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	keys := []string{
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g admin:ops@host",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8w me+ci@host",
	}
	encoded := pvegrammar.URIEscape(strings.Join(keys, "\n"))
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("sshkeys", encoded)).wantOK(t)
	stored := e.vmConfig(t, "pve1", "100")["sshkeys"]
	if stored != encoded {
		t.Errorf("sshkeys stored as %q, want the value as sent", stored)
	}
	if got := pvegrammar.SSHKeyLines(pvegrammar.URIUnescape(stored)); !reflect.DeepEqual(got, keys) {
		t.Errorf("sshkeys decode to %q", got)
	}
}

// qemu-server src/PVE/API2/Qemu.pm update_vm_api runs URI::Escape's
// uri_unescape, which leaves a "%" without two hex digits as it is, then
// pve-common src/PVE/Tools.pm validate_ssh_public_keys on every non-blank
// line: a stray "%" is no format error, the line is simply not a key.
func TestSSHKeysStrayPercent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.createVM(t, "100")
	e.call(t, http.MethodPut, "/nodes/pve1/qemu/100/config", form("sshkeys", "abc%2")).
		wantStatus(t, http.StatusInternalServerError, "SSH public key validation error")
}
