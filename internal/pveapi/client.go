// Package pveapi is the Proxmox VE API client: the only code that speaks
// HTTP to PVE. It handles endpoint parsing, API token and ticket auth (W2),
// HTTP/1.1-only TLS transport (W1), retries that never repeat a write PVE
// may have executed, PVE's error shapes (W4), lenient decoding (W5), tasks
// (W8) and lock waits (W10).
package pveapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Defaults for the optional Config fields.
const (
	DefaultPort             = 8006
	DefaultRetryWaitMin     = 250 * time.Millisecond
	DefaultRetryWaitMax     = 5 * time.Second
	DefaultRetryMax         = 5
	DefaultTaskPollInterval = 500 * time.Millisecond
	// DefaultRequestTimeout bounds one attempt of a request, answer body
	// included. pveproxy gives up on a request it forwards to pvedaemon or
	// to another node after 30 seconds without data (pve-http-server,
	// PVE/APIServer/AnyEvent.pm, proxy_request: http_request timeout => 30)
	// and answers 596, so a healthy PVE has answered long before this.
	DefaultRequestTimeout = 60 * time.Second
	DefaultUserAgent      = "terraform-provider-pve"

	apiPrefix = "/api2/json"
)

// Logger receives one debug line per request (method, path, parameters,
// status, duration, the task id when the answer starts a task, the error)
// and one trace line per attempt. Fields never hold secrets: they pass
// through the same redaction as error texts. ctx is the request's own.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
	Trace(ctx context.Context, msg string, fields map[string]any)
}

// Config configures a Client. Exactly one of APIToken or Username+Password
// is required. When HTTPClient is set, the TLS fields must be empty: the
// injected client brings its own transport.
type Config struct {
	Endpoint      string // https://host[:port][/api2/json][/]; http only for loopback hosts
	APIToken      string // USER@REALM!TOKENID=SECRET
	Username      string // USER@REALM
	Password      string
	CAFile        string // path to a PEM bundle; when set, only these CAs are trusted
	CAPEM         string // PEM text, alternative to CAFile
	Insecure      bool   // skip certificate verification
	TLSServerName string // name to verify the server certificate against
	UserAgent     string

	HTTPClient *http.Client // optional; tests inject a transport
	Logger     Logger       // optional

	RetryWaitMin time.Duration // default 250ms
	RetryWaitMax time.Duration // default 5s
	RetryMax     int           // retries after the first attempt; default 5, negative means none

	TaskPollInterval time.Duration // default 500ms; a task's first reads come sooner (taskPollDelay)

	// RequestTimeout bounds each attempt of a request, from sending it to
	// the last byte of the answer (for an upload: from the last byte sent).
	// A read that runs out of time is retried like a broken connection; a
	// write is not, as it may have reached PVE. Default 60s, negative
	// means no bound.
	RequestTimeout time.Duration

	// Now is the clock used for ticket age; default time.Now.
	Now func() time.Time
}

// String hides secrets, so a Config can be printed or logged.
func (c Config) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("Endpoint", redactEndpoint(c.Endpoint))
	if c.APIToken != "" {
		add("APIToken", maskToken(c.APIToken))
	}
	add("Username", c.Username)
	if c.Password != "" {
		add("Password", redactedMark)
	}
	add("CAFile", c.CAFile)
	if c.CAPEM != "" {
		add("CAPEM", "(set)")
	}
	if c.Insecure {
		add("Insecure", "true")
	}
	add("TLSServerName", c.TLSServerName)
	return "pveapi.Config{" + strings.Join(parts, ", ") + "}"
}

// GoString hides secrets from %#v too.
func (c Config) GoString() string { return c.String() }

// Client talks to one PVE endpoint. It is safe for concurrent use.
type Client struct {
	base          *url.URL
	apiRoot       string
	httpClient    *http.Client
	auth          authenticator
	redactor      *redactor
	logger        Logger
	userAgent     string
	retryWaitMin  time.Duration
	retryWaitMax  time.Duration
	retryMax      int
	pollInterval  time.Duration
	timeout       time.Duration // per attempt; 0 means none
	now           func() time.Time
	vmids         vmidReservations       // ids handed out by AllocateVMID (vmid.go)
	pools         memo[PoolGuests]       // pool memberships, until our next write (readcache.go)
	poolExistence memo[bool]             // whether pools exist, until our next write to /pools
	nodeNames     memo[[]string]         // the cluster's node names (readcache.go)
	guests        memo[map[int]Resource] // the cluster's guests by VMID, until our next write (readcache.go)
}

