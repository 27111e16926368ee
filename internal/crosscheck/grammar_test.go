package crosscheck

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
	"github.com/proxops/terraform-provider-pve/internal/pvesim/pvegrammar"
	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// disagreements collects the inputs on which the provider and the
// simulator read PVE's grammar differently, and fails the test with all of
// them.
type disagreements struct {
	t    *testing.T
	what string
	list []string
}

func (d *disagreements) addf(format string, args ...any) {
	d.list = append(d.list, fmt.Sprintf(format, args...))
}

// knownDifferences are inputs on which the provider is deliberately stricter
// than PVE, each with why. Every other disagreement fails the test.
var knownDifferences = map[string]map[string]string{
	"parse_size": {
		// Perl's $ lets one final newline through; PVE prints sizes with
		// format_size, so the provider never reads one, and it refuses one
		// in a user's size rather than send it.
		"32G\n": "trailing newline",
		// Perl's \d matches any Unicode digit, and the number then counts
		// as 0 (or as its ASCII prefix): the provider refuses such a size
		// instead of creating an empty disk.
		"٣G":   "Unicode digit",
		"1.٣G": "Unicode digit",
	},
	"prune_backups": {
		// Perl's numbers have no upper bound; the provider keeps counts in
		// int64 and refuses what no retention setting needs.
		"keep-last=99999999999999999999": "count beyond int64",
	},
	"tags": {
		// A NUL-joined list whose item ends in a newline passes $PVE_TAG_RE
		// (Perl's $) and get_unique_tags stores the newline; PVE never
		// answers such a value (it stores tags joined by ";") and the
		// provider never sends one.
		"a\n\x00b": "newline kept in a NUL list",
	},
}

func (d *disagreements) known(input string) bool {
	_, ok := knownDifferences[d.what][input]
	return ok
}

func (d *disagreements) report() {
	d.t.Helper()
	if len(d.list) > 0 {
		d.t.Errorf("%s: the provider (wire) and the simulator (pvegrammar) disagree on %d inputs:\n  %s",
			d.what, len(d.list), strings.Join(d.list, "\n  "))
	}
}

func check(t *testing.T, what string, fn func(d *disagreements)) {
	t.Helper()
	t.Run(what, func(t *testing.T) {
		d := &disagreements{t: t, what: what}
		fn(d)
		d.report()
	})
}

