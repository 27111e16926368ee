package pvesim

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sdnxStandIn is a local HTTP server standing in for NetBox, phpIPAM or
// PowerDNS: it answers {} to GET path when header has the value, 403
// Forbidden otherwise.
func sdnxStandIn(t *testing.T, path, header, value string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != path || r.Header.Get(header) != value {
			http.Error(w, "nope", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) (string, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr + "/api", addr
}

// pve-network src/PVE/Network/SDN/Ipams.pm config: the built-in "pve"
// IPAM always exists, takes no option (PVEPlugin.pm options), comes back
// after a delete; other IPAMs of type pve can be added.
func TestSDNIpamBuiltin(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		e := newEnv(t, Options{PVEVersion: version})
		var list []map[string]any
		sdnxGet(t, e, "/cluster/sdn/ipams", &list)
		if len(list) != 1 || list[0]["ipam"] != "pve" || list[0]["type"] != "pve" {
			t.Fatalf("%s: list = %v", version, list)
		}
		var got map[string]any
		sdnxGet(t, e, "/cluster/sdn/ipams/pve", &got)
		sdnxWant(t, sdnxWithout(got, "digest"), `{"ipam":"pve","type":"pve"}`)
		e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "pve", "type", "pve")).
			wantStatus(t, http.StatusInternalServerError, "create sdn ipam object failed: sdn ipam object ID 'pve' already defined")
		e.call(t, http.MethodPut, "/cluster/sdn/ipams/pve", form("url", "http://x")).
			wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: unexpected property 'url'")
		e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve", "section", "1")).
			wantStatus(t, http.StatusInternalServerError, "unexpected property 'section'")
		e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve")).wantOK(t)
		e.call(t, http.MethodDelete, "/cluster/sdn/ipams/pve", nil).wantOK(t)
		list = nil
		sdnxGet(t, e, "/cluster/sdn/ipams", &list)
		if len(list) != 2 || list[0]["ipam"] != "pve" || list[1]["ipam"] != "second" {
			t.Fatalf("%s: list after delete = %v", version, list)
		}
		// Ipams.pm delete names its failure after zones.
		e.call(t, http.MethodDelete, "/cluster/sdn/ipams/nope", nil).
			wantStatus(t, http.StatusInternalServerError, "delete sdn zone object failed: sdn 'nope' does not exist")
		e.call(t, http.MethodGet, "/cluster/sdn/ipams/nope", nil).
			wantStatus(t, http.StatusInternalServerError, "sdn 'nope' does not exist")
	}
}

// pve-network src/PVE/Network/SDN/Ipams/NetboxPlugin.pm verify_api through
// on_update_hook, on create and on every update, with SDN.pm api_request's
// error texts. The token is an option of ipams.cfg and GET returns it
// (API2/Network/SDN/Ipams.pm read: the whole section).
func TestSDNIpamNetbox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	nb := sdnxStandIn(t, "/api/ipam/aggregates/", "Authorization", "token s3cret")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "nb", "type", "netbox", "url", nb.URL+"/api")).
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'token'")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "nb", "type", "netbox", "url", nb.URL+"/api", "token", "wrong")).
		wantStatus(t, http.StatusInternalServerError, "create sdn ipam object failed: Can't connect to netbox api: Invalid response from server: 403 Forbidden")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "nb", "type", "netbox", "url", nb.URL+"/api", "token", "s3cret")).wantOK(t)
	var got map[string]any
	sdnxGet(t, e, "/cluster/sdn/ipams/nb", &got)
	sdnxWant(t, sdnxWithout(got, "digest"), `{"ipam":"nb","type":"netbox","url":"`+nb.URL+`/api","token":"s3cret"}`)

	e.call(t, http.MethodPut, "/cluster/sdn/ipams/nb", form("token", "other")).
		wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: Can't connect to netbox api: Invalid response from server: 403 Forbidden")
	e.call(t, http.MethodPut, "/cluster/sdn/ipams/nb", form("delete", "token")).
		wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: unable to delete required option 'token'")
	down, addr := closedURL(t)
	e.call(t, http.MethodPut, "/cluster/sdn/ipams/nb", form("url", down)).
		wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: Can't connect to netbox api: Invalid response from server: 500 Can't connect to "+addr+" (Connection refused)")
	e.call(t, http.MethodPut, "/cluster/sdn/ipams/nb", form("url", "http://netbox.example.com/api")).
		wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: Can't connect to netbox api: Invalid response from server: 500 Can't connect to netbox.example.com:80 (Name or service not known)")
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>")) }))
	defer notJSON.Close()
	e.call(t, http.MethodPut, "/cluster/sdn/ipams/nb", form("url", notJSON.URL)).
		wantStatus(t, http.StatusInternalServerError, "update sdn ipam object failed: Can't connect to netbox api: api response is not a json")
	// A failed update changes nothing.
	got = nil
	sdnxGet(t, e, "/cluster/sdn/ipams/nb", &got)
	if got["url"] != nb.URL+"/api" || got["token"] != "s3cret" {
		t.Fatalf("after failed updates: %v", got)
	}
	e.call(t, http.MethodDelete, "/cluster/sdn/ipams/nb", nil).wantOK(t)
}

