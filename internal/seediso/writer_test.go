package seediso

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestShortName(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"user-data":      "USER_DAT.;1",
		"meta-data":      "META_DAT.;1",
		"vendor-data":    "VENDOR_D.;1",
		"network-config": "NETWORK_.;1",
		"seed.yaml":      "SEED.YAM;1",
		"a.b.c":          "A_B.C;1",
	}
	for long, want := range cases {
		if got := shortName(long); got != want {
			t.Errorf("shortName(%q) = %q, want %q", long, got, want)
		}
	}
}

func TestWriteImageRejects(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		label string
		files []isoFile
		want  string
	}{
		"short names collide": {"cidata", []isoFile{{name: "user-data-1"}, {name: "user-data-2"}}, `map to the same ISO 9660 name "USER_DAT.;1"`},
		"name with slash":     {"cidata", []isoFile{{name: "a/b"}}, `file name "a/b"`},
		"name too long":       {"cidata", []isoFile{{name: strings.Repeat("a", 65)}}, "file name"},
		"label with space":    {"ci data", nil, `volume label "ci data"`},
		"label too long":      {strings.Repeat("A", 17), nil, "volume label"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := writeImage(tc.label, tc.files)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("writeImage error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// Plain ISO 9660 names are upper-case 8.3; cloud-init needs "user-data" and
// "meta-data", so both the Rock Ridge and the Joliet tree must carry them,
// each on its own: Linux prefers Rock Ridge, 7-Zip and Windows read Joliet.
func TestEachTreeCarriesTheExactNamesW32(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, fullSeed)
	cases := map[string]struct {
		sources nameSources
		want    []string
	}{
		"rock ridge": {nameSources{rockRidge: true}, []string{"meta-data", "network-config", "user-data", "vendor-data"}},
		"joliet":     {nameSources{joliet: true}, []string{"meta-data", "network-config", "user-data", "vendor-data"}},
		"plain":      {nameSources{}, []string{"meta_dat", "network_", "user_dat", "vendor_d"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := parse(bytes.NewReader(img), int64(len(img)), tc.sources)
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Sorted(maps.Keys(p.Files)); !slices.Equal(got, tc.want) {
				t.Fatalf("names = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestImageLayout(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, fullSeed)
	if len(img)%sectorSize != 0 {
		t.Fatalf("image of %d bytes is not whole sectors", len(img))
	}
	sector := func(n int) []byte { return img[n*sectorSize : (n+1)*sectorSize] }

	primary, joliet := sector(sectorPrimaryDescriptor), sector(sectorJolietDescriptor)
	if primary[0] != descriptorPrimary || string(primary[1:6]) != "CD001" {
		t.Errorf("sector 16 is not a primary volume descriptor: % x", primary[:7])
	}
	if joliet[0] != descriptorSupplementary || string(joliet[vdEscapeSequences:vdEscapeSequences+3]) != "%/E" {
		t.Errorf("sector 17 is not a Joliet descriptor: % x", joliet[:7])
	}
	if got := string(primary[vdVolumeIdentifier : vdVolumeIdentifier+32]); got != "cidata"+strings.Repeat(" ", 26) {
		t.Errorf("primary label field = %q", got)
	}
	if got := joliet[vdVolumeIdentifier : vdVolumeIdentifier+12]; !bytes.Equal(got, ucs2("cidata")) {
		t.Errorf("Joliet label field = % x", got)
	}
	if term := sector(sectorTerminator); term[0] != descriptorTerminator || string(term[1:6]) != "CD001" {
		t.Errorf("sector 18 is not the terminator")
	}
	for _, d := range [][]byte{primary, joliet} {
		if got := binary.LittleEndian.Uint32(d[vdVolumeSpaceSize:]); int(got) != len(img)/sectorSize {
			t.Errorf("volume space size %d, image has %d sectors", got, len(img)/sectorSize)
		}
		if got := binary.BigEndian.Uint32(d[vdVolumeSpaceSize+4:]); int(got) != len(img)/sectorSize {
			t.Errorf("big-endian volume space size %d", got)
		}
		// No clock: the dates are the fixed epoch.
		if got := string(d[813:829]); got != "2020010100000000" {
			t.Errorf("creation date %q", got)
		}
	}
	tail := img[len(img)-trailingPaddingSectors*sectorSize:]
	if !bytes.Equal(tail, make([]byte, len(tail))) {
		t.Error("the trailing padding is not zeros")
	}
	if !bytes.Contains(sector(sectorContinuationArea), []byte("ER\xed\x01\x0aT\x87\x01RRIP_1991A")) {
		t.Error("the continuation area does not declare Rock Ridge")
	}
}

// A root directory larger than a sector must keep every record inside one
// sector (ECMA-119 6.8.1.1), or readers lose the records that cross.
func TestDirectorySpanningSectors(t *testing.T) {
	t.Parallel()
	var files []isoFile
	for i := range 40 {
		files = append(files, isoFile{
			name: fmt.Sprintf("f%02d-with-a-rather-long-name-for-rock-ridge-and-joliet", i),
			data: []byte{byte(i)},
		})
	}
	img, err := writeImage("cidata", files)
	if err != nil {
		t.Fatal(err)
	}
	for _, sources := range []nameSources{{rockRidge: true}, {joliet: true}} {
		p, err := parse(bytes.NewReader(img), int64(len(img)), sources)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if got := p.Files[f.name]; !bytes.Equal(got, f.data) {
				t.Errorf("%+v: %s = %v, want %v", sources, f.name, got, f.data)
			}
		}
	}
	primary := img[sectorPrimaryDescriptor*sectorSize:]
	root := primary[vdRootRecord:]
	extent, size := int(readBoth32(root[recordExtent:])), int(readBoth32(root[recordDataLength:]))
	dir := img[extent*sectorSize : extent*sectorSize+size]
	dirSectors := size / sectorSize
	if dirSectors < 2 {
		t.Fatalf("root directory has %d sector(s); the test needs more", dirSectors)
	}
	for off := 0; off < len(dir); {
		n := int(dir[off])
		if n == 0 {
			off = (off/sectorSize + 1) * sectorSize
			continue
		}
		if off/sectorSize != (off+n-1)/sectorSize {
			t.Fatalf("record at byte %d (%d bytes) crosses a sector boundary", off, n)
		}
		off += n
	}
}
