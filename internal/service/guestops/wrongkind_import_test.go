package guestops

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// importSchema holds the attributes ImportState writes.
var importSchema = schema.Schema{Attributes: map[string]schema.Attribute{
	"id":   schema.StringAttribute{Computed: true},
	"vmid": schema.Int64Attribute{Optional: true},
	"node": schema.StringAttribute{Required: true},
	"pool": schema.StringAttribute{Optional: true},
}}

// importCluster is a simulated cluster with one guest of every kind, the
// VMs on pve1 and the containers on pve2, and a client for it.
func importCluster(t *testing.T) *pveapi.Client {
	t.Helper()
	token := "root@pam!import=0123456789abcdef"
	sim, err := pvesim.New(pvesim.Options{Tokens: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.Update(func(c *pvesim.Cluster) error {
		c.Pools["adopt"] = &pvesim.Pool{ID: "adopt", VMs: map[int]bool{}, Storages: map[string]bool{}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []pvesim.Guest{
		{VMID: 100, Node: "pve1", Type: pvesim.QEMU, Config: map[string]string{"name": "vm", "serial0": "socket"}, Pool: "adopt"},
		{VMID: 101, Node: "pve1", Type: pvesim.QEMU, Config: map[string]string{"name": "vm-template", "template": "1"}},
		{VMID: 200, Node: "pve2", Type: pvesim.LXC, Config: map[string]string{"hostname": "ct"}},
		{VMID: 201, Node: "pve2", Type: pvesim.LXC, Config: map[string]string{"hostname": "ct-template", "template": "1"}},
	} {
		if err := sim.AddGuest(g); err != nil {
			t.Fatal(err)
		}
	}
	return simClient(t, sim, token)
}

// simClient serves sim over TLS for the test's life and returns a client
// for it that authenticates with token.
func simClient(t *testing.T, sim *pvesim.Sim, token string) *pveapi.Client {
	t.Helper()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	srv, err := sim.StartTLS("127.0.0.1:0", caFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	client, err := pveapi.New(pveapi.Config{Endpoint: srv.URL, APIToken: token, CAFile: caFile, TaskPollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func importAs(t *testing.T, client *pveapi.Client, kind Kind, id string) *resource.ImportStateResponse {
	t.Helper()
	ctx := context.Background()
	resp := &resource.ImportStateResponse{State: tfsdk.State{
		Schema: importSchema,
		Raw:    tftypes.NewValue(importSchema.Type().TerraformType(ctx), nil),
	}}
	API{Client: client, Kind: kind}.ImportState(ctx, resource.ImportStateRequest{ID: id}, resp)
	return resp
}

// W17: every guest id given to a resource of another kind is refused with
// an error naming the resource to import it as; a template and a guest
// never stand in for each other.
func TestImportRefusesEveryWrongKindW17(t *testing.T) {
	t.Parallel()
	client := importCluster(t)
	guests := map[string]Kind{"100": VM, "101": VMTemplate, "200": Container, "201": ContainerTemplate}
	for _, resourceKind := range []Kind{VM, VMTemplate, Container, ContainerTemplate} {
		for id, guestKind := range guests {
			if guestKind == resourceKind {
				continue
			}
			t.Run(resourceKind.Resource+"/"+id, func(t *testing.T) {
				t.Parallel()
				resp := importAs(t, client, resourceKind, id)
				if !resp.Diagnostics.HasError() {
					t.Fatalf("importing %s guest %s as %s succeeded", guestKind.Noun, id, resourceKind.Resource)
				}
				d := resp.Diagnostics.Errors()[0]
				if !strings.HasPrefix(d.Summary(), "Not A ") && !strings.HasSuffix(d.Summary(), "Is A Template") {
					t.Errorf("summary %q does not say the kind is wrong", d.Summary())
				}
				if !strings.Contains(d.Detail(), "import it as "+guestKind.Resource) {
					t.Errorf("detail %q does not name %s", d.Detail(), guestKind.Resource)
				}
				if !resp.State.Raw.IsNull() {
					var node *string
					resp.State.GetAttribute(context.Background(), path.Root("node"), &node)
					if node != nil {
						t.Errorf("a refused import left state behind (node %s)", *node)
					}
				}
			})
		}
	}
}

// A VMID alone is looked up in the cluster: state gets the guest's node and
// pool (W48: pool membership is not in the guest's config).
func TestImportByVMIDLooksUpNodeAndPool(t *testing.T) {
	t.Parallel()
	client := importCluster(t)
	for _, tc := range []struct {
		kind       Kind
		id         string
		node, pool string
	}{
		{VM, "100", "pve1", "adopt"},
		{VM, "pve1/100", "pve1", "adopt"},
		{VMTemplate, "101", "pve1", ""},
		{Container, "200", "pve2", ""},
		{ContainerTemplate, "pve2/201", "pve2", ""},
	} {
		resp := importAs(t, client, tc.kind, tc.id)
		if resp.Diagnostics.HasError() {
			t.Errorf("import %s %s: %v", tc.kind.Resource, tc.id, resp.Diagnostics)
			continue
		}
		var node string
		var pool *string
		resp.Diagnostics.Append(resp.State.GetAttribute(context.Background(), path.Root("node"), &node)...)
		resp.Diagnostics.Append(resp.State.GetAttribute(context.Background(), path.Root("pool"), &pool)...)
		if node != tc.node {
			t.Errorf("import %s %s: node %q, want %q", tc.kind.Resource, tc.id, node, tc.node)
		}
		if got := ""; pool != nil {
			got = *pool
			if got != tc.pool {
				t.Errorf("import %s %s: pool %q, want %q", tc.kind.Resource, tc.id, got, tc.pool)
			}
		} else if tc.pool != "" {
			t.Errorf("import %s %s: no pool, want %q", tc.kind.Resource, tc.id, tc.pool)
		}
	}
	resp := importAs(t, client, Container, "pve1/200")
	if !resp.Diagnostics.HasError() || !strings.Contains(resp.Diagnostics.Errors()[0].Detail(), "is on node pve2, not pve1") {
		t.Errorf("a wrong node must be refused naming the right one: %v", resp.Diagnostics)
	}
}

// An import warns once, naming the keys the resource cannot represent; a
// refused import does not warn.
func TestImportWithWarningNamesUnmanagedKeysOnce(t *testing.T) {
	t.Parallel()
	client := importCluster(t)
	ctx := context.Background()
	importWith := func(kind Kind, id string) *resource.ImportStateResponse {
		resp := &resource.ImportStateResponse{State: tfsdk.State{
			Schema: importSchema,
			Raw:    tftypes.NewValue(importSchema.Type().TerraformType(ctx), nil),
		}}
		API{Client: client, Kind: kind}.ImportWithWarning(ctx, resource.ImportStateRequest{ID: id}, resp, ownerOf{"name", "hostname"})
		return resp
	}
	resp := importWith(VM, "100")
	warnings := resp.Diagnostics.Warnings()
	if resp.Diagnostics.HasError() || len(warnings) != 1 {
		t.Fatalf("want one warning, got %v", resp.Diagnostics)
	}
	if warnings[0].Summary() != UnmanagedSummary || !strings.Contains(warnings[0].Detail(), "has no attribute for: serial0.") {
		t.Errorf("warning %q: %q", warnings[0].Summary(), warnings[0].Detail())
	}
	if resp := importWith(Container, "200"); len(resp.Diagnostics) != 0 {
		t.Errorf("a guest without unmanaged settings warned: %v", resp.Diagnostics)
	}
	if resp := importWith(Container, "100"); len(resp.Diagnostics.Warnings()) != 0 {
		t.Errorf("a refused import warned: %v", resp.Diagnostics)
	}
}
