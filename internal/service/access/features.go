// Package access holds what the provider knows about PVE's access control:
// the data source pve_provider_privileges, which computes the privileges the
// provider's own features need, so that a configuration can create a
// least-privilege role and token for the provider.
package access

// The feature table below is the one place that says which PVE privileges
// each provider feature needs. The table "Privileges for an API token" in
// templates/index.md.tmpl is generated from it (go run ./tools/privdocs,
// part of make generate) and a test fails when the two disagree.
//
// Each grant names the privilege check PVE makes, from PVE's source:
//   - guests: qemu-server src/PVE/API2/Qemu.pm ($check_vm_modify_config_perm,
//     $check_storage_access, create_vm, clone_vm, migrate_vm, destroy_vm,
//     check_hostpci_perm) and pve-container src/PVE/LXC.pm
//     (check_ct_modify_config_perm) with src/PVE/API2/LXC.pm;
//   - storages: pve-storage src/PVE/Storage.pm (check_volume_access) and
//     src/PVE/API2/Storage/{Status,Content}.pm (upload, download_url, delete);
//   - pools, tasks, backups: pve-manager PVE/API2/{Pool,Tasks,VZDump}.pm;
//   - backup jobs: pve-manager PVE/API2/Backup.pm (assert_param_permission_*,
//     create_job, update_job) and PVE/API2/Cluster/BackupInfo.pm;
//   - firewall: pve-firewall src/PVE/Firewall.pm (rules_audit_permissions,
//     rules_modify_permissions) and src/PVE/API2/Firewall/*.pm;
//   - high availability: pve-ha-manager src/PVE/API2/HA/{Groups,Rules}.pm;
//   - access control: pve-access-control src/PVE/API2/{User,Group,Role,
//     ACL,Domains}.pm and src/PVE/RPCEnvironment.pm (check_perm_modify,
//     exec_api2_perm_check).

// Release is a PVE release whose privileges the table knows.
type Release string

// The releases the table covers. Every PVE 9 point release checks the same
// privileges for what the provider does.
const (
	PVE84 Release = "8.4"
	PVE9  Release = "9"
)

// Releases lists the supported releases, oldest first.
var Releases = []Release{PVE84, PVE9}

// Grant is a set of privileges one feature needs on one path.
type Grant struct {
	Privileges []string
	// Path is the ACL path PVE checks, with placeholders in braces for what
	// the configuration decides: {vmid}, {storage}, {node}, {pool}, ...
	Path string
	// Note says which attributes or operations need the grant.
	Note string
	// Only limits the grant to one release; empty means every release.
	Only Release
}

// Feature is a named group of provider functionality and the privileges it
// needs.
type Feature struct {
	Name    string
	Summary string
	// Default features are computed when a configuration lists none. The
	// others need privileges beyond guests and storages (Sys.Modify,
	// Permissions.Modify, host hardware) and must be asked for.
	Default bool
	Grants  []Grant
}

// Read is the feature every other feature builds on: it is always part of
// the result.
const Read = "read"

// Paths used by several features.
const (
	rootPath    = "/"
	guestPath   = "/vms/{vmid}"
	storagePath = "/storage/{storage}"
	bridgePath  = "/sdn/zones/{zone}/{bridge}"
	vnetPath    = "/sdn/zones/{zone}/{vnet}"
	nodePath    = "/nodes/{node}"
	poolPath    = "/pool/{pool}"
)

