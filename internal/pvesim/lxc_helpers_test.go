package pvesim

import (
	"net/http"
	"strings"
	"testing"
)

const (
	// rootLogin is root@pam's password login; testToken is a token of
	// root@pam, which PVE checks like any other identity.
	rootLogin    = "root@pam=root secret"
	ctTemplate   = "local:vztmpl/debian-13-standard_13.1-1_amd64.tar.zst"
	testSSHKey   = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f me@host"
	rootPassword = "root secret"
)

// newCTEnv is a simulator that also accepts root@pam's password login.
func newCTEnv(t *testing.T, opts Options) *env {
	t.Helper()
	opts.Passwords = append(opts.Passwords, rootLogin)
	return newEnv(t, opts)
}

// asRoot logs in as root@pam and returns the request edit that replaces
// the token with the ticket and its CSRF token.
func (e *env) asRoot(t *testing.T) func(*http.Request) {
	t.Helper()
	tk := login(t, e, "root@pam", rootPassword)
	return func(r *http.Request) {
		withTicket(tk.Ticket)(r)
		r.Header.Set(csrfHeader, tk.CSRF)
	}
}

// postCT sends a container create on pve1; the template is added unless
// kv names one.
func (e *env) postCT(t *testing.T, vmid string, kv []string, edits ...func(*http.Request)) *answer {
	t.Helper()
	f := form(append([]string{"vmid", vmid}, kv...)...)
	if f.Get("ostemplate") == "" {
		f.Set("ostemplate", ctTemplate)
	}
	return e.call(t, http.MethodPost, "/nodes/pve1/lxc", f, edits...)
}

// createCT creates a container on pve1 and waits for its task to succeed.
func (e *env) createCT(t *testing.T, vmid string, kv ...string) {
	t.Helper()
	e.taskOK(t, e.postCT(t, vmid, kv))
}

// ctConfig reads GET .../lxc/{vmid}/config (pending applied unless
// current), every value as text.
func (e *env) ctConfig(t *testing.T, node, vmid string, query ...string) map[string]string {
	t.Helper()
	a := e.call(t, http.MethodGet, "/nodes/"+node+"/lxc/"+vmid+"/config", form(query...))
	a.wantOK(t)
	var raw map[string]any
	a.decode(t, &raw)
	out := map[string]string{}
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = strings.TrimSuffix(jsonText(v), "\n")
		}
	}
	return out
}

// setCT sends PUT .../lxc/{vmid}/config on pve1.
func (e *env) setCT(t *testing.T, vmid string, kv []string, edits ...func(*http.Request)) *answer {
	t.Helper()
	return e.call(t, http.MethodPut, "/nodes/pve1/lxc/"+vmid+"/config", form(kv...), edits...)
}

// wantNull fails unless the answer is a 200 with data null (W9).
func (a *answer) wantNull(t *testing.T) {
	t.Helper()
	a.wantOK(t)
	if string(a.data) != "null" {
		t.Fatalf("data = %s, want null", a.data)
	}
}

// ctPower sends POST .../lxc/{vmid}/status/{action} on pve1.
func (e *env) ctPower(t *testing.T, vmid, action string, kv ...string) *answer {
	t.Helper()
	return e.call(t, http.MethodPost, "/nodes/pve1/lxc/"+vmid+"/status/"+action, form(kv...))
}

// wantConfig fails unless every key of want has that value ("" for
// absent).
func wantConfig(t *testing.T, cfg map[string]string, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, ok := cfg[k]; got != v || v == "" && ok {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}
