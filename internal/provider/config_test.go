package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func nullModel() providerModel {
	return providerModel{
		Endpoint:       types.StringNull(),
		APIToken:       types.StringNull(),
		Username:       types.StringNull(),
		Password:       types.StringNull(),
		CAFile:         types.StringNull(),
		Insecure:       types.BoolNull(),
		TLSServerName:  types.StringNull(),
		RequestTimeout: types.StringNull(),
		VMIDRange:      types.ObjectNull(vmidRangeAttrTypes),
	}
}

var vmidRangeAttrTypes = map[string]attr.Type{"min": types.Int64Type, "max": types.Int64Type}

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestResolveSettings(t *testing.T) {
	t.Parallel()
	const token = "root@pam!tf=5e3a1c1e-0000-4000-8000-000000000000"

	tests := []struct {
		name    string
		model   func(m *providerModel)
		env     map[string]string
		wantErr string // substring of an error summary+detail; "" means success
		check   func(t *testing.T, s settings)
	}{
		{
			name: "token from configuration",
			model: func(m *providerModel) {
				m.Endpoint = types.StringValue("https://pve.example.com")
				m.APIToken = types.StringValue(token)
			},
			check: func(t *testing.T, s settings) {
				if s.client.APIToken != token || s.client.Endpoint != "https://pve.example.com" {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name: "everything from PVE_ environment",
			env:  map[string]string{"PVE_ENDPOINT": "https://pve:8006", "PVE_API_TOKEN": token, "PVE_INSECURE": "true", "PVE_CA_FILE": "ca.pem"},
			check: func(t *testing.T, s settings) {
				if s.client.Endpoint != "https://pve:8006" || !s.client.Insecure || s.client.CAFile != "ca.pem" {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name: "PROXMOX_VE_ spellings of other providers",
			env:  map[string]string{"PROXMOX_VE_ENDPOINT": "https://pve:8006/", "PROXMOX_VE_USERNAME": "root@pam", "PROXMOX_VE_PASSWORD": "pw", "PROXMOX_VE_INSECURE": "1"},
			check: func(t *testing.T, s settings) {
				if s.client.Username != "root@pam" || s.client.Password != "pw" || !s.client.Insecure {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name: "PVE_ wins over PROXMOX_VE_",
			env:  map[string]string{"PVE_ENDPOINT": "https://a", "PROXMOX_VE_ENDPOINT": "https://b", "PVE_API_TOKEN": token},
			check: func(t *testing.T, s settings) {
				if s.client.Endpoint != "https://a" {
					t.Fatalf("got %s", s.client.Endpoint)
				}
			},
		},
		{
			name: "configuration wins over environment",
			model: func(m *providerModel) {
				m.Endpoint = types.StringValue("https://config")
				m.Insecure = types.BoolValue(false)
			},
			env: map[string]string{"PVE_ENDPOINT": "https://env", "PVE_API_TOKEN": token, "PVE_INSECURE": "true"},
			check: func(t *testing.T, s settings) {
				if s.client.Endpoint != "https://config" || s.client.Insecure {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name:    "both auth methods named in the error",
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_USERNAME": "root@pam", "PVE_PASSWORD": "pw"},
			wantErr: `Both "api_token" and "username"/"password" are set`,
		},
		{
			name: "username and password in configuration beside a token in the environment",
			model: func(m *providerModel) {
				m.Username = types.StringValue("root@pam")
				m.Password = types.StringValue("pw")
			},
			env: map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token},
			check: func(t *testing.T, s settings) {
				if s.client.APIToken != "" || s.client.Username != "root@pam" || s.client.Password != "pw" {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name:  "token in configuration beside a username and password in the environment",
			model: func(m *providerModel) { m.APIToken = types.StringValue(token) },
			env:   map[string]string{"PVE_ENDPOINT": "https://a", "PVE_USERNAME": "root@pam", "PVE_PASSWORD": "pw"},
			check: func(t *testing.T, s settings) {
				if s.client.APIToken != token || s.client.Username != "" || s.client.Password != "" {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name: "password in configuration, username from the environment, token ignored",
			model: func(m *providerModel) {
				m.Password = types.StringValue("pw")
			},
			env: map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_USERNAME": "root@pam"},
			check: func(t *testing.T, s settings) {
				if s.client.APIToken != "" || s.client.Username != "root@pam" || s.client.Password != "pw" {
					t.Fatalf("got %+v", s.client)
				}
			},
		},
		{
			name: "both methods in configuration",
			model: func(m *providerModel) {
				m.APIToken = types.StringValue(token)
				m.Username = types.StringValue("root@pam")
			},
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_PASSWORD": "pw"},
			wantErr: `Both "api_token" and "username"/"password" are set`,
		},
		{
			name:    "no auth at all",
			env:     map[string]string{"PVE_ENDPOINT": "https://a"},
			wantErr: `Set either "api_token"`,
		},
		{
			name:    "password without username",
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_PASSWORD": "pw"},
			wantErr: `"password" is set but "username" is not`,
		},
		{
			name:    "missing endpoint",
			env:     map[string]string{"PVE_API_TOKEN": token},
			wantErr: "Missing PVE Endpoint",
		},
		{
			name:    "endpoint with a foreign path",
			env:     map[string]string{"PVE_ENDPOINT": "https://pve:8006/some/where", "PVE_API_TOKEN": token},
			wantErr: "Invalid PVE Endpoint",
		},
		{
			name:    "bad insecure value",
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_INSECURE": "sometimes"},
			wantErr: "PVE_INSECURE must be true or false",
		},
		{
			name: "vmid range",
			model: func(m *providerModel) {
				m.VMIDRange = types.ObjectValueMust(vmidRangeAttrTypes, map[string]attr.Value{"min": types.Int64Value(5000), "max": types.Int64Value(5999)})
			},
			env: map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token},
			check: func(t *testing.T, s settings) {
				if s.vmidRange == nil || s.vmidRange.Min != 5000 || s.vmidRange.Max != 5999 {
					t.Fatalf("got %+v", s.vmidRange)
				}
			},
		},
		{
			name: "vmid range upside down",
			model: func(m *providerModel) {
				m.VMIDRange = types.ObjectValueMust(vmidRangeAttrTypes, map[string]attr.Value{"min": types.Int64Value(6000), "max": types.Int64Value(5999)})
			},
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token},
			wantErr: "vmid_range.min (6000) is greater than vmid_range.max (5999)",
		},
		{
			name: "request timeout from configuration",
			model: func(m *providerModel) {
				m.RequestTimeout = types.StringValue("90s")
			},
			env: map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_REQUEST_TIMEOUT": "5m"},
			check: func(t *testing.T, s settings) {
				if s.client.RequestTimeout != 90*time.Second {
					t.Fatalf("got %s", s.client.RequestTimeout)
				}
			},
		},
		{
			name: "request timeout from the environment",
			env:  map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_REQUEST_TIMEOUT": "2m"},
			check: func(t *testing.T, s settings) {
				if s.client.RequestTimeout != 2*time.Minute {
					t.Fatalf("got %s", s.client.RequestTimeout)
				}
			},
		},
		{
			name: "request timeout left out keeps the client's default",
			env:  map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token},
			check: func(t *testing.T, s settings) {
				if s.client.RequestTimeout != 0 {
					t.Fatalf("got %s", s.client.RequestTimeout)
				}
			},
		},
		{
			name:    "request timeout that is no duration",
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token, "PVE_REQUEST_TIMEOUT": "60"},
			wantErr: `request_timeout must be a positive duration such as "30s" or "2m", got "60"`,
		},
		{
			name: "request timeout of zero",
			model: func(m *providerModel) {
				m.RequestTimeout = types.StringValue("0s")
			},
			env:     map[string]string{"PVE_ENDPOINT": "https://a", "PVE_API_TOKEN": token},
			wantErr: "Invalid Request Timeout",
		},
		{
			name: "unknown endpoint",
			model: func(m *providerModel) {
				m.Endpoint = types.StringUnknown()
			},
			env:     map[string]string{"PVE_API_TOKEN": token},
			wantErr: "not known until apply",
		},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := nullModel()
			if tt.model != nil {
				tt.model(&m)
			}
			s, diags := resolveSettings(context.Background(), m, envOf(tt.env))
			var all strings.Builder
			for _, d := range diags.Errors() {
				all.WriteString(d.Summary() + ": " + d.Detail() + "\n")
			}
			if tt.wantErr == "" {
				if diags.HasError() {
					t.Fatalf("unexpected errors:\n%s", all.String())
				}
				tt.check(t, s)
				return
			}
			if !strings.Contains(all.String(), tt.wantErr) {
				t.Fatalf("want error containing %q, got:\n%s", tt.wantErr, all.String())
			}
			if strings.Contains(all.String(), "5e3a1c1e") {
				t.Fatalf("error text leaks the token secret:\n%s", all.String())
			}
		})
	}
}
