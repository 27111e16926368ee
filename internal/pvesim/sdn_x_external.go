package pvesim

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// The external APIs the IPAM and DNS plugins verify on every write
// (NetboxPlugin.pm, PhpIpamPlugin.pm verify_api, PowerdnsPlugin.pm
// on_update_hook), reached as pve-network src/PVE/Network/SDN.pm
// api_request does: one request with LWP, the plugin's headers, the
// certificate pinned by its SHA-256 fingerprint when one is configured.
// Like download-url, the simulator reaches loopback hosts only: a test
// stands in for NetBox, phpIPAM or PowerDNS with a local HTTP server.

// sdnxAPIRequest is SDN.pm api_request for a GET: an answer that is not a
// success fails with "Invalid response from server: CODE MESSAGE", an
// answer that is not JSON with "api response is not a json" (a die without
// newline; suffix left out). The model lock is released while the request
// runs.
func sdnxAPIRequest(c *call, rawURL string, headers map[string]string, fingerprint string) error {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil || u.Scheme == "" || u.Host == "":
		// inferred: LWP::UserAgent's answer for a relative URL.
		return errorf("Invalid response from server: 400 URL must be absolute")
	case u.Scheme != "http" && u.Scheme != "https":
		// inferred: LWP::UserAgent's answer for a scheme outside
		// protocols_allowed (http, https).
		return errorf("Invalid response from server: 501 Protocol scheme '%s' is not supported", u.Scheme)
	}
	var status string
	var body []byte
	var reqErr error
	c.sim.withoutModelLock(func() {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			reqErr = err
			return
		}
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := sdnxClient(fingerprint).Do(req)
		if err != nil {
			reqErr = err
			return
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			status = resp.Status
			return
		}
		body, reqErr = io.ReadAll(resp.Body)
	})
	switch {
	case reqErr != nil:
		return errorf("Invalid response from server: %s", lwpFailure(rawURL, reqErr))
	case status != "":
		return errorf("Invalid response from server: %s", status)
	case len(body) > 0 && !json.Valid(body):
		return errorf("api response is not a json")
	}
	return nil
}

// sdnxClient is loopbackClient with api_request's certificate check: with
// a fingerprint, the server's certificate must have exactly that SHA-256
// fingerprint (Net::SSLeay's form: upper-case hex pairs joined by colons,
// compared as strings), the host name unchecked; without one, the usual
// verification.
func sdnxClient(fingerprint string) *http.Client {
	client := loopbackClient(fingerprint == "")
	if fingerprint == "" {
		return client
	}
	tr := client.Transport.(*http.Transport)
	tr.TLSClientConfig.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) > 0 && certFingerprint(raw[0]) == fingerprint {
			return nil
		}
		return &tls.CertificateVerificationError{Err: errors.New("fingerprint mismatch")}
	}
	return client
}

func certFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}
