package pveapi

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func assertNoSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%s leaks secret %q:\n%s", what, s, text)
		}
	}
}

func closedPortEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

// W4: secrets never appear in an error or log line, even when the server
// echoes them back.
func TestW4TokenSecretNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	f.handle("GET /bad-token", func(w http.ResponseWriter, _ *http.Request) {
		writeRaw(w, 401, "Authentication failed!", "")
	})
	f.handle("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		writePVEError(w, 500, "cannot handle header "+r.Header.Get("Authorization")+" for token "+testTokenSecret)
	})
	f.handle("GET /echo-old", func(w http.ResponseWriter, r *http.Request) {
		writePVEOldError(w, 500, "bad auth "+r.Header.Get("Authorization"))
	})
	f.handle("POST /echo-param", func(w http.ResponseWriter, r *http.Request) {
		writeParamError(w, map[string]string{"password": "got " + r.FormValue("password")})
	})
	f.handle("GET /nodes/{node}/tasks/{upid}/log", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, []map[string]any{{"n": 1, "t": "using " + testTokenSecret}})
	})
	log := &capturedLog{}
	c := f.client(func(cfg *Config) { cfg.Logger = log })
	ctx := context.Background()

	var texts []string
	for _, path := range []string{"/bad-token", "/echo", "/echo-old"} {
		err := c.Get(ctx, path, nil, nil)
		if err == nil {
			t.Fatalf("%s: want an error", path)
		}
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err))
	}
	err := c.Post(ctx, "/echo-param", url.Values{"password": {testTokenSecret}}, nil)
	texts = append(texts, err.Error())
	lines, err := c.TaskLog(ctx, "pve1", "x", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, lines...)

	down, err := New(Config{Endpoint: closedPortEndpoint(t), APIToken: testToken, RetryMax: -1, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	_, err = down.Version(ctx)
	texts = append(texts, err.Error())

	for _, text := range texts {
		assertNoSecret(t, "error", text, testTokenSecret)
	}
	if !strings.Contains(strings.Join(texts, "\n"), "PVEAPIToken="+redactedMark) {
		t.Error("the echoed header should show as redacted, not vanish")
	}
	assertNoSecret(t, "log", log.all(), testTokenSecret)
	if !strings.Contains(log.all(), "PVE API attempt") {
		t.Error("expected attempt log lines")
	}
}

func TestW4PasswordAndTicketNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	seen := make(chan [2]string, 1)
	p.handle("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		ticket, csrf := mustCookie(r), r.Header.Get(csrfHeaderName)
		seen <- [2]string{ticket, csrf}
		writePVEError(w, 500, fmt.Sprintf("echo Cookie: %s csrf %s ticket %s password %s",
			r.Header.Get("Cookie"), csrf, ticket, testPassword))
	})
	log := &capturedLog{}
	c := p.passwordClient(func(cfg *Config) { cfg.Logger = log })
	ctx := context.Background()

	err := c.Post(ctx, "/echo", url.Values{"cipassword": {"cloud-init-secret"}, "name": {"vm1"}}, nil)
	if err == nil {
		t.Fatal("want an error")
	}
	sent := <-seen
	ticket, csrf := sent[0], sent[1]
	if ticket == "" || csrf == "" {
		t.Fatal("request carried no ticket")
	}
	assertNoSecret(t, "error", err.Error(), testPassword, ticket, csrf)

	wrong := p.passwordClient(func(cfg *Config) { cfg.Password = "Wr0ng-Passw0rd"; cfg.Logger = log })
	_, err = wrong.Version(ctx)
	if err == nil {
		t.Fatal("want a login error")
	}
	assertNoSecret(t, "login error", err.Error(), "Wr0ng-Passw0rd")

	down, err := New(Config{Endpoint: closedPortEndpoint(t), Username: testUser, Password: testPassword, RetryMax: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = down.Version(ctx)
	if err == nil {
		t.Fatal("want a connection error")
	}
	assertNoSecret(t, "connection error", err.Error(), testPassword)

	logs := log.all()
	assertNoSecret(t, "log", logs, testPassword, "Wr0ng-Passw0rd", ticket, csrf, "cloud-init-secret")
	if !strings.Contains(logs, "name=vm1") {
		t.Errorf("non-secret form values should be logged:\n%s", logs)
	}
}

func mustCookie(r *http.Request) string {
	c, err := r.Cookie(authCookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

func TestRedactor(t *testing.T) {
	t.Parallel()
	r := &redactor{}
	r.add("pve", "long-secret-value", "a+b/c")
	cases := []struct{ in, want string }{
		{"pve rejected pve", "REDACTED rejected REDACTED"},
		{"pveproxy and spve stay", "pveproxy and spve stay"},
		{"value long-secret-value inside xlong-secret-valuex", "value REDACTED inside xREDACTEDx"},
		{"form a%2Bb%2Fc", "form REDACTED"},
		{"Authorization: PVEAPIToken=root@pam!tf=abc-def", "Authorization: PVEAPIToken=REDACTED"},
		{"Cookie: PVEAuthCookie=PVE:root@pam:1234ABCD::sig+/=; other", "Cookie: PVEAuthCookie=REDACTED; other"},
		{"ticket PVE:root@pam:1234ABCD::c2ln==", "ticket REDACTED"},
		{`{"CSRFPreventionToken":"1234ABCD:abc"}`, `{"CSRFPreventionToken":"REDACTED"}`},
	}
	for _, tc := range cases {
		if got := r.redact(tc.in); got != tc.want {
			t.Errorf("redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	masked := r.redactForm(url.Values{"password": {"x"}, "cipassword": {"y"}, "ticket": {"z"}, "name": {"vm"}})
	if masked != "cipassword=REDACTED&name=vm&password=REDACTED&ticket=REDACTED" {
		t.Errorf("redactForm = %q", masked)
	}
}

// Each request is one debug line with its method, path, status, duration
// and, when it starts a task, the task's UPID; each attempt is a trace
// line. Ticket login included, no secret reaches either.
func TestRequestLogNamesEachRequest(t *testing.T) {
	t.Parallel()
	const upid = "UPID:pve1:0000A1B2:00C3D4E5:6789ABCD:qmcreate:100:root@pam:"
	p := newTicketPVE(t)
	p.handle("POST /nodes/{node}/qemu", func(w http.ResponseWriter, _ *http.Request) { writeData(w, upid) })
	p.handle("GET /nodes/{node}/qemu/{vmid}/config", func(w http.ResponseWriter, _ *http.Request) {
		writePVEError(w, 500, "Configuration file 'nodes/pve1/qemu-server/101.conf' does not exist")
	})
	log := &capturedLog{}
	c := p.passwordClient(func(cfg *Config) { cfg.Logger = log })
	ctx := context.Background()
	if err := c.Post(ctx, "/nodes/pve1/qemu", url.Values{"vmid": {"100"}, "cipassword": {"cloud-init-secret"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, "/nodes/pve1/qemu/101/config", nil, nil); err == nil {
		t.Fatal("want an error")
	}

	var requests, attempts []string
	for _, line := range log.lines {
		switch {
		case strings.HasPrefix(line, "DEBUG PVE API request "):
			requests = append(requests, line)
		case strings.HasPrefix(line, "TRACE PVE API attempt "):
			attempts = append(attempts, line)
		}
	}
	if len(requests) != 3 || len(attempts) != 3 {
		t.Fatalf("want a login and two requests, each with one attempt:\n%s", log.all())
	}
	for i, want := range [][]string{
		{"method:POST", "path:/access/ticket", "status:200", "password=" + redactedMark, "duration_ms:"},
		{"method:POST", "path:/nodes/pve1/qemu", "status:200", "upid:" + upid, "cipassword=" + redactedMark, "vmid=100", "duration_ms:"},
		{"method:GET", "path:/nodes/pve1/qemu/101/config", "status:500", "error:", "101.conf' does not exist", "duration_ms:"},
	} {
		for _, part := range want {
			if !strings.Contains(requests[i], part) {
				t.Errorf("request line %d lacks %q: %s", i, part, requests[i])
			}
		}
	}
	if strings.Contains(requests[2], "upid:") {
		t.Errorf("an answer that starts no task names none: %s", requests[2])
	}
	assertNoSecret(t, "log", log.all(), testPassword, "cloud-init-secret")
}

// Access control secrets never reach an error or a log line: a user's
// password and the current password confirming a change, a realm's bind
// password and OpenID client secret (sent or read back), and a token
// secret PVE hands out, even when PVE echoes them later. A new token prints without its secret.
func TestAccessSecretsNeverInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	const (
		userPassword = "Us3r-initial-pass"
		newPassword  = "N3w-user-password"
		bindPassword = "B1nd-secret-value"
		clientKey    = "0pen1d-client-secret"
		tokenSecret  = "7d3c1b2a-5e4f-4a6b-8c7d-0e1f2a3b4c5d"
		// readClientKey is an OpenID secret the client only reads.
		readClientKey = "r3ad-back-client-secret"
	)
	echo := func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		writePVEError(w, 500, fmt.Sprintf("refused %v, token %s, client key %s", r.Form, tokenSecret, readClientKey))
	}
	p := newTicketPVE(t)
	p.handle("POST /access/users/{userid}/token/{tokenid}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"full-tokenid": "alice@pve!tf", "value": tokenSecret, "info": map[string]any{"privsep": 1}})
	})
	p.handle("GET /access/domains/{realm}", func(w http.ResponseWriter, _ *http.Request) {
		writeData(w, map[string]any{"type": "openid", "client-id": "pve", "client-key": readClientKey})
	})
	for _, route := range []string{"POST /access/users", "PUT /access/password", "POST /access/domains", "PUT /access/domains/{realm}", "GET /access/users/{userid}"} {
		p.handle(route, echo)
	}
	log := &capturedLog{}
	c := p.passwordClient(func(cfg *Config) { cfg.Logger = log })
	ctx := context.Background()

	token, err := c.CreateToken(ctx, TokenCreate{UserID: "alice@pve", TokenID: "tf"})
	if err != nil || token.Value != tokenSecret {
		t.Fatalf("CreateToken = %v, %v", token, err)
	}
	realm, err := c.GetRealm(ctx, "sso")
	if err != nil || realm.Options["client-key"] != readClientKey {
		t.Fatalf("GetRealm = %+v, %v", realm, err)
	}
	var texts []string
	texts = append(texts, fmt.Sprintf("%v %+v %#v %s", token, token, token, *token))
	for _, call := range []func() error{
		func() error { return c.CreateUser(ctx, UserCreate{UserID: "alice@pve", Password: userPassword}) },
		func() error { return c.ChangePassword(ctx, "alice@pve", newPassword, testPassword) },
		func() error {
			return c.CreateRealm(ctx, RealmCreate{Realm: "corp", Type: RealmTypeLDAP, Password: bindPassword})
		},
		func() error {
			return c.UpdateRealm(ctx, RealmUpdate{Realm: "sso", Options: map[string]string{"client-key": clientKey}})
		},
		func() error { _, err := c.GetUser(ctx, "alice@pve"); return err },
	} {
		err := call()
		if err == nil {
			t.Fatal("want an error")
		}
		texts = append(texts, err.Error())
	}
	secrets := []string{userPassword, newPassword, testPassword, bindPassword, clientKey, tokenSecret, readClientKey}
	for _, text := range texts {
		assertNoSecret(t, "error", text, secrets...)
	}
	assertNoSecret(t, "log", log.all(), secrets...)
	for _, masked := range []string{"confirmation-password=" + redactedMark, "client-key=" + redactedMark, "password=" + redactedMark} {
		if !strings.Contains(log.all(), masked) {
			t.Errorf("the log should show %s", masked)
		}
	}
}

// A storage's secrets (pve-storage's sensitive properties) never reach the
// request log, whatever the storage type.
func TestRedactFormStorageSecrets(t *testing.T) {
	r := &redactor{}
	masked := r.redactForm(url.Values{
		"storage": {"pbs"}, "password": {"a"}, "keyring": {"b"}, "encryption-key": {"c"}, "master-pubkey": {"d"},
	})
	want := "encryption-key=REDACTED&keyring=REDACTED&master-pubkey=REDACTED&password=REDACTED&storage=pbs"
	if masked != want {
		t.Errorf("redactForm = %q, want %q", masked, want)
	}
}