// New validates cfg and builds a Client. It does no network I/O: ticket
// login happens on the first request.
func New(cfg Config) (*Client, error) {
	base, err := ParseEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	c := &Client{
		base:         base,
		apiRoot:      base.String() + apiPrefix,
		redactor:     &redactor{},
		logger:       cfg.Logger,
		userAgent:    cfg.UserAgent,
		retryWaitMin: cfg.RetryWaitMin,
		retryWaitMax: cfg.RetryWaitMax,
		retryMax:     cfg.RetryMax,
		pollInterval: cfg.TaskPollInterval,
		timeout:      cfg.RequestTimeout,
		now:          cfg.Now,
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.retryWaitMin <= 0 {
		c.retryWaitMin = DefaultRetryWaitMin
	}
	if c.retryWaitMax <= 0 {
		c.retryWaitMax = DefaultRetryWaitMax
	}
	if c.retryWaitMax < c.retryWaitMin {
		c.retryWaitMax = c.retryWaitMin
	}
	switch {
	case c.retryMax == 0:
		c.retryMax = DefaultRetryMax
	case c.retryMax < 0:
		c.retryMax = 0
	}
	if c.pollInterval <= 0 {
		c.pollInterval = DefaultTaskPollInterval
	}
	switch {
	case c.timeout == 0:
		c.timeout = DefaultRequestTimeout
	case c.timeout < 0:
		c.timeout = 0
	}
	if c.now == nil {
		c.now = time.Now
	}

	if c.auth, err = newAuthenticator(cfg, c); err != nil {
		return nil, err
	}
	if c.httpClient, err = buildHTTPClient(cfg, c); err != nil {
		return nil, err
	}
	return c, nil
}

// Endpoint returns the base URL (scheme://host:port) without /api2/json.
func (c *Client) Endpoint() string { return c.base.String() }

// UsesAPIToken reports token auth. Some writes are refused to tokens even
// with full privileges (W33 keyctl/fuse, W36 bind mounts).
func (c *Client) UsesAPIToken() bool {
	_, ok := c.auth.(*tokenAuth)
	return ok
}

// Principal returns who the client acts as: USER@REALM!TOKENID for a token,
// USER@REALM for a password login.
func (c *Client) Principal() string { return c.auth.principal() }

// ParseEndpoint accepts https://host[:port] with an optional trailing
// /api2/json and/or "/", and returns scheme://host:port (port 8006 when
// absent). Plain http is accepted only for loopback hosts (localhost,
// 127.0.0.0/8, ::1), where the test simulator runs: credentials must never
// cross a network in clear text.
func ParseEndpoint(s string) (*url.URL, error) {
	const want = "expected https://HOST[:PORT][/api2/json]"
	raw := strings.TrimSpace(s)
	if raw == "" {
		return nil, fmt.Errorf("pve endpoint is empty; %s", want)
	}
	// A valid endpoint never holds an '@' (no user information, no path
	// beyond /api2/json). Checking before parsing keeps credentials out of
	// every message: a password with '/', '#', '%' or '?' breaks the parse,
	// and the parser's own error quotes the whole string.
	if strings.Contains(raw, "@") {
		return nil, fmt.Errorf("pve endpoint %q must not contain user information (set credentials separately); %s", redactEndpoint(raw), want)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("pve endpoint %q is not a URL (%w); %s", raw, err, want)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("pve endpoint %q uses plain http, which is only allowed for a loopback host; %s", raw, want)
		}
	case "":
		return nil, fmt.Errorf("pve endpoint %q has no scheme; %s", raw, want)
	default:
		return nil, fmt.Errorf("pve endpoint %q has scheme %q; %s", raw, u.Scheme, want)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("pve endpoint %q has no host; %s", raw, want)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return nil, fmt.Errorf("pve endpoint %q must not have a query; %s", raw, want)
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, fmt.Errorf("pve endpoint %q must not have a fragment; %s", raw, want)
	}
	switch u.EscapedPath() {
	case "", "/", apiPrefix, apiPrefix + "/":
	default:
		return nil, fmt.Errorf("pve endpoint %q has path %q; only %s is allowed; %s", raw, u.EscapedPath(), apiPrefix, want)
	}
	port := u.Port()
	if port == "" {
		port = strconv.Itoa(DefaultPort)
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("pve endpoint %q has invalid port %q; %s", raw, port, want)
	}
	return &url.URL{Scheme: u.Scheme, Host: net.JoinHostPort(u.Hostname(), port)}, nil
}

