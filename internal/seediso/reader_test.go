package seediso

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	img, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

var fixtureFiles = map[string]string{
	"user-data":      "#cloud-config\nhostname: fixture\n",
	"meta-data":      "instance-id: iid-fixture\nlocal-hostname: fixture\n",
	"network-config": "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
}

// Images made by genisoimage and xorriso (see testdata/README.md) read the
// way a Linux guest reads them: W32 seeds with Rock Ridge or Joliet names,
// and 8.3 names (hence no seed) without either.
func TestParseFixturesW32(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		label     string
		files     map[string]string
		seedError string
	}{
		"genisoimage-rock-joliet.iso.gz": {label: "cidata", files: fixtureFiles},
		"genisoimage-joliet.iso.gz":      {label: "cidata", files: fixtureFiles},
		"xorriso-rock-joliet.iso.gz":     {label: "CIDATA", files: fixtureFiles},
		"genisoimage-plain.iso.gz": {
			label: "cidata",
			files: map[string]string{
				"user_dat": fixtureFiles["user-data"],
				"meta_dat": fixtureFiles["meta-data"],
				"network_": fixtureFiles["network-config"],
			},
			seedError: "no user-data or meta-data at the root of the image (found: meta_dat, network_, user_dat)",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := mustParse(t, readFixture(t, name))
			if p.Label != tc.label {
				t.Errorf("Label = %q, want %q", p.Label, tc.label)
			}
			assertFiles(t, p, tc.files)
			err := p.CheckSeed()
			switch {
			case tc.seedError == "" && err != nil:
				t.Errorf("CheckSeed: %v", err)
			case tc.seedError != "" && (err == nil || err.Error() != tc.seedError):
				t.Errorf("CheckSeed error = %v, want %q", err, tc.seedError)
			}
		})
	}
}

