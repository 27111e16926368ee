package pvesim

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

const (
	jsonContentType = "application/json;charset=UTF-8"
	serverName      = "pve-api-daemon/3.0"
	// gzipThreshold is pveproxy's: bodies over 1 KiB are compressed when
	// the client accepts gzip.
	gzipThreshold = 1024
)

// reply is a finished answer, before it is written.
type reply struct {
	status int
	reason string // HTTP reason phrase; "" for the standard one
	body   []byte // nil: no body at all (401s, an unknown method)
	// plain marks a body that is not JSON: pveproxy's error() text, sent
	// without a Content-Type.
	plain bool
}

// bareReply is an answer of pveproxy itself that carries no content: the
// text is only in the reason phrase (pve-http-server
// src/PVE/APIServer/AnyEvent.pm: auth failures in handle_request, an
// unknown method in process_request).
func bareReply(status int, message string) reply {
	return reply{status: status, reason: message}
}

// proxyError is pveproxy's own error(): since libpve-http-server-perl 5.2.0
// (PVE 8.4) the text is also the body, without a Content-Type
// (pve-http-server src/PVE/APIServer/AnyEvent.pm error, commit 9b59e1f).
func proxyError(status int, message string) reply {
	return reply{status: status, reason: message, body: []byte(message), plain: true}
}

// errorReply is a rest_handler error through the JSON formatter (W4):
// reason phrase = first line of the message; body {"data":null,
// "message":..., "errors":...}.
func errorReply(e *apiError) reply {
	body := map[string]any{"data": nil, "message": e.message}
	if len(e.params) > 0 {
		body["errors"] = e.params
	}
	return reply{status: e.status, reason: e.message, body: encodeJSON(body)}
}

// dataReply is a success: {"data": ...} (W5), with the "total" attribute
// for paged lists.
func dataReply(data any, total *int) reply {
	body := map[string]any{"data": data}
	if total != nil && *total != 0 {
		body["total"] = *total
	}
	return reply{status: http.StatusOK, body: encodeJSON(body)}
}

func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("pvesim: encode answer: %v", err))
	}
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// reasonPhrase is what pveproxy puts in the status line: the message's first
// line, or the standard text. A phrase with a CR would break the status
// line; pveproxy turns that into a plain 400.
func reasonPhrase(rep *reply) string {
	msg := rep.reason
	if msg == "" {
		return http.StatusText(rep.status)
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if strings.ContainsRune(msg, '\r') {
		rep.status = http.StatusBadRequest
		rep.body = nil
		return http.StatusText(http.StatusBadRequest)
	}
	return msg
}

// send writes the reply. Errors (>= 400) carry PVE's own reason phrase and
// close the connection as pveproxy does; Go's ResponseWriter cannot set a
// reason phrase, so those are written on the hijacked connection.
func (s *Sim) send(w http.ResponseWriter, r *http.Request, rep reply) {
	reason := reasonPhrase(&rep)
	if rep.status >= http.StatusBadRequest {
		if s.sendRaw(w, r, rep, reason) {
			return
		}
	}
	h := w.Header()
	s.commonHeaders(h)
	body := rep.body
	if body != nil && !rep.plain {
		h.Set("Content-Type", jsonContentType)
		if rep.status < http.StatusBadRequest && len(body) > gzipThreshold &&
			strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			body = gzipBytes(body)
			h.Set("Content-Encoding", "gzip")
		}
	}
	if rep.status >= http.StatusBadRequest {
		h.Set("Connection", "close")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rep.status)
	_, _ = w.Write(body)
}

func (s *Sim) commonHeaders(h http.Header) {
	date := s.now().UTC().Format(http.TimeFormat)
	h.Set("Date", date)
	h.Set("Expires", date)
	h.Set("Cache-Control", "max-age=0")
	h.Set("Pragma", "no-cache")
	h.Set("Server", serverName)
}

func (s *Sim) sendRaw(w http.ResponseWriter, r *http.Request, rep reply, reason string) bool {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return false
	}
	drainBody(r)
	conn, buf, err := hj.Hijack()
	if err != nil {
		return false
	}
	defer func() { _ = conn.Close() }()

	proto := r.Proto
	if !strings.HasPrefix(proto, "HTTP/1.") {
		proto = "HTTP/1.1"
	}
	h := http.Header{}
	s.commonHeaders(h)
	if rep.body != nil {
		if !rep.plain {
			h.Set("Content-Type", jsonContentType)
		}
		h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	}
	h.Set("Connection", "close")
	writeRaw(buf, proto, rep.status, reason, h, rep.body)
	return true
}

func writeRaw(buf *bufio.ReadWriter, proto string, status int, reason string, h http.Header, body []byte) {
	_, _ = fmt.Fprintf(buf, "%s %d %s\r\n", proto, status, reason)
	_ = h.Write(buf)
	_, _ = buf.WriteString("\r\n")
	_, _ = buf.Write(body)
	_ = buf.Flush()
}

// dropConnection closes the client connection without an answer.
func dropConnection(w http.ResponseWriter, r *http.Request) {
	drainBody(r)
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// stallAnswer is FaultStall: headers and the start of a body, then
// silence until the client or the server closes the connection.
func stallAnswer(w http.ResponseWriter, r *http.Request) {
	drainBody(r)
	const begun = `{"data":`
	w.Header().Set("Content-Type", jsonContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(begun)+64))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, begun)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	<-r.Context().Done()
}

// drainBody reads what is left of a request body (bounded), so closing the
// connection does not reset it under a client still writing.
func drainBody(r *http.Request) {
	if r.Body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
	}
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}
