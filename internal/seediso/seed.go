package seediso

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Names cloud-init's NoCloud datasource looks for (W32).
const (
	Label             = "cidata"
	FileUserData      = "user-data"
	FileMetaData      = "meta-data"
	FileVendorData    = "vendor-data"
	FileNetworkConfig = "network-config"
)

// MaxFileSize bounds each file of a seed, and each file Parse loads. PVE
// itself caps its generated cloud-init drive at 3 MiB in total; a seed is
// an iso volume with no such cap, but user-data beyond a few MiB is a
// mistake rather than a configuration.
const MaxFileSize = 16 << 20

// Seed is the content of a NoCloud seed image.
type Seed struct {
	// UserData is required: "#cloud-config\n...", a script, a MIME archive or
	// anything else cloud-init accepts as user-data.
	UserData string
	// MetaData is written verbatim when set and should then carry its own
	// instance-id. When empty, the seed gets "instance-id: <InstanceID>" and,
	// with Hostname set, "local-hostname: <Hostname>".
	MetaData      string
	VendorData    string
	NetworkConfig string
	// Hostname is used only in generated meta-data.
	Hostname string
}

// InstanceID is "iid-" and the first 16 hex digits of a SHA-256 over every
// field of s. cloud-init runs its per-instance modules again when the
// instance-id changes, so any change of the seed's content reaches the
// guest on its next boot. Fields are hashed with their lengths so that
// moving text from one field to the next changes the id too.
func (s Seed) InstanceID() string {
	h := sha256.New()
	for _, field := range []string{s.UserData, s.MetaData, s.VendorData, s.NetworkConfig, s.Hostname} {
		var length [8]byte
		binary.BigEndian.PutUint64(length[:], uint64(len(field)))
		h.Write(length[:])
		h.Write([]byte(field))
	}
	return "iid-" + hex.EncodeToString(h.Sum(nil))[:16]
}

// FileName is the name of the seed's iso volume for a VM. It is stable per
// VM rather than per content: an upload under an existing name replaces the
// file (W45), so a changed seed overwrites the old one in place and nothing
// is left behind to clean up.
func (s Seed) FileName(vmid int) string {
	return fmt.Sprintf("pve-seed-%d.iso", vmid)
}

// SHA256 is the hex SHA-256 of Build's output, or "" when s cannot be built.
func (s Seed) SHA256() string {
	img, err := Build(s)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(img)
	return hex.EncodeToString(sum[:])
}

// Build returns the seed's ISO 9660 image: label "cidata", the seed's files
// at the root under their exact names (Rock Ridge and Joliet), empty
// optional files left out. Identical seeds give identical bytes.
func Build(s Seed) ([]byte, error) {
	files, err := s.files()
	if err != nil {
		return nil, err
	}
	return writeImage(Label, files)
}

// files validates s and lists the files of its image.
func (s Seed) files() ([]isoFile, error) {
	if s.UserData == "" {
		return nil, errors.New("user-data is empty: a NoCloud seed needs it")
	}
	metaData := s.MetaData
	if metaData == "" {
		generated, err := s.generatedMetaData()
		if err != nil {
			return nil, err
		}
		metaData = generated
	}
	var files []isoFile
	for _, f := range []struct{ name, content string }{
		{FileUserData, s.UserData},
		{FileMetaData, metaData},
		{FileVendorData, s.VendorData},
		{FileNetworkConfig, s.NetworkConfig},
	} {
		if f.content == "" {
			continue
		}
		if len(f.content) > MaxFileSize {
			return nil, fmt.Errorf("%s is %d bytes; a seed file may hold at most %d (%d MiB)",
				f.name, len(f.content), MaxFileSize, MaxFileSize>>20)
		}
		files = append(files, isoFile{name: f.name, data: []byte(f.content)})
	}
	return files, nil
}

// hostnamePattern is an RFC 1123 host name label; the name goes into YAML
// unquoted, so nothing else may pass.
var hostnamePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$`)

func (s Seed) generatedMetaData() (string, error) {
	meta := "instance-id: " + s.InstanceID() + "\n"
	if s.Hostname == "" {
		return meta, nil
	}
	if !validHostname(s.Hostname) {
		return "", fmt.Errorf("hostname %q is not a valid host name: use letters, digits and hyphens, dot-separated labels of at most 63 characters", s.Hostname)
	}
	return meta + "local-hostname: " + s.Hostname + "\n", nil
}

func validHostname(name string) bool {
	if len(name) > 253 {
		return false
	}
	for _, label := range strings.Split(name, ".") {
		if !hostnamePattern.MatchString(label) {
			return false
		}
	}
	return true
}

// CheckSeed reports why p is not a seed cloud-init's NoCloud datasource
// would take, or nil: the label must be "cidata" or "CIDATA" (the two
// spellings cloud-init searches for) and user-data and meta-data must be at
// the root.
func (p *Parsed) CheckSeed() error {
	if p.Label != Label && p.Label != strings.ToUpper(Label) {
		return fmt.Errorf("volume label is %q, not %q: cloud-init will not find the seed", p.Label, Label)
	}
	var missing []string
	for _, name := range []string{FileUserData, FileMetaData} {
		if _, ok := p.Files[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no %s at the root of the image (found: %s)",
			strings.Join(missing, " or "), strings.Join(p.fileNames(), ", "))
	}
	return nil
}

func (p *Parsed) fileNames() []string {
	names := make([]string, 0, len(p.Files))
	for name := range p.Files {
		names = append(names, name)
	}
	if len(names) == 0 {
		return []string{"nothing"}
	}
	slices.Sort(names)
	return names
}
