package access

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var (
	_ resource.Resource                   = (*realmResource)(nil)
	_ resource.ResourceWithConfigure      = (*realmResource)(nil)
	_ resource.ResourceWithImportState    = (*realmResource)(nil)
	_ resource.ResourceWithValidateConfig = (*realmResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*realmResource)(nil)
)

// defaultRealmSyncTimeout bounds a sync when the timeouts block sets none.
const defaultRealmSyncTimeout = 20 * time.Minute

// realmWriteAttempts is how often a write is tried when another change
// to domains.cfg (of another realm) came in between reading and writing.
const realmWriteAttempts = 3

// NewRealmResource is the pve_realm constructor registered with the
// provider.
func NewRealmResource() resource.Resource {
	return fwutil.WithIdentity(&realmResource{}, realmIdentity)
}

// realmIdentity is a realm's key, its name (the import id).
var realmIdentity = fwutil.Identity{Attributes: []fwutil.IdentityAttribute{{
	Name: "realm", Description: "The realm's name, as `realm` (for example `corp`).",
}}}

type realmResource struct {
	client    *pveapi.Client
	typesOnce sync.Once
	attrTypes map[string]attr.Type
}

func (r *realmResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_realm"
}

func (r *realmResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = realmSchema(ctx)
}

func (r *realmResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	if pd := fwutil.ProviderDataFrom(req.ProviderData, &resp.Diagnostics); pd != nil {
		r.client = pd.Client
	}
}

// types are the attribute types of the model, from the schema.
func (r *realmResource) types(ctx context.Context) map[string]attr.Type {
	r.typesOnce.Do(func() {
		r.attrTypes = realmSchema(ctx).Type().(types.ObjectType).AttrTypes
	})
	return r.attrTypes
}

// getRealmValues reads a plan, state or configuration into the model.
func getRealmValues(ctx context.Context, get func(context.Context, any) diag.Diagnostics, diags *diag.Diagnostics) (realmValues, bool) {
	var obj types.Object
	diags.Append(get(ctx, &obj)...)
	if diags.HasError() {
		return nil, false
	}
	return realmValues(obj.Attributes()), true
}

func (r *realmResource) setState(ctx context.Context, state *tfsdk.State, values realmValues, diags *diag.Diagnostics) {
	obj, d := types.ObjectValue(r.types(ctx), values)
	diags.Append(d...)
	if !d.HasError() {
		diags.Append(state.Set(ctx, obj)...)
	}
}

// secrets reads the write-only values from the configuration, the only
// place that has them.
func realmSecretsFrom(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) realmSecrets {
	var s realmSecrets
	diags.Append(config.GetAttribute(ctx, path.Root("password_wo"), &s.password)...)
	diags.Append(config.GetAttribute(ctx, path.Root("client_key_wo"), &s.clientKey)...)
	return s
}

func realmTimeouts(values realmValues) timeouts.Value {
	obj, _ := values["timeouts"].(types.Object)
	return timeouts.Value{Object: obj}
}