// TestGrammarsAgree feeds the provider's grammar and the simulator's the
// same corpus.
func TestGrammarsAgree(t *testing.T) {
	inputs := corpus(t)
	if len(inputs) < 100 {
		t.Fatalf("corpus has only %d values", len(inputs))
	}

	// pve-common ParseUtils.pm split_list.
	check(t, "split_list", func(d *disagreements) {
		for _, s := range inputs {
			w, p := wire.SplitList(s), pvegrammar.SplitList(s)
			if (len(w) != 0 || len(p) != 0) && !reflect.DeepEqual(w, p) {
				d.addf("%q: wire %q, PVE %q", s, w, p)
			}
		}
	})

	// pve-common JSONSchema.pm parse_size and format_size.
	check(t, "parse_size", func(d *disagreements) {
		for _, s := range inputs {
			w, err := wire.ParseSize(s)
			p, ok := pvegrammar.ParseSize(s)
			if ((err == nil) != ok || w != p) && !d.known(s) {
				d.addf("%q: wire %d (%v), PVE %d (ok %v)", s, w, err, p, ok)
			}
		}
	})
	check(t, "format_size", func(d *disagreements) {
		sizes := []int64{0, 1, 1000, 1023, 1024, 1025, 1 << 20, 3 << 29, 1 << 30, 1<<30 + 1, 1 << 40, 5 << 41, 1 << 62}
		for _, s := range inputs {
			if n, ok := pvegrammar.ParseSize(s); ok {
				sizes = append(sizes, n)
			}
		}
		for _, n := range sizes {
			if w, p := wire.FormatSize(n), pvegrammar.FormatSize(n); w != p {
				d.addf("%d: wire %q, PVE %q", n, w, p)
			}
		}
	})

	// The pve-tag-list format check (pve-common JSONSchema.pm pve_verify_tag)
	// and the stored form (pve-guest-common GuestHelpers.pm get_unique_tags).
	check(t, "tags", func(d *disagreements) {
		for _, s := range inputs {
			list, err := wire.ParseTags(s)
			pveErr := pvegrammar.CheckTagList(s)
			switch {
			case d.known(s):
			case (err == nil) != (pveErr == nil):
				d.addf("%q: wire error %v, PVE error %v", s, err, pveErr)
			case err == nil && wire.FormatTags(list) != pvegrammar.UniqueTags(s):
				d.addf("%q: wire stores %q, PVE %q", s, wire.FormatTags(list), pvegrammar.UniqueTags(s))
			}
		}
	})

	// pve-common JSONSchema.pm pve_verify_urlencoded, and the sshkeys value
	// as qemu-server reads it (uri_unescape, then validate_ssh_public_keys'
	// non-blank lines). The provider trims each key; PVE keeps a line's
	// blanks, which only the key's comment can carry, so lines are compared
	// trimmed.
	check(t, "sshkeys", func(d *disagreements) {
		for _, s := range inputs {
			if w, p := wire.CheckURLEncoded(s) == nil, pvegrammar.IsURLEncoded(s); w != p {
				d.addf("%q: urlencoded check wire %v, PVE %v", s, w, p)
			}
			keys := wire.DecodeSSHKeys(s)
			pve := trimmed(pvegrammar.SSHKeyLines(pvegrammar.URIUnescape(s)))
			if !sameStrings(keys, pve) {
				d.addf("%q: wire decodes %q, PVE %q", s, keys, pve)
			}
			// What the provider sends must be accepted and read back by PVE
			// as the keys the provider meant.
			encoded := wire.EncodeSSHKeys([]string{s})
			if !pvegrammar.IsURLEncoded(encoded) {
				d.addf("%q: wire encodes %q, which PVE's urlencoded check refuses", s, encoded)
			}
			if got, want := trimmed(pvegrammar.SSHKeyLines(pvegrammar.URIUnescape(encoded))), wire.SSHKeyLines([]string{s}); !sameStrings(got, want) {
				d.addf("%q: wire sends keys %q, PVE reads %q", s, want, got)
			}
		}
	})

	// qemu-server Drive.pm valid_drive_names and $MAX_UNUSED_DISKS,
	// pve-container LXC/Config.pm $MAX_MOUNT_POINTS.
	check(t, "config keys", func(d *disagreements) {
		if w, p := wire.DiskSlotKeys(), pvegrammar.QemuDriveKeys(); !reflect.DeepEqual(w, p) {
			d.addf("drive keys: wire %q, PVE %q", w, p)
		}
		keys := append([]string(nil), inputs...)
		for _, prefix := range []string{"ide", "sata", "scsi", "virtio", "efidisk", "tpmstate", "unused", "mp"} {
			for i := -1; i <= 300; i++ {
				keys = append(keys, prefix+strconv.Itoa(i), prefix+"0"+strconv.Itoa(i), prefix+"+"+strconv.Itoa(i))
			}
		}
		for _, k := range keys {
			if w, p := wire.IsDiskSlot(k), pvegrammar.IsQemuDriveKey(k); w != p {
				d.addf("%q drive key: wire %v, PVE %v", k, w, p)
			}
			if w, p := wire.IsUnusedSlot(k), pvegrammar.IsQemuUnusedKey(k); w != p {
				d.addf("%q unused key: wire %v, PVE %v", k, w, p)
			}
			wi, wok := wire.SlotIndex(k, "mp")
			wok = wok && wi < pvegrammar.LXCMountPoints
			pi, pok := pvegrammar.LXCMountPointIndex(k)
			if wok != pok || (wok && wi != pi) {
				d.addf("%q mount point: wire %d %v, PVE %d %v", k, wi, wok, pi, pok)
			}
		}
	})

	check(t, "property strings", func(d *disagreements) { comparePropertyStrings(d, inputs) })
	check(t, "memory", func(d *disagreements) { compareMemory(d, inputs) })
}

// propertyParams are property-string parameters of the config methods, with
// the default key each format declares, and without key aliases (which the
// provider's schema-less parser does not resolve).
var propertyParams = []struct {
	method, param, defaultKey string
}{
	{"/nodes/n/qemu/100/config", "scsi0", "file"},
	{"/nodes/n/qemu/100/config", "efidisk0", "file"},
	{"/nodes/n/qemu/100/config", "memory", "current"},
	{"/nodes/n/qemu/100/config", "boot", "legacy"},
	{"/nodes/n/qemu/100/config", "agent", "enabled"},
	{"/nodes/n/qemu/100/config", "ipconfig0", ""},
	{"/nodes/n/lxc/100/config", "mp0", "volume"},
	{"/nodes/n/lxc/100/config", "features", ""},
}

// splittingErrors are the texts of pve-common JSONSchema.pm
// parse_property_string that come from splitting, before any key or value
// is checked against the format: these are the ones the provider's
// schema-less parser can be held to.
var splittingErrors = []string{
	"duplicate key in comma-separated list property: ",
	"missing key in comma-separated list property",
	"value without key, but schema does not define a default key",
}

