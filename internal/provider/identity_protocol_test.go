package provider_test

import (
	"context"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
	"github.com/proxops/terraform-provider-pve/internal/provider"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// Every registered resource has an identity (Terraform 1.12 and later),
// each of whose attributes is described for the documentation and says
// how an import block uses it: a new resource cannot leave it out.
func TestEveryResourceHasAnIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := provider.New("test")()
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "pve"}, &meta)
		withIdentity, ok := r.(resource.ResourceWithIdentity)
		if !ok {
			t.Errorf("%s has no identity: declare its natural key with fwutil.WithIdentity", meta.TypeName)
			continue
		}
		var resp resource.IdentitySchemaResponse
		withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &resp)
		if len(resp.IdentitySchema.Attributes) == 0 {
			t.Errorf("%s: empty identity schema", meta.TypeName)
		}
		required := 0
		for name, a := range resp.IdentitySchema.Attributes {
			if a.GetDescription() == "" {
				t.Errorf("%s: identity attribute %s has no description", meta.TypeName, name)
			}
			if a.IsRequiredForImport() {
				required++
			}
		}
		if required == 0 {
			t.Errorf("%s: no identity attribute is required for import, so an identity of nulls would name nothing", meta.TypeName)
		}
	}

	// The framework validates the identity schemas it serves.
	server, err := providerserver.NewProtocol6WithError(provider.New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("identity schemas: %v %v", err, resp.Diagnostics)
	}
	if got, want := len(resp.IdentitySchemas), len(p.Resources(ctx)); got != want {
		t.Errorf("%d identity schemas for %d resources", got, want)
	}
}

// identityCase is one resource type's identity round trip: what makes an
// object (created by Terraform from attrs, or planted outside it), its
// import id and the identity that names it.
type identityCase struct {
	typeName string
	pve      string                                  // the PVE release, "" for the default
	setup    func(t *testing.T, p *acctest.Protocol) // what must exist first
	attrs    map[string]any                          // created by Terraform; nil: imported only
	importID string
	identity map[string]any // the full identity; an int64 for an Int64
	// partial is an identity with only what an import needs (an optional
	// attribute left out), nil when there is nothing to leave out.
	partial map[string]any
}

