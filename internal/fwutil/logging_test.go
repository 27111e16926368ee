package fwutil

import (
	"maps"
	"testing"
)

func TestQuietDiscardedLogs(t *testing.T) {
	t.Parallel()
	off := map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_SDK_FRAMEWORK": "off", "TF_LOG_PROVIDER_PVE": "off"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{name: "no log asked for", env: map[string]string{}, want: off},
		{name: "empty TF_LOG is no log", env: map[string]string{"TF_LOG": ""}, want: merged(map[string]string{"TF_LOG": ""}, off)},
		{name: "TF_LOG keeps the SDK logging", env: map[string]string{"TF_LOG": "trace"}, want: map[string]string{"TF_LOG": "trace"}},
		{name: "TF_LOG_PROVIDER keeps the SDK logging", env: map[string]string{"TF_LOG_PROVIDER": "debug"}, want: map[string]string{"TF_LOG_PROVIDER": "debug"}},
		{
			name: "an explicit SDK level is kept",
			env:  map[string]string{"TF_LOG_SDK_FRAMEWORK": "trace"},
			want: map[string]string{"TF_LOG_SDK": "off", "TF_LOG_SDK_PROTO": "off", "TF_LOG_SDK_FRAMEWORK": "trace", "TF_LOG_PROVIDER_PVE": "off"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := maps.Clone(tc.env)
			lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
			set := func(name, value string) error { env[name] = value; return nil }
			if err := QuietDiscardedLogs(lookup, set); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(env, tc.want) {
				t.Errorf("environment = %v, want %v", env, tc.want)
			}
		})
	}
}

func merged(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
