package pveapi

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The pending view of a controller (pve-network src/PVE/Network/SDN.pm
// pending_config) reads as its staged values: a new one from "pending", a
// changed one with the staged values over the running ones (a staged
// removal drops the key), a deleted one as missing.
func TestGetSDNControllerPendingView(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	views := map[string]map[string]any{
		"new": {"controller": "new", "type": "evpn", "state": "new", "pending": map[string]any{"asn": 65000, "peers": "10.0.0.2,10.0.0.1"}},
		"chg": {"controller": "chg", "type": "bgp", "state": "changed", "asn": 65001, "peers": "10.0.0.1", "node": "pve1", "ebgp": 1,
			"pending": map[string]any{"asn": "65002", "ebgp": "deleted"}},
		"run": {"controller": "run", "type": "evpn", "asn": 65003, "peers": "10.0.0.9"},
		"del": {"controller": "del", "type": "evpn", "state": "deleted", "asn": 1, "peers": "10.0.0.1"},
	}
	f.handle("GET /cluster/sdn/controllers/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("pending") != "1" {
			t.Errorf("controllers are read without pending=1: %s", r.URL.RawQuery)
		}
		v, ok := views[r.PathValue("id")]
		if !ok {
			writePVEError(w, 500, "sdn '"+r.PathValue("id")+"' does not exist")
			return
		}
		writeData(w, v)
	})
	c := f.client()
	ctx := context.Background()
	for id, want := range map[string]map[string]string{
		"new": {"asn": "65000", "peers": "10.0.0.1,10.0.0.2"},
		"chg": {"asn": "65002", "peers": "10.0.0.1", "node": "pve1"},
		"run": {"asn": "65003", "peers": "10.0.0.9"},
	} {
		obj, found, err := c.GetSDNPlugin(ctx, wire.SDNControllers, id)
		if err != nil || !found {
			t.Fatalf("%s: found %v, err %v", id, found, err)
		}
		if !reflect.DeepEqual(obj.Options, want) {
			t.Errorf("%s: options %v, want %v", id, obj.Options, want)
		}
		if obj.Pending != (id != "run") {
			t.Errorf("%s: pending %v", id, obj.Pending)
		}
	}
	for _, id := range []string{"del", "gone"} {
		if _, found, err := c.GetSDNPlugin(ctx, wire.SDNControllers, id); err != nil || found {
			t.Errorf("%s: found %v, err %v", id, found, err)
		}
	}
}

// IPAMs are not staged: read plainly, with the digest guarding the update;
// the token a GET returns is never kept, and a write's token reaches
// neither the request log nor an error text, even echoed by PVE.
func TestSDNIPAMSecretNeverLeaves(t *testing.T) {
	t.Parallel()
	const secret = "nb-token-0123456789abcdef"
	f := newFakePVE(t)
	f.handle("GET /cluster/sdn/ipams/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RawQuery != "" {
			t.Errorf("ipams are read with %s", r.URL.RawQuery)
		}
		writeData(w, map[string]any{"ipam": "nb", "type": "netbox", "url": "https://nb/api", "token": secret, "digest": "abc"})
	})
	f.handle("PUT /cluster/sdn/ipams/{id}", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		if r.PostForm.Get("lock-token") != "lk" || r.PostForm.Get("digest") != "abc" {
			t.Errorf("form %v", r.PostForm)
		}
		writePVEError(w, 500, "update sdn ipam object failed: Can't connect to netbox api: token "+r.PostForm.Get("token")+" refused")
	})
	log := &capturedLog{}
	c := f.client(func(cfg *Config) { cfg.Logger = log })
	obj, found, err := c.GetSDNPlugin(context.Background(), wire.SDNIPAMs, "nb")
	if err != nil || !found {
		t.Fatal(found, err)
	}
	if _, ok := obj.Options["token"]; ok || obj.Digest != "abc" || obj.Options["url"] != "https://nb/api" {
		t.Errorf("read %+v", obj)
	}
	delta := &wire.ConfigDelta{}
	delta.Set("token", secret)
	err = c.UpdateSDNPlugin(context.Background(), wire.SDNIPAMs, "nb", "netbox", delta, obj.Digest, "lk")
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "REDACTED") {
		t.Errorf("error %v", err)
	}
	if strings.Contains(log.all(), secret) || strings.Contains(log.all(), url.QueryEscape(secret)) {
		t.Errorf("the log carries the token: %s", log.all())
	}
}

// A delete of an object already gone succeeds; the lock token travels as
// lock-token, never lock_token, and only when there is one (PVE 8.4 has
// no such parameter).
func TestDeleteSDNPlugin(t *testing.T) {
	t.Parallel()
	f := newFakePVE(t)
	var queries []string
	f.handle("DELETE /cluster/sdn/dns/{id}", func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		writePVEError(w, 500, "sdn '"+r.PathValue("id")+"' does not exist")
	})
	c := f.client()
	for _, token := range []string{"", "tok"} {
		if err := c.DeleteSDNPlugin(context.Background(), wire.SDNDNSServers, "pdns", token); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(queries, []string{"", "lock-token=tok"}) {
		t.Errorf("queries %q", queries)
	}
}

func TestRedactFormSDNSecrets(t *testing.T) {
	t.Parallel()
	r := &redactor{}
	if got, want := r.redactForm(url.Values{"ipam": {"nb"}, "token": {"a"}, "key": {"b"}}), "ipam=nb&key=REDACTED&token=REDACTED"; got != want {
		t.Errorf("redactForm = %q, want %q", got, want)
	}
}