func isSplittingError(msg string) bool {
	for _, prefix := range splittingErrors {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// comparePropertyStrings holds wire.ParsePropertyString to the simulator's
// parse_property_string (its schema validator) on real formats: where PVE
// splits a value, the provider must split it the same way.
func comparePropertyStrings(d *disagreements, inputs []string) {
	compared := 0
	for _, pp := range propertyParams {
		m, _, _ := schema.Lookup("PUT", pp.method)
		if m == nil {
			d.addf("schema lacks PUT %s", pp.method)
			continue
		}
		for _, s := range inputs {
			pve, msg := m.PropertyString(pp.param, s)
			msg = strings.TrimSuffix(msg, "\n")
			w, err := wire.ParsePropertyString(s, pp.defaultKey)
			if v, ok := w["volume"]; ok && pp.defaultKey == "file" {
				// wire.ParseDrive reads volume= as file=, the alias
				// qemu-server's drive formats declare.
				if _, both := w["file"]; !both {
					delete(w, "volume")
					w["file"] = v
				}
			}
			switch {
			case msg == "":
				compared++
				if err != nil {
					d.addf("%s=%q: wire refuses (%v), PVE reads %v", pp.param, s, err, pve)
				} else if !sameProperties(w, pve) {
					d.addf("%s=%q: wire reads %v, PVE %v", pp.param, s, w, pve)
				}
			case isSplittingError(msg):
				compared++
				if err == nil || err.Error() != msg {
					d.addf("%s=%q: wire %v (%v), PVE refuses %q", pp.param, s, w, err, msg)
				}
			}
		}
	}
	if compared < 50 {
		d.addf("only %d property strings compared", compared)
	}
}

// sameProperties compares a schema-less reading with PVE's: PVE turns a
// boolean's on/yes/true into 1 (parse_boolean), which the provider leaves to
// the caller.
func sameProperties(w, pve map[string]string) bool {
	if len(w) != len(pve) {
		return false
	}
	for k, v := range w {
		pv, ok := pve[k]
		if !ok {
			return false
		}
		if v != pv && pv != perlBoolean(v) {
			return false
		}
	}
	return true
}

// perlBoolean is pve-common JSONSchema.pm parse_boolean, or "" for a
// non-boolean.
func perlBoolean(v string) string {
	switch strings.ToLower(v) {
	case "1", "on", "yes", "true":
		return "1"
	case "0", "off", "no", "false":
		return "0"
	}
	return ""
}

// compareMemory holds wire.ParseMemoryMiB to qemu-server Memory.pm
// parse_memory through the simulator's schema (the memory format, its
// "current" an integer): every value PVE accepts, and so may store, must
// read as PVE reads it. The provider reads values PVE refuses leniently
// (keys of a later PVE version are ignored), which is not compared.
func compareMemory(d *disagreements, inputs []string) {
	m, _, _ := schema.Lookup("PUT", "/nodes/n/qemu/100/config")
	for _, s := range append(inputs, "4096", "current=4096", "current=+4", "current=04096", "4096,current=1") {
		w, err := wire.ParseMemoryMiB(s)
		props, msg := m.PropertyString("memory", s)
		var pve int64
		pveOK := msg == ""
		if pveOK {
			n, convErr := strconv.ParseInt(props["current"], 10, 64)
			pve, pveOK = n, convErr == nil
		}
		if pveOK && (err != nil || w != pve) {
			d.addf("%q: wire %d (%v), PVE %d (%q)", s, w, err, pve, strings.TrimSuffix(msg, "\n"))
		}
	}
}

// TestSetDeleteConflictText holds the provider's reading of PVE's refusal of
// a key both set and deleted (wire.SetDeleteConflictError) to the
// simulator's answer, itself written from qemu-server API2/Qemu.pm
// update_vm_api and pve-container API2/LXC/Config.pm.
func TestSetDeleteConflictText(t *testing.T) {
	const token = "root@pam!crosscheck=0b5e8f2c-7d1a-4c39-9e6f-3a2b1c0d9e8f"
	sim, err := pvesim.New(pvesim.Options{Tokens: []string{token}})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []pvesim.Guest{
		{VMID: 100, Node: "pve1", Type: pvesim.QEMU, Status: "stopped", Config: map[string]string{"name": "a", "memory": "512"}},
		{VMID: 101, Node: "pve1", Type: pvesim.LXC, Status: "stopped", Config: map[string]string{"hostname": "b", "memory": "512", "ostype": "debian", "rootfs": "local-lvm:vm-101-disk-0,size=4G"}},
	} {
		if err := sim.AddGuest(g); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, key, value string }{
		{"/api2/json/nodes/pve1/qemu/100/config", "name", "x"},
		{"/api2/json/nodes/pve1/lxc/101/config", "hostname", "x"},
	} {
		values := url.Values{tc.key: {tc.value}, "delete": {tc.key}}
		_, wireErr := wire.ConfigDeltaFromValues(values)
		if !wire.IsSetDeleteConflict(wireErr) {
			t.Fatalf("wire accepts setting and deleting %s: %v", tc.key, wireErr)
		}
		req := httptest.NewRequest(http.MethodPut, tc.path, strings.NewReader(values.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Authorization", "PVEAPIToken="+token)
		rec := httptest.NewRecorder()
		sim.Handler().ServeHTTP(rec, req)
		var body struct {
			Errors map[string]string `json:"errors"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", tc.path, rec.Code, rec.Body)
		}
		if body.Errors["delete"] != wireErr.Error() {
			t.Errorf("%s: PVE refuses with %q, wire reads %q", tc.path, body.Errors["delete"], wireErr.Error())
		}
	}
}

func trimmed(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func sameStrings(a, b []string) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
