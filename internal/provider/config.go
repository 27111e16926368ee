package provider

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

var osGetenv = os.Getenv

// envNames lists, per setting, the environment variables read when the
// configuration leaves it out: our own name first, then the spelling users
// of other Proxmox providers already have set.
var envNames = map[string][]string{
	"endpoint":  {"PVE_ENDPOINT", "PROXMOX_VE_ENDPOINT"},
	"api_token": {"PVE_API_TOKEN", "PROXMOX_VE_API_TOKEN"},
	"username":  {"PVE_USERNAME", "PROXMOX_VE_USERNAME"},
	"password":  {"PVE_PASSWORD", "PROXMOX_VE_PASSWORD"},
	"ca_file":   {"PVE_CA_FILE", "PROXMOX_VE_CA_FILE"},
	"insecure":  {"PVE_INSECURE", "PROXMOX_VE_INSECURE"},

	"request_timeout": {"PVE_REQUEST_TIMEOUT"},
}

func providerSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The pve provider manages Proxmox VE clusters through the PVE API only (no SSH). " +
			"Authenticate with an API token (preferred) or with a username and password.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				MarkdownDescription: "PVE API address, `https://host[:port]` (port 8006 when omitted), with or without a trailing `/api2/json`. " +
					"Environment: `PVE_ENDPOINT` or `PROXMOX_VE_ENDPOINT`.",
				Optional: true,
			},
			"api_token": schema.StringAttribute{
				MarkdownDescription: "API token as `USER@REALM!TOKENID=SECRET`. Conflicts with `username`/`password`. " +
					"Environment: `PVE_API_TOKEN` or `PROXMOX_VE_API_TOKEN`, ignored when the provider block sets `username` or `password` " +
					"(and `PVE_USERNAME`/`PVE_PASSWORD` are ignored when it sets `api_token`), so an aliased block can log in as another identity.",
				Optional:  true,
				Sensitive: true,
			},
			"username": schema.StringAttribute{
				MarkdownDescription: "User as `USER@REALM` for ticket authentication, used with `password`. The ticket is renewed before it expires, so long applies keep working. " +
					"Environment: `PVE_USERNAME` or `PROXMOX_VE_USERNAME`.",
				Optional: true,
			},
			"password": schema.StringAttribute{
				MarkdownDescription: "Password for `username`. Environment: `PVE_PASSWORD` or `PROXMOX_VE_PASSWORD`.",
				Optional:            true,
				Sensitive:           true,
			},
			"ca_file": schema.StringAttribute{
				MarkdownDescription: "Path to a PEM file with the certificate authority that signed the PVE node's certificate. " +
					"Environment: `PVE_CA_FILE` or `PROXMOX_VE_CA_FILE`.",
				Optional: true,
			},
			"insecure": schema.BoolAttribute{
				MarkdownDescription: "Skip TLS certificate verification. Only for test clusters with self-signed certificates; prefer `ca_file`. " +
					"Environment: `PVE_INSECURE` or `PROXMOX_VE_INSECURE`.",
				Optional: true,
			},
			"tls_server_name": schema.StringAttribute{
				MarkdownDescription: "Server name to verify the node's certificate against, when it differs from the endpoint's host.",
				Optional:            true,
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "How long one API request may take, from sending it to the last byte of PVE's answer, as a duration such as `30s` or `2m`. " +
					"Defaults to `" + pveapi.DefaultRequestTimeout.String() + "`, twice what PVE's own proxy waits for a node. A read that runs out of time is sent again with backoff, " +
					"so a PVE that stops answering fails a plan with an error naming the request instead of hanging; a change is never sent twice, " +
					"and an answer to it that does not come in time is treated as lost (the provider looks at what PVE did). An upload's time counts from when the file is sent. " +
					"Environment: `PVE_REQUEST_TIMEOUT`.",
				Optional: true,
			},
			"vmid_range": schema.SingleNestedAttribute{
				MarkdownDescription: "Where the provider allocates VMIDs for guests that do not set one. Without it, PVE's next free id is used.",
				Optional:            true,
				Attributes: map[string]schema.Attribute{
					"min": schema.Int64Attribute{
						MarkdownDescription: "Lowest VMID to allocate (at least 100).",
						Required:            true,
						Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
					},
					"max": schema.Int64Attribute{
						MarkdownDescription: "Highest VMID to allocate (at most 999999999).",
						Required:            true,
						Validators:          []validator.Int64{int64validator.Between(wire.MinVMID, wire.MaxVMID)},
					},
				},
			},
		},
	}
}

type settings struct {
	client    pveapi.Config
	vmidRange *fwutil.VMIDRange
}

