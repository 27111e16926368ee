package pvegrammar

import (
	"reflect"
	"testing"
)

// pve-storage src/PVE/Storage/Plugin.pm validate_prune_backups, and
// print_property_string's sorted keys.
func TestValidatePruneBackups(t *testing.T) {
	cases := []struct {
		in      map[string]string
		want    map[string]string
		printed string
		msg     string
	}{
		{in: map[string]string{}, want: map[string]string{"keep-all": "1"}, printed: "keep-all=1"},
		{in: map[string]string{"keep-all": "0"}, want: map[string]string{"keep-all": "1"}, printed: "keep-all=1"},
		{in: map[string]string{"keep-all": "1", "keep-last": "0"}, want: map[string]string{"keep-all": "1"}, printed: "keep-all=1"},
		{in: map[string]string{"keep-daily": "00"}, want: map[string]string{"keep-all": "1"}, printed: "keep-all=1"},
		{in: map[string]string{"keep-all": "0", "keep-last": "3"}, want: map[string]string{"keep-last": "3"}, printed: "keep-last=3"},
		{
			in:      map[string]string{"keep-weekly": "4", "keep-last": "0", "keep-daily": "+7"},
			want:    map[string]string{"keep-weekly": "4", "keep-last": "0", "keep-daily": "+7"},
			printed: "keep-daily=+7,keep-last=0,keep-weekly=4",
		},
		{in: map[string]string{"keep-all": "1", "keep-hourly": "1"}, msg: "keep-all cannot be set together with other options.\n"},
		{in: map[string]string{"keep-all": "1", "keep-yearly": "1", "keep-last": "0"}, msg: "keep-all cannot be set together with other options.\n"},
	}
	for _, c := range cases {
		before := maps(c.in)
		got, msg := ValidatePruneBackups(c.in)
		if msg != c.msg || (c.msg == "" && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("ValidatePruneBackups(%v) = %v, %q; want %v, %q", c.in, got, msg, c.want, c.msg)
		}
		if !reflect.DeepEqual(before, c.in) {
			t.Errorf("ValidatePruneBackups changed its input %v", c.in)
		}
		printed, msg := PrintPruneBackups(c.in)
		if msg != c.msg || printed != c.printed {
			t.Errorf("PrintPruneBackups(%v) = %q, %q; want %q", c.in, printed, msg, c.printed)
		}
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
