package pvesim

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// queryURLMetadata is GET /nodes/{node}/query-url-metadata (pve-manager
// PVE/API2/Nodes.pm query_url_metadata): a HEAD request with LWP; any
// answer but 200 fails with LWP's status line; the file name comes from
// Content-Disposition, else from the URL's last path segment; size is
// Content-Length (left out when 0 or missing), mimetype Content-Type up to
// its first ';'.
//
// The permission check is ['or', perm / [Sys.Audit, Sys.Modify] (both),
// perm /nodes/{node} [Sys.AccessNetwork]]; its failure is raise_perm_exc
// without text. Like download-url, the simulator reaches loopback hosts
// only.
func queryURLMetadata(c *call) (any, error) {
	node := c.str("node")
	if !c.can("/", false, "Sys.Audit", "Sys.Modify") && !c.can("/nodes/"+node, false, "Sys.AccessNetwork") {
		return nil, permError("")
	}
	rawURL := c.str("url")
	verify := c.str("verify-certificates") != "0"
	var resp *http.Response
	var reqErr error
	c.sim.withoutModelLock(func() {
		ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, rawURL, nil)
		if err != nil {
			reqErr = err
			return
		}
		req.Header.Set("User-Agent", "Proxmox VE")
		r, err := loopbackClient(verify).Do(req)
		if err != nil {
			reqErr = err
			return
		}
		_ = r.Body.Close()
		resp = r
	})
	if reqErr != nil {
		return nil, errorf("invalid server response: '%s'", lwpFailure(rawURL, reqErr))
	}
	if resp.StatusCode != http.StatusOK {
		return nil, errorf("invalid server response: '%s'", resp.Status)
	}
	out := map[string]any{}
	var filename string
	if m := dispositionQuoted.FindStringSubmatch(resp.Header.Get("Content-Disposition")); m != nil {
		filename = m[1]
	} else if m := dispositionBare.FindStringSubmatch(resp.Header.Get("Content-Disposition")); m != nil {
		filename = m[1]
	} else if m := urlLastSegment.FindStringSubmatch(rawURL); m != nil {
		filename = m[1]
	}
	if filename != "" {
		out["filename"] = filename
	}
	// $size + 0 if $size: Perl's numification of the header's leading
	// digits.
	length := resp.Header.Get("Content-Length")
	if length == "" && resp.ContentLength > 0 {
		length = strconv.FormatInt(resp.ContentLength, 10)
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(leadingDigits.FindString(length)), 10, 64); err == nil && n != 0 {
		out["size"] = n
	}
	mime := resp.Header.Get("Content-Type")
	if m := mimeBeforeParams.FindStringSubmatch(mime); m != nil {
		mime = m[1]
	}
	if mime != "" {
		out["mimetype"] = mime
	}
	return out, nil
}

var (
	dispositionQuoted = regexp.MustCompile(`filename="([^"]*)"`)
	dispositionBare   = regexp.MustCompile(`filename=([^;]*)`)
	urlLastSegment    = regexp.MustCompile(`^[^?]+/([^?/]*)(?:\?.*)?$`)
	mimeBeforeParams  = regexp.MustCompile(`^([^;]+);`)
	leadingDigits     = regexp.MustCompile(`^\s*\d+`)
)

// lwpFailure is the status line LWP::UserAgent makes up when it gets no
// answer: "500 Can't connect to HOST:PORT (REASON)".
// inferred: LWP::Protocol::http's wording, with the reasons of
// IO::Socket (Connection refused) and IO::Socket::SSL (certificate verify
// failed); other failures carry Go's text.
func lwpFailure(rawURL string, err error) string {
	hostport := ""
	if u, perr := url.Parse(rawURL); perr == nil {
		hostport = u.Host
		if u.Port() == "" {
			port := "80"
			if u.Scheme == "https" {
				port = "443"
			}
			hostport = net.JoinHostPort(u.Hostname(), port)
		}
	}
	reason := err.Error()
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.As(err, &certErr):
		reason = "certificate verify failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "Connection refused"
	case errors.Is(err, errNotLoopback):
		reason = "Name or service not known"
	}
	return "500 Can't connect to " + hostport + " (" + reason + ")"
}
