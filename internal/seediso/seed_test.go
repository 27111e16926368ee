package seediso

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var fullSeed = Seed{
	UserData:      "#cloud-config\npackages: [htop]\n",
	VendorData:    "#cloud-config\ntimezone: UTC\n",
	NetworkConfig: "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n",
	Hostname:      "web-1",
}

func mustBuild(t *testing.T, s Seed) []byte {
	t.Helper()
	img, err := Build(s)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return img
}

func mustParse(t *testing.T, img []byte) *Parsed {
	t.Helper()
	p, err := Parse(bytes.NewReader(img), int64(len(img)))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

// W32: the seed must come out byte for byte the same for the same inputs,
// or every plan would show the seed changing.
func TestBuildIsDeterministicW32(t *testing.T) {
	t.Parallel()
	first := mustBuild(t, fullSeed)
	copied := fullSeed
	second := mustBuild(t, copied)
	if !bytes.Equal(first, second) {
		t.Fatal("two builds of the same seed differ")
	}
	if fullSeed.SHA256() != copied.SHA256() || fullSeed.InstanceID() != copied.InstanceID() {
		t.Fatal("SHA256 or InstanceID differ for the same seed")
	}
}

func TestEveryInputChangesImageAndInstanceIDW32(t *testing.T) {
	t.Parallel()
	base := fullSeed
	baseImage := mustBuild(t, base)
	mutations := map[string]func(*Seed){
		"user-data":      func(s *Seed) { s.UserData += "# changed\n" },
		"meta-data":      func(s *Seed) { s.MetaData = "instance-id: custom\n" },
		"vendor-data":    func(s *Seed) { s.VendorData += "# changed\n" },
		"network-config": func(s *Seed) { s.NetworkConfig += "# changed\n" },
		"hostname":       func(s *Seed) { s.Hostname = "web-2" },
		"drop vendor":    func(s *Seed) { s.VendorData = "" },
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			changed := base
			mutate(&changed)
			if changed.InstanceID() == base.InstanceID() {
				t.Errorf("instance-id did not change")
			}
			if bytes.Equal(mustBuild(t, changed), baseImage) {
				t.Errorf("image did not change")
			}
			if changed.SHA256() == base.SHA256() {
				t.Errorf("SHA256 did not change")
			}
		})
	}
}

func TestInstanceIDFormatAndFieldBoundaries(t *testing.T) {
	t.Parallel()
	id := fullSeed.InstanceID()
	if !regexp.MustCompile(`^iid-[0-9a-f]{16}$`).MatchString(id) {
		t.Fatalf("InstanceID() = %q, want iid- and 16 hex digits", id)
	}
	// The same bytes split differently between fields are a different seed.
	a := Seed{UserData: "ab", VendorData: "c"}
	b := Seed{UserData: "a", VendorData: "bc"}
	if a.InstanceID() == b.InstanceID() {
		t.Fatalf("moving a byte between fields kept instance-id %s", a.InstanceID())
	}
}

// W32: label cidata and the four NoCloud files under their exact names.
func TestBuildRoundTripsThroughParseW32(t *testing.T) {
	t.Parallel()
	p := mustParse(t, mustBuild(t, fullSeed))
	if p.Label != "cidata" {
		t.Errorf("Label = %q, want cidata", p.Label)
	}
	want := map[string]string{
		"user-data":      fullSeed.UserData,
		"meta-data":      "instance-id: " + fullSeed.InstanceID() + "\nlocal-hostname: web-1\n",
		"vendor-data":    fullSeed.VendorData,
		"network-config": fullSeed.NetworkConfig,
	}
	assertFiles(t, p, want)
	if err := p.CheckSeed(); err != nil {
		t.Errorf("CheckSeed: %v", err)
	}
}

func assertFiles(t *testing.T, p *Parsed, want map[string]string) {
	t.Helper()
	got := slices.Sorted(maps.Keys(p.Files))
	if names := slices.Sorted(maps.Keys(want)); !slices.Equal(got, names) {
		t.Fatalf("files = %q, want %q", got, names)
	}
	for name, content := range want {
		if string(p.Files[name]) != content {
			t.Errorf("%s = %q, want %q", name, p.Files[name], content)
		}
	}
}

func TestBuildOmitsEmptyOptionalFiles(t *testing.T) {
	t.Parallel()
	s := Seed{UserData: "#cloud-config\n"}
	p := mustParse(t, mustBuild(t, s))
	assertFiles(t, p, map[string]string{
		"user-data": "#cloud-config\n",
		"meta-data": "instance-id: " + s.InstanceID() + "\n",
	})
}

func TestExplicitMetaDataIsWrittenVerbatim(t *testing.T) {
	t.Parallel()
	s := Seed{UserData: "#cloud-config\n", MetaData: "instance-id: mine\nlocal-hostname: other\n", Hostname: "ignored"}
	p := mustParse(t, mustBuild(t, s))
	if got := string(p.Files["meta-data"]); got != s.MetaData {
		t.Fatalf("meta-data = %q, want %q", got, s.MetaData)
	}
}

