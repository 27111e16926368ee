package wire

import (
	"math"
	"strconv"
	"testing"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "32G", want: 32 * GiB},
		{in: "754M", want: 754 * MiB},
		{in: "1T", want: TiB},
		{in: "4K", want: 4 * KiB},
		{in: "4194304", want: 4 * MiB},
		{in: "0", want: 0},
		{in: "0T", want: 0},
		{in: "1.5G", want: 1536 * MiB},
		{in: "0.3K", want: 307}, // truncated to whole bytes, like PVE's int()
		// parse_size multiplies a fraction as a Perl double: past a double's
		// precision the digits round before the unit applies.
		{in: "0.99999999999999999999K", want: KiB},
		{in: "1.1G", want: 1181116006},
		{in: "32GiB", want: 32 * GiB},
		{in: "8MiB", want: 8 * MiB},
		{in: "1TiB", want: TiB},
		{in: "032G", want: 32 * GiB},
		{in: "8388607T", want: 8388607 * TiB},
		{in: "8388608T", wantErr: true}, // past int64
		{in: "", wantErr: true},
		{in: "G", wantErr: true},
		{in: "32g", wantErr: true},
		{in: "32 G", wantErr: true},
		{in: "32GB", wantErr: true},
		{in: "32Gi", wantErr: true},
		{in: "-1G", wantErr: true},
		{in: "1.G", wantErr: true},
		{in: ".5G", wantErr: true},
		{in: "1e3", wantErr: true},
		{in: "32P", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	_, err := ParseSize("32 G")
	if err == nil || err.Error() != "value does not look like a valid disk size: 32 G" {
		t.Errorf("ParseSize error text = %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   int64
		want string
	}{
		{32 * GiB, "32G"},
		{512 * MiB, "512M"},
		{TiB, "1T"},
		{1536 * GiB, "1536G"},
		{1536 * KiB, "1536K"},
		{1536 * MiB, "1536M"},
		{4 * MiB, "4M"},
		{1000, "1000"},
		{1, "1"},
		{0, "0T"}, // PVE's format_size gives the same
		{-2048, "-2K"},
		{-1500, "-1500"},
		{math.MaxInt64, strconv.FormatInt(math.MaxInt64, 10)},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// W43: memory is MiB on the wire, a plain number or the property-string form.
func TestParseMemoryMiBW43(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "4096", want: 4096},
		{in: "current=4096", want: 4096},
		{in: "4096,future-key=1", want: 4096},
		{in: "512", want: 512},
		{in: "", wantErr: true},
		{in: "4G", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "+4096", want: 4096}, // is_integer allows a sign; PVE stores it as sent
		{in: "current=+2048", want: 2048},
		{in: "+", wantErr: true},
		{in: "4096.0", wantErr: true},
		{in: "current=4096,8192", wantErr: true},
		{in: "future-key=1", wantErr: true},
		{in: "99999999999999999999", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseMemoryMiB(tt.in)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseMemoryMiB(%q) = %d, want error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMemoryMiB(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	if got, err := ParseMemoryMiB(FormatMemoryMiB(2048)); err != nil || got != 2048 {
		t.Errorf("memory round trip = %d, %v", got, err)
	}
}

// FuzzParseSize checks that parsing never panics, that sizes are never
// negative, and that FormatSize output parses back to the same bytes.
func FuzzParseSize(f *testing.F) {
	f.Add("32G")
	f.Add("1.5G")
	f.Add("0.3K")
	f.Add("8388608T")
	f.Add("1TiB")
	f.Fuzz(func(t *testing.T, s string) {
		bytes, err := ParseSize(s)
		if err != nil {
			return
		}
		if bytes < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, bytes)
		}
		formatted := FormatSize(bytes)
		again, err := ParseSize(formatted)
		if err != nil || again != bytes {
			t.Fatalf("ParseSize(FormatSize(%d)) = %q -> %d, %v", bytes, formatted, again, err)
		}
	})
}

// FuzzParseMemoryMiBW43 checks that memory values never parse negative and
// that a parsed value printed as PVE reports it reads back the same (W43).
func FuzzParseMemoryMiBW43(f *testing.F) {
	for _, s := range []string{"4096", "current=4096", "4096,hotplug=1", "current=-1", "", "current=", "9223372036854775808", "4096,current=2048"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		mib, err := ParseMemoryMiB(s)
		if err != nil {
			return
		}
		if mib < 0 {
			t.Fatalf("ParseMemoryMiB(%q) = %d", s, mib)
		}
		again, err := ParseMemoryMiB(FormatMemoryMiB(mib))
		if err != nil || again != mib {
			t.Fatalf("ParseMemoryMiB(FormatMemoryMiB(%d)) = %d, %v", mib, again, err)
		}
	})
}
