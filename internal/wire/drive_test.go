package wire

import (
	"errors"
	"maps"
	"strings"
	"testing"
)

// Realistic values as PVE reports them and as the provider writes them
// (W21, W25, W27).
func TestParseDrive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		want       Drive
		createForm bool
		volumeID   string
		cloudInit  bool
		cdrom      bool
	}{
		{
			name: "live data disk (W21)",
			in:   "local-lvm:vm-100-disk-0,discard=on,iothread=1,size=32G",
			want: Drive{Storage: "local-lvm", Volume: "vm-100-disk-0",
				Options: map[string]string{"discard": "on", "iothread": "1", "size": "32G"}},
			volumeID: "local-lvm:vm-100-disk-0",
		},
		{
			name: "ISO on a cdrom",
			in:   "local:iso/debian-13-netinst.iso,media=cdrom,size=754M",
			want: Drive{Storage: "local", Volume: "iso/debian-13-netinst.iso",
				Options: map[string]string{"media": "cdrom", "size": "754M"}},
			volumeID: "local:iso/debian-13-netinst.iso",
			cdrom:    true,
		},
		{
			name: "import-from create form (W25)",
			in:   "local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2",
			want: Drive{Storage: "local-lvm", SizeGiB: 0,
				Options: map[string]string{"import-from": "local:import/debian-13-genericcloud-amd64.qcow2"}},
			createForm: true,
		},
		{
			name: "live cloud-init volume (W27)",
			in:   "local-lvm:vm-100-cloudinit,media=cdrom",
			want: Drive{Storage: "local-lvm", Volume: "vm-100-cloudinit",
				Options: map[string]string{"media": "cdrom"}},
			volumeID:  "local-lvm:vm-100-cloudinit",
			cloudInit: true,
			cdrom:     true,
		},
		{
			name:       "cloud-init allocation (W27)",
			in:         "local-lvm:cloudinit",
			want:       Drive{Storage: "local-lvm", Volume: "cloudinit", Options: map[string]string{}},
			createForm: true,
			cloudInit:  true,
		},
		{
			name:  "empty cdrom",
			in:    "none,media=cdrom",
			want:  Drive{File: "none", Options: map[string]string{"media": "cdrom"}},
			cdrom: true,
		},
		{
			name:  "empty cdrom without media, as PVE completes it",
			in:    "none",
			want:  Drive{File: "none", Options: map[string]string{}},
			cdrom: true,
		},
		{
			name:  "physical cdrom",
			in:    "cdrom,media=cdrom",
			want:  Drive{File: "cdrom", Options: map[string]string{"media": "cdrom"}},
			cdrom: true,
		},
		{
			name: "file-based storage with directory and format",
			in:   "shared-nfs:100/vm-100-disk-1.qcow2,size=8G",
			want: Drive{Storage: "shared-nfs", Volume: "100/vm-100-disk-1.qcow2",
				Options: map[string]string{"size": "8G"}},
			volumeID: "shared-nfs:100/vm-100-disk-1.qcow2",
		},
		{
			name: "file-based cloud-init volume (W27)",
			in:   "local:100/vm-100-cloudinit.qcow2,media=cdrom",
			want: Drive{Storage: "local", Volume: "100/vm-100-cloudinit.qcow2",
				Options: map[string]string{"media": "cdrom"}},
			volumeID:  "local:100/vm-100-cloudinit.qcow2",
			cloudInit: true,
			cdrom:     true,
		},
		{
			name: "create form with options (W21)",
			in:   "local-lvm:32,iothread=1,discard=on,ssd=1",
			want: Drive{Storage: "local-lvm", SizeGiB: 32,
				Options: map[string]string{"iothread": "1", "discard": "on", "ssd": "1"}},
			createForm: true,
		},
		{
			name:       "decimal create form",
			in:         "local-lvm:0.5",
			want:       Drive{Storage: "local-lvm", SizeGiB: 0.5, Options: map[string]string{}},
			createForm: true,
		},
		{
			name: "efidisk create form",
			in:   "local-lvm:1,efitype=4m,pre-enrolled-keys=1",
			want: Drive{Storage: "local-lvm", SizeGiB: 1,
				Options: map[string]string{"efitype": "4m", "pre-enrolled-keys": "1"}},
			createForm: true,
		},
		{
			name: "LXC rootfs live form with volume= key",
			in:   "volume=local-lvm:vm-101-disk-0,size=8G",
			want: Drive{Storage: "local-lvm", Volume: "vm-101-disk-0",
				Options: map[string]string{"size": "8G"}},
			volumeID: "local-lvm:vm-101-disk-0",
		},
		{
			name: "LXC mount point create form",
			in:   "local-lvm:16,mp=/srv/data,backup=1",
			want: Drive{Storage: "local-lvm", SizeGiB: 16,
				Options: map[string]string{"mp": "/srv/data", "backup": "1"}},
			createForm: true,
		},
		{
			name: "LXC bind mount",
			in:   "/mnt/host,mp=/mnt/guest",
			want: Drive{File: "/mnt/host", Options: map[string]string{"mp": "/mnt/guest"}},
		},
		{
			name: "host device passthrough",
			in:   "file=/dev/disk/by-id/ata-X,backup=0",
			want: Drive{File: "/dev/disk/by-id/ata-X", Options: map[string]string{"backup": "0"}},
		},
		{
			name: "base image of a template",
			in:   "local-lvm:base-9000-disk-0,size=3G",
			want: Drive{Storage: "local-lvm", Volume: "base-9000-disk-0",
				Options: map[string]string{"size": "3G"}},
			volumeID: "local-lvm:base-9000-disk-0",
		},
		{
			name: "linked clone volume",
			in:   "local-lvm:base-9000-disk-0/vm-100-disk-0,size=3G",
			want: Drive{Storage: "local-lvm", Volume: "base-9000-disk-0/vm-100-disk-0",
				Options: map[string]string{"size": "3G"}},
			volumeID: "local-lvm:base-9000-disk-0/vm-100-disk-0",
		},
		{
			name: "media=disk is not a cdrom",
			in:   "none,media=disk",
			want: Drive{File: "none", Options: map[string]string{"media": "disk"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseDrive(tt.in)
			if err != nil {
				t.Fatalf("ParseDrive(%q): %v", tt.in, err)
			}
			if !sameDrive(got, tt.want) {
				t.Fatalf("ParseDrive(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if got.IsCreateForm() != tt.createForm {
				t.Errorf("IsCreateForm = %v, want %v", got.IsCreateForm(), tt.createForm)
			}
			if got.VolumeID() != tt.volumeID {
				t.Errorf("VolumeID = %q, want %q", got.VolumeID(), tt.volumeID)
			}
			if got.IsCloudInit() != tt.cloudInit {
				t.Errorf("IsCloudInit = %v, want %v", got.IsCloudInit(), tt.cloudInit)
			}
			if IsCDROM(got) != tt.cdrom {
				t.Errorf("IsCDROM = %v, want %v", IsCDROM(got), tt.cdrom)
			}
		})
	}
}

func TestParseDriveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		wantErr string
	}{
		{"media=cdrom", "file: property is missing and it is not optional"},
		{"", "file: property is missing and it is not optional"},
		{"local-lvm", "unable to parse volume ID 'local-lvm'"},
		{"32", "unable to parse volume ID '32'"},
		{"local-lvm:", "unable to parse volume ID 'local-lvm:'"},
		{":vm-100-disk-0", "unable to parse volume ID ':vm-100-disk-0'"},
		{"l:vm-100-disk-0", "unable to parse volume ID 'l:vm-100-disk-0'"},
		{"1local:32", "unable to parse volume ID '1local:32'"},
		{"local-:32", "unable to parse volume ID 'local-:32'"},
		{"local-lvm:32,local-lvm:64", "duplicate key in comma-separated list property: file"},
		{"file=local-lvm:32,volume=local-lvm:64", "duplicate key in comma-separated list property: file"},
		{"local-lvm:32,size=", "missing key in comma-separated list property"},
	}
	for _, tt := range tests {
		_, err := ParseDrive(tt.in)
		if err == nil || err.Error() != tt.wantErr {
			t.Errorf("ParseDrive(%q) error = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

// W21: the create form is written only into an empty slot; option changes on
// a live disk use the live form with the same volume id.
func TestCreateFormAndLiveFormW21(t *testing.T) {
	t.Parallel()
	create := Drive{Storage: "local-lvm", SizeGiB: 32, Options: map[string]string{"iothread": "1", "discard": "on"}}
	got, err := create.CreateForm()
	if err != nil || got != "local-lvm:32,discard=on,iothread=1" {
		t.Fatalf("CreateForm = %q, %v", got, err)
	}
	if _, err := create.LiveForm(); err == nil {
		t.Fatal("LiveForm of a create form must be refused: it would allocate")
	}

	live := Drive{Storage: "local-lvm", Volume: "vm-100-disk-0", Options: map[string]string{"size": "32G", "discard": "on"}}
	got, err = live.LiveForm()
	if err != nil || got != "local-lvm:vm-100-disk-0,discard=on,size=32G" {
		t.Fatalf("LiveForm = %q, %v", got, err)
	}
	_, err = live.CreateForm()
	if err == nil || !strings.Contains(err.Error(), "local-lvm:vm-100-disk-0") {
		t.Fatalf("CreateForm of a live drive must be refused naming its volume, got %v", err)
	}

	empty := Drive{File: "none", Options: map[string]string{"media": "cdrom"}}
	if got, err := empty.LiveForm(); err != nil || got != "none,media=cdrom" {
		t.Fatalf("LiveForm(none) = %q, %v", got, err)
	}
	if _, err := empty.CreateForm(); err == nil {
		t.Fatal("CreateForm of a non-storage file must be refused")
	}
	if _, err := (Drive{}).LiveForm(); err == nil {
		t.Fatal("LiveForm of an empty drive must be refused")
	}
	if _, err := (Drive{}).CreateForm(); err == nil {
		t.Fatal("CreateForm of an empty drive must be refused")
	}
}

// W27: the cloud-init allocation allocates, so it is a create form, and a
// live cloud-init volume must never be re-sent as the allocation.
func TestCloudInitFormsW27(t *testing.T) {
	t.Parallel()
	alloc := Drive{Storage: "local-lvm", Volume: "cloudinit"}
	if got, err := alloc.CreateForm(); err != nil || got != "local-lvm:cloudinit" {
		t.Fatalf("CreateForm = %q, %v", got, err)
	}
	if _, err := alloc.LiveForm(); err == nil {
		t.Fatal("LiveForm of the cloud-init allocation must be refused")
	}
	live := Drive{Storage: "local-lvm", Volume: "vm-100-cloudinit", Options: map[string]string{"media": "cdrom"}}
	if _, err := live.CreateForm(); err == nil {
		t.Fatal("CreateForm over a live cloud-init volume must be refused")
	}
}

// W25: import-from only with a size-0 create form, with PVE's text.
func TestCheckImportFromW25(t *testing.T) {
	t.Parallel()
	src := map[string]string{"import-from": "local:import/debian-13-genericcloud-amd64.qcow2"}
	ok := Drive{Storage: "local-lvm", SizeGiB: 0, Options: src}
	got, err := ok.CreateForm()
	if err != nil || got != "local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2" {
		t.Fatalf("CreateForm = %q, %v", got, err)
	}
	bad := []Drive{
		{Storage: "local-lvm", SizeGiB: 32, Options: src},
		{Storage: "local-lvm", Volume: "cloudinit", Options: src},
		{Storage: "local-lvm", Volume: "vm-100-disk-0", Options: src},
		{File: "none", Options: src},
	}
	for _, d := range bad {
		if err := d.CheckImportFrom(); !errors.Is(err, ErrImportFromSyntax) {
			t.Errorf("CheckImportFrom(%+v) = %v", d, err)
		}
		_, errCreate := d.CreateForm()
		_, errLive := d.LiveForm()
		if errCreate == nil || errLive == nil {
			t.Errorf("drive %+v printed despite import-from misuse: %v / %v", d, errCreate, errLive)
		}
	}
	if ErrImportFromSyntax.Error() != "'import-from' requires special syntax - use <storage ID>:0,import-from=<source>" {
		t.Fatalf("PVE text changed: %q", ErrImportFromSyntax)
	}
}

func TestDriveFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		d    Drive
		live bool
		want string
	}{
		{"decimal size", Drive{Storage: "s1", SizeGiB: 0.5}, false, "s1:0.5"},
		{"whole size has no decimals", Drive{Storage: "s1", SizeGiB: 8}, false, "s1:8"},
		{"path", Drive{File: "/dev/sdb"}, true, "/dev/sdb"},
		{"volume holding = uses volume=", Drive{Storage: "local", Volume: "iso/a=b.iso", Options: map[string]string{"media": "cdrom"}}, true,
			"volume=local:iso/a=b.iso,media=cdrom"},
	}
	for _, tt := range tests {
		var got string
		var err error
		if tt.live {
			got, err = tt.d.LiveForm()
		} else {
			got, err = tt.d.CreateForm()
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v, want %q", tt.name, got, err, tt.want)
			continue
		}
		back, err := ParseDrive(got)
		if err != nil || !sameDrive(back, tt.d) {
			t.Errorf("%s: ParseDrive(%q) = %+v, %v", tt.name, got, back, err)
		}
	}
}

func TestDriveFormattingRefusesBadInput(t *testing.T) {
	t.Parallel()
	bad := []Drive{
		{Storage: "local-lvm", Volume: "vm-100-disk-0", Options: map[string]string{"serial": "a,b"}},
		{Storage: "local-lvm", Volume: "vm-100-disk-0", Options: map[string]string{"file": "x"}},
		{Storage: "local-lvm", Volume: "vm-100-disk-0", Options: map[string]string{"volume": "x"}},
		{Storage: "bad storage", Volume: "vm-100-disk-0"},
		{Storage: "local", File: "none"},
		{Storage: "local-lvm", Volume: "a,b"},
	}
	for _, d := range bad {
		if got, err := d.LiveForm(); err == nil {
			t.Errorf("LiveForm(%+v) = %q, want error", d, got)
		}
	}
	if got, err := (Drive{Storage: "local-lvm", SizeGiB: -1}).CreateForm(); err == nil {
		t.Errorf("negative size printed as %q", got)
	}
}

func TestIsCloudInitVolumeW27(t *testing.T) {
	t.Parallel()
	yes := []string{"vm-100-cloudinit", "base-9000-cloudinit", "cloudinit", "100/vm-100-cloudinit.qcow2",
		"vm-100-cloudinit.raw", "9000/base-9000-cloudinit.qcow2"}
	no := []string{"vm-100-disk-0", "vm-100-cloudinit-1", "iso/cloudinit.iso", "vm-x-cloudinit", "vm-100-cloudinit.img",
		"mycloudinit", ""}
	for _, v := range yes {
		if !IsCloudInitVolume(v) {
			t.Errorf("IsCloudInitVolume(%q) = false", v)
		}
	}
	for _, v := range no {
		if IsCloudInitVolume(v) {
			t.Errorf("IsCloudInitVolume(%q) = true", v)
		}
	}
}

func sameDrive(a, b Drive) bool {
	return a.Storage == b.Storage && a.Volume == b.Volume && a.File == b.File && a.SizeGiB == b.SizeGiB &&
		maps.Equal(a.Options, b.Options)
}

// FuzzParseDrive checks W21's guard on arbitrary input: a parsed drive prints
// in exactly one of the two forms, and that form parses back to the same
// drive.
func FuzzParseDrive(f *testing.F) {
	for _, seed := range []string{
		"local-lvm:vm-100-disk-0,discard=on,iothread=1,size=32G",
		"local:iso/debian-13-netinst.iso,media=cdrom,size=754M",
		"local-lvm:0,import-from=local:import/debian-13-genericcloud-amd64.qcow2",
		"local-lvm:vm-100-cloudinit,media=cdrom",
		"none,media=cdrom",
		"shared-nfs:100/vm-100-disk-1.qcow2,size=8G",
		"local-lvm:cloudinit",
		"volume=local:iso/a=b.iso",
		"local-lvm:0.5",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDrive(s)
		if err != nil {
			return
		}
		createForm, createErr := d.CreateForm()
		liveForm, liveErr := d.LiveForm()
		if createErr == nil && liveErr == nil {
			t.Fatalf("drive %q prints in both forms: %q and %q", s, createForm, liveForm)
		}
		if d.IsCreateForm() && liveErr == nil {
			t.Fatalf("create form %q has a live form %q", s, liveForm)
		}
		if d.VolumeID() != "" && createErr == nil {
			t.Fatalf("live drive %q has a create form %q", s, createForm)
		}
		out, outErr := liveForm, liveErr
		if d.IsCreateForm() {
			out, outErr = createForm, createErr
		}
		if outErr != nil {
			// Only unrepresentable options or import-from misuse may refuse.
			if !errors.Is(outErr, ErrUnrepresentable) && !errors.Is(outErr, ErrImportFromSyntax) {
				t.Fatalf("drive %q (%+v) does not print: %v", s, d, outErr)
			}
			return
		}
		back, err := ParseDrive(out)
		if err != nil || !sameDrive(back, d) {
			t.Fatalf("round trip %q -> %q -> %+v, %v (want %+v)", s, out, back, err, d)
		}
	})
}