func TestBuildRejectsInvalidSeeds(t *testing.T) {
	t.Parallel()
	tooBig := strings.Repeat("x", MaxFileSize+1)
	cases := map[string]struct {
		seed Seed
		want string
	}{
		"no user-data":          {Seed{MetaData: "instance-id: x\n"}, "user-data is empty"},
		"user-data too big":     {Seed{UserData: tooBig}, "user-data is 16777217 bytes"},
		"vendor-data too big":   {Seed{UserData: "x", VendorData: tooBig}, "vendor-data is 16777217 bytes"},
		"hostname with space":   {Seed{UserData: "x", Hostname: "web 1"}, `hostname "web 1"`},
		"hostname yaml":         {Seed{UserData: "x", Hostname: "a: b"}, "not a valid host name"},
		"hostname newline":      {Seed{UserData: "x", Hostname: "a\ninstance-id: b"}, "not a valid host name"},
		"hostname leading dash": {Seed{UserData: "x", Hostname: "-web"}, "not a valid host name"},
		"hostname empty label":  {Seed{UserData: "x", Hostname: "web..lan"}, "not a valid host name"},
		"hostname long label":   {Seed{UserData: "x", Hostname: strings.Repeat("a", 64)}, "not a valid host name"},
		"hostname too long":     {Seed{UserData: "x", Hostname: strings.Repeat("abcdefg.", 32) + "lan"}, "not a valid host name"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Build(tc.seed)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build error = %v, want one containing %q", err, tc.want)
			}
			if tc.seed.SHA256() != "" {
				t.Errorf("SHA256 of an invalid seed = %q, want empty", tc.seed.SHA256())
			}
		})
	}
}

func TestBuildAcceptsValidHostnames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a", "web-1", "Web1.example.lan", strings.Repeat("a", 63) + ".lan"} {
		if _, err := Build(Seed{UserData: "x", Hostname: name}); err != nil {
			t.Errorf("Build with hostname %q: %v", name, err)
		}
	}
}

func TestBuildCarriesLargeUserData(t *testing.T) {
	t.Parallel()
	// A few MiB of user-data (a multi-part archive with scripts, say) is
	// legitimate and spans many sectors.
	var b strings.Builder
	b.WriteString("#cloud-config\nwrite_files:\n")
	for b.Len() < 4<<20 {
		b.WriteString("  - {path: /etc/x, content: '0123456789abcdef0123456789abcdef'}\n")
	}
	s := Seed{UserData: b.String()}
	p := mustParse(t, mustBuild(t, s))
	if !bytes.Equal(p.Files["user-data"], []byte(s.UserData)) {
		t.Fatalf("user-data of %d bytes did not round-trip (got %d bytes)", len(s.UserData), len(p.Files["user-data"]))
	}
}

func TestFileNameIsStablePerVM(t *testing.T) {
	t.Parallel()
	if got := fullSeed.FileName(120); got != "pve-seed-120.iso" {
		t.Errorf("FileName(120) = %q", got)
	}
	// W45: a changed seed is uploaded over the same name.
	changed := fullSeed
	changed.UserData += "# more\n"
	if changed.FileName(120) != fullSeed.FileName(120) {
		t.Error("FileName depends on the content")
	}
	if fullSeed.FileName(121) == fullSeed.FileName(120) {
		t.Error("two VMs share a seed file name")
	}
}

func TestSHA256IsTheDigestOfTheImage(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256(mustBuild(t, fullSeed))
	if got, want := fullSeed.SHA256(), hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("SHA256() = %s, want %s", got, want)
	}
}

func TestCheckSeed(t *testing.T) {
	t.Parallel()
	files := func(names ...string) map[string][]byte {
		m := map[string][]byte{}
		for _, n := range names {
			m[n] = []byte("x")
		}
		return m
	}
	cases := map[string]struct {
		parsed Parsed
		want   string // "" for a valid seed
	}{
		"lower-case label":  {Parsed{Label: "cidata", Files: files("user-data", "meta-data")}, ""},
		"upper-case label":  {Parsed{Label: "CIDATA", Files: files("user-data", "meta-data", "vendor-data")}, ""},
		"mixed-case label":  {Parsed{Label: "CiData", Files: files("user-data", "meta-data")}, `volume label is "CiData"`},
		"other label":       {Parsed{Label: "config-2", Files: files("user-data", "meta-data")}, `not "cidata"`},
		"no meta-data":      {Parsed{Label: "cidata", Files: files("user-data")}, "no meta-data at the root of the image (found: user-data)"},
		"8.3 names":         {Parsed{Label: "cidata", Files: files("user_dat", "meta_dat")}, "no user-data or meta-data"},
		"empty image":       {Parsed{Label: "cidata", Files: files()}, "(found: nothing)"},
		"files in any case": {Parsed{Label: "cidata", Files: files("USER-DATA", "META-DATA")}, "no user-data or meta-data"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := tc.parsed.CheckSeed()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("CheckSeed: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("CheckSeed error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
