package storage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// artifactModel is the Terraform state of pve_iso, pve_os_template and
// pve_disk_image.
type artifactModel struct {
	ID                 types.String   `tfsdk:"id"`
	Node               types.String   `tfsdk:"node"`
	Storage            types.String   `tfsdk:"storage"`
	FileName           types.String   `tfsdk:"file_name"`
	URL                types.String   `tfsdk:"url"`
	Checksum           types.String   `tfsdk:"checksum"`
	ChecksumAlgorithm  types.String   `tfsdk:"checksum_algorithm"`
	VerifyCertificates types.Bool     `tfsdk:"verify_certificates"`
	SourceFile         types.String   `tfsdk:"source_file"`
	SourceFileHash     types.String   `tfsdk:"source_file_hash"`
	Volume             types.String   `tfsdk:"volume"`
	Size               types.Int64    `tfsdk:"size"`
	CTime              types.Int64    `tfsdk:"ctime"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

// volumeID is the PVE volume id the model names.
func (m *artifactModel) volumeID(kind artifactKind) string {
	return pveapi.VolumeID(m.Storage.ValueString(), kind.content, m.FileName.ValueString())
}

// setIdentity fills id and volume from node, storage and file name.
func (m *artifactModel) setIdentity(kind artifactKind) {
	m.ID = types.StringValue(importID(m.Node.ValueString(), m.Storage.ValueString(), m.FileName.ValueString()))
	m.Volume = types.StringValue(m.volumeID(kind))
}

// fromAPI fills what PVE reports of the file. The source (url or
// source_file) is not among it: PVE does not know where a file came from
// (W47), so those stay as they are.
func (m *artifactModel) fromAPI(kind artifactKind, v *pveapi.StorageVolume) {
	m.setIdentity(kind)
	m.Volume = types.StringValue(v.VolID)
	m.Size = types.Int64Value(int64(v.Size))
	if v.CTime > 0 {
		m.CTime = types.Int64Value(int64(v.CTime))
	} else {
		m.CTime = types.Int64Null()
	}
}

// toDownload is the download-url request (W44) for the model.
func (m *artifactModel) toDownload(kind artifactKind) pveapi.DownloadURLRequest {
	req := pveapi.DownloadURLRequest{
		Node:              m.Node.ValueString(),
		Storage:           m.Storage.ValueString(),
		Content:           kind.content,
		FileName:          m.FileName.ValueString(),
		URL:               m.URL.ValueString(),
		Checksum:          m.Checksum.ValueString(),
		ChecksumAlgorithm: m.ChecksumAlgorithm.ValueString(),
	}
	if !m.VerifyCertificates.IsNull() && !m.VerifyCertificates.IsUnknown() {
		verify := m.VerifyCertificates.ValueBool()
		req.VerifyCertificates = &verify
	}
	return req
}

// toUpload is the upload request (W45) for the model, reading the file
// from open. PVE verifies what it received: against the configured
// checksum if there is one, else against the SHA-256 computed at plan
// time, so a file that changed since the plan is refused.
func (m *artifactModel) toUpload(kind artifactKind, open func() (io.ReadCloser, error), size int64) pveapi.UploadRequest {
	req := pveapi.UploadRequest{
		Node:     m.Node.ValueString(),
		Storage:  m.Storage.ValueString(),
		Content:  kind.content,
		FileName: m.FileName.ValueString(),
		Open:     open,
		Size:     size,
	}
	switch {
	case !m.Checksum.IsNull() && m.Checksum.ValueString() != "":
		req.Checksum, req.ChecksumAlgorithm = m.Checksum.ValueString(), m.ChecksumAlgorithm.ValueString()
	case !m.SourceFileHash.IsNull() && !m.SourceFileHash.IsUnknown():
		req.Checksum, req.ChecksumAlgorithm = m.SourceFileHash.ValueString(), "sha256"
	}
	return req
}

// fileSHA256 hashes a local file as it streams by.
func fileSHA256(name string) (string, error) {
	f, err := os.Open(name) // #nosec G304 -- the configuration names the file to upload
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", name)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// planChange is what an update of an existing artifact needs.
type planChange struct {
	// replace lists the attributes whose change needs a new file.
	replace path.Paths
	// reupload: the local file differs from what was uploaded (or nothing
	// was uploaded yet), so it goes up again in place; PVE overwrites
	// (W45).
	reupload bool
}

// planChanges compares state and plan of an existing artifact. The file's
// identity (node, storage, file name) cannot change in place. A download
// is replaced when its url or checksum changes; W47: when state has no url
// or checksum (an imported file), setting one is no replacement. A
// changed local file is uploaded again in place.
func planChanges(state, plan *artifactModel) planChange {
	var out planChange
	for _, attr := range []struct {
		name        string
		prior, next types.String
	}{
		{"node", state.Node, plan.Node},
		{"storage", state.Storage, plan.Storage},
		{"file_name", state.FileName, plan.FileName},
	} {
		if !attr.prior.Equal(attr.next) {
			out.replace = append(out.replace, path.Root(attr.name))
		}
	}
	downloaded := !plan.URL.IsNull()
	for _, attr := range []struct {
		name        string
		prior, next types.String
		applies     bool
	}{
		{"url", state.URL, plan.URL, true},
		{"checksum", state.Checksum, plan.Checksum, downloaded},
		{"checksum_algorithm", state.ChecksumAlgorithm, plan.ChecksumAlgorithm, downloaded},
	} {
		if attr.applies && !attr.prior.IsNull() && !attr.next.IsNull() && !attr.prior.Equal(attr.next) {
			out.replace = append(out.replace, path.Root(attr.name))
		}
	}
	out.reupload = !plan.SourceFile.IsNull() && !plan.SourceFileHash.Equal(state.SourceFileHash)
	return out
}
