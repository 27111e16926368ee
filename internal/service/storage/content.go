// Package storage serves the artifacts kept on PVE storages (pve_iso,
// pve_os_template, pve_disk_image: one implementation for three content
// types) and the pve_storages data source.
package storage

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// artifactKind is what differs between the artifact resources: PVE's
// content type and the file names it accepts for it (W44).
type artifactKind struct {
	typeSuffix string // resource type without the provider prefix
	content    string // PVE content type
	noun       string // for messages: "ISO image"
	title      string // for diagnostic summaries: "ISO Image"
	// extensions are the accepted endings, in the order errors list them.
	extensions []string
	// foldCase: PVE matches the extension case-insensitively.
	foldCase bool
	example  string
	purpose  string // one sentence for the resource description
}

var (
	isoKind = artifactKind{
		typeSuffix: "iso", content: pveapi.ContentISO, noun: "ISO image", title: "ISO Image",
		extensions: []string{".iso", ".img"}, foldCase: true,
		example: "debian-13-netinst.iso",
		purpose: "An ISO image on a PVE storage (content `iso`), for a VM's CD-ROM drive; a NoCloud seed ISO is one too.",
	}
	osTemplateKind = artifactKind{
		typeSuffix: "os_template", content: pveapi.ContentVZTmpl, noun: "container template", title: "Container Template",
		extensions: []string{".tar.zst", ".tar.xz", ".tar.gz", ".tar.bz2", ".tar"}, foldCase: true,
		example: "debian-13-standard_13.1-1_amd64.tar.zst",
		purpose: "A container (LXC) template archive on a PVE storage (content `vztmpl`), the `ostemplate` of a container.",
	}
	diskImageKind = artifactKind{
		typeSuffix: "disk_image", content: pveapi.ContentImport, noun: "disk image", title: "Disk Image",
		extensions: []string{".qcow2", ".raw", ".vmdk"},
		example:    "debian-13-genericcloud-amd64.qcow2",
		purpose: "A disk image on a PVE storage (content `import`), such as a cloud image, " +
			"to seed a VM disk from: `pve_vm.disks.scsi0.import_from = pve_disk_image.cloud.volume`.",
	}
)

// safeFileName is the set of characters PVE keeps in a file name: it
// replaces any other with '_' (normalize_content_filename), after which the
// volume would not have the configured name.
var safeFileName = regexp.MustCompile(`^[a-zA-Z0-9_.\-]+$`)

// checkFileName applies PVE's file name rule for the content type (W44),
// so a wrong name fails at plan time with the accepted extensions listed.
func (k artifactKind) checkFileName(name string) error {
	if !safeFileName.MatchString(name) {
		return fmt.Errorf("%q may contain only letters, digits, '_', '.' and '-': PVE replaces any other character with '_', "+
			"so the file would not have this name", name)
	}
	compare := name
	if k.foldCase {
		compare = strings.ToLower(name)
	}
	for _, ext := range k.extensions {
		if strings.HasSuffix(compare, ext) && len(compare) > len(ext) {
			return nil
		}
	}
	return fmt.Errorf("%q does not end in an extension PVE accepts for %s (content %q): %s",
		name, k.noun+"s", k.content, strings.Join(k.extensions, ", "))
}

// fileNameValidator is checkFileName as an attribute validator.
type fileNameValidator struct{ kind artifactKind }

func (v fileNameValidator) Description(context.Context) string {
	return "must be a file name ending in " + strings.Join(v.kind.extensions, ", ")
}

func (v fileNameValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v fileNameValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.kind.checkFileName(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid File Name", err.Error())
	}
}

// checksumLengths are the hex lengths of PVE's checksum algorithms.
var checksumLengths = map[string]int{
	"md5": 32, "sha1": 40, "sha224": 56, "sha256": 64, "sha384": 96, "sha512": 128,
}

// urlPattern is download-url's pattern for url.
var urlPattern = regexp.MustCompile(`^https?://.+`)

var hexPattern = regexp.MustCompile(`^[0-9a-fA-F]+$`)

// checkChecksum tells whether a checksum has the shape of the algorithm's
// digest in hex.
func checkChecksum(algorithm, checksum string) error {
	want, ok := checksumLengths[algorithm]
	if !ok {
		return fmt.Errorf("unknown checksum algorithm %q", algorithm)
	}
	if len(checksum) != want || !hexPattern.MatchString(checksum) {
		return fmt.Errorf("a %s checksum is %d hexadecimal digits; %q is not", algorithm, want, checksum)
	}
	return nil
}

// importID is an artifact's import id, NODE/STORAGE/FILE.
func importID(node, storage, fileName string) string {
	return node + "/" + storage + "/" + fileName
}

// parseImportID splits NODE/STORAGE/FILE.
func parseImportID(id string) (node, storage, fileName string, err error) {
	parts := strings.Split(id, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("the import id is NODE/STORAGE/FILE (for example pve1/local/debian-13-netinst.iso), got %q", id)
	}
	return parts[0], parts[1], parts[2], nil
}
