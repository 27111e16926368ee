package wire

import (
	"testing"
)

// pve-guest-common src/PVE/Mapping/{PCI,USB,Dir}.pm $map_fmt: the entry
// keys per kind, and the patterns of PCI paths, ids, USB ports and
// directory paths.
func TestMappingEntries(t *testing.T) {
	t.Parallel()
	m, err := MappingPCI.ParseMappingEntry("id=10de:2204,node=pve1,path=0000:01:00.0,iommugroup=12")
	if err != nil || m["node"] != "pve1" || m["iommugroup"] != "12" {
		t.Fatalf("parse = %v %v", m, err)
	}
	if got := MappingPCI.FormatMappingEntry(m); got != "node=pve1,path=0000:01:00.0,id=10de:2204,iommugroup=12" {
		t.Errorf("format = %q", got)
	}
	if _, err := MappingDir.ParseMappingEntry("node=pve1,path=/srv,id=1"); err == nil {
		t.Errorf("dir entry with id accepted")
	}
	if _, err := MappingUSB.ParseMappingEntry("id=0529:0001"); err == nil {
		t.Errorf("entry without node accepted")
	}
	for _, c := range []struct {
		check func(string) string
		value string
		ok    bool
	}{
		{MappingPCIPathProblem, "0000:01:00.0", true},
		{MappingPCIPathProblem, "0000:01:00", true},
		{MappingPCIPathProblem, "0000:01:00.0;0000:02:00.1", true},
		{MappingPCIPathProblem, "01:00.0", false},
		{MappingPCIPathProblem, "0000:0A:00.0", false},
		{MappingDeviceIDProblem, "10DE:2204", true},
		{MappingDeviceIDProblem, "10de:22041", false},
		{MappingUSBPathProblem, "1-2.3", true},
		{MappingUSBPathProblem, "1-2", true},
		{MappingUSBPathProblem, "1.2", false},
		{MappingDirPathProblem, "/srv/data", true},
		{MappingDirPathProblem, "srv", false},
		{MappingDirPathProblem, "/a(b)", false},
	} {
		if got := c.check(c.value) == ""; got != c.ok {
			t.Errorf("%q: ok %v, want %v", c.value, got, c.ok)
		}
	}
	if !IsMappingID("gpu-0") || IsMappingID("g") || IsMappingID("0gpu") {
		t.Errorf("IsMappingID")
	}
}
