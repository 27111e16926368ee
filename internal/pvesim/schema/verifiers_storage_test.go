package schema

import (
	"reflect"
	"testing"
)

// The content format takes "none" (pve-storage src/PVE/Storage/Plugin.pm
// verify_content: the dir plugin's content types hold it), which the
// shared formats table leaves out; every item of a list is checked, in
// both releases.
func TestStorageContentFormatTakesNone(t *testing.T) {
	t.Parallel()
	for _, release := range []string{"9.1", "8.4"} {
		api, ok := ForRelease(release)
		if !ok {
			t.Fatalf("no tables for %s", release)
		}
		create, _, _ := api.Lookup("POST", "/storage")
		status, _, _ := api.Lookup("GET", "/nodes/pve1/storage")
		for _, tc := range []struct {
			m      *Method
			params map[string][]string
			want   map[string]string
		}{
			{create, one("storage", "s1", "type", "dir", "content", "none"), nil},
			{create, one("storage", "s1", "type", "dir", "content", "import,none"), nil},
			{create, one("storage", "s1", "type", "dir", "content", "nothing"),
				map[string]string{"content": "invalid format - invalid content type 'nothing'\n"}},
			{status, one("node", "pve1", "content", "none"), nil},
		} {
			if got := tc.m.Validate(tc.params); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s %v: got %#v, want %#v", release, tc.params, got, tc.want)
			}
		}
	}
}
