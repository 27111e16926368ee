package guestops

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Kind is one kind of guest resource: a VM or a container, a template or
// not. Everything the shared flows do differently for a VM and a container
// is decided here, once, in the guest type's facts; the flows read them
// instead of asking which type they serve.
type Kind struct {
	// The guest type's facts, shared by a guest kind and its template
	// kind. A pointer, so that kinds stay comparable.
	*typeFacts
	// Noun names the guest inside a sentence: "VM", "container".
	Noun string
	// Title names it in a Title Case summary: "VM", "Container".
	Title string
	// Resource is the resource type name, for import guidance.
	Resource string
	// Template tells a template resource from its guest resource (W17).
	Template bool
}

// typeFacts is what VMs and containers differ in, as the shared flows see
// them. The client's per-type paths live in pveapi.
type typeFacts struct {
	// Type is pveapi.GuestTypeQemu or pveapi.GuestTypeLXC.
	Type string
	// NameKey is the config key of the guest's name.
	NameKey string
	// defaultName is the name PVE gives a guest created without one, a
	// format of the VMID ("" for none); listedName the one
	// /cluster/resources lists for a finished guest without one.
	defaultName, listedName string
	// cloneLock is the lock a guest carries while its clone task runs
	// (W10, W11).
	cloneLock string
	// cloneConfigLate: PVE writes a clone's config, marker included, only
	// once the disks are copied, so a guest locked for cloning without
	// the marker may still turn out to be ours (W13). A container clone's
	// config is written before its task starts.
	cloneConfigLate bool
	// templateClonesShareSource: clones of a template of this type share
	// the source's config flock and run side by side; other sources are
	// locked for the whole clone (W10).
	templateClonesShareSource bool
	// timeoutActions are the power actions that take a timeout
	// parameter; nil means all of them.
	timeoutActions []string
	// isVolumeKey tells the config keys holding volumes a clone copies,
	// and volumeStorage the storage of one ("" when none; local reports
	// a path, which is always node-local).
	isVolumeKey   func(key string) bool
	volumeStorage func(value string) (storage string, path bool)
	// identity reads what PVE generated for the guest at creation.
	identity func(config pveapi.GuestConfig) Identity
	// migrate starts the migration task of a guest to target.
	migrate func(a API, ctx context.Context, node string, vmid int, target string, running bool, summary string, diags *diag.Diagnostics) (string, bool)
	// markTemplate turns the guest into a template and waits for it.
	markTemplate func(a API, ctx context.Context, node string, vmid int, summary string, diags *diag.Diagnostics) bool
	// restoreForm adds the archive to a restore's create form.
	restoreForm func(form url.Values, archive string)

	// The words of messages and descriptions.
	archiveExample, archivePattern string
	identityFacts                  string
	createSources                  string
	keepDetachedHint               string
	nodeDescription                string
	templateNodeDescription        string
	protectionDescription          string
	purgeDescription               string
	startedDescription             string
	statusDescription              string
}

var qemuFacts = &typeFacts{
	Type:                      pveapi.GuestTypeQemu,
	NameKey:                   "name",
	listedName:                "VM %d",
	cloneLock:                 "clone",
	cloneConfigLate:           true,
	templateClonesShareSource: true,
	isVolumeKey:               func(key string) bool { return wire.IsDiskSlot(key) || wire.IsUnusedSlot(key) },
	volumeStorage: func(value string) (string, bool) {
		drive, err := wire.ParseDrive(value)
		if err != nil {
			return "", false
		}
		return drive.Storage, false
	},
	identity:       vmIdentity,
	migrate:        API.migrateVM,
	markTemplate:   API.markVMTemplate,
	restoreForm:    func(form url.Values, archive string) { form.Set("archive", archive) },
	archiveExample: "local:backup/vzdump-qemu-120-2026_11_01-00_00_00.vma.zst",
	archivePattern: "vzdump-qemu-VMID-....vma[.zst]",
	identityFacts:  "its creation time (`meta` ctime) and SMBIOS UUID",
	createSources:  "`clone`, `restore` and a disk's `import_from`",
	keepDetachedHint: "To keep one, move it to another VM first: qm disk move %[1]d unusedN --target-vmid TARGET_VMID --target-disk unusedN " +
		"(PVE's API: POST /nodes/NODE/qemu/%[1]d/move_disk with disk, target-vmid and target-disk).",
	nodeDescription: "Node the VM runs on. Changing it migrates the VM (online when it runs, with its local disks); it never replaces it. " +
		"A VM under HA that HA moved elsewhere keeps this node in state and plans no migration back; changing it asks HA to migrate the VM.",
	templateNodeDescription: "Node the VM template is on. Changing it migrates the template; it never runs, so the migration is offline " +
		"and copies its disks on node-local storage to the new node, which PVE refuses while linked clones use them. " +
		"It never replaces the template.",
	protectionDescription: "Protect the VM and its disks from removal. A protected VM cannot be destroyed: set it to false and apply first.",
	purgeDescription: "When a disk is removed from `disks`, destroy its volume. Defaults to false: the disk is detached and PVE keeps it as `unusedN` with its data, " +
		"until the VM is destroyed, which deletes its `unusedN` volumes too (move one to another VM first to keep it).",
	startedDescription: "Whether the VM runs. Defaults to true: a new VM is started after creation. A paused VM counts as started. " +
		"Under HA, the HA resource's state governs power: a change here becomes a request to HA that also sets that state.",
	statusDescription: "What the VM is doing: `running`, `stopped`, `paused`, `suspended`, `prelaunch`, `hibernated`.",
}

