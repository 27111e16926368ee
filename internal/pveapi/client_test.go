package pveapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseEndpoint(t *testing.T) {
	t.Parallel()
	valid := []struct{ in, want string }{
		{"https://pve.example.com", "https://pve.example.com:8006"},
		{"https://pve.example.com/", "https://pve.example.com:8006"},
		{"https://pve.example.com:8006/api2/json", "https://pve.example.com:8006"},
		{"https://pve.example.com:443/api2/json/", "https://pve.example.com:443"},
		{"  https://10.0.0.5:8006  ", "https://10.0.0.5:8006"},
		{"https://[2001:db8::1]", "https://[2001:db8::1]:8006"},
		{"HTTPS://PVE.example.com", "https://PVE.example.com:8006"},
		{"http://127.0.0.1:8006", "http://127.0.0.1:8006"},
		{"http://localhost", "http://localhost:8006"},
		{"http://[::1]:1234/api2/json", "http://[::1]:1234"},
	}
	for _, tc := range valid {
		got, err := ParseEndpoint(tc.in)
		if err != nil {
			t.Errorf("ParseEndpoint(%q): %v", tc.in, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("ParseEndpoint(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}

	invalid := []struct{ in, mention string }{
		{"", "empty"},
		{"pve.example.com:8006", "scheme"},
		{"ftp://pve.example.com", "scheme"},
		{"http://pve.example.com", "plain http"},
		{"http://10.0.0.5:8006", "plain http"},
		{"https://", "no host"},
		{"https:///api2/json", "no host"},
		{"https://pve.example.com/api2/extjs", "path"},
		{"https://pve.example.com/api2/json/nodes", "path"},
		{"https://pve.example.com/?x=1", "query"},
		{"https://pve.example.com/?", "query"},
		{"https://pve.example.com/#frag", "fragment"},
		{"https://root:pw@pve.example.com", "user information"},
		{"https://pve.example.com:0", "port"},
		{"https://pve.example.com:70000", "port"},
		{"https://pve example.com", "URL"},
	}
	for _, tc := range invalid {
		_, err := ParseEndpoint(tc.in)
		if err == nil {
			t.Errorf("ParseEndpoint(%q) accepted, want error mentioning %q", tc.in, tc.mention)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.mention) || !strings.Contains(msg, "https://HOST[:PORT][/api2/json]") {
			t.Errorf("ParseEndpoint(%q) error %q should mention %q and the expected form", tc.in, msg, tc.mention)
		}
		if strings.Contains(msg, ":pw@") {
			t.Errorf("ParseEndpoint error echoes the password: %q", msg)
		}
	}
}

// An endpoint with credentials that do not parse as a URL (a password with
// '/', '%', '#', '?' or a space) is refused without quoting the password.
func TestParseEndpointNeverEchoesCredentials(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, secret, shown string }{
		{"https://root@pam:s3cr%zzet@pve.example.com:8006", "s3cr%zzet", "https://REDACTED@pve.example.com:8006"},
		{"https://root@pam:pa/ss-word@pve.example.com", "pa/ss-word", "https://REDACTED@pve.example.com"},
		{"https://root@pam:pass#word@pve.example.com", "pass#word", "https://REDACTED@pve.example.com"},
		{"https://root@pam:pass?word@pve", "pass?word", "https://REDACTED@pve"},
		{"https://root@pam:pass word@pve", "pass word", "https://REDACTED@pve"},
		{"http://root@pam:plain-secret@10.0.0.5", "plain-secret", "http://REDACTED@10.0.0.5"},
		{"ftp://admin:ftp-secret@pve", "ftp-secret", "ftp://REDACTED@pve"},
		{"root@pam:no-scheme-secret@pve:8006", "no-scheme-secret", "REDACTED@pve:8006"},
	} {
		_, err := ParseEndpoint(tc.in)
		if err == nil {
			t.Errorf("ParseEndpoint(%q) accepted", tc.in)
			continue
		}
		msg := err.Error()
		for _, part := range []string{tc.secret, "root@pam", "admin"} {
			if strings.Contains(msg, part) {
				t.Errorf("ParseEndpoint error shows %q: %s", part, msg)
			}
		}
		if !strings.Contains(msg, tc.shown) || !strings.Contains(msg, "user information") {
			t.Errorf("ParseEndpoint(%q) error should show %q and say why: %s", tc.in, tc.shown, msg)
		}
		if s := fmt.Sprint(Config{Endpoint: tc.in}); strings.Contains(s, tc.secret) {
			t.Errorf("Config.String shows the password: %s", s)
		}
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Parallel()
	base := Config{Endpoint: "https://pve.example.com"}
	cases := []struct {
		name    string
		mutate  func(*Config)
		mention string
	}{
		{"no credentials", func(*Config) {}, "no credentials"},
		{"token and password", func(c *Config) { c.APIToken = testToken; c.Username = "root@pam"; c.Password = "x" }, "not both"},
		{"token without bang", func(c *Config) { c.APIToken = "root@pam=" + testTokenSecret }, "'!'"},
		{"token without secret separator", func(c *Config) { c.APIToken = "root@pam!tf" }, "'='"},
		{"token without realm", func(c *Config) { c.APIToken = "root!tf=" + testTokenSecret }, "USER@REALM"},
		{"token with bad id", func(c *Config) { c.APIToken = "root@pam!1tf=" + testTokenSecret }, "token id"},
		{"token with empty secret", func(c *Config) { c.APIToken = "root@pam!tf=" }, "secret"},
		{"token secret with space", func(c *Config) { c.APIToken = "root@pam!tf=abc " + testTokenSecret }, "secret"},
		{"username without realm", func(c *Config) { c.Username = "root"; c.Password = "secret-pass" }, "USER@REALM"},
		{"password without username", func(c *Config) { c.Password = "secret-pass" }, "both"},
		{"CA file and PEM", func(c *Config) { c.APIToken = testToken; c.CAFile = "a"; c.CAPEM = "b" }, "not both"},
		{"insecure and CA", func(c *Config) { c.APIToken = testToken; c.Insecure = true; c.CAPEM = "b" }, "insecure"},
		{"PEM without certificate", func(c *Config) { c.APIToken = testToken; c.CAPEM = "not a pem" }, "no PEM certificate"},
		{"missing CA file", func(c *Config) { c.APIToken = testToken; c.CAFile = filepath.Join(t.TempDir(), "missing.pem") }, "CA file"},
		{"HTTP client and TLS", func(c *Config) { c.APIToken = testToken; c.HTTPClient = &http.Client{}; c.Insecure = true }, "custom HTTP client"},
	}
	for _, tc := range cases {
		cfg := base
		tc.mutate(&cfg)
		_, err := New(cfg)
		if err == nil {
			t.Errorf("%s: New accepted the config", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: error %q should mention %q", tc.name, err, tc.mention)
		}
		if strings.Contains(err.Error(), testTokenSecret) || strings.Contains(err.Error(), "secret-pass") {
			t.Errorf("%s: error echoes a secret: %q", tc.name, err)
		}
	}

	c, err := New(Config{Endpoint: "https://pve.example.com", APIToken: "PVEAPIToken=" + testToken})
	if err != nil {
		t.Fatalf("token with PVEAPIToken= prefix: %v", err)
	}
	if !c.UsesAPIToken() || c.Principal() != "terraform@pve!provider" || c.Endpoint() != "https://pve.example.com:8006" {
		t.Errorf("client identity: token=%t principal=%q endpoint=%q", c.UsesAPIToken(), c.Principal(), c.Endpoint())
	}
	c, err = New(Config{Endpoint: "https://pve.example.com", Username: "root@pam", Password: "secret-pass"})
	if err != nil {
		t.Fatalf("password config: %v", err)
	}
	if c.UsesAPIToken() || c.Principal() != "root@pam" {
		t.Errorf("password client identity: token=%t principal=%q", c.UsesAPIToken(), c.Principal())
	}
}

func TestConfigStringHidesSecrets(t *testing.T) {
	t.Parallel()
	cfg := Config{Endpoint: "https://pve", APIToken: testToken, Password: "hunter2-password", CAPEM: "-----BEGIN"}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, cfg)
		if strings.Contains(out, testTokenSecret) || strings.Contains(out, "hunter2-password") {
			t.Errorf("%s of Config leaks a secret: %s", format, out)
		}
		if !strings.Contains(out, "terraform@pve!provider") {
			t.Errorf("%s of Config should still name the token id: %s", format, out)
		}
	}
	out := fmt.Sprintf("%v", &cfg)
	if strings.Contains(out, testTokenSecret) {
		t.Errorf("%%v of *Config leaks the token secret: %s", out)
	}
}

// selfSignedPEM is a CA that did not sign the test server's certificate
// (every httptest server shares one certificate).
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "other CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func serverCAPEM(srv *httptest.Server) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}))
}

// W1: pveproxy does not speak HTTP/2; the client must offer only http/1.1,
// even to a server that would accept h2.
func TestW1TransportOffersOnlyHTTP11(t *testing.T) {
	t.Parallel()
	var proto, alpn atomic.Value
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		alpn.Store(r.TLS.NegotiatedProtocol)
		writeData(w, map[string]string{"version": "9.1.1", "release": "9.1", "repoid": "abc"})
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	// The server does speak h2 to a client that offers it.
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if proto.Load() != "HTTP/2.0" {
		t.Fatalf("test server should accept h2, saw %v", proto.Load())
	}

	c, err := New(Config{Endpoint: srv.URL, APIToken: testToken, CAPEM: serverCAPEM(srv)})
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Version(context.Background())
	if err != nil {
		t.Fatalf("Version over TLS: %v", err)
	}
	if v.Version != "9.1.1" {
		t.Errorf("version = %q", v.Version)
	}
	if proto.Load() != "HTTP/1.1" || alpn.Load() != "http/1.1" {
		t.Errorf("server saw proto %v, ALPN %v; want HTTP/1.1 and http/1.1", proto.Load(), alpn.Load())
	}

	transport := c.httpClient.Transport.(*attemptTransport).next.(*http.Transport)
	if transport.ForceAttemptHTTP2 || transport.TLSNextProto == nil || len(transport.TLSNextProto) != 0 {
		t.Errorf("transport may negotiate h2: ForceAttemptHTTP2=%t TLSNextProto=%v", transport.ForceAttemptHTTP2, transport.TLSNextProto)
	}
	if got := transport.TLSClientConfig.NextProtos; len(got) != 1 || got[0] != "http/1.1" {
		t.Errorf("NextProtos = %v, want [http/1.1]", got)
	}
	if c.httpClient.Timeout != 0 {
		t.Errorf("client timeout = %v; contexts bound calls", c.httpClient.Timeout)
	}
}

func TestTLSVerification(t *testing.T) {
	t.Parallel()
	var connections atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]string{"version": "9.1.1"})
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are expected here
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			connections.Add(1)
		}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)

	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, []byte(serverCAPEM(srv)), 0o600); err != nil {
		t.Fatal(err)
	}
	fast := func(cfg Config) Config {
		cfg.Endpoint, cfg.APIToken = srv.URL, testToken
		cfg.RetryWaitMin, cfg.RetryWaitMax = 1, 2
		return cfg
	}
	ok := map[string]Config{
		"CA file":                 fast(Config{CAFile: caFile}),
		"CA PEM":                  fast(Config{CAPEM: serverCAPEM(srv)}),
		"CA PEM with server name": fast(Config{CAPEM: serverCAPEM(srv), TLSServerName: "example.com"}),
		"insecure":                fast(Config{Insecure: true}),
	}
	for name, cfg := range ok {
		c, err := New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := c.Version(context.Background()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	bad := map[string]Config{
		"other CA":          fast(Config{CAPEM: selfSignedPEM(t)}),
		"wrong server name": fast(Config{CAPEM: serverCAPEM(srv), TLSServerName: "pve.invalid"}),
	}
	for name, cfg := range bad {
		c, err := New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		before := connections.Load()
		_, err = c.Version(context.Background())
		var transportErr *TransportError
		if !errors.As(err, &transportErr) {
			t.Errorf("%s: want *TransportError, got %v", name, err)
		}
		// A certificate error is permanent: no retry.
		if n := connections.Load() - before; n != 1 {
			t.Errorf("%s: %d connections, want 1 (no retry on certificate errors)", name, n)
		}
	}
}

func TestInjectedHTTPClientKeepsRetryClassification(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, map[string]string{"version": "9.1.1"}) })
	var roundTrips atomic.Int32
	injected := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		roundTrips.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	c := f.client(func(cfg *Config) { cfg.HTTPClient = injected })
	if _, err := c.Version(context.Background()); err != nil {
		t.Fatal(err)
	}
	if roundTrips.Load() != 1 {
		t.Errorf("injected transport used %d times, want 1", roundTrips.Load())
	}
	if _, wrapped := c.httpClient.Transport.(*attemptTransport); !wrapped {
		t.Error("injected transport is not wrapped by the attempt tracer")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRequestShape(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var seen atomic.Value
	record := func(w http.ResponseWriter, r *http.Request) {
		body := new(strings.Builder)
		_, _ = fmt.Fprint(body, r.Method, " ", r.URL.RequestURI(), " ct=", r.Header.Get("Content-Type"), " ua=", r.UserAgent())
		if err := r.ParseForm(); err == nil && r.Method != http.MethodGet && r.Method != http.MethodDelete {
			_, _ = fmt.Fprint(body, " form=", r.PostForm.Encode())
		}
		seen.Store(body.String())
		writeData(w, nil)
	}
	f.handle("GET /nodes/{node}/qemu", record)
	f.handle("POST /nodes/{node}/qemu", record)
	f.handle("PUT /nodes/{node}/qemu/{vmid}/config", record)
	f.handle("DELETE /nodes/{node}/qemu/{vmid}", record)
	c := f.client(func(cfg *Config) { cfg.UserAgent = "test-agent/1" })
	ctx := context.Background()

	checks := []struct {
		call func() error
		want string
	}{
		{func() error { return c.Get(ctx, "/nodes/pve1/qemu", map[string][]string{"full": {"1"}}, nil) },
			"GET /api2/json/nodes/pve1/qemu?full=1 ct= ua=test-agent/1"},
		{func() error {
			return c.Post(ctx, "/nodes/pve1/qemu", map[string][]string{"vmid": {"100"}, "start": {"0"}}, nil)
		}, "POST /api2/json/nodes/pve1/qemu ct=application/x-www-form-urlencoded ua=test-agent/1 form=start=0&vmid=100"},
		{func() error {
			return c.Put(ctx, "/nodes/pve1/qemu/100/config", map[string][]string{"delete": {"net1"}}, nil)
		},
			"PUT /api2/json/nodes/pve1/qemu/100/config ct=application/x-www-form-urlencoded ua=test-agent/1 form=delete=net1"},
		// PVE refuses a body on DELETE (501 Unexpected content): query only.
		{func() error { return c.Delete(ctx, "/nodes/pve1/qemu/100", map[string][]string{"purge": {"1"}}, nil) },
			"DELETE /api2/json/nodes/pve1/qemu/100?purge=1 ct= ua=test-agent/1"},
	}
	for _, check := range checks {
		if err := check.call(); err != nil {
			t.Fatalf("%s: %v", check.want, err)
		}
		if got := seen.Load(); got != check.want {
			t.Errorf("request = %q\nwant      %q", got, check.want)
		}
	}
	if err := c.Get(ctx, "nodes", nil, nil); err == nil {
		t.Error("a path without leading / should be refused")
	}
}