// resolveSettings merges configuration and environment into the client's
// configuration. Configuration wins over the environment; every problem is
// reported against the attribute it concerns.
func resolveSettings(ctx context.Context, m providerModel, getenv func(string) string) (settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	var s settings

	str := func(attr string, v types.String) string {
		if v.IsUnknown() {
			diags.AddAttributeError(path.Root(attr), "Unknown Provider Setting",
				fmt.Sprintf("%q depends on a value that is not known until apply. The provider must be configured with known values; set it directly or through the environment.", attr))
			return ""
		}
		if !v.IsNull() {
			return v.ValueString()
		}
		for _, name := range envNames[attr] {
			if val := getenv(name); val != "" {
				return val
			}
		}
		return ""
	}

	s.client.Endpoint = str("endpoint", m.Endpoint)
	// An authentication method set in the configuration wins over the
	// environment's other one: a provider block with username and password
	// (an alias for what only root@pam may do) works beside a PVE_API_TOKEN
	// meant for the default block, and the other way round.
	cfgToken := !m.APIToken.IsNull()
	cfgPassword := !m.Username.IsNull() || !m.Password.IsNull()
	if !cfgPassword || cfgToken {
		s.client.APIToken = str("api_token", m.APIToken)
	}
	if !cfgToken || cfgPassword {
		s.client.Username = str("username", m.Username)
		s.client.Password = str("password", m.Password)
	}
	s.client.CAFile = str("ca_file", m.CAFile)
	s.client.TLSServerName = str("tls_server_name", m.TLSServerName)
	if raw := str("request_timeout", m.RequestTimeout); raw != "" {
		timeout, err := time.ParseDuration(strings.TrimSpace(raw))
		if err != nil || timeout <= 0 {
			diags.AddAttributeError(path.Root("request_timeout"), "Invalid Request Timeout",
				fmt.Sprintf("request_timeout must be a positive duration such as \"30s\" or \"2m\", got %q.", raw))
		}
		s.client.RequestTimeout = timeout
	}

	switch {
	case m.Insecure.IsUnknown():
		diags.AddAttributeError(path.Root("insecure"), "Unknown Provider Setting", `"insecure" must be known when the provider is configured.`)
	case !m.Insecure.IsNull():
		s.client.Insecure = m.Insecure.ValueBool()
	default:
		for _, name := range envNames["insecure"] {
			raw := getenv(name)
			if raw == "" {
				continue
			}
			b, err := strconv.ParseBool(strings.TrimSpace(raw))
			if err != nil {
				diags.AddAttributeError(path.Root("insecure"), "Invalid Provider Setting",
					fmt.Sprintf("Environment variable %s must be true or false, got %q.", name, raw))
			}
			s.client.Insecure = b
			break
		}
	}
	if diags.HasError() {
		return s, diags
	}

	if s.client.Endpoint == "" {
		diags.AddAttributeError(path.Root("endpoint"), "Missing PVE Endpoint",
			"Set \"endpoint\" in the provider block or the PVE_ENDPOINT environment variable, e.g. https://pve.example.com:8006.")
	} else if _, err := pveapi.ParseEndpoint(s.client.Endpoint); err != nil {
		diags.AddAttributeError(path.Root("endpoint"), "Invalid PVE Endpoint", err.Error())
	}

	token := s.client.APIToken != ""
	password := s.client.Username != "" || s.client.Password != ""
	switch {
	case token && password:
		diags.AddAttributeError(path.Root("api_token"), "Conflicting Authentication Settings",
			"Both \"api_token\" and \"username\"/\"password\" are set (in configuration or environment). Use exactly one authentication method: an API token, or a username with a password.")
	case !token && !password:
		diags.AddError("Missing Authentication Settings",
			"Set either \"api_token\" (environment PVE_API_TOKEN) or both \"username\" and \"password\" (PVE_USERNAME, PVE_PASSWORD).")
	case password && s.client.Username == "":
		diags.AddAttributeError(path.Root("username"), "Missing Username", "\"password\" is set but \"username\" is not; set both, as USER@REALM and its password.")
	case password && s.client.Password == "":
		diags.AddAttributeError(path.Root("password"), "Missing Password", "\"username\" is set but \"password\" is not; set both, or use \"api_token\" instead.")
	}

	if !m.VMIDRange.IsNull() && !m.VMIDRange.IsUnknown() {
		var r vmidRangeModel
		diags.Append(m.VMIDRange.As(ctx, &r, basetypes.ObjectAsOptions{})...)
		if !diags.HasError() && !r.Min.IsUnknown() && !r.Max.IsUnknown() {
			if r.Min.ValueInt64() > r.Max.ValueInt64() {
				diags.AddAttributeError(path.Root("vmid_range").AtName("min"), "Invalid VMID Range",
					fmt.Sprintf("vmid_range.min (%d) is greater than vmid_range.max (%d).", r.Min.ValueInt64(), r.Max.ValueInt64()))
			} else {
				s.vmidRange = &fwutil.VMIDRange{Min: int(r.Min.ValueInt64()), Max: int(r.Max.ValueInt64())}
			}
		}
	}
	return s, diags
}