// redactEndpoint hides what may be credentials in an endpoint as typed:
// everything between the scheme and the last '@'. It works on the raw
// text, since an endpoint holding a password may not parse as a URL.
func redactEndpoint(raw string) string {
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return raw[:start] + redactedMark + raw[at:]
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func buildHTTPClient(cfg Config, c *Client) (*http.Client, error) {
	tlsSet := cfg.CAFile != "" || cfg.CAPEM != "" || cfg.Insecure || cfg.TLSServerName != ""
	if cfg.HTTPClient != nil {
		if tlsSet {
			return nil, errors.New("pve: the TLS settings (CA, insecure, TLS server name) cannot be combined with a custom HTTP client")
		}
		injected := *cfg.HTTPClient
		next := injected.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		injected.Transport = &attemptTransport{next: next, client: c}
		if injected.CheckRedirect == nil {
			injected.CheckRedirect = refuseRedirect
		}
		return &injected, nil
	}

	tlsConfig, err := buildTLSConfig(cfg)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		ExpectContinueTimeout: time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   8,
		// W1: pveproxy speaks HTTP/1.1 only; never offer h2.
		ForceAttemptHTTP2: false,
		TLSNextProto:      map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	// No client-wide timeout: every attempt is bounded by attemptTransport
	// (RequestTimeout) and every call by its context.
	return &http.Client{
		Transport:     &attemptTransport{next: transport, client: c},
		CheckRedirect: refuseRedirect,
	}, nil
}

// PVE never redirects API calls; following one could carry credentials
// elsewhere.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func buildTLSConfig(cfg Config) (*tls.Config, error) {
	tlsConfig := &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"}, // W1
		ServerName: cfg.TLSServerName,
	}
	if cfg.Insecure {
		if cfg.CAFile != "" || cfg.CAPEM != "" {
			return nil, errors.New("pve: insecure cannot be combined with a CA: choose one")
		}
		tlsConfig.InsecureSkipVerify = true // #nosec G402 -- explicit user opt-in
		return tlsConfig, nil
	}
	var pemText []byte
	switch {
	case cfg.CAFile != "" && cfg.CAPEM != "":
		return nil, errors.New("pve: set either a CA file or CA PEM text, not both")
	case cfg.CAFile != "":
		data, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("pve: reading CA file: %w", err)
		}
		pemText = data
	case cfg.CAPEM != "":
		pemText = []byte(cfg.CAPEM)
	default:
		return tlsConfig, nil // system roots
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemText) {
		return nil, errors.New("pve: the CA contains no PEM certificate")
	}
	// Exactly the given CAs: a self-signed PVE should not also accept any
	// publicly trusted certificate for its name.
	tlsConfig.RootCAs = pool
	return tlsConfig, nil
}

// Get calls GET path (relative to /api2/json, e.g. "/nodes/pve1/qemu") and
// decodes the "data" member into out (W5); out may be nil. Numbers decoded
// into interface values are json.Number.
func (c *Client) Get(ctx context.Context, path string, query url.Values, out any) error {
	return c.call(ctx, http.MethodGet, path, query, out)
}

// Post calls POST path with form parameters.
func (c *Client) Post(ctx context.Context, path string, form url.Values, out any) error {
	return c.call(ctx, http.MethodPost, path, form, out)
}

// Put calls PUT path with form parameters.
func (c *Client) Put(ctx context.Context, path string, form url.Values, out any) error {
	return c.call(ctx, http.MethodPut, path, form, out)
}

// Delete calls DELETE path; parameters go in the query, as PVE refuses a
// body on DELETE (501 Unexpected content).
func (c *Client) Delete(ctx context.Context, path string, query url.Values, out any) error {
	return c.call(ctx, http.MethodDelete, path, query, out)
}

func (c *Client) call(ctx context.Context, method, path string, params url.Values, out any) (err error) {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("pve: API path %q must start with /", path)
	}
	if method != http.MethodGet {
		defer c.noteWrite(path)
	}
	var res *rawResponse
	defer c.logRequest(ctx, method, path, func() map[string]any {
		return map[string]any{"params": c.redactor.redactForm(params)}
	}, time.Now(), &res, &err)
	// A 401 on a ticket request means PVE rejected the ticket before
	// running the handler (auth is checked first, W3), so nothing was
	// executed and one retry with a fresh ticket is safe for writes too.
	for reloggedIn := false; ; reloggedIn = true {
		creds, err := c.auth.credentials(ctx)
		if err != nil {
			return err
		}
		res, err = c.roundTrip(ctx, method, path, params, creds)
		if err != nil {
			return err
		}
		if res.status == http.StatusUnauthorized && creds.ticket != "" && !reloggedIn {
			c.auth.invalidate(creds.ticket)
			continue
		}
		return c.decodeResponse(method, path, res, out)
	}
}
