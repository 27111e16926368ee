package lxc_test

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// badInputBase is a valid container; each case replaces one line.
const badInputBase = `
  node        = "pve1"
  os_template = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
  root_disk   = { storage = "local-lvm", size = 4 }
`

func TestAccContainer_badInputAtPlan(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	cases := []struct {
		line string
		want []string
	}{
		{`node = "pve_1"`, []string{"must be a PVE node name"}},
		{`vmid = 99`, []string{"vmid value must be between 100 and 999999999"}},
		{`hostname = "db_1"`, []string{"must be a DNS name"}},
		{`description = ""`, []string{"description string length must be between 1 and 8192"}},
		{`description = "0"`, []string{"Description PVE Cannot Store", `PVE stores no description for "0"`}}, // W20
		{`description = " \n"`, []string{"Description PVE Cannot Store"}},                                    // W20
		{`tags = ["bad tag"]`, []string{"Invalid Tag", `"bad tag"`}},
		{`pool = "a b"`, []string{"must be a pool id"}},
		{`os_template = "local:iso/debian.iso"`, []string{"must be a container template volume"}},
		{`cpu = { cores = 0 }`, []string{"cores value must be between 1 and 8192"}},
		{`cpu = { limit = -1 }`, []string{"limit value must be between"}},
		{`cpu = { units = 20000 }`, []string{"units value must be between 1 and 10000"}},
		{`cpu = {}`, []string{"Empty CPU Settings"}},
		{`memory = { size = 8 }`, []string{"size value must be at least 16"}},
		{`memory = { swap = -1 }`, []string{"swap value must be at least 0"}},
		{`root_disk = { storage = "1bad", size = 4 }`, []string{"must be a storage id"}},
		{`root_disk = { storage = "local-lvm", size = "lots" }`, []string{"Invalid Disk Size"}},
		{`mount_points = { mp256 = { storage = "local-lvm", size = 1, path = "/a" } }`, []string{"must be a mount point slot"}},
		{`mount_points = { mp0 = { storage = "local-lvm", size = 1, path = "data" } }`, []string{"must be an absolute path"}},
		{`mount_points = { mp0 = { storage = "local-lvm", host_path = "/srv", path = "/a" } }`, []string{"Volume Or Bind Mount", "sets both"}},
		{`mount_points = { mp0 = { path = "/a" } }`, []string{"Volume Or Bind Mount", "sets neither"}},
		{`mount_points = { mp0 = { storage = "local-lvm", path = "/a" } }`, []string{"Mount Point Size Required"}},
		{`mount_points = { mp0 = { host_path = "/srv", size = 1, path = "/a" } }`, []string{"Bind Mount Has No Size"}},
		{`mount_points = { mp0 = { host_path = "srv", path = "/a" } }`, []string{"must be an absolute path"}},
		{`mount_points = { mp0 = { storage = "local-lvm", size = 1, path = "/a", quota = true } }`, []string{"Quotas Need A Privileged Container"}},
		{`network = { eth0 = { name = "eth0" } }`, []string{"must be a network slot"}},
		{`devices = { dev256 = { path = "/dev/kvm" } }`, []string{"must be a device slot"}},
		{`devices = { dev0 = { path = "/etc/shadow" } }`, []string{"must be a device path under /dev/"}},
		{`devices = { dev0 = { path = "/dev/../etc/shadow" } }`, []string{"must be a device path under /dev/"}},
		{`devices = { dev0 = { path = "/dev/kvm", mode = "660" } }`, []string{"must be an octal mode"}},
		{`devices = { dev0 = { path = "/dev/kvm", uid = -1 } }`, []string{"uid value must be at least 0"}},
		{`network = { net0 = { name = "eth 0" } }`, []string{"must be an interface name"}},
		{`network = { net0 = { name = "eth0", bridge = "vmbr 0" } }`, []string{"must be a bridge name"}},
		{`network = { net0 = { name = "eth0", vlan_tag = 5000 } }`, []string{"vlan_tag value must be between 1 and 4094"}},
		{`network = { net0 = { name = "eth0", mac_address = "nope" } }`, []string{"must be a MAC address"}},
		{`network = { net0 = { name = "eth0", mtu = 10 } }`, []string{"mtu value must be between 64 and 65535"}},
		{`network = { net0 = { name = "eth0", rate = -1 } }`, []string{"rate value must be at least 0"}},
		{`network = { net0 = { name = "eth0", ipv4 = { address = "10.0.0.6" } } }`, []string{"must be dhcp, manual or an address with prefix length"}},
		{`network = { net0 = { name = "eth0", ipv4 = { gateway = "fd00::1" } } }`, []string{"must be an IPv4 address"}},
		{`network = { net0 = { name = "eth0", ipv6 = { address = "slaac" } } }`, []string{"must be auto (SLAAC), dhcp, manual"}},
		{`network = { net0 = { name = "eth0", ipv6 = {} } }`, []string{"Empty Address Settings"}},
		{`network = { net0 = { name = "eth0", ipv4 = { address = "10.0.0.300/24" } } }`, []string{"Invalid IP Address", `"10.0.0.300" in "10.0.0.300/24" is not an IPv4 address`}},
		{`network = { net0 = { name = "eth0", ipv4 = { address = "10.0.0.6/33" } } }`, []string{"Invalid IP Address", "not a number from 8 to 32"}},
		{`network = { net0 = { name = "eth0", ipv4 = { address = "10.0.0.6/4" } } }`, []string{"Invalid IP Address", "not a number from 8 to 32"}},
		{`network = { net0 = { name = "eth0", ipv4 = { address = "10.0.0.6/24", gateway = "gw" } } }`, []string{"Invalid Gateway", `"gw" is not an IPv4 address`}},
		{`network = { net0 = { name = "eth0", ipv6 = { address = "fd00::6/129" } } }`, []string{"Invalid IP Address", "not a number from 8 to 128"}},
		{`network = { net0 = { name = "eth0", ipv6 = { address = "fd00::6/64", gateway = "fd00::g" } } }`, []string{"Invalid Gateway", "is not an IPv6 address"}},
		{`node = "pve9"`, []string{"Node Not Found", `Node "pve9" is not a node of this PVE cluster`, "pve1"}},
		{`features = { mount = ["nfs,cifs"] }`, []string{"must be a file system type"}},
		{`dns = { servers = ["dns.example"] }`, []string{"must be an IPv4 or IPv6 address"}},
		{`dns = { domain = "a b" }`, []string{"must be a DNS name"}},
		{`console = { mode = "serial" }`, []string{"mode value must be one of"}},
		{`console = { ttys = 7 }`, []string{"ttys value must be between 0 and 6"}},
		{`password_wo = "abc"`, []string{"password_wo string length must be at least 5"}},
		{`ssh_public_keys = ["not a key"]`, []string{"must be one SSH public key"}},
		{`ssh_public_keys = ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA admin@host\nnot a key\n"]`, []string{"Invalid SSH Public Key", `"not a key"`}},
		{`clone = { source_vmid = 99 }`, []string{"source_vmid value must be between 100 and 999999999"}},
		{`clone = { source_vmid = 9000, source_node = "pve_1" }`, []string{"must be a PVE node name"}},
		{`clone = { source_vmid = 9000, source_node = "pve1.example.com" }`, []string{"must be a PVE node name"}},
		{`clone = { source_vmid = 9000, storage = "1bad" }`, []string{"must be a storage id"}},
	}
	steps := make([]resource.TestStep, 0, len(cases))
	for _, c := range cases {
		key, _, _ := strings.Cut(c.line, " ")
		body := badInputBase
		for _, line := range strings.Split(badInputBase, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), key+" ") {
				body = strings.Replace(body, line+"\n", "", 1)
			}
		}
		steps = append(steps, resource.TestStep{
			Config:      ctConfig(tg, body+"  "+c.line+"\n"),
			PlanOnly:    true,
			ExpectError: errorLike(c.want...),
		})
	}
	tg.Run(t, resource.TestCase{Steps: steps})
}