// pve-network src/PVE/Network/SDN/Ipams/PhpIpamPlugin.pm options and
// verify_api (GET URL/sections/SECTION with the Token header); the section
// is stored as a number.
func TestSDNIpamPhpIpam(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{PVEVersion: "8.4"})
	php := sdnxStandIn(t, "/api/app/sections/3", "Token", "tok")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "php", "type", "phpipam", "url", php.URL+"/api/app", "token", "tok")).
		wantStatus(t, http.StatusInternalServerError, "missing value for required option 'section'")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "php", "type", "phpipam", "url", php.URL+"/api/app", "token", "tok", "section", "4")).
		wantStatus(t, http.StatusInternalServerError, "create sdn ipam object failed: Can't connect to phpipam api: Invalid response from server: 403 Forbidden")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "php", "type", "phpipam", "url", php.URL+"/api/app", "token", "tok", "section", "3")).wantOK(t)
	var got map[string]any
	sdnxGet(t, e, "/cluster/sdn/ipams/php", &got)
	sdnxWant(t, sdnxWithout(got, "digest"), `{"ipam":"php","type":"phpipam","url":"`+php.URL+`/api/app","token":"tok","section":3}`)
	var list []map[string]any
	sdnxGet(t, e, "/cluster/sdn/ipams", &list, "type", "phpipam")
	if len(list) != 1 || list[0]["token"] != "tok" {
		t.Fatalf("list = %v", list)
	}
}

// pve-network src/PVE/Network/SDN/Dns/PowerdnsPlugin.pm options and
// on_update_hook (GET URL with X-API-Key); API2/Network/SDN/Dns.pm's
// handlers and error texts; the key is returned by GET.
func TestSDNDNSPowerdns(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "8.4"} {
		e := newEnv(t, Options{PVEVersion: version})
		pdns := sdnxStandIn(t, "/api/v1/servers/localhost", "X-API-Key", "k3y")
		url := pdns.URL + "/api/v1/servers/localhost"
		post := func(kv ...string) *answer {
			return e.call(t, http.MethodPost, "/cluster/sdn/dns", form(kv...))
		}
		post("dns", "pdns", "type", "powerdns", "url", url, "key", "k3y", "reversev6mask", "64").
			wantStatus(t, http.StatusInternalServerError, "unexpected property 'reversev6mask'")
		post("dns", "pdns", "type", "powerdns", "url", url, "key", "bad").
			wantStatus(t, http.StatusInternalServerError, "create sdn dns object failed: dns api error: Invalid response from server: 403 Forbidden")
		post("dns", "pdns", "type", "powerdns", "url", url, "key", "k3y", "ttl", "300").wantOK(t)
		var got map[string]any
		sdnxGet(t, e, "/cluster/sdn/dns/pdns", &got)
		sdnxWant(t, sdnxWithout(got, "digest"), `{"dns":"pdns","type":"powerdns","url":"`+url+`","key":"k3y","ttl":300}`)
		post("dns", "pdns", "type", "powerdns", "url", url, "key", "k3y").
			wantStatus(t, http.StatusInternalServerError, "create sdn dns object failed: sdn dns object ID 'pdns' already defined")
		e.call(t, http.MethodPut, "/cluster/sdn/dns/pdns", form("delete", "ttl", "reversemaskv6", "56")).wantOK(t)
		got = nil
		sdnxGet(t, e, "/cluster/sdn/dns/pdns", &got)
		sdnxWant(t, sdnxWithout(got, "digest"), `{"dns":"pdns","type":"powerdns","url":"`+url+`","key":"k3y","reversemaskv6":56}`)
		e.call(t, http.MethodPut, "/cluster/sdn/dns/pdns", form("delete", "key")).
			wantStatus(t, http.StatusInternalServerError, "update sdn dns object failed: unable to delete required option 'key'")
		e.call(t, http.MethodDelete, "/cluster/sdn/dns/pdns", nil).wantOK(t)
		e.call(t, http.MethodDelete, "/cluster/sdn/dns/pdns", nil).
			wantStatus(t, http.StatusInternalServerError, "delete sdn dns object failed: sdn 'pdns' does not exist")
	}
}

