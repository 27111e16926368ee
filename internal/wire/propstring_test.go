package wire

import (
	"errors"
	"maps"
	"testing"
)

func TestParsePropertyString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         string
		defaultKey string
		want       map[string]string
		wantErr    string
	}{
		{
			name:       "net with model alias kept verbatim",
			in:         "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1,tag=10",
			defaultKey: "model",
			want:       map[string]string{"virtio": "BC:24:11:2A:3B:4C", "bridge": "vmbr0", "firewall": "1", "tag": "10"},
		},
		{
			name:       "bare value goes to the default key",
			in:         "local-lvm:vm-100-disk-0,discard=on,size=32G",
			defaultKey: "file",
			want:       map[string]string{"file": "local-lvm:vm-100-disk-0", "discard": "on", "size": "32G"},
		},
		{
			name:       "default key may come anywhere",
			in:         "size=8G,local-lvm:vm-101-disk-0",
			defaultKey: "volume",
			want:       map[string]string{"volume": "local-lvm:vm-101-disk-0", "size": "8G"},
		},
		{
			name:       "value split on the first equals sign",
			in:         "import-from=local:import/a=b.qcow2",
			defaultKey: "",
			want:       map[string]string{"import-from": "local:import/a=b.qcow2"},
		},
		{
			name:       "blank parts are skipped",
			in:         ",ip=dhcp,, ,\t,ip6=auto,",
			defaultKey: "",
			want:       map[string]string{"ip": "dhcp", "ip6": "auto"},
		},
		{
			name: "empty string is an empty map",
			in:   "",
			want: map[string]string{},
		},
		{
			name:       "whitespace inside a part is kept",
			in:         " a = b ",
			defaultKey: "",
			want:       map[string]string{" a ": " b "},
		},
		{
			name:    "duplicate key",
			in:      "bridge=vmbr0,bridge=vmbr1",
			wantErr: "duplicate key in comma-separated list property: bridge",
		},
		{
			name:       "second bare value is a duplicate default key",
			in:         "local-lvm:32,local-lvm:64",
			defaultKey: "file",
			wantErr:    "duplicate key in comma-separated list property: file",
		},
		{
			name:       "bare value after explicit default key",
			in:         "file=local-lvm:32,local-lvm:64",
			defaultKey: "file",
			wantErr:    "duplicate key in comma-separated list property: file",
		},
		{
			name:       "explicit default key after bare value",
			in:         "local-lvm:32,file=local-lvm:64",
			defaultKey: "file",
			wantErr:    "duplicate key in comma-separated list property: file",
		},
		{
			name:    "bare value without default key",
			in:      "ip=dhcp,oops",
			wantErr: "value without key, but schema does not define a default key",
		},
		{
			name:    "empty value",
			in:      "bridge=",
			wantErr: "missing key in comma-separated list property",
		},
		{
			name:    "empty key",
			in:      "=vmbr0",
			wantErr: "missing key in comma-separated list property",
		},
		{
			name:    "value across a newline",
			in:      "a=b\nc",
			wantErr: "missing key in comma-separated list property",
		},
		{
			name:    "key with a newline",
			in:      "a\nb=c",
			wantErr: "invalid key in comma-separated list property: a\nb",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePropertyString(tt.in, tt.defaultKey)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ParsePropertyString(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParsePropertyString(%q) error = %v", tt.in, err)
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("ParsePropertyString(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatPropertyString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		in         map[string]string
		defaultKey string
		want       string
	}{
		{
			name:       "default key first, rest sorted",
			in:         map[string]string{"size": "32G", "file": "local-lvm:vm-100-disk-0", "discard": "on", "iothread": "1"},
			defaultKey: "file",
			want:       "local-lvm:vm-100-disk-0,discard=on,iothread=1,size=32G",
		},
		{
			name:       "default value holding = is written with its key",
			in:         map[string]string{"file": "a=b", "ro": "1"},
			defaultKey: "file",
			want:       "file=a=b,ro=1",
		},
		{
			name:       "blank default value is written with its key",
			in:         map[string]string{"file": " "},
			defaultKey: "file",
			want:       "file= ",
		},
		{
			name:       "no default key",
			in:         map[string]string{"ip": "10.0.0.5/24", "gw": "10.0.0.1"},
			defaultKey: "",
			want:       "gw=10.0.0.1,ip=10.0.0.5/24",
		},
		{
			name:       "absent default key",
			in:         map[string]string{"nesting": "1"},
			defaultKey: "volume",
			want:       "nesting=1",
		},
		{
			name: "empty map",
			in:   map[string]string{},
			want: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := FormatPropertyString(tt.in, tt.defaultKey); got != tt.want {
				t.Fatalf("FormatPropertyString(%v) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatPropertyStringOrdered(t *testing.T) {
	t.Parallel()
	in := map[string]string{"virtio": "BC:24:11:2A:3B:4C", "bridge": "vmbr0", "firewall": "1", "tag": "10", "mtu": "1500"}
	got := FormatPropertyStringOrdered(in, "", []string{"virtio", "bridge", "absent", "bridge"})
	want := "virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1,mtu=1500,tag=10"
	if got != want {
		t.Fatalf("FormatPropertyStringOrdered = %q, want %q", got, want)
	}
	// The default key is never repeated even when order names it.
	got = FormatPropertyStringOrdered(map[string]string{"cputype": "host", "flags": "+aes"}, "cputype", []string{"cputype", "flags"})
	if got != "host,flags=+aes" {
		t.Fatalf("FormatPropertyStringOrdered = %q", got)
	}
}

func TestEncodePropertyStringRefusesUnrepresentable(t *testing.T) {
	t.Parallel()
	bad := []map[string]string{
		{"mount": "nfs,cifs"},  // a comma would split the value
		{"bridge": ""},         // PVE cannot read an empty value
		{"": "x"},              // nor an empty key
		{"a=b": "c"},           // = in a key moves the split
		{"a,b": "c"},           // , in a key splits the part
		{"note": "line\nnext"}, // PVE does not read across a newline
		{" ": "x"},             // a blank key
	}
	for _, m := range bad {
		if _, err := EncodePropertyString(m, ""); !errors.Is(err, ErrUnrepresentable) {
			t.Errorf("EncodePropertyString(%q) error = %v, want ErrUnrepresentable", m, err)
		}
	}
	got, err := EncodePropertyString(map[string]string{"file": "local:iso/x.iso", "media": "cdrom"}, "file")
	if err != nil || got != "local:iso/x.iso,media=cdrom" {
		t.Fatalf("EncodePropertyString = %q, %v", got, err)
	}
}

func TestCheckPropertyKeys(t *testing.T) {
	t.Parallel()
	m := map[string]string{"nesting": "1", "keyctl": "1", "bogus": "1"}
	err := CheckPropertyKeys(m, "nesting", "keyctl", "fuse")
	if err == nil || err.Error() != "invalid key in comma-separated list property: bogus" {
		t.Fatalf("CheckPropertyKeys error = %v", err)
	}
	if err := CheckPropertyKeys(map[string]string{"nesting": "1"}, "nesting"); err != nil {
		t.Fatalf("CheckPropertyKeys error = %v", err)
	}
}

func TestPropertyStringRoundTrip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m          map[string]string
		defaultKey string
	}{
		{map[string]string{"file": "local-lvm:vm-100-disk-0", "size": "32G"}, "file"},
		{map[string]string{"file": "x=y", "size": "32G"}, "file"},
		{map[string]string{"current": "4096"}, "current"},
		{map[string]string{"a": "=", "b": "=="}, ""},
		{map[string]string{"order": "scsi0;ide2;net0"}, "legacy"},
	}
	for _, tc := range cases {
		got, err := ParsePropertyString(FormatPropertyString(tc.m, tc.defaultKey), tc.defaultKey)
		if err != nil || !maps.Equal(got, tc.m) {
			t.Errorf("round trip of %v = %v, %v", tc.m, got, err)
		}
	}
}

// FuzzParsePropertyString checks that parsing never panics and that whatever
// parses, and is representable, formats back to the same map.
func FuzzParsePropertyString(f *testing.F) {
	f.Add("virtio=BC:24:11:2A:3B:4C,bridge=vmbr0,firewall=1", "model")
	f.Add("local-lvm:vm-100-disk-0,discard=on,size=32G", "file")
	f.Add("file=a=b,,  ,x=y", "file")
	f.Add("=,a=,b", "")
	f.Fuzz(func(t *testing.T, s, defaultKey string) {
		m, err := ParsePropertyString(s, defaultKey)
		if err != nil {
			return
		}
		if ValidatePropertyMap(m) != nil {
			return
		}
		if CheckPropertyKey(defaultKey) != nil && defaultKey != "" {
			return
		}
		out := FormatPropertyString(m, defaultKey)
		again, err := ParsePropertyString(out, defaultKey)
		if err != nil {
			t.Fatalf("reparse of %q (from %q) failed: %v", out, s, err)
		}
		if !maps.Equal(m, again) {
			t.Fatalf("round trip of %q: %v -> %q -> %v", s, m, out, again)
		}
	})
}

// FuzzPropertyMapRoundTrip builds a map from fuzz input and checks that every
// map EncodePropertyString accepts parses back unchanged.
func FuzzPropertyMapRoundTrip(f *testing.F) {
	f.Add("file", "local:iso/x.iso", "media", "cdrom", "file")
	f.Add("a", "b=c", "d", " ", "a")
	f.Add("k", "v,w", "x", "", "")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, defaultKey string) {
		m := map[string]string{k1: v1, k2: v2}
		out, err := EncodePropertyString(m, defaultKey)
		if err != nil {
			if !errors.Is(err, ErrUnrepresentable) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		if defaultKey != "" && CheckPropertyKey(defaultKey) != nil {
			return
		}
		got, err := ParsePropertyString(out, defaultKey)
		if err != nil {
			t.Fatalf("Parse(%q) for %v failed: %v", out, m, err)
		}
		if !maps.Equal(got, m) {
			t.Fatalf("round trip %v -> %q -> %v", m, out, got)
		}
	})
}