// createGuest makes a guest through the API, outside Terraform.
func createGuest(t *testing.T, p *acctest.Protocol, typ string, vmid int, params url.Values) {
	t.Helper()
	ctx := context.Background()
	upid, err := p.Client.CreateGuest(ctx, "pve1", typ, vmid, params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.WaitTask(ctx, upid); err != nil {
		t.Fatal(err)
	}
}

func vm100(t *testing.T, p *acctest.Protocol) {
	t.Helper()
	createGuest(t, p, pveapi.GuestTypeQemu, 100, url.Values{"scsi0": {"local-lvm:4"}, "memory": {"512"}})
}

func convertToTemplate(t *testing.T, p *acctest.Protocol, typ string, vmid int) {
	t.Helper()
	ctx := context.Background()
	if typ == pveapi.GuestTypeLXC {
		if err := p.Client.TemplateLXC(ctx, "pve1", vmid); err != nil {
			t.Fatal(err)
		}
		return
	}
	upid, err := p.Client.TemplateQemu(ctx, "pve1", vmid, "")
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
}

var identityCases = []identityCase{
	{typeName: "pve_pool", attrs: map[string]any{"poolid": "idpool"}, importID: "idpool", identity: map[string]any{"poolid": "idpool"}},
	{typeName: "pve_user", attrs: map[string]any{"userid": "idu@pve"}, importID: "idu@pve", identity: map[string]any{"userid": "idu@pve"}},
	{typeName: "pve_group", attrs: map[string]any{"groupid": "idgroup"}, importID: "idgroup", identity: map[string]any{"groupid": "idgroup"}},
	{typeName: "pve_role", attrs: map[string]any{"roleid": "IdRole", "privileges": []string{"VM.Audit"}}, importID: "IdRole",
		identity: map[string]any{"roleid": "IdRole"}},
	{typeName: "pve_realm", attrs: map[string]any{"realm": "idcorp", "type": "openid", "issuer_url": "https://id.example.com", "client_id": "pve"},
		importID: "idcorp", identity: map[string]any{"realm": "idcorp"}},
	{typeName: "pve_api_token", setup: func(t *testing.T, p *acctest.Protocol) {
		if err := p.Client.CreateUser(context.Background(), pveapi.UserCreate{UserID: "idt@pve"}); err != nil {
			t.Fatal(err)
		}
	}, attrs: map[string]any{"userid": "idt@pve", "token_name": "ci"}, importID: "idt@pve!ci",
		identity: map[string]any{"userid": "idt@pve", "token_name": "ci"}},
	{typeName: "pve_acl", setup: func(t *testing.T, p *acctest.Protocol) {
		if err := p.Client.CreateGroup(context.Background(), "idacl", ""); err != nil {
			t.Fatal(err)
		}
	}, attrs: map[string]any{"path": "/vms", "role": "PVEAuditor", "group": "idacl"}, importID: "/vms|group|idacl|PVEAuditor",
		identity: map[string]any{"path": "/vms", "role": "PVEAuditor", "group": "idacl", "user": nil, "token": nil}},
	{typeName: "pve_firewall_security_group", attrs: map[string]any{"name": "idsg"}, importID: "idsg", identity: map[string]any{"name": "idsg"}},
	{typeName: "pve_firewall_alias", attrs: map[string]any{"name": "idalias", "cidr": "10.0.0.1"}, importID: "cluster/idalias",
		identity: map[string]any{"name": "idalias", "vmid": nil}},
	{typeName: "pve_firewall_ipset", setup: vm100, attrs: map[string]any{"vmid": 100, "name": "idset"}, importID: "guest/100/idset",
		identity: map[string]any{"name": "idset", "vmid": int64(100)}},
	{typeName: "pve_firewall_rules", attrs: map[string]any{"node": "pve1", "rules": []map[string]any{{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "22"}}},
		importID: "node/pve1", identity: map[string]any{"firewall": "node/pve1"}},
	{typeName: "pve_firewall_options", importID: "cluster", identity: map[string]any{"firewall": "cluster"}},
	{typeName: "pve_ha_rule", setup: func(t *testing.T, p *acctest.Protocol) {
		if err := p.Sim.Update(func(c *pvesim.Cluster) error {
			for _, sid := range []string{"vm:100", "vm:101"} {
				c.HA.Resources[sid] = &pvesim.HAResource{SID: sid, Props: map[string]string{}}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}, attrs: map[string]any{"rule": "idrule", "type": "resource-affinity", "resources": []string{"vm:100", "vm:101"}, "affinity": "positive"},
		importID: "idrule", identity: map[string]any{"rule": "idrule"}},
	{typeName: "pve_ha_resource", setup: vm100, attrs: map[string]any{"vmid": 100}, importID: "100",
		identity: map[string]any{"vmid": int64(100), "type": "vm"}, partial: map[string]any{"vmid": 100}},
	{typeName: "pve_ha_group", pve: "8.4", attrs: map[string]any{"group": "idhagroup", "nodes": map[string]tftypes.Value{"pve1": tftypes.NewValue(tftypes.Number, big.NewFloat(1))}},
		importID: "idhagroup", identity: map[string]any{"group": "idhagroup"}},
	{typeName: "pve_pci_mapping", attrs: map[string]any{"id": "idgpu", "map": map[string]map[string]any{"pve1": {"path": "0000:01:00.0", "id": "10de:2204"}}},
		importID: "idgpu", identity: map[string]any{"id": "idgpu"}},
	{typeName: "pve_usb_mapping", attrs: map[string]any{"id": "idkey", "map": map[string]map[string]any{"pve1": {"id": "0529:0001"}}},
		importID: "idkey", identity: map[string]any{"id": "idkey"}},
	{typeName: "pve_dir_mapping", attrs: map[string]any{"id": "idshare", "map": map[string]map[string]any{"pve1": {"path": "/srv/share"}}},
		importID: "idshare", identity: map[string]any{"id": "idshare"}},
	{typeName: "pve_backup_job", attrs: map[string]any{"id": "idjob", "schedule": "21:00", "all": true}, importID: "idjob",
		identity: map[string]any{"id": "idjob"}},
	{typeName: "pve_replication_job", setup: func(t *testing.T, p *acctest.Protocol) {
		if err := p.Sim.AddZFSStorage(); err != nil {
			t.Fatal(err)
		}
		createGuest(t, p, pveapi.GuestTypeQemu, 100, url.Values{"scsi0": {"local-zfs:4"}, "memory": {"512"}})
	}, attrs: map[string]any{"vmid": 100, "target": "pve2", "schedule": "*/15"}, importID: "100-0",
		identity: map[string]any{"vmid": int64(100), "job_number": int64(0)}},
	{typeName: "pve_sdn_zone", attrs: map[string]any{"zone": "idzone", "type": "simple"}, importID: "idzone",
		identity: map[string]any{"zone": "idzone"}},
	{typeName: "pve_sdn_vnet", setup: sdnZone, attrs: map[string]any{"vnet": "idvnet", "zone": "idzone"}, importID: "idvnet",
		identity: map[string]any{"vnet": "idvnet"}},
	{typeName: "pve_sdn_subnet", setup: func(t *testing.T, p *acctest.Protocol) {
		sdnZone(t, p)
		p.Create(t, "pve_sdn_vnet", map[string]any{"vnet": "idvnet", "zone": "idzone"})
	}, attrs: map[string]any{"vnet": "idvnet", "cidr": "10.8.0.0/24"}, importID: "idvnet/10.8.0.0/24",
		identity: map[string]any{"vnet": "idvnet", "cidr": "10.8.0.0/24"}},
	{typeName: "pve_sdn_controller", attrs: map[string]any{"controller": "idevpn", "type": "evpn", "asn": 65000, "peers": []string{"10.0.0.11"}},
		importID: "idevpn", identity: map[string]any{"controller": "idevpn"}},
	// PVE's built-in IPAM always exists; the others need a reachable server.
	{typeName: "pve_sdn_ipam", importID: "pve", identity: map[string]any{"ipam": "pve"}},
	{typeName: "pve_sdn_dns", setup: func(t *testing.T, p *acctest.Protocol) {
		if err := p.Sim.PlantSDNPending(pvesim.SDNDNS, "iddns", &pvesim.SDNObject{Type: "powerdns", Props: map[string]string{
			"url": "https://dns.example.com/api/v1/servers/localhost", "key": "secret",
		}}); err != nil {
			t.Fatal(err)
		}
	}, importID: "iddns", identity: map[string]any{"dns": "iddns"}},
	{typeName: "pve_sdn_fabric", attrs: map[string]any{"fabric": "idfab", "protocol": "openfabric", "ip_prefix": "10.9.0.0/24"},
		importID: "idfab", identity: map[string]any{"fabric": "idfab"}},
	{typeName: "pve_sdn_fabric_node", setup: func(t *testing.T, p *acctest.Protocol) {
		p.Create(t, "pve_sdn_fabric", map[string]any{"fabric": "idfab", "protocol": "openfabric", "ip_prefix": "10.9.0.0/24"})
	}, attrs: map[string]any{"fabric": "idfab", "node": "pve1", "ip": "10.9.0.1", "interfaces": map[string]map[string]any{"ens19": {}}},
		importID: "idfab/pve1", identity: map[string]any{"fabric": "idfab", "node": "pve1"}},
	{typeName: "pve_sdn_applier", importID: "sdn", identity: map[string]any{"id": "sdn"}},
	{typeName: "pve_iso", importID: "pve1/local/debian-13-netinst.iso",
		identity: map[string]any{"node": "pve1", "storage": "local", "file_name": "debian-13-netinst.iso"}},
	{typeName: "pve_os_template", importID: "pve1/local/debian-13-standard_13.1-1_amd64.tar.zst",
		identity: map[string]any{"node": "pve1", "storage": "local", "file_name": "debian-13-standard_13.1-1_amd64.tar.zst"}},
	{typeName: "pve_disk_image", importID: "pve1/local/debian-13-genericcloud-amd64.qcow2",
		identity: map[string]any{"node": "pve1", "storage": "local", "file_name": "debian-13-genericcloud-amd64.qcow2"}},
	{typeName: "pve_vm", setup: vm100, importID: "100",
		identity: map[string]any{"vmid": int64(100), "node": "pve1"}, partial: map[string]any{"vmid": 100}},
	{typeName: "pve_vm_template", setup: func(t *testing.T, p *acctest.Protocol) {
		vm100(t, p)
		convertToTemplate(t, p, pveapi.GuestTypeQemu, 100)
	}, importID: "pve1/100", identity: map[string]any{"vmid": int64(100), "node": "pve1"}, partial: map[string]any{"vmid": 100}},
	{typeName: "pve_container", setup: func(t *testing.T, p *acctest.Protocol) {
		createGuest(t, p, pveapi.GuestTypeLXC, 101, url.Values{
			"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"}, "rootfs": {"local-lvm:4"},
		})
	}, importID: "101", identity: map[string]any{"vmid": int64(101), "node": "pve1"}, partial: map[string]any{"vmid": 101}},
	{typeName: "pve_container_template", setup: func(t *testing.T, p *acctest.Protocol) {
		createGuest(t, p, pveapi.GuestTypeLXC, 101, url.Values{
			"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"}, "rootfs": {"local-lvm:4"},
		})
		convertToTemplate(t, p, pveapi.GuestTypeLXC, 101)
	}, importID: "101", identity: map[string]any{"vmid": int64(101), "node": "pve1"}, partial: map[string]any{"vmid": 101}},
	{typeName: "pve_vm_snapshot", setup: vm100, attrs: map[string]any{"node": "pve1", "vmid": 100, "name": "idsnap"},
		importID: "pve1/100/idsnap", identity: map[string]any{"vmid": int64(100), "name": "idsnap", "node": "pve1"},
		partial: map[string]any{"vmid": 100, "name": "idsnap"}},
	{typeName: "pve_container_snapshot", setup: func(t *testing.T, p *acctest.Protocol) {
		createGuest(t, p, pveapi.GuestTypeLXC, 101, url.Values{
			"ostemplate": {"local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"}, "rootfs": {"local-lvm:4"},
		})
	}, attrs: map[string]any{"node": "pve1", "vmid": 101, "name": "idsnap"},
		importID: "101/idsnap", identity: map[string]any{"vmid": int64(101), "name": "idsnap", "node": "pve1"},
		partial: map[string]any{"vmid": 101, "name": "idsnap"}},
}

// Each resource returns its identity from Create and Read, keeps it
// across a refresh, gives one to a state stored before it had identities,
// and an import by identity (an `import { identity = {...} }` block)
// reads the same object as the import by id. The storage definitions are
// covered with their own table in their package.
func TestIdentityRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range identityCases {
		t.Run(c.typeName, func(t *testing.T) {
			t.Parallel()
			p := acctest.NewProtocolOnPVE(t, c.pve)
			if c.setup != nil {
				c.setup(t, p)
			}
			if c.attrs != nil {
				created := p.Create(t, c.typeName, c.attrs)
				wantIdentity(t, p, c.typeName, "create", created.Identity, c.identity)
				refreshed := p.Refresh(t, c.typeName, created)
				wantIdentity(t, p, c.typeName, "refresh after create", refreshed.Identity, c.identity)
			}
			byID := p.ImportByID(t, c.typeName, c.importID)
			wantIdentity(t, p, c.typeName, "import by id", byID.Identity, c.identity)
			wantIdentity(t, p, c.typeName, "the refresh after import", p.Refresh(t, c.typeName, byID).Identity, c.identity)

			// A state stored before the resource had an identity: the
			// refresh fills it in from the state.
			legacy := p.Refresh(t, c.typeName, acctest.Created{State: byID.State, Private: byID.Private})
			wantIdentity(t, p, c.typeName, "refresh of a state without identity", legacy.Identity, c.identity)

			identities := []map[string]any{c.identity}
			if c.partial != nil {
				identities = append(identities, c.partial)
			}
			for _, identity := range identities {
				byIdentity := p.ImportByIdentity(t, c.typeName, p.Identity(t, c.typeName, identity))
				wantIdentity(t, p, c.typeName, "import by identity", byIdentity.Identity, c.identity)
				if got, want := p.StateValue(t, c.typeName, byIdentity.State), p.StateValue(t, c.typeName, byID.State); !got.Equal(want) {
					t.Errorf("import by identity %v read\n%v\nimport by id %q read\n%v", identity, got, c.importID, want)
				}
			}
		})
	}
}

func wantIdentity(t *testing.T, p *acctest.Protocol, typeName, what string, got *tfprotov6.ResourceIdentityData, want map[string]any) {
	t.Helper()
	if values := p.IdentityValues(t, typeName, got); !reflect.DeepEqual(values, want) {
		t.Errorf("%s: identity %v, want %v", what, values, want)
	}
}

// An update returns the identity too, also when Terraform applies without
// a refresh to a state stored before identities (no planned identity);
// a refresh of such a state whose object is gone removes it quietly.
func TestIdentityUpdateAndVanished(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	const typeName = "pve_pool"
	want := map[string]any{"poolid": "idpool"}
	created := p.Create(t, typeName, map[string]any{"poolid": "idpool"})

	config := p.Config(t, typeName, map[string]any{"poolid": "idpool", "comment": "changed"})
	plan := p.PlanResponse(t, typeName, created.State, config)
	resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
		TypeName: typeName, PriorState: created.State, PlannedState: plan.PlannedState, Config: config, PlannedPrivate: plan.PlannedPrivate,
	})
	if err != nil || len(resp.Diagnostics) != 0 {
		t.Fatalf("update: %v %v", err, resp.Diagnostics)
	}
	wantIdentity(t, p, typeName, "update of a state without identity", resp.NewIdentity, want)

	if err := p.Client.DeletePool(ctx, "idpool"); err != nil {
		t.Fatal(err)
	}
	read, err := p.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: typeName, CurrentState: resp.NewState})
	if err != nil || len(read.Diagnostics) != 0 {
		t.Fatalf("refresh of a pool gone: %v %v", err, read.Diagnostics)
	}
	if v := p.StateValue(t, typeName, read.NewState); !v.IsNull() {
		t.Errorf("the pool gone stays in state: %v", v)
	}
}