func TestParseRejectsWhatIsNotAnImage(t *testing.T) {
	t.Parallel()
	built := mustBuild(t, fullSeed)
	noise := make([]byte, 64<<10)
	for i := range noise {
		noise[i] = byte(i*7 + i>>8)
	}

	patched := func(patch func(img []byte)) []byte {
		img := bytes.Clone(built)
		patch(img)
		return img
	}
	primaryAt := sectorPrimaryDescriptor * sectorSize
	noTerminator := bytes.Clone(built)
	for s := firstDescriptorSector + 2; s < firstDescriptorSector+maxDescriptors+1; s++ {
		copy(noTerminator[s*sectorSize:], built[sectorJolietDescriptor*sectorSize:(sectorJolietDescriptor+1)*sectorSize])
	}
	firstFile := fileRecordOffset(t, built, "META_DAT.;1")

	cases := map[string]struct {
		img  []byte
		size int64 // 0: len(img)
		want string
	}{
		"empty":               {img: nil, want: "0 bytes is smaller than"},
		"system area only":    {img: make([]byte, 16*sectorSize), want: "is smaller than"},
		"noise":               {img: noise, want: "no CD001 volume descriptor at sector 16"},
		"zeros":               {img: make([]byte, 64<<10), want: "no CD001 volume descriptor at sector 16"},
		"truncated to 40 KiB": {img: built[:40<<10], want: "truncated"},
		"truncated by a byte": {img: built[:len(built)-1], want: "truncated"},
		"size beyond reader":  {img: built[:20*sectorSize], size: int64(len(built)), want: "reading 2048 bytes at offset"},
		"no terminator":       {img: noTerminator, want: "no volume descriptor set terminator"},
		"no primary": {
			img:  patched(func(img []byte) { img[primaryAt] = 3 }),
			want: "no primary volume descriptor",
		},
		"block size 512": {
			img:  patched(func(img []byte) { putBoth16(img[primaryAt+vdLogicalBlockSize:], 512) }),
			want: "logical block size 512",
		},
		"huge root directory": {
			img:  patched(func(img []byte) { putBoth32(img[primaryAt+vdRootRecord+recordDataLength:], 1<<30) }),
			want: "root directory of 1073741824 bytes",
		},
		"root past the end": {
			img:  patched(func(img []byte) { putBoth32(img[primaryAt+vdRootRecord+recordExtent:], 1<<20) }),
			want: "beyond the end",
		},
		"file past the end": {
			img:  patched(func(img []byte) { putBoth32(img[firstFile+recordExtent:], 1<<20) }),
			want: `file "meta-data"`,
		},
		"file too large": {
			img:  patched(func(img []byte) { putBoth32(img[firstFile+recordDataLength:], MaxFileSize+1) }),
			want: "above the 16777216 this reader loads",
		},
		"empty name": {
			img: patched(func(img []byte) {
				nm := firstFile + bytes.Index(img[firstFile:firstFile+int(img[firstFile])], []byte("NM"))
				img[nm+2] = 5 // an NM entry with no name
			}),
			want: "a root file has an empty name",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			size := tc.size
			if size == 0 {
				size = int64(len(tc.img))
			}
			p, err := Parse(bytes.NewReader(tc.img), size)
			if err == nil {
				t.Fatalf("Parse accepted it: %+v", p)
			}
			if !errors.Is(err, ErrInvalidImage) {
				t.Errorf("error %v does not wrap ErrInvalidImage", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// fileRecordOffset is the byte offset in img of the primary tree's record
// whose identifier is ident.
func fileRecordOffset(t *testing.T, img []byte, ident string) int {
	t.Helper()
	base := sectorFirstDirectory * sectorSize
	for off := base; img[off] != 0; off += int(img[off]) {
		if int(img[off+recordIdentLength]) == len(ident) && string(img[off+recordFixedLength:off+recordFixedLength+len(ident)]) == ident {
			return off
		}
	}
	t.Fatalf("no record %q in the root directory", ident)
	return 0
}

// Continuation areas that point at each other must not keep Parse busy.
func TestParseStopsOnContinuationLoop(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, fullSeed)
	rec := fileRecordOffset(t, img, "META_DAT.;1")
	px := bytes.Index(img[rec:rec+int(img[rec])], []byte("PX"))
	if px < 0 {
		t.Fatal("no PX entry to replace")
	}
	loop := rockRidgeCE(sectorContinuationArea, 0, 28)
	copy(img[rec+px:], loop)
	copy(img[sectorContinuationArea*sectorSize:], loop)

	_, err := Parse(bytes.NewReader(img), int64(len(img)))
	if !errors.Is(err, ErrInvalidImage) || !strings.Contains(err.Error(), "more than 16 SUSP continuation areas") {
		t.Fatalf("Parse error = %v, want the continuation limit", err)
	}
}

// A Rock Ridge name split over several NM entries, and over a continuation
// area, is put back together.
func TestParseJoinsSplitRockRidgeNames(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, Seed{UserData: "x"})
	rec := fileRecordOffset(t, img, "USER_DAT.;1")
	nm := rec + bytes.Index(img[rec:rec+int(img[rec])], []byte("NM"))
	// The record's NM "user-data" and PX (5+9+36 bytes) become NM "us"
	// (continued) plus a CE whose area holds NM "er-" (continued) and
	// NM "data".
	entries := append([]byte{'N', 'M', 7, 1, nmContinue, 'u', 's'}, rockRidgeCE(sectorContinuationArea, 1024, 17)...)
	copy(img[nm:], entries)
	clear(img[nm+len(entries) : nm+50])
	area := sectorContinuationArea*sectorSize + 1024
	copy(img[area:], []byte{'N', 'M', 8, 1, nmContinue, 'e', 'r', '-', 'N', 'M', 9, 1, 0, 'd', 'a', 't', 'a'})

	p := mustParse(t, img)
	if _, ok := p.Files["user-data"]; !ok {
		t.Fatalf("files = %v, want user-data", p.Files)
	}
}

type failingReader struct{ err error }

func (r failingReader) ReadAt([]byte, int64) (int, error) { return 0, r.err }

func TestParseReportsReadErrors(t *testing.T) {
	t.Parallel()
	cause := errors.New("disk on fire")
	_, err := Parse(failingReader{cause}, 1<<20)
	if !errors.Is(err, cause) || !errors.Is(err, ErrInvalidImage) {
		t.Fatalf("Parse error = %v, want it to wrap the read error and ErrInvalidImage", err)
	}
}

func TestParseReadsReadersThatReturnEOFWithTheLastBytes(t *testing.T) {
	t.Parallel()
	img := mustBuild(t, fullSeed)
	if _, err := Parse(eofReader{bytes.NewReader(img)}, int64(len(img))); err != nil {
		t.Fatal(err)
	}
}

// eofReader returns io.EOF along with a read that reaches the end, which
// io.ReaderAt allows.
type eofReader struct{ r *bytes.Reader }

func (e eofReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := e.r.ReadAt(p, off)
	if err == nil && off+int64(n) == e.r.Size() {
		err = io.EOF
	}
	return n, err
}

// The simulator parses whatever a client uploads: no input may panic.
func FuzzParse(f *testing.F) {
	built, err := Build(Seed{UserData: "#cloud-config\n", Hostname: "h"})
	if err != nil {
		f.Fatal(err)
	}
	// Without its trailing padding (and a volume size to match) a built
	// image stays valid and small enough to mutate.
	unpadded := bytes.Clone(built[:len(built)-trailingPaddingSectors*sectorSize])
	putBoth32(unpadded[sectorPrimaryDescriptor*sectorSize+vdVolumeSpaceSize:], uint32(len(unpadded)/sectorSize))
	f.Add(unpadded)
	f.Add(built[:20*sectorSize])
	f.Add([]byte("CD001"))
	for _, name := range []string{"genisoimage-rock-joliet.iso.gz", "genisoimage-plain.iso.gz"} {
		f.Add(readFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, img []byte) {
		p, err := Parse(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			if !errors.Is(err, ErrInvalidImage) {
				t.Fatalf("error %v does not wrap ErrInvalidImage", err)
			}
			return
		}
		for name, data := range p.Files {
			if name == "" || len(data) > MaxFileSize {
				t.Fatalf("parsed file %q of %d bytes", name, len(data))
			}
		}
	})
}
