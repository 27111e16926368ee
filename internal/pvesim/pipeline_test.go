package pvesim

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// W6: a top-level boolean accepts only 1/0 in a form body.
func TestW6BooleanTrueRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)

	a := e.call(t, http.MethodPut, "/pools", form("poolid", "p1", "delete", "true"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if got := a.errors["delete"]; got != "type check ('boolean') failed - got 'true'" {
		t.Errorf("errors[delete] = %q", got)
	}
	if a.message != "Parameter verification failed.\n" || string(a.data) != "null" {
		t.Errorf("body = %s", a.body)
	}
	e.call(t, http.MethodPut, "/pools", form("poolid", "p1", "delete", "1")).wantOK(t)
}

// W6: in a JSON body, true/false are booleans PVE accepts.
func TestW6JSONBooleansAccepted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/pools", form("poolid", "p1")).wantOK(t)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPut, e.srv.URL+apiPrefix+"/pools",
		strings.NewReader(`{"poolid":"p1","delete":true,"comment":"via json"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	e.auth(req)
	e.send(t, req).wantOK(t)
	if p, _ := e.sim.Pool("p1"); p.Comment != "via json" {
		t.Errorf("comment = %q", p.Comment)
	}
}

// W7: a parameter the schema does not define is refused.
func TestW7UnknownParameterRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodPost, "/pools", form("poolid", "p1", "color", "red"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	want := "property is not defined in schema and the schema does not allow additional properties"
	if a.errors["color"] != want {
		t.Errorf("errors = %v", a.errors)
	}
	if _, ok := e.sim.Pool("p1"); ok {
		t.Error("refused request created the pool")
	}
}

// W4: a handler error is a 500 whose reason phrase is the message's first
// line; the body is {"data":null,"message":"...\n"}; the connection closes.
func TestW4MissingPoolErrorShape(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/pools", form("poolid", "nope"))
	a.wantStatus(t, http.StatusInternalServerError, "pool 'nope' does not exist")
	if string(a.body) != `{"data":null,"message":"pool 'nope' does not exist\n"}` {
		t.Errorf("body = %s", a.body)
	}
	if !a.closed {
		t.Error("connection not closed after an error")
	}
	if a.header.Get("Content-Type") != jsonContentType {
		t.Errorf("content type %q", a.header.Get("Content-Type"))
	}
}

// W5: success bodies are wrapped in "data".
func TestW5SuccessIsWrapped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/version", nil)
	a.wantOK(t)
	var v struct{ Version, Release, Repoid string }
	a.decode(t, &v)
	if !strings.HasPrefix(v.Version, "9.1.") || v.Release != "9.1" || len(v.Repoid) < 8 {
		t.Errorf("version = %+v", v)
	}
}

func TestTransportLevelRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})

	e.call(t, http.MethodPatch, "/version", nil).wantStatus(t, http.StatusNotImplemented, "method 'PATCH' not available")

	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, e.srv.URL+"/api2/json/version", strings.NewReader("x=1"))
	if err != nil {
		t.Fatal(err)
	}
	e.auth(req)
	e.send(t, req).wantStatus(t, http.StatusNotImplemented, "Unexpected content for method 'GET'")

	req, err = http.NewRequestWithContext(context.Background(), http.MethodGet, e.srv.URL+"/something", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.auth(req)
	a := e.send(t, req)
	a.wantStatus(t, http.StatusNotImplemented, "no such uri")
	// pve-http-server src/PVE/APIServer/AnyEvent.pm error (5.2.0, PVE 8.4):
	// the text is the body too, without a Content-Type; an unknown method
	// (process_request) has no body.
	if string(a.body) != "no such uri" || a.header.Get("Content-Type") != "" {
		t.Errorf("no such uri: body %q, Content-Type %q", a.body, a.header.Get("Content-Type"))
	}
	if b := e.call(t, http.MethodPatch, "/version", nil).body; len(b) != 0 {
		t.Errorf("unknown method: body %q", b)
	}

	// A body of unknown length goes out chunked, which pveproxy refuses.
	req, err = http.NewRequestWithContext(context.Background(), http.MethodPost, e.srv.URL+"/api2/json/pools",
		io.MultiReader(strings.NewReader("poolid=p1")))
	if err != nil {
		t.Fatal(err)
	}
	e.auth(req)
	e.send(t, req).wantStatus(t, http.StatusNotImplemented, "chunked transfer encoding not supported")

	e.call(t, http.MethodPost, "/pools", form("poolid", "p1"), withHeader("Content-Type", "text/plain")).
		wantStatus(t, http.StatusVariantAlsoNegotiates, "upload 'Content-Type 'text/plain' not implemented")
}

// A path or method PVE has but the simulator does not implement, and a path
// PVE does not have, answer the same 501 with a JSON body: pve-manager
// PVE/HTTPServer.pm rest_handler answers "Method '$method $rel_uri' not
// implemented" (status HTTP_NOT_IMPLEMENTED) when find_handler finds no
// handler for the method and path, after pveproxy's authentication
// (pve-http-server src/PVE/APIServer/AnyEvent.pm handle_api2_request); the
// JSON formatter (Formatter/Standard.pm) puts the message beside a null
// data.
func TestNotImplemented(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/no/such/path", nil)
	a.wantStatus(t, http.StatusNotImplemented, "Method 'GET /no/such/path' not implemented")
	if a.message != "Method 'GET /no/such/path' not implemented" {
		t.Errorf("message = %q", a.message)
	}
	e.call(t, http.MethodPost, "/version", nil).wantStatus(t, http.StatusNotImplemented, "Method 'POST /version' not implemented")
	// Authentication comes first.
	e.call(t, http.MethodGet, "/no/such/path", nil, withoutAuth).wantStatus(t, http.StatusUnauthorized, "No ticket")
}

func TestDuplicatePathParameter(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	a := e.call(t, http.MethodGet, "/nodes/pve1/status", form("node", "pve2"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
	if a.errors["node"] != "duplicate parameter (already defined in URI) with conflicting values!" {
		t.Errorf("errors = %v", a.errors)
	}
	e.call(t, http.MethodGet, "/nodes/pve1/status", form("node", "pve1")).wantOK(t)
}

// A query parameter replaces the body parameter of the same name, as in
// pveproxy's extract_params.
func TestQueryOverridesBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost,
		e.srv.URL+apiPrefix+"/pools?comment=from-query", strings.NewReader("poolid=p1&comment=from-body"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", formType)
	e.auth(req)
	e.send(t, req).wantOK(t)
	if p, _ := e.sim.Pool("p1"); p.Comment != "from-query" {
		t.Errorf("comment = %q", p.Comment)
	}
}

func TestDecodeURLEncoded(t *testing.T) {
	t.Parallel()
	// A pair without a value sets the key to undef, dropping the values
	// before it (g); a value after it starts afresh (h).
	got := decodeURLEncoded("a=1&b=x+y;c=%41%zz&d=&e&f=1=2&a=2&g=1&g&h=1&h=&h=3")
	want := map[string][]string{"a": {"1", "2"}, "b": {"x y"}, "c": {"A%zz"}, "f": {"1"}, "h": {"3"}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if strings.Join(got[k], "|") != strings.Join(v, "|") {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
}

// Without a hijackable connection (a recorder) errors still have PVE's
// status and body, only the reason phrase is Go's.
func TestHandlerWithRecorder(t *testing.T) {
	t.Parallel()
	sim, err := New(Options{Tokens: []string{testToken}})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/api2/json/pools?poolid=nope", nil)
	req.Header.Set("Authorization", "PVEAPIToken="+testToken)
	rec := httptest.NewRecorder()
	sim.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || !bytes.Contains(rec.Body.Bytes(), []byte("pool 'nope' does not exist")) {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
}

// Large answers are gzip-compressed for clients that accept it, as
// pveproxy does; Go's client decompresses transparently.
func TestLargeAnswerCompressed(t *testing.T) {
	t.Parallel()
	sim, err := New(Options{Tokens: []string{testToken}})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/api2/json/cluster/resources", nil)
	req.Header.Set("Authorization", "PVEAPIToken="+testToken)
	req.Header.Set("Accept-Encoding", "gzip")
	rec := httptest.NewRecorder()
	sim.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("got %d, encoding %q", rec.Code, rec.Header().Get("Content-Encoding"))
	}
}

// A form key sent twice is an array, as a JSON array is
// (pve-http-server src/PVE/APIServer/AnyEvent.pm decode_urlencoded): a
// string parameter with a "-list" format takes it joined with commas
// (pve-common src/PVE/RESTHandler.pm normalize_legacy_param_formats), any
// other scalar parameter refuses it (src/PVE/JSONSchema.pm check_type).
func TestRepeatedFormKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/storage", form("storage", "rep", "type", "dir", "path", "/srv/rep",
		"content", "iso", "content", "backup", "nodes", "pve1", "nodes", "pve2")).wantOK(t)
	var cfg map[string]any
	e.call(t, http.MethodGet, "/storage/rep", nil).decode(t, &cfg)
	if cfg["content"] != "backup,iso" || cfg["nodes"] != "pve1,pve2" {
		t.Errorf("config = %s", jsonText(cfg))
	}
	a := e.call(t, http.MethodPost, "/storage", form("storage", "rep2", "type", "dir", "path", "/srv/a", "path", "/srv/b"))
	if a.status != http.StatusBadRequest || a.errors["path"] != "type check ('string') failed - got ARRAY" {
		t.Errorf("repeated path: %d %v", a.status, a.errors)
	}
	// The same in the query string of a GET.
	a = e.call(t, http.MethodGet, "/nodes/pve1/storage?storage=local&storage=rep", nil)
	if a.status != http.StatusBadRequest || a.errors["storage"] != "type check ('string') failed - got ARRAY" {
		t.Errorf("repeated storage filter: %d %v", a.status, a.errors)
	}
}
