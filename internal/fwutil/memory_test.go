package fwutil

import "testing"

func TestTuneGCDefaultsUnlessTheEnvironmentChose(t *testing.T) {
	t.Parallel()
	const unset = -1
	for _, tc := range []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		{name: "nothing chosen", env: map[string]string{}, wantPercent: DefaultGCPercent, wantLimit: DefaultMemoryLimit},
		{name: "empty values", env: map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, wantPercent: DefaultGCPercent, wantLimit: DefaultMemoryLimit},
		{name: "GOGC chosen", env: map[string]string{"GOGC": "50"}, wantPercent: unset, wantLimit: DefaultMemoryLimit},
		{name: "GOMEMLIMIT chosen", env: map[string]string{"GOMEMLIMIT": "1GiB"}, wantPercent: DefaultGCPercent, wantLimit: unset},
		{name: "both chosen", env: map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, wantPercent: unset, wantLimit: unset},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			percent, limit := unset, int64(unset)
			lookup := func(name string) (string, bool) { v, ok := tc.env[name]; return v, ok }
			tuneGC(lookup,
				func(p int) int { percent = p; return 100 },
				func(l int64) int64 { limit = l; return 0 })
			if percent != tc.wantPercent || limit != tc.wantLimit {
				t.Errorf("set GC percent %d and memory limit %d, want %d and %d (-1: left alone)", percent, limit, tc.wantPercent, tc.wantLimit)
			}
		})
	}
}
