package pveapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testUser     = "terraform@pve"
	testPassword = "correct-horse-battery"
)

// ticketPVE is a fake PVE with ticket auth (W2, W3): POST /access/ticket
// issues a ticket and CSRF token; API calls need the cookie, and writes
// also the CSRF header.
type ticketPVE struct {
	*fakePVE

	mu      sync.Mutex
	issued  int
	valid   map[string]string // ticket -> csrf
	needTFA bool
}

func newTicketPVE(t *testing.T) *ticketPVE {
	p := &ticketPVE{fakePVE: newFakePVE(t), valid: map[string]string{}}
	p.fakePVE.handle("POST /access/ticket", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("username") != testUser || r.FormValue("password") != testPassword {
			writeRaw(w, 401, "authentication failure", "")
			return
		}
		p.mu.Lock()
		p.issued++
		ticket := fmt.Sprintf("PVE:%s:6790ABCD::c2lnbmF0dXJl%04d", testUser, p.issued)
		csrf := fmt.Sprintf("6790ABCD:Y3NyZg%04d", p.issued)
		p.valid[ticket] = csrf
		needTFA := p.needTFA
		p.mu.Unlock()
		data := map[string]any{"ticket": ticket, "CSRFPreventionToken": csrf, "username": testUser}
		if needTFA {
			data["NeedTFA"] = 1
		}
		writeData(w, data)
	})
	return p
}

func (p *ticketPVE) logins() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.issued
}

func (p *ticketPVE) revokeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.valid = map[string]string{}
}

// handle registers an API route guarded by ticket auth.
func (p *ticketPVE) handle(pattern string, h http.HandlerFunc) {
	p.fakePVE.handle(pattern, func(w http.ResponseWriter, r *http.Request) {
		cookie, err := r.Cookie(authCookieName)
		if err != nil {
			writeRaw(w, 401, "No ticket", "")
			return
		}
		p.mu.Lock()
		csrf, ok := p.valid[cookie.Value]
		p.mu.Unlock()
		if !ok {
			writeRaw(w, 401, "Authentication failed!", "")
			return
		}
		if r.Method != http.MethodGet && r.Header.Get(csrfHeaderName) != csrf {
			writeRaw(w, 401, "Permission denied - invalid csrf token", "")
			return
		}
		h(w, r)
	})
}

func (p *ticketPVE) passwordClient(mutate ...func(*Config)) *Client {
	return p.client(append([]func(*Config){func(cfg *Config) {
		cfg.APIToken = ""
		cfg.Username = testUser
		cfg.Password = testPassword
	}}, mutate...)...)
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// W2: lazy login; cookie on every call, CSRF header on writes.
func TestW2TicketLoginAndCSRF(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, map[string]string{"version": "9.1.1"}) })
	p.handle("POST /pools", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	c := p.passwordClient()
	if p.logins() != 0 {
		t.Fatal("New must not log in")
	}
	ctx := context.Background()
	if _, err := c.Version(ctx); err != nil {
		t.Fatalf("GET with ticket: %v", err)
	}
	if err := c.CreatePool(ctx, "prod", ""); err != nil {
		t.Fatalf("POST with ticket and CSRF: %v", err)
	}
	if p.logins() != 1 {
		t.Errorf("logins = %d, want 1", p.logins())
	}
}

// W2: tickets expire after 2 hours; an old ticket is renewed first.
func TestW2TicketRenewedWhenOld(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, map[string]string{"version": "9.1.1"}) })
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c := p.passwordClient(func(cfg *Config) { cfg.Now = clock.Now })
	ctx := context.Background()

	for range 3 {
		if _, err := c.Version(ctx); err != nil {
			t.Fatal(err)
		}
	}
	clock.advance(89 * time.Minute)
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if p.logins() != 1 {
		t.Fatalf("logins = %d before the renewal age, want 1", p.logins())
	}
	clock.advance(2 * time.Minute)
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	if p.logins() != 2 {
		t.Errorf("logins = %d after 91 minutes, want 2", p.logins())
	}
}

func TestW2ConcurrentRequestsShareOneLogin(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.handle("GET /nodes", func(w http.ResponseWriter, _ *http.Request) { writeData(w, []any{}) })
	c := p.passwordClient()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Nodes(context.Background())
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if p.logins() != 1 {
		t.Errorf("logins = %d for concurrent requests, want 1", p.logins())
	}
}

// W3: a refused ticket means the handler did not run, so one re-login and
// retry is safe, for writes too.
func TestW3RejectedTicketTriggersOneRelogin(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	var writes int
	var mu sync.Mutex
	p.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, map[string]string{"version": "9.1.1"}) })
	p.handle("PUT /pools", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		writes++
		mu.Unlock()
		writeData(w, nil)
	})
	c := p.passwordClient()
	ctx := context.Background()
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	p.revokeAll()
	if _, err := c.Version(ctx); err != nil {
		t.Fatalf("GET after revocation: %v", err)
	}
	p.revokeAll()
	if err := c.UpdatePool(ctx, PoolUpdate{PoolID: "prod", VMs: []int{100}}); err != nil {
		t.Fatalf("PUT after revocation: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if p.logins() != 3 || writes != 1 {
		t.Errorf("logins = %d, writes = %d; want 3 and 1", p.logins(), writes)
	}
}

func TestW3PersistentAuthFailureReloginsOnce(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.fakePVE.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) {
		writeRaw(w, 401, "Authentication failed!", "")
	})
	c := p.passwordClient()
	_, err := c.Version(context.Background())
	if !IsAuth(err) {
		t.Fatalf("want 401, got %v", err)
	}
	if p.logins() != 2 || p.count("GET /version") != 2 {
		t.Errorf("logins = %d, hits = %d; want 2 and 2", p.logins(), p.count("GET /version"))
	}
}

func TestW3WrongPassword(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	c := p.passwordClient(func(cfg *Config) { cfg.Password = "wrong-password-value" })
	_, err := c.Version(context.Background())
	if !IsAuth(err) || !strings.Contains(err.Error(), "POST /access/ticket: 401 authentication failure") {
		t.Fatalf("want login 401, got %v", err)
	}
	if strings.Contains(err.Error(), "wrong-password-value") {
		t.Errorf("error leaks the password: %v", err)
	}
	if p.count("GET /version") != 0 {
		t.Error("the API call must not be sent without a ticket")
	}
}

func TestTicketLoginWithTFAIsRefused(t *testing.T) {
	t.Parallel()
	p := newTicketPVE(t)
	p.needTFA = true
	p.handle("GET /version", func(w http.ResponseWriter, _ *http.Request) { writeData(w, nil) })
	_, err := p.passwordClient().Version(context.Background())
	if err == nil || !strings.Contains(err.Error(), "two-factor") {
		t.Errorf("want a two-factor error, got %v", err)
	}
}

// W2: token auth is a fixed Authorization header, no cookie, no CSRF.
func TestW2TokenHeader(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	seen := make(chan [2]string, 1)
	f.handle("POST /pools", func(w http.ResponseWriter, r *http.Request) {
		seen <- [2]string{r.Header.Get("Authorization"), r.Header.Get("Cookie")}
		writeData(w, nil)
	})
	if err := f.client().CreatePool(context.Background(), "prod", "c"); err != nil {
		t.Fatal(err)
	}
	headers := <-seen
	auth, cookie := headers[0], headers[1]
	if auth != "PVEAPIToken="+testToken || cookie != "" {
		t.Errorf("Authorization %q, Cookie %q", auth, cookie)
	}
}
