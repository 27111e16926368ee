package pvesim

import (
	"fmt"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

// guestSchema is one release's guest config schema: the parameters of PUT
// .../qemu/{vmid}/config and .../lxc/{vmid}/config, which know every config
// key and the property-string format of each. A node parses and checks the
// configs it stores with its own release's $confdesc (qemu-server
// src/PVE/QemuServer.pm parse_vm_config and option_exists, pve-container
// src/PVE/LXC/Config.pm parse_pct_config and option_exists), so a
// simulator serving PVE 8.4 knows the keys and properties of 8.4 and no
// other: a key only PVE 9 has is an unknown option there, and the disk
// geometry options PVE 9 dropped (cyls, heads, secs, trans) still parse.
type guestSchema struct {
	qemu *schema.Method
	lxc  *schema.Method
}

// newGuestSchema takes the config methods of a release's API schema.
func newGuestSchema(api *schema.API) (*guestSchema, error) {
	qemu, _, _ := api.Lookup("PUT", "/nodes/node/qemu/100/config")
	lxc, _, _ := api.Lookup("PUT", "/nodes/node/lxc/100/config")
	if qemu == nil || lxc == nil {
		return nil, fmt.Errorf("PVE %s schema lacks a guest config method", api.Release())
	}
	return &guestSchema{qemu: qemu, lxc: lxc}, nil
}