var lxcFacts = &typeFacts{
	Type:    pveapi.GuestTypeLXC,
	NameKey: "hostname",
	// pve-container API2/LXC.pm create_vm names a container without a
	// hostname CT<vmid>, and the listing shows that name.
	defaultName:    "CT%d",
	listedName:     "CT%d",
	cloneLock:      "create",
	timeoutActions: []string{ActionShutdown, ActionReboot},
	isVolumeKey:    func(key string) bool { return key == "rootfs" || strings.HasPrefix(key, "mp") },
	volumeStorage: func(value string) (string, bool) {
		volume, _, _ := strings.Cut(value, ",")
		volume = strings.TrimPrefix(volume, "volume=")
		storage, _, _ := strings.Cut(volume, ":")
		return storage, strings.HasPrefix(volume, "/")
	},
	identity:     containerIdentity,
	migrate:      API.migrateContainer,
	markTemplate: API.markContainerTemplate,
	restoreForm: func(form url.Values, archive string) {
		form.Set("restore", "1")
		form.Set("ostemplate", archive)
	},
	archiveExample: "local:backup/vzdump-lxc-130-2026_11_01-00_00_00.tar.zst",
	archivePattern: "vzdump-lxc-VMID-....tar[.zst]",
	identityFacts:  "the MAC addresses of its network devices (PVE keeps no creation time or UUID for a container; without network devices nothing can be compared)",
	createSources:  "`clone`, `restore` and `os_template`",
	keepDetachedHint: "To keep one, move it to another container first: pct move-volume %[1]d unusedN TARGET_VMID mpN " +
		"(PVE's API: POST /nodes/NODE/lxc/%[1]d/move_volume with volume, target-vmid and target-volume).",
	nodeDescription: "Node the container runs on. Changing it migrates the container (a running one is shut down, moved and started again: " +
		"PVE has no live migration for containers, and the plan warns of the restart); it never replaces it. " +
		"A container under HA that HA moved elsewhere keeps this node in state and plans no migration back; changing it asks HA to move the container.",
	templateNodeDescription: "Node the container template is on. Changing it migrates the template; it never runs, so the migration is offline " +
		"and copies its volumes on node-local storage to the new node. It never replaces the template.",
	protectionDescription: "Protect the container and its volumes from removal. A protected container cannot be destroyed, nor its mount points changed: set it to false and apply first.",
	purgeDescription: "When a mount point is removed from `mount_points`, destroy its volume. Defaults to false: the mount point is detached and PVE keeps its volume as `unusedN` with its data, " +
		"until the container is destroyed, which deletes its `unusedN` volumes too (move one to another container first to keep it).",
	startedDescription: "Whether the container runs. Defaults to true: a new container is started after creation. " +
		"Under HA, the HA resource's state governs power: a change here becomes a request to HA that also sets that state.",
	statusDescription: "What the container is doing: `running` or `stopped`.",
}

// The four guest kinds; the templates' are W17's.
var (
	VM                = Kind{typeFacts: qemuFacts, Noun: "VM", Title: "VM", Resource: "pve_vm"}
	Container         = Kind{typeFacts: lxcFacts, Noun: "container", Title: "Container", Resource: "pve_container"}
	VMTemplate        = Kind{typeFacts: qemuFacts, Noun: "VM template", Title: "VM Template", Resource: "pve_vm_template", Template: true}
	ContainerTemplate = Kind{typeFacts: lxcFacts, Noun: "container template", Title: "Container Template", Resource: "pve_container_template", Template: true}
)

