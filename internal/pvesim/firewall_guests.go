package pvesim

// A guest's firewall file (firewall/VMID.fw) goes with the guest: the
// destroy API removes it, a clone copies it to the new VMID and a failed
// clone removes the copy (qemu-server src/PVE/API2/Qemu.pm destroy_vm and
// clone_vm, pve-container src/PVE/API2/LXC.pm destroy_vm and clone_vm,
// pve-firewall src/PVE/Firewall/Helpers.pm remove_vmfw_conf and
// clone_vmfw_conf). The firewall API itself does not check that the guest
// exists: it reads and writes the file whatever the VMID.

// removeGuestFirewall is remove_vmfw_conf.
func removeGuestFirewall(cl *Cluster, vmid int) {
	if cl.Firewall != nil {
		delete(cl.Firewall.Guests, vmid)
	}
}

// cloneGuestFirewall is clone_vmfw_conf: the target's file is replaced by
// a copy of the source's, or removed when the source has none.
func cloneGuestFirewall(cl *Cluster, vmid, newid int) {
	removeGuestFirewall(cl, newid)
	if cl.Firewall == nil || cl.Firewall.Guests[vmid] == nil {
		return
	}
	cl.Firewall.Guests[newid] = copyFirewallFile(cl.Firewall.Guests[vmid])
}

// copyFirewallFile is a deep copy of a parsed firewall file.
func copyFirewallFile(src *FirewallConf) *FirewallConf {
	dst := &FirewallConf{
		Options:       copyFirewallStrings(src.Options),
		Rules:         copyFirewallRules(src.Rules),
		IPSetComments: copyFirewallStrings(src.IPSetComments),
		GroupComments: copyFirewallStrings(src.GroupComments),
	}
	if src.Aliases != nil {
		dst.Aliases = make(map[string]*FirewallAlias, len(src.Aliases))
		for k, a := range src.Aliases {
			cp := *a
			dst.Aliases[k] = &cp
		}
	}
	if src.IPSets != nil {
		dst.IPSets = make(map[string][]*FirewallIPSetEntry, len(src.IPSets))
		for k, entries := range src.IPSets {
			list := make([]*FirewallIPSetEntry, len(entries))
			for i, e := range entries {
				cp := *e
				cp.Errors = copyFirewallStrings(e.Errors)
				list[i] = &cp
			}
			dst.IPSets[k] = list
		}
	}
	if src.Groups != nil {
		dst.Groups = make(map[string][]FirewallRule, len(src.Groups))
		for k, rules := range src.Groups {
			dst.Groups[k] = copyFirewallRules(rules)
		}
	}
	return dst
}

func copyFirewallRules(rules []FirewallRule) []FirewallRule {
	if rules == nil {
		return nil
	}
	out := make([]FirewallRule, len(rules))
	for i, r := range rules {
		out[i] = FirewallRule{Fields: copyFirewallStrings(r.Fields), Errors: copyFirewallStrings(r.Errors)}
	}
	return out
}

func copyFirewallStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
