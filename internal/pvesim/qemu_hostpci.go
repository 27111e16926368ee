package pvesim

import "strings"

// checkHostPCIPerms is check_hostpci_perm for every hostpciN a create or
// update sets, and for the old value of every hostpciN it deletes. Only
// root@pam itself may pass through a raw host device; an API token of
// root@pam is another identity (W49). A mapped device needs Mapping.Use on
// the mapping and VM.Config.HWType on the VM.
// qemu-server src/PVE/API2/Qemu.pm check_hostpci_perm
func checkHostPCIPerms(c *call, vmid int, pool string, set map[string]string, deletes []string, config map[string]string) error {
	if isRootPam(c) {
		return nil
	}
	values := map[string]string{}
	for _, k := range deletes {
		if v, ok := config[k]; ok {
			values[k] = v
		}
	}
	for k, v := range set {
		values[k] = v
	}
	for _, opt := range sortedKeys(values) {
		if !strings.HasPrefix(opt, "hostpci") {
			continue
		}
		dev, msg := c.cluster.conf.qemu.PropertyString(opt, values[opt])
		if msg != "" {
			return paramError(map[string]string{opt: "invalid format - " + msg})
		}
		switch {
		case dev["host"] != "":
			return errorf("only root can set '%s' config for non-mapped devices", opt)
		case dev["mapping"] != "":
			if err := c.check("/mapping/pci/"+dev["mapping"], false, "Mapping.Use"); err != nil {
				return err
			}
			if err := c.checkVMPerm(vmid, pool, "VM.Config.HWType"); err != nil {
				return err
			}
		default:
			return errorf("either 'host' or 'mapping' must be set.")
		}
		if _, ok := dev["romfile"]; ok {
			return paramError(map[string]string{opt: "only root@pam can set 'romfile' option"})
		}
	}
	return nil
}
