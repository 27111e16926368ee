package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// NewISOListResource is the pve_iso list resource registered with the
// provider (terraform query, Terraform 1.14 and later).
func NewISOListResource() list.ListResource {
	return &artifactListResource{kind: isoKind, newResource: NewISOResource}
}

// NewOSTemplateListResource is the pve_os_template list resource.
func NewOSTemplateListResource() list.ListResource {
	return &artifactListResource{kind: osTemplateKind, newResource: NewOSTemplateResource}
}

// NewDiskImageListResource is the pve_disk_image list resource.
func NewDiskImageListResource() list.ListResource {
	return &artifactListResource{kind: diskImageKind, newResource: NewDiskImageResource}
}

// artifactListResource lists the files of one content type on the
// cluster's storages: one GET /cluster/resources?type=storage finds the
// storages that hold the type, and one content listing per storage (per
// node for a local one, once for a shared one) finds the files. A full
// object (include_resource) is what the kind's resource imports.
type artifactListResource struct {
	kind        artifactKind
	newResource func() resource.Resource
	data        *fwutil.ProviderData
}

var (
	_ list.ListResourceWithConfigure      = (*artifactListResource)(nil)
	_ list.ListResourceWithValidateConfig = (*artifactListResource)(nil)
)

type artifactListFilter struct {
	Node     types.String `tfsdk:"node"`
	Storage  types.String `tfsdk:"storage"`
	FileName types.String `tfsdk:"file_name"`
}

func (l *artifactListResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.kind.typeSuffix
}

func (l *artifactListResource) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	k := l.kind
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("Lists the %ss (content `%s`) on the cluster's storages, for `terraform query`. "+
			"A file on a shared storage is listed once, through the first node (by name) that has the storage, "+
			"unless `node` names another. With `include_resource = true` each result carries the file as an import of it reads it, "+
			"so `terraform query -generate-config-out` writes configuration that plans no change once imported. "+
			"Every filter given must match; none lists all of them.", k.noun, k.content),
		Attributes: map[string]schema.Attribute{
			"node": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only the files on the storages of this node.",
			},
			"storage": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Only the files on this storage.",
			},
			"file_name": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("Only the files whose name matches this shell pattern: `*` matches any run of characters, "+
					"`?` one character, `[a-z]` one of a class (e.g. `debian-*%s`). The whole name must match.", k.extensions[0]),
			},
		},
	}
}

func (l *artifactListResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		l.data = pd
	}
}

func (l *artifactListResource) ValidateListResourceConfig(ctx context.Context, req list.ValidateConfigRequest, resp *list.ValidateConfigResponse) {
	var f artifactListFilter
	resp.Diagnostics.Append(req.Config.Get(ctx, &f)...)
	fwutil.ListNamePattern(f.FileName.ValueString(), "file_name", &resp.Diagnostics)
}

// storageAt is a storage as listed through one node.
type storageAt struct{ node, storage string }

// listedStorages are the storages of the listing entries that hold
// content, each a shared one once (through node when given, else its
// first node by name), the way the files are to be listed.
func listedStorages(entries []pveapi.Resource, content, node, storage string) []storageAt {
	var out []storageAt
	shared := map[string]bool{}
	slices.SortFunc(entries, func(a, b pveapi.Resource) int {
		return strings.Compare(a.Node+"/"+a.Storage, b.Node+"/"+b.Storage)
	})
	for _, e := range entries {
		if e.Type != "storage" || e.Status != "available" || node != "" && e.Node != node || storage != "" && e.Storage != storage {
			continue
		}
		if !slices.Contains(strings.Split(e.Content, ","), content) {
			continue
		}
		if e.Shared {
			if shared[e.Storage] {
				continue
			}
			shared[e.Storage] = true
		}
		out = append(out, storageAt{node: e.Node, storage: e.Storage})
	}
	return out
}

func (l *artifactListResource) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var diags diag.Diagnostics
	var f artifactListFilter
	diags.Append(req.Config.Get(ctx, &f)...)
	pattern := f.FileName.ValueString()
	fwutil.ListNamePattern(pattern, "file_name", &diags)
	if l.data == nil {
		diags.AddError("Provider Not Configured", "The provider has no connection to PVE to list files with.")
	}
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	entries, err := l.data.Client.ClusterResources(ctx, "storage")
	if err != nil {
		fwutil.AddAPIError(&diags, fmt.Sprintf("Unable To List %ss", l.kind.title), err)
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	storages := listedStorages(entries, l.kind.content, f.Node.ValueString(), f.Storage.ValueString())
	r := l.newResource()
	if req.IncludeResource {
		if conf := fwutil.ConfigureListed(ctx, r, l.data); conf.HasError() {
			stream.Results = list.ListResultsStreamDiagnostics(conf)
			return
		}
	}
	prefix := l.kind.content + "/"
	stream.Results = func(push func(list.ListResult) bool) {
		var pushed int64
		for _, at := range storages {
			volumes, err := l.data.Client.StorageContent(ctx, at.node, at.storage, l.kind.content)
			if err != nil {
				var d diag.Diagnostics
				fwutil.AddAPIError(&d, fmt.Sprintf("Unable To List %ss On %s Of Node %s", l.kind.title, at.storage, at.node), err)
				if !push(list.ListResult{Diagnostics: d}) {
					return
				}
				continue
			}
			for _, v := range volumes {
				name, ok := strings.CutPrefix(strings.TrimPrefix(v.VolID, at.storage+":"), prefix)
				// A file the resource could not manage (a name PVE would
				// not keep, another extension) is not one to import.
				if !ok || l.kind.checkFileName(name) != nil || !fwutil.ListNameMatches(pattern, name) {
					continue
				}
				if req.Limit > 0 && pushed >= req.Limit {
					return
				}
				result, found := fwutil.Listed(ctx, r, req, importID(at.node, at.storage, name),
					map[string]string{"node": at.node, "storage": at.storage, "file_name": name}, v.VolID+" on "+at.node)
				if !found {
					continue
				}
				pushed++
				if !push(result) {
					return
				}
			}
		}
	}
}