// A guest keeps its identity's VMID when it migrates and its identity's
// node follows it: the refresh after a migration outside Terraform
// succeeds and names the new node.
func TestGuestIdentityFollowsMigration(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	ctx := context.Background()
	vm100(t, p)
	imported := p.ImportByID(t, "pve_vm", "100")
	upid, err := p.Client.MigrateQemu(ctx, "pve1", 100, "pve2", false, true)
	if err == nil {
		_, err = p.Client.WaitTask(ctx, upid)
	}
	if err != nil {
		t.Fatal(err)
	}
	refreshed := p.Refresh(t, "pve_vm", imported)
	wantIdentity(t, p, "pve_vm", "refresh after a migration", refreshed.Identity, map[string]any{"vmid": int64(100), "node": "pve2"})
}

// An import by identity checks what the import by id checks: a guest on
// another node than the identity names is refused, naming where it is.
func TestImportByIdentityRefusals(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	vm100(t, p)
	acctest.WantError(t, p.ImportByIdentityDiagnostics(t, "pve_vm", p.Identity(t, "pve_vm", map[string]any{"vmid": 100, "node": "pve2"})),
		"", regexp.MustCompile(`(?s)VM On Another Node.*VM 100 is on node pve1, not pve2`))
	acctest.WantError(t, p.ImportByIdentityDiagnostics(t, "pve_container", p.Identity(t, "pve_container", map[string]any{"vmid": 100})),
		"", regexp.MustCompile(`(?s)Not A Container.*Guest 100 is a VM`))
}