// KindOf is the kind of a guest of guestType (pveapi.GuestTypeQemu or
// pveapi.GuestTypeLXC), a template or not: the resource to import it as.
func KindOf(guestType string, template bool) Kind {
	switch {
	case guestType == pveapi.GuestTypeQemu && template:
		return VMTemplate
	case guestType == pveapi.GuestTypeQemu:
		return VM
	case template:
		return ContainerTemplate
	}
	return Container
}

// takesTimeout reports whether the kind's action has a timeout parameter.
func (k Kind) takesTimeout(action string) bool {
	return k.timeoutActions == nil || slices.Contains(k.timeoutActions, action)
}

// defaultNameOf is the name PVE gives a guest of this kind created without
// one; a VM keeps none in its config.
func (k Kind) defaultNameOf(vmid int) string {
	if k.defaultName == "" {
		return ""
	}
	return fmt.Sprintf(k.defaultName, vmid)
}

// listedNameOf is the name /cluster/resources lists for a finished guest
// without one: "VM VMID" for a VM, "CTVMID" for a container.
func (k Kind) listedNameOf(vmid int) string {
	return fmt.Sprintf(k.listedName, vmid)
}

// vmIdentity is a VM's creation time and SMBIOS UUID.
func vmIdentity(config pveapi.GuestConfig) Identity {
	var id Identity
	if props, err := wire.ParsePropertyString(config["meta"], ""); err == nil {
		id.CTime = props["ctime"]
	}
	if props, err := wire.ParsePropertyString(config[smbiosKey], ""); err == nil {
		id.UUID = strings.ToLower(props["uuid"])
	}
	return id
}

// containerIdentity is the MAC addresses of a container's NICs: PVE keeps
// no creation time or UUID for a container.
func containerIdentity(config pveapi.GuestConfig) Identity {
	var id Identity
	for key, value := range config {
		if !strings.HasPrefix(key, "net") || strings.Trim(key[3:], "0123456789") != "" || key == "net" {
			continue
		}
		props, err := wire.ParsePropertyString(value, "")
		if err == nil && props["hwaddr"] != "" {
			id.MACs = append(id.MACs, strings.ToUpper(props["hwaddr"]))
		}
	}
	slices.Sort(id.MACs)
	return id
}

// migrateVM migrates a VM online when it runs, copying its disks on
// node-local storage.
func (a API) migrateVM(ctx context.Context, node string, vmid int, target string, running bool, summary string, diags *diag.Diagnostics) (string, bool) {
	local, ok := a.hasLocalDisks(ctx, node, vmid, diags)
	if !ok {
		return "", false
	}
	upid, err := a.Client.MigrateQemu(ctx, node, vmid, target, running, local)
	return upid, migrateStarted(err, summary, diags)
}

// migrateContainer shuts a running container down, moves it and starts it
// again (restart mode): PVE cannot move a container live.
func (a API) migrateContainer(ctx context.Context, node string, vmid int, target string, running bool, summary string, diags *diag.Diagnostics) (string, bool) {
	timeout := 0
	if running {
		timeout = int(TaskWait(ctx, maxShutdownWait).Seconds())
	}
	upid, err := a.Client.MigrateLXC(ctx, node, vmid, target, running, timeout)
	return upid, migrateStarted(err, summary, diags)
}

// markVMTemplate: qemu answers with a task (W9).
func (a API) markVMTemplate(ctx context.Context, node string, vmid int, summary string, diags *diag.Diagnostics) bool {
	upid, err := a.Client.TemplateQemu(ctx, node, vmid, "")
	if err != nil {
		fwutil.AddAPIError(diags, summary, err)
		return false
	}
	return fwutil.SettleTask(ctx, a.Client, upid, "making VM "+strconv.Itoa(vmid)+" a template", summary, diags)
}

// markContainerTemplate: lxc converts before answering (W9).
func (a API) markContainerTemplate(ctx context.Context, node string, vmid int, summary string, diags *diag.Diagnostics) bool {
	if err := a.Client.TemplateLXC(ctx, node, vmid); err != nil {
		fwutil.AddAPIError(diags, summary, err)
		return false
	}
	return true
}
