package pvesim

import (
	"fmt"
	"strings"

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

// storedValueError is why parse_vm_config's check_type refuses a key of a
// stored VM config, "" when it takes it: a key the release's schema does
// not know, or a property string its format does not parse. check_type
// checks no enum or pattern, only the named format.
// qemu-server src/PVE/QemuServer.pm check_type ("unknown setting");
// pve-common src/PVE/JSONSchema.pm check_format words the format errors.
func (cs *guestSchema) storedValueError(key, value string) string {
	if !cs.qemuOptionExists(key) {
		return "unknown setting '" + key + "'"
	}
	if info, ok := cs.qemu.Param(key); ok && info.PropertyString {
		if _, msg := cs.qemu.PropertyString(key, value); msg != "" {
			return strings.TrimSuffix(msg, "\n")
		}
	}
	return ""
}