// What is renamed in place takes its identity along: the update with
// Terraform's planned identity (the old name) returns the new one, as the
// plan said nothing else. Terraform 1.11 sends no identity, so only this
// level sees it there.
func TestIdentityFollowsRename(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typeName      string
		before, after map[string]any
		identity      map[string]any
	}{
		{"pve_pool", map[string]any{"poolid": "oldpool"}, map[string]any{"poolid": "newpool"}, map[string]any{"poolid": "newpool"}},
		{"pve_firewall_security_group", map[string]any{"name": "oldsg"}, map[string]any{"name": "newsg"}, map[string]any{"name": "newsg"}},
		{"pve_firewall_alias", map[string]any{"name": "oldalias", "cidr": "10.0.0.1"}, map[string]any{"name": "newalias", "cidr": "10.0.0.1"},
			map[string]any{"name": "newalias", "vmid": nil}},
		{"pve_firewall_ipset", map[string]any{"name": "oldset"}, map[string]any{"name": "newset"}, map[string]any{"name": "newset", "vmid": nil}},
	}
	for _, c := range cases {
		t.Run(c.typeName, func(t *testing.T) {
			t.Parallel()
			p := acctest.NewProtocol(t)
			ctx := context.Background()
			created := p.Create(t, c.typeName, c.before)
			config := p.Config(t, c.typeName, c.after)
			plan, err := p.Server.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
				TypeName: c.typeName, PriorState: created.State, ProposedNewState: config, Config: config,
				PriorPrivate: created.Private, PriorIdentity: created.Identity,
			})
			if err != nil || len(plan.RequiresReplace) != 0 {
				t.Fatalf("plan: %v, replaces %v", err, plan.RequiresReplace)
			}
			for _, d := range plan.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					t.Fatalf("plan: %s: %s", d.Summary, d.Detail)
				}
			}
			resp, err := p.Server.ApplyResourceChange(ctx, &tfprotov6.ApplyResourceChangeRequest{
				TypeName: c.typeName, PriorState: created.State, PlannedState: plan.PlannedState, Config: config,
				PlannedPrivate: plan.PlannedPrivate, PlannedIdentity: plan.PlannedIdentity,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					t.Fatalf("apply: %s: %s", d.Summary, d.Detail)
				}
			}
			wantIdentity(t, p, c.typeName, "update that renames", resp.NewIdentity, c.identity)
		})
	}
}

// sdnZone stages the simple zone "idzone".
func sdnZone(t *testing.T, p *acctest.Protocol) {
	t.Helper()
	p.Create(t, "pve_sdn_zone", map[string]any{"zone": "idzone", "type": "simple"})
}
