package pveapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Retry rules (DESIGN.md "Retries"):
//   - GET retries on connection errors (an attempt that ran out of the
//     request timeout, deadline.go, included) and on 502, 503, 504 and
//     PVE's proxy statuses 595 (no route / connection refused to the
//     node), 596 (broken pipe / timeout between nodes) and 599.
//   - POST, PUT and DELETE retry only when the request provably never
//     reached PVE: no request header was handed to the connection (dial,
//     DNS and TLS handshake failures). After that, a lost answer may hide an
//     executed write, so the caller inspects state instead (W13).
//   - Every method retries a 500 "can't lock file '<guest config lock>' -
//     got timeout" (W10): the handler gave up waiting for the guest's flock
//     before it changed anything, and the operation holding it ends soon.
//   - Every method retries a 500 "...: cfs-lock 'LOCKID' error: got lock
//     request timeout": the handler waited for a cluster file system lock
//     (user.cfg for users, groups, roles and ACL entries; storage.cfg;
//     domains.cfg) and gave up before its code ran (pve-cluster
//     src/PVE/Cluster.pm $cfs_lock reports the wait with that text, and
//     a failure of the code itself without it). Many access control
//     writes of one apply queue on user.cfg's lock.
//   - Nothing is retried after the context ends, and never on a certificate
//     error, which a retry cannot fix.

var retryableGetStatus = map[int]bool{
	http.StatusBadGateway:         true,
	http.StatusServiceUnavailable: true,
	http.StatusGatewayTimeout:     true,
	595:                           true,
	596:                           true,
	599:                           true,
}

func retryPolicy(method string) retryablehttp.CheckRetry {
	idempotent := method == http.MethodGet || method == http.MethodHead
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return false, ctxErr
		}
		if err != nil {
			if isPermanentTransportError(err) {
				return false, nil
			}
			return idempotent || requestNotSent(err), nil
		}
		if isGuestLockTimeout(resp.StatusCode, resp.Status) || isClusterLockTimeout(resp.StatusCode, resp.Status) {
			return true, nil
		}
		return idempotent && retryableGetStatus[resp.StatusCode], nil
	}
}

// requestNotSent reports an attempt that failed before PVE could have
// received a complete request.
func requestNotSent(err error) bool {
	var notSent *notSentError
	if errors.As(err, &notSent) {
		return true
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) && opErr.Op == "dial"
}

func isPermanentTransportError(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
	)
	if errors.As(err, &unknownAuthority) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verification) {
		return true
	}
	text := err.Error()
	return strings.Contains(text, "unsupported protocol scheme") ||
		strings.Contains(text, "invalid header field")
}

// backoff is capped exponential backoff with jitter: attempt n waits a
// random time in [d/2, d] where d = min(max, min*2^n).
func backoff(minWait, maxWait time.Duration, attempt int, _ *http.Response) time.Duration {
	wait := maxWait
	if attempt < 30 {
		if d := minWait << attempt; d > 0 && d < maxWait {
			wait = d
		}
	}
	half := wait / 2
	return half + rand.N(half+1)
}

// notSentError marks a transport error raised before any request header was
// written to the connection.
type notSentError struct{ err error }

func (e *notSentError) Error() string { return e.err.Error() + " (request not sent)" }
func (e *notSentError) Unwrap() error { return e.err }

type attemptCounterKey struct{}

func withAttemptCounter(ctx context.Context) context.Context {
	return context.WithValue(ctx, attemptCounterKey{}, new(atomic.Int32))
}

func nextAttempt(ctx context.Context) int {
	if counter, ok := ctx.Value(attemptCounterKey{}).(*atomic.Int32); ok {
		return int(counter.Add(1))
	}
	return 0
}

// attemptTransport wraps every attempt: it records through httptrace
// whether the request headers were written (the reliable "was anything
// sent" signal) and logs the attempt.
type attemptTransport struct {
	next   http.RoundTripper
	client *Client
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var wrote atomic.Bool
	deadline, ctx := newAttemptDeadline(req.Context(), t.client.timeout)
	trace := &httptrace.ClientTrace{
		WroteHeaders: func() { wrote.Store(true) },
		WroteRequest: func(httptrace.WroteRequestInfo) { deadline.bodySent() },
	}
	traced := req.WithContext(httptrace.WithClientTrace(ctx, trace))
	attempt := nextAttempt(req.Context())
	started := time.Now()

	resp, err := deadline.bound(t.next.RoundTrip(traced))
	if err != nil && !wrote.Load() {
		err = &notSentError{err: err}
	}
	t.log(req, attempt, started, resp, err)
	return resp, err
}

// CloseIdleConnections forwards to the wrapped transport, so that
// http.Client.CloseIdleConnections keeps working through the wrapper.
func (t *attemptTransport) CloseIdleConnections() {
	if closer, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		closer.CloseIdleConnections()
	}
}

func (t *attemptTransport) log(req *http.Request, attempt int, started time.Time, resp *http.Response, err error) {
	if t.client.logger == nil {
		return
	}
	fields := map[string]any{
		"method":      req.Method,
		"path":        strings.TrimPrefix(req.URL.Path, apiPrefix),
		"attempt":     attempt,
		"duration_ms": time.Since(started).Milliseconds(),
	}
	if resp != nil {
		fields["status"] = resp.StatusCode
	}
	if err != nil {
		fields["error"] = t.client.redactor.redact(err.Error())
	}
	t.client.logger.Trace(req.Context(), "PVE API attempt", fields)
}