// Features is the feature table, in the order the documentation lists it.
var Features = []Feature{
	{
		Name:    Read,
		Summary: "Every data source and every refresh: version, nodes, cluster status, guests, storages, pools, tasks. Always included.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: rootPath, Note: "cluster status and resources, node status, tasks of other users on `/nodes/{node}`"},
			{Privileges: []string{"VM.Audit"}, Path: guestPath, Note: "guests to see (or on `/pool/{pool}` for a pool's guests)"},
			{Privileges: []string{"Pool.Audit"}, Path: poolPath, Note: "pools to see"},
			{Privileges: []string{"Datastore.Audit"}, Path: storagePath, Note: "storages and their content to see"},
		},
	},
	{
		Name:    "vm",
		Summary: "`pve_vm` and `pve_vm_template`: create, configure, start and stop, destroy.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Allocate"}, Path: guestPath, Note: "create (on `/pool/{pool}` when the VM declares a pool), destroy, turn into a template"},
			{Privileges: []string{"VM.Config.CPU"}, Path: guestPath, Note: "`cpu`"},
			{Privileges: []string{"VM.Config.Memory"}, Path: guestPath, Note: "`memory`"},
			{Privileges: []string{"VM.Config.Disk"}, Path: guestPath, Note: "`disks`, `efi_disk`, `tpm_state`, resize, move, `boot_order`"},
			{Privileges: []string{"VM.Config.CDROM"}, Path: guestPath, Note: "`cdroms`"},
			{Privileges: []string{"VM.Config.Network"}, Path: guestPath, Note: "`network`"},
			{Privileges: []string{"VM.Config.HWType"}, Path: guestPath, Note: "`machine`, `scsi_hardware`"},
			{Privileges: []string{"VM.Config.Options"}, Path: guestPath, Note: "`name`, `description`, `tags`, `on_boot`, `protection`, `bios`, `os_type`, `agent`"},
			{Privileges: []string{"VM.Config.Cloudinit"}, Path: guestPath, Note: "`cloud_init` through PVE's cloud-init drive"},
			{Privileges: []string{"VM.PowerMgmt"}, Path: guestPath, Note: "`started`: start, shutdown, stop, reboot"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: storagePath, Note: "storage of every new or moved disk and of the cloud-init drive"},
			{Privileges: []string{"Datastore.Audit"}, Path: storagePath, Note: "storage of a CD-ROM's ISO and of a disk's `import_from` image"},
			{Privileges: []string{"SDN.Use"}, Path: bridgePath, Note: "bridge of every network device (zone `localnetwork` for a plain bridge)"},
		},
	},
	{
		Name:    "container",
		Summary: "`pve_container` and `pve_container_template`: create, configure, start and stop, destroy.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Allocate"}, Path: guestPath, Note: "create (on `/pool/{pool}` when the container declares a pool), destroy, turn into a template, `features.nesting`"},
			{Privileges: []string{"VM.Config.CPU"}, Path: guestPath, Note: "`cpu`"},
			{Privileges: []string{"VM.Config.Memory"}, Path: guestPath, Note: "`memory`"},
			{Privileges: []string{"VM.Config.Disk"}, Path: guestPath, Note: "`root_disk`, `mount_points`, resize, move"},
			{Privileges: []string{"VM.Config.Network"}, Path: guestPath, Note: "`network`, `hostname`, `dns`"},
			{Privileges: []string{"VM.Config.Options"}, Path: guestPath, Note: "`description`, `tags`, `on_boot`, `protection`, `console`"},
			{Privileges: []string{"VM.PowerMgmt"}, Path: guestPath, Note: "`started`: start, shutdown, stop, reboot"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: storagePath, Note: "storage of every new or moved volume"},
			{Privileges: []string{"Datastore.Audit"}, Path: storagePath, Note: "storage of the `os_template` archive"},
			{Privileges: []string{"SDN.Use"}, Path: bridgePath, Note: "bridge of every network device (zone `localnetwork` for a plain bridge)"},
		},
	},
	{
		Name:    "clone",
		Summary: "`clone` of a VM or container (with `vm` or `container` for the new guest).",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Clone"}, Path: "/vms/{source_vmid}", Note: "the template or guest cloned"},
			{Privileges: []string{"VM.Allocate"}, Path: guestPath, Note: "the new guest (on `/pool/{pool}` when it declares a pool)"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: storagePath, Note: "target storage of a full clone"},
		},
	},
	{
		Name:    "restore",
		Summary: "`restore` of a VM or container from a vzdump backup (with `vm` or `container` for the new guest).",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Allocate"}, Path: guestPath, Note: "the new guest"},
			{Privileges: []string{"VM.Backup"}, Path: "/vms/{backup_vmid}", Note: "the guest the archive was made of (reading the archive's configuration)"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: "/storage/{backup_storage}", Note: "storage of the archive"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: storagePath, Note: "storage the volumes are restored to"},
		},
	},
	{
		Name:    "migrate",
		Summary: "Moving a guest to another node when its `node` changes.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Migrate"}, Path: guestPath, Note: "`node` changes"},
		},
	},
	{
		Name:    "guest_agent",
		Summary: "A VM's addresses from its guest agent (`ipv4_addresses`, `ipv6_addresses`, `agent.wait_for_ip`).",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.GuestAgent.Audit"}, Path: guestPath, Note: "agent network interfaces", Only: PVE9},
			{Privileges: []string{"VM.Monitor"}, Path: guestPath, Note: "agent network interfaces", Only: PVE84},
		},
	},
	{
		Name:    "cloud_init_seed",
		Summary: "A VM's `cloud_init` user-data, vendor-data or network configuration on a seed ISO the provider uploads.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"Datastore.AllocateTemplate"}, Path: "/storage/{seed_storage}", Note: "upload the seed ISO"},
			{Privileges: []string{"Datastore.Allocate"}, Path: "/storage/{seed_storage}", Note: "delete a replaced seed ISO"},
			{Privileges: []string{"VM.Config.CDROM"}, Path: guestPath, Note: "the seed ISO's CD-ROM"},
		},
	},
	{
		Name:    "images",
		Summary: "`pve_iso`, `pve_os_template` and `pve_disk_image`: download from a `url`, upload a `source_file`, destroy.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"Datastore.AllocateTemplate"}, Path: storagePath, Note: "download or upload"},
			{Privileges: []string{"Datastore.Allocate"}, Path: storagePath, Note: "destroy"},
			{Privileges: []string{"Sys.AccessNetwork"}, Path: nodePath, Note: "download from a `url` (`Sys.Audit` and `Sys.Modify` on `/` also work)"},
		},
	},
	{
		Name:    "pools",
		Summary: "`pve_pool`, and the `pool` of a VM or container.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"Pool.Allocate"}, Path: poolPath, Note: "create, change, rename, delete a pool; a guest joining or leaving it"},
			{Privileges: []string{"VM.Allocate"}, Path: guestPath, Note: "a guest moved into or out of a pool (`Permissions.Modify` also works)"},
			{Privileges: []string{"Datastore.Allocate"}, Path: storagePath, Note: "a storage moved by a pool rename (`Permissions.Modify` also works)"},
		},
	},
	{
		Name:    "guest_firewall",
		Summary: "Firewall options, rules, aliases and IP sets of a guest (`vmid` set), and its `pve_firewall_refs`.",
		Default: true,
		Grants: []Grant{
			{Privileges: []string{"VM.Audit"}, Path: guestPath, Note: "read"},
			{Privileges: []string{"VM.Config.Network"}, Path: guestPath, Note: "change"},
			{Privileges: []string{"SDN.Audit"}, Path: vnetPath, Note: "rules that name a vnet's SDN IP sets"},
		},
	},
	{
		Name:    "firewall",
		Summary: "The cluster's and the nodes' firewall: options, rules, security groups, cluster aliases and IP sets, `pve_firewall_refs`.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: rootPath, Note: "read the cluster firewall, security groups, cluster aliases and IP sets"},
			{Privileges: []string{"Sys.Modify"}, Path: rootPath, Note: "change them"},
			{Privileges: []string{"Sys.Audit", "Sys.Modify"}, Path: nodePath, Note: "a node's firewall options and rules"},
			{Privileges: []string{"SDN.Audit"}, Path: vnetPath, Note: "rules that name a vnet's SDN IP sets"},
		},
	},
	{
		Name:    "privileged_containers",
		Summary: "Creating or restoring a container with `unprivileged = false`.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Modify"}, Path: rootPath, Note: "create or restore a privileged container", Only: PVE9},
		},
	},
	{
		Name:    "privileged_tags",
		Summary: "Guest `tags` that the datacenter options list as privileged.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Modify"}, Path: rootPath, Note: "set or remove a privileged tag"},
		},
	},
	{
		Name:    "pci_mapping",
		Summary: "A VM's `pci_devices` through a resource mapping.",
		Grants: []Grant{
			{Privileges: []string{"VM.Config.HWType"}, Path: guestPath, Note: "`pci_devices`"},
			{Privileges: []string{"Mapping.Use"}, Path: "/mapping/pci/{mapping}", Note: "every mapping used"},
		},
	},
	{
		Name:    "usb_dir_mapping",
		Summary: "A VM's `usb_devices` and `virtiofs` through resource mappings.",
		Grants: []Grant{
			{Privileges: []string{"VM.Config.HWType"}, Path: guestPath, Note: "`usb_devices`"},
			{Privileges: []string{"VM.Config.Disk"}, Path: guestPath, Note: "`virtiofs`"},
			{Privileges: []string{"Mapping.Use"}, Path: "/mapping/usb/{mapping}", Note: "every USB mapping used"},
			{Privileges: []string{"Mapping.Use"}, Path: "/mapping/dir/{mapping}", Note: "every directory mapping used"},
		},
	},
	{
		Name:    "ha_groups_rules",
		Summary: "`pve_ha_group` (PVE 8) and `pve_ha_rule` (PVE 9).",
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: rootPath, Note: "read HA groups and rules"},
			{Privileges: []string{"Sys.Console"}, Path: rootPath, Note: "create, change, delete HA groups and rules"},
		},
	},
	{
		Name:    "ha_resources",
		Summary: "`pve_ha_resource` and the `pve_ha_status` data source.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: rootPath, Note: "read HA resources and the HA status"},
			{Privileges: []string{"Sys.Console"}, Path: rootPath, Note: "create, change and delete HA resources"},
			{Privileges: []string{"VM.Audit"}, Path: guestPath, Note: "find the guest's type when `type` is not set"},
		},
	},
	{
		Name:    "backup_jobs",
		Summary: "`pve_backup_job`, `pve_backup_jobs` and `pve_guests_not_backed_up`.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: rootPath, Note: "read backup jobs and the guests without one"},
			{Privileges: []string{"Sys.Modify"}, Path: rootPath, Note: "create, change or delete a backup job"},
			{Privileges: []string{"Datastore.Allocate"}, Path: storagePath, Note: "the job's `storage` (`local` when none)"},
			{Privileges: []string{"Datastore.AllocateSpace"}, Path: storagePath, Note: "the `fleecing` storage"},
			{Privileges: []string{"VM.Backup"}, Path: poolPath, Note: "a job that backs up a `pool`"},
			{Privileges: []string{"VM.Audit"}, Path: guestPath, Note: "each guest `pve_guests_not_backed_up` lists"},
		},
	},
	{
		Name:    "storage_definitions",
		Summary: "The `pve_storage_<type>` resources (`pve_storage_dir`, `pve_storage_nfs`, ...).",
		Grants: []Grant{
			{Privileges: []string{"Datastore.Allocate"}, Path: "/storage", Note: "create, change or delete a storage definition (PVE checks `/storage` itself)"},
			{Privileges: []string{"Datastore.Allocate"}, Path: storagePath, Note: "read a storage definition"},
			{Privileges: []string{"Datastore.Audit"}, Path: storagePath, Note: "list the storage's content when planning its destruction"},
		},
	},
	{
		Name:    "access",
		Summary: "`pve_user`, `pve_group`, `pve_role`, `pve_acl`, `pve_api_token` and `pve_realm`.",
		Grants: []Grant{
			{Privileges: []string{"Sys.Audit"}, Path: "/access", Note: "read users, groups and realms"},
			{Privileges: []string{"Sys.Modify"}, Path: "/access", Note: "`pve_role`"},
			{Privileges: []string{"Group.Allocate"}, Path: "/access/groups", Note: "`pve_group`"},
			{Privileges: []string{"User.Modify"}, Path: "/access/groups", Note: "`pve_user`, group membership, tokens of other users (or on `/access/groups/{group}` for the users of one group)"},
			{Privileges: []string{"Realm.AllocateUser"}, Path: "/access/realm/{realm}", Note: "create or delete a user of the realm"},
			{Privileges: []string{"Realm.Allocate"}, Path: "/access/realm", Note: "`pve_realm`"},
			{Privileges: []string{"Permissions.Modify"}, Path: rootPath, Note: "`pve_acl` (or on each path an ACL names); without it PVE lets a token grant only privileges it holds itself"},
		},
	},
	{
		// pve-manager PVE/API2/ReplicationConfig.pm: PVE 9 checks
		// VM.Replicate on the guest; 8.4's schema Datastore.Allocate on
		// /storage for create, update and delete.
		Name:    "replication",
		Summary: "`pve_replication_job`.",
		Grants: []Grant{
			{Privileges: []string{"VM.Audit"}, Path: guestPath, Note: "read a job, and the guest's disks checked at plan time"},
			{Privileges: []string{"Datastore.Audit"}, Path: storagePath, Note: "the storage types checked at plan time"},
			{Privileges: []string{"VM.Replicate"}, Path: guestPath, Note: "create, change, delete a job", Only: PVE9},
			{Privileges: []string{"Datastore.Allocate"}, Path: "/storage", Note: "create, change, delete a job", Only: PVE84},
		},
	},
	{
		// pve-manager PVE/API2/Cluster/Mapping/{PCI,USB,Dir}.pm: create and
		// delete check Mapping.Modify on /mapping/<kind>, update on
		// /mapping/<kind>/<id>, read any of Mapping.Audit, Use, Modify on
		// /mapping/<kind>/<id>. API tokens are allowed; no root needed.
		Name:    "hardware_mappings",
		Summary: "`pve_pci_mapping`, `pve_usb_mapping`, `pve_dir_mapping`: defining the mappings guests use.",
		Grants: []Grant{
			{Privileges: []string{"Mapping.Audit"}, Path: "/mapping/{kind}/{mapping}", Note: "read a mapping (or Mapping.Use)"},
			{Privileges: []string{"Mapping.Modify"}, Path: "/mapping/{kind}", Note: "create and delete a mapping (`pci`, `usb`, `dir`); it also covers changes and reads below it"},
		},
	},
	{
		// qemu-server src/PVE/API2/Qemu.pm snapshot, delsnapshot, rollback,
		// update_snapshot_config and pve-container
		// src/PVE/API2/LXC/Snapshot.pm: VM.Snapshot on /vms/{vmid}; the
		// list needs VM.Audit (read). A VM's rollback with start also
		// checks VM.PowerMgmt since qemu-server 9.1.10.
		Name:    "guest_snapshots",
		Summary: "`pve_vm_snapshot`, `pve_container_snapshot` and the `pve_guest_snapshot` action.",
		Grants: []Grant{
			{Privileges: []string{"VM.Snapshot"}, Path: guestPath, Note: "take a snapshot, change its description, delete it, roll back to it"},
			{Privileges: []string{"VM.PowerMgmt"}, Path: guestPath, Note: "a VM's rollback with `start`", Only: PVE9},
		},
	},
	{
		// qemu-server src/PVE/API2/Qemu.pm and pve-container
		// src/PVE/API2/LXC/Status.pm: every power action checks
		// VM.PowerMgmt on /vms/{vmid}.
		Name:    "guest_power",
		Summary: "The `pve_guest_power` action.",
		Grants: []Grant{
			{Privileges: []string{"VM.PowerMgmt"}, Path: guestPath, Note: "start, shutdown, stop, reboot, suspend, resume"},
		},
	},
}

// FeatureNames lists every feature name, in table order.
func FeatureNames() []string {
	out := make([]string, len(Features))
	for i, f := range Features {
		out[i] = f.Name
	}
	return out
}

// DefaultFeatureNames lists the features computed when none are given.
func DefaultFeatureNames() []string {
	var out []string
	for _, f := range Features {
		if f.Default {
			out = append(out, f.Name)
		}
	}
	return out
}

func featureByName(name string) (Feature, bool) {
	for _, f := range Features {
		if f.Name == name {
			return f, true
		}
	}
	return Feature{}, false
}
