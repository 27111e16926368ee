package pvesim

// purgeGuestReferences is what destroy's purge=1 removes besides the guest
// itself: the guest's HA resource, its replication jobs and its id in the
// guest lists of backup jobs.
// qemu-server src/PVE/API2/Qemu.pm destroy_vm and pve-container
// src/PVE/API2/LXC.pm destroy_vm: after "purging ... from related
// configurations.." they call PVE::HA::Config::delete_service_from_config,
// PVE::ReplicationConfig::remove_vmid_jobs and
// PVE::VZDump::Plugin::remove_vmid_from_backup_jobs.
func purgeGuestReferences(cl *Cluster, vmid int, t *Task) {
	haPurgeGuest(cl, vmid, t)
	cl.Replication.removeGuestJobs(vmid)
	cl.removeVMIDFromBackupJobs(vmid)
}

// destroyReferenceChecks are destroy's early refusals for a guest other
// configurations still name when purge is not set.
// qemu-server src/PVE/API2/Qemu.pm destroy_vm $early_checks: HA first,
// then PVE::ReplicationConfig::check_for_existing_jobs.
func destroyReferenceChecks(cl *Cluster, g *Guest, purge bool) error {
	if err := haDestroyCheck(cl, g, purge); err != nil {
		return err
	}
	if !purge {
		if err := cl.Replication.existingJobsError(g.VMID); err != nil {
			return err
		}
	}
	return nil
}
