package guestops

import (
	"slices"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// ownerOf represents exactly the listed keys.
type ownerOf []string

func (o ownerOf) RepresentsConfigKey(key, _ string) bool { return slices.Contains(o, key) }

func TestUnmanagedKeysSkipsBookkeepingAndRepresented(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{
		"name":     "web",
		"digest":   "0123abcd",
		"meta":     "creation-qemu=9.2.0,ctime=1760000000",
		"vmgenid":  "6f1a6c2e-0000-4000-8000-000000000001",
		"smbios1":  "uuid=6f1a6c2e-0000-4000-8000-000000000002",
		"lock":     "backup",
		"template": "1",
		"serial0":  "socket",
		"unused0":  "local-lvm:vm-100-disk-3",
		"startup":  "order=2",
	}
	got := UnmanagedKeys(config, ownerOf{"name"})
	want := []string{"serial0", "startup", "unused0"}
	if !slices.Equal(got, want) {
		t.Errorf("UnmanagedKeys = %v, want %v", got, want)
	}
}

func TestSMBIOSBeyondTheUUIDIsASetting(t *testing.T) {
	t.Parallel()
	if !IsBookkeepingKey("smbios1", "uuid=6f1a6c2e-0000-4000-8000-000000000002") {
		t.Error("smbios1 with only PVE's uuid should be bookkeeping")
	}
	if IsBookkeepingKey("smbios1", "uuid=6f1a6c2e-0000-4000-8000-000000000002,manufacturer=QWNtZQ==,base64=1") {
		t.Error("smbios1 with a manufacturer is a setting someone made")
	}
}

// W24: the warning explains that detached volumes go with the guest.
func TestUnmanagedDetailNamesKeysAndDetachedVolumesW24(t *testing.T) {
	t.Parallel()
	detail := VM.unmanagedDetail(120, "pve2", []string{"cpu.flags", "serial0", "unused0"})
	for _, want := range []string{"VM 120 on node pve2", "pve_vm", "cpu.flags, serial0, unused0", "detached", "one option of KEY"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail %q does not contain %q", detail, want)
		}
	}
	plain := Container.unmanagedDetail(130, "pve1", []string{"startup"})
	if strings.Contains(plain, "detached") || strings.Contains(plain, "KEY.OPTION") {
		t.Errorf("notes on detached volumes and options belong only to guests that have them: %q", plain)
	}
}

// optionOwner represents the cpu key but only its cputype option.
type optionOwner struct{ ownerOf }

func (optionOwner) UnmanagedOptions(key, value string) []string {
	if key != "cpu" {
		return nil
	}
	return OptionsOutside(value, "cputype", "cputype")
}

func TestUnmanagedKeysNamesOptionsOfRepresentedKeys(t *testing.T) {
	t.Parallel()
	config := pveapi.GuestConfig{"cpu": "host,hidden=1,flags=+aes", "serial0": "socket"}
	got := UnmanagedKeys(config, optionOwner{ownerOf{"cpu"}})
	want := []string{"cpu.flags", "cpu.hidden", "serial0"}
	if !slices.Equal(got, want) {
		t.Errorf("UnmanagedKeys = %v, want %v", got, want)
	}
}