// pve-network src/PVE/Network/SDN.pm api_request: with a fingerprint the
// server's certificate must have exactly that SHA-256 fingerprint (in
// Net::SSLeay's upper-case form); without one the certificate must verify.
func TestSDNDNSFingerprint(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`[]`)) }))
	defer srv.Close()
	fp := certFingerprint(srv.Certificate().Raw)
	host := strings.TrimPrefix(srv.URL, "https://")
	post := func(kv ...string) *answer {
		return e.call(t, http.MethodPost, "/cluster/sdn/dns", form(append([]string{"type", "powerdns", "url", srv.URL, "key", "k"}, kv...)...))
	}
	post("dns", "aa").wantStatus(t, http.StatusInternalServerError,
		"create sdn dns object failed: dns api error: Invalid response from server: 500 Can't connect to "+host+" (certificate verify failed)")
	post("dns", "aa", "fingerprint", strings.ToLower(fp)).wantStatus(t, http.StatusInternalServerError,
		"create sdn dns object failed: dns api error: Invalid response from server: 500 Can't connect to "+host+" (certificate verify failed)")
	post("dns", "aa", "fingerprint", fp).wantOK(t)
}

// pve-network src/PVE/Network/SDN.pm lock_sdn_config: IPAM and DNS writes
// take the SDN lock too (PVE 9); PVE 8.4 has no lock-token parameter.
func TestSDNIpamDNSLockToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sdnxModel(e, func(sd *SDNState) { sd.LockToken = "tok" })
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve")).
		wantStatus(t, http.StatusInternalServerError, "create sdn ipam object failed: invalid lock token provided!")
	e.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve", "lock-token", "tok")).wantOK(t)
	e.call(t, http.MethodDelete, "/cluster/sdn/ipams/second", nil).
		wantStatus(t, http.StatusInternalServerError, "delete sdn zone object failed: invalid lock token provided!")
	e.call(t, http.MethodPut, "/cluster/sdn/dns/xx", form("ttl", "1")).
		wantStatus(t, http.StatusInternalServerError, "update sdn dns object failed: invalid lock token provided!")
	old := newEnv(t, Options{PVEVersion: "8.4"})
	a := old.call(t, http.MethodPost, "/cluster/sdn/ipams", form("ipam", "second", "type", "pve", "lock-token", "tok"))
	a.wantStatus(t, http.StatusBadRequest, "Parameter verification failed.")
}

// pve-network src/PVE/API2/Network/SDN/Ipams.pm ipamindex: the built-in
// IPAM's addresses of running zones with the "pve" IPAM and DHCP, under
// their vnet; other IPAMs are refused.
func TestSDNIpamStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.call(t, http.MethodPost, "/cluster/sdn/zones", form("zone", "lab", "type", "simple", "ipam", "pve", "dhcp", "dnsmasq")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets", form("vnet", "web", "zone", "lab")).wantOK(t)
	e.call(t, http.MethodPost, "/cluster/sdn/vnets/web/subnets", form("subnet", "10.7.0.0/24", "type", "subnet", "gateway", "10.7.0.1")).wantOK(t)
	// Nothing is running yet.
	if l := sdnList(t, e, "/cluster/sdn/ipams/pve/status"); len(l) != 0 {
		t.Fatalf("status before apply = %v", l)
	}
	if st := sdnApply(t, e); st != "OK" {
		t.Fatalf("apply = %s", st)
	}
	l := sdnList(t, e, "/cluster/sdn/ipams/pve/status")
	if len(l) != 1 {
		t.Fatalf("status = %v", l)
	}
	sdnxWant(t, l[0], `{"zone":"lab","subnet":"10.7.0.0/24","ip":"10.7.0.1","vnet":"web","gateway":1}`)
	wantSDNError(t, e.call(t, http.MethodGet, "/cluster/sdn/ipams/other/status", nil), "Currently only PVE IPAM is supported!")
}