func (r *realmResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan, ok := getRealmValues(ctx, req.Plan.Get, &resp.Diagnostics)
	secrets := realmSecretsFrom(ctx, req.Config, &resp.Diagnostics)
	if !ok || resp.Diagnostics.HasError() {
		return
	}
	timeout, d := realmTimeouts(plan).Create(ctx, defaultRealmSyncTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name, _ := plan.str("realm")

	coordinator := realmCoordinatorFor(r.client)
	coordinator.writes.Lock()
	var err error
	if plan.kind()&kindBuiltin != 0 {
		// pam and pve always exist: their settings are adopted.
		err = r.write(ctx, name, nil, plan, secrets)
	} else {
		err = r.client.CreateRealm(ctx, realmToCreate(plan, secrets))
	}
	coordinator.writes.Unlock()
	if err != nil {
		if pveapi.IsRealmExists(err) {
			resp.Diagnostics.AddAttributeError(path.Root("realm"), "Realm Already Exists",
				fmt.Sprintf("PVE already has a realm %s. pve_realm does not take over a realm it did not create: import it "+
					"(terraform import, or an import block with id %q), or choose another name.", name, name))
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Create Realm", err)
		return
	}
	state, ok := r.readBack(ctx, name, plan, &resp.Diagnostics)
	if !ok {
		return
	}
	r.setState(ctx, &resp.State, state, &resp.Diagnostics)
	if plan.set("sync") {
		// A failed sync leaves the realm in the state as tainted: the next
		// apply replaces it and syncs again.
		r.sync(ctx, name, plan, &resp.Diagnostics)
	}
}

func (r *realmResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, ok := getRealmValues(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	name, _ := state.str("realm")
	if name == "" {
		name, _ = state.str("id")
	}
	current, err := r.client.GetRealm(ctx, name)
	if err != nil {
		if pveapi.IsNoSuchRealm(err) {
			resp.State.RemoveResource(ctx)
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Read Realm", err)
		return
	}
	values, err := realmFromAPI(ctx, current, state, r.types(ctx))
	if err != nil {
		resp.Diagnostics.AddError("Unable To Read Realm", fmt.Sprintf("Realm %s: %v", name, err))
		return
	}
	r.setState(ctx, &resp.State, values, &resp.Diagnostics)
}

func (r *realmResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, ok := getRealmValues(ctx, req.Plan.Get, &resp.Diagnostics)
	prior, okPrior := getRealmValues(ctx, req.State.Get, &resp.Diagnostics)
	secrets := realmSecretsFrom(ctx, req.Config, &resp.Diagnostics)
	if !ok || !okPrior || resp.Diagnostics.HasError() {
		return
	}
	timeout, d := realmTimeouts(plan).Update(ctx, defaultRealmSyncTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name, _ := plan.str("realm")

	coordinator := realmCoordinatorFor(r.client)
	coordinator.writes.Lock()
	err := r.write(ctx, name, prior, plan, secrets)
	coordinator.writes.Unlock()
	if err != nil {
		var changed *realmChangedError
		if asRealmChanged(err, &changed) {
			resp.Diagnostics.AddError("Realm Changed Outside Terraform", changed.Error())
			return
		}
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Update Realm", err)
		return
	}
	state, ok := r.readBack(ctx, name, plan, &resp.Diagnostics)
	if !ok {
		return
	}
	if !realmSyncDue(prior, plan) {
		r.setState(ctx, &resp.State, state, &resp.Diagnostics)
		return
	}
	var syncDiags diag.Diagnostics
	r.sync(ctx, name, plan, &syncDiags)
	if syncDiags.HasError() {
		// The next plan tries the sync again.
		state["sync"], state["sync_trigger"] = prior["sync"], prior["sync_trigger"]
	}
	resp.Diagnostics.Append(syncDiags...)
	r.setState(ctx, &resp.State, state, &resp.Diagnostics)
}

// realmSyncDue is whether an update syncs: sync is set and was not
// before, or sync_trigger changed.
func realmSyncDue(prior, plan realmValues) bool {
	if !plan.set("sync") {
		return false
	}
	return !prior.set("sync") || !prior["sync_trigger"].Equal(plan["sync_trigger"])
}

// write sends the change from prior to plan (prior nil: adopting a
// built-in realm as PVE has it) with the digest of domains.cfg. It reads
// the realm first: a realm whose settings are no longer those of prior
// was changed by someone else since the plan, which fails rather than be
// overwritten; a change to another realm only renews the digest, and a
// write that meets one in between is tried again. The caller holds the
// coordinator's write lock, so the provider's own writes do not race.
func (r *realmResource) write(ctx context.Context, name string, prior, plan realmValues, secrets realmSecrets) error {
	for attempt := 1; ; attempt++ {
		current, err := r.client.GetRealm(ctx, name)
		if err != nil {
			return err
		}
		live, err := realmFromAPI(ctx, current, prior, r.types(ctx))
		if err != nil {
			return err
		}
		from := prior
		if from == nil {
			from = live
		} else if changed := changedOutside(prior, live); len(changed) > 0 {
			return &realmChangedError{realm: name, attrs: changed}
		}
		update, needed := realmToUpdate(from, plan, secrets)
		if !needed {
			return nil
		}
		update.Digest = current.Digest
		err = r.client.UpdateRealm(ctx, update)
		if err == nil || !pveapi.IsRealmsChanged(err) || attempt == realmWriteAttempts {
			return err
		}
	}
}

// readBack reads the realm after a write, so the state holds what PVE
// keeps.
func (r *realmResource) readBack(ctx context.Context, name string, plan realmValues, diags *diag.Diagnostics) (realmValues, bool) {
	current, err := r.client.GetRealm(ctx, name)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read Realm After Writing It", err)
		return nil, false
	}
	values, err := realmFromAPI(ctx, current, plan, r.types(ctx))
	if err != nil {
		diags.AddError("Unable To Read Realm After Writing It", fmt.Sprintf("Realm %s: %v", name, err))
		return nil, false
	}
	return values, true
}

// sync runs a sync of the realm with the options of plan's sync and
// waits for it. A dry run's log is shown as a warning.
func (r *realmResource) sync(ctx context.Context, name string, plan realmValues, diags *diag.Diagnostics) {
	opts, _ := plan.object("sync")
	req := pveapi.RealmSync{}
	req.Scope, _ = opts.str("scope")
	if flags, ok := opts.strings("remove_vanished"); ok {
		req.RemoveVanished = formatRemoveVanished(flags)
	}
	if b, ok := opts.boolean("enable_new"); ok {
		req.EnableNew = &b
	}
	req.DryRun, _ = opts.boolean("dry_run")
	what := "the sync of realm " + name
	upid, err := r.client.SyncRealm(ctx, name, req)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Sync Realm", err)
		return
	}
	result, err := r.client.WaitTask(ctx, upid)
	if !fwutil.ReportTask(result, err, what, "Unable To Sync Realm", diags) || !req.DryRun {
		return
	}
	parsed, err := pveapi.ParseUPID(upid)
	if err != nil {
		return
	}
	lines, err := r.client.TaskLog(ctx, parsed.Node, upid, 0, 1000)
	if err != nil {
		fwutil.AddAPIError(diags, "Unable To Read The Realm Sync Log", err)
		return
	}
	diags.AddWarning("Realm Sync Dry Run",
		fmt.Sprintf("A dry run of the sync of realm %s changed nothing. Its log:\n\n%s", name, strings.Join(lines, "\n")))
}

func (r *realmResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state, ok := getRealmValues(ctx, req.State.Get, &resp.Diagnostics)
	if !ok {
		return
	}
	name, _ := state.str("realm")
	coordinator := realmCoordinatorFor(r.client)
	coordinator.writes.Lock()
	defer coordinator.writes.Unlock()
	if state.kind()&kindBuiltin != 0 {
		// The built-in realms stay; their settings go, and PVE's
		// defaults apply again.
		err := r.client.UpdateRealm(ctx, pveapi.RealmUpdate{Realm: name, Delete: []string{realmKeyComment, realmKeyDefault, realmKeyTFA}})
		if err != nil {
			fwutil.AddAPIError(&resp.Diagnostics, "Unable To Restore Realm Defaults", err)
		}
		return
	}
	// The realm's users stay in PVE, as PVE keeps them.
	if err := r.client.DeleteRealm(ctx, name); err != nil && !pveapi.IsNoSuchRealm(err) {
		fwutil.AddAPIError(&resp.Diagnostics, "Unable To Delete Realm", err)
	}
}

func (r *realmResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problem := wire.RealmProblem(req.ID); problem != "" {
		resp.Diagnostics.AddError("Invalid Import ID", "Import pve_realm by the realm's name (for example \"corp\" or \"pam\"): "+problem+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("realm"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// realmChangedError is a realm whose settings changed outside Terraform
// between the plan and the write.
type realmChangedError struct {
	realm string
	attrs []string
}

func (e *realmChangedError) Error() string {
	return fmt.Sprintf("Realm %s was changed outside Terraform since the plan (%s); nothing was written. "+
		"Run terraform plan again to see the change, then apply.", e.realm, strings.Join(e.attrs, ", "))
}

func asRealmChanged(err error, target **realmChangedError) bool {
	changed, ok := err.(*realmChangedError) //nolint:errorlint // write returns it unwrapped
	if ok {
		*target = changed
	}
	return ok
}

// realmCoordinator is what the pve_realm resources of one provider
// configuration share: a lock that keeps their writes to domains.cfg one
// at a time, and the realms planned as the default, to refuse a second.
type realmCoordinator struct {
	writes sync.Mutex

	claimsMu sync.Mutex
	defaults map[string]bool
}

// realmCoordinators holds one coordinator per client, that is per
// configured provider.
var realmCoordinators sync.Map

func realmCoordinatorFor(client *pveapi.Client) *realmCoordinator {
	c, _ := realmCoordinators.LoadOrStore(client, &realmCoordinator{defaults: map[string]bool{}})
	return c.(*realmCoordinator)
}

// claimDefault records that realm is planned as the default and returns
// the other realms planned so.
func (c *realmCoordinator) claimDefault(realm string) []string {
	c.claimsMu.Lock()
	defer c.claimsMu.Unlock()
	c.defaults[realm] = true
	var others []string
	for name := range c.defaults {
		if name != realm {
			others = append(others, name)
		}
	}
	return others
}
