package pvesim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/proxops/terraform-provider-pve/internal/pvesim/schema"
)

const (
	apiPrefix = "/api2/json"
	// maxPostBytes is pveproxy's $limit_max_post for form and JSON bodies.
	maxPostBytes = 64 * 1024
)

// apiPath splits "/api2/json/rest" into "/rest"; ok is false for any other
// prefix.
func apiPath(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, apiPrefix)
	if !ok {
		return "", false
	}
	if rest == "" {
		return "/", true
	}
	if !strings.HasPrefix(rest, "/") {
		return "", false
	}
	return rest, true
}

// serve is the whole request pipeline: count and log, latency, faults,
// then PVE's own order of checks (process).
func (s *Sim) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rel, inAPI := apiPath(r.URL.Path)
	var m *schema.Method
	var vars map[string]string
	if inAPI {
		// The schema splits the still escaped path, so an escaped '/' in a
		// volume id stays inside its segment.
		escaped, _ := apiPath(r.URL.EscapedPath())
		m, vars, _ = s.pve.api.Lookup(r.Method, escaped)
	}
	rec := RequestRecord{Method: r.Method, Path: rel}
	if !inAPI {
		rec.Path = r.URL.Path
	}
	if m != nil {
		rec.Template = m.Path()
	}
	key := rec.Template
	if key == "" {
		key = rec.Path
	}
	s.countRequest(r.Method, key)
	// The request is recorded before its answer (or the dropped connection)
	// reaches the client: a client that looks at the record right after it
	// saw the answer must find it.
	recorded := false
	finish := func() {
		if recorded {
			return
		}
		recorded = true
		rec.Duration = time.Since(start)
		s.record(rec)
	}
	defer finish()

	if d := s.latencyFor(r.Method, rec.Path, rec.Template); d > 0 {
		sleepCtx(r, d)
	}
	fault := s.pickFault(r.Method, rec.Path, rec.Template)
	if fault != nil {
		switch fault.Action {
		case FaultDropBefore:
			rec.Dropped = true
			finish()
			dropConnection(w, r)
			return
		case FaultStall:
			rec.Status = http.StatusOK
			finish()
			stallAnswer(w, r)
			return
		case FaultRespond:
			rep := errorReply(&apiError{status: fault.Status, message: fault.Message + "\n"})
			rec.Status = rep.status
			finish()
			s.send(w, r, rep)
			return
		}
	}

	rep := s.process(r, rel, inAPI, m, vars, &rec)

	if fault != nil && fault.Action == FaultDropAfter {
		rec.Dropped = true
		finish()
		dropConnection(w, r)
		return
	}
	if fault != nil && fault.Action == FaultRespondAfter {
		rep = errorReply(&apiError{status: fault.Status, message: fault.Message + "\n"})
	}
	if rep.status == http.StatusUnauthorized && s.opts.AuthFailureDelay > 0 {
		sleepCtx(r, s.opts.AuthFailureDelay)
	}
	rec.Status = rep.status
	finish()
	s.send(w, r, rep)
}

func sleepCtx(r *http.Request, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
}

// process runs PVE's checks in PVE's order: pveproxy's header checks, auth,
// body limits, then rest_handler's routing, duplicate path parameters, token
// and permission checks, node proxying, schema validation and the handler.
// The pveproxy texts are pve-http-server src/PVE/APIServer/AnyEvent.pm
// (process_request, unshift_read_header, handle_request, error).
func (s *Sim) process(r *http.Request, rel string, inAPI bool, m *schema.Method, vars map[string]string, rec *RequestRecord) reply {
	if !methodAllowed(r.Method) {
		return bareReply(http.StatusNotImplemented, fmt.Sprintf("method '%s' not available", r.Method))
	}
	if te := r.TransferEncoding; len(te) > 0 {
		if strings.EqualFold(te[0], "chunked") {
			return proxyError(http.StatusNotImplemented, "chunked transfer encoding not supported")
		}
		return proxyError(http.StatusNotImplemented, fmt.Sprintf("Unknown transfer encoding '%s'", te[0]))
	}
	if !inAPI {
		return proxyError(http.StatusNotImplemented, "no such uri")
	}

	var rt *route
	if m != nil {
		rt = s.routes[r.Method+" "+m.Path()]
	}
	cr := extractCredentials(r)
	user, err := s.authenticate(cr, r.Method, rt != nil && rt.public)
	if err != nil {
		ae := asAPIError(err)
		return bareReply(ae.status, ae.message)
	}
	rec.User = user.String()

	// Uploads stream to a temporary file: neither the form size limit nor
	// the form content types apply to them (storage_upload.go).
	if r.ContentLength > 0 && rt != nil && isUpload(r.Method, m) {
		return s.receiveUpload(r, rel, m, rt, vars, user, cr.apiToken != "", rec)
	}
	if r.ContentLength > 0 {
		if r.Method != http.MethodPut && r.Method != http.MethodPost {
			return proxyError(http.StatusNotImplemented, fmt.Sprintf("Unexpected content for method '%s'", r.Method))
		}
		if r.ContentLength > maxPostBytes {
			return proxyError(http.StatusNotImplemented, "for data too large")
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			if mt := mediaType(ct); mt != formType && mt != jsonType {
				return proxyError(http.StatusVariantAlsoNegotiates, fmt.Sprintf("upload 'Content-Type '%s' not implemented", ct))
			}
		}
	}
	params, err := readParams(r)
	if err != nil {
		ae := asAPIError(err)
		if len(ae.params) == 0 {
			// pve-http-server src/PVE/APIServer/AnyEvent.pm
			// handle_api2_request: extract_params dies inside the eval
			// that answers with error(500, $err).
			return proxyError(ae.status, strings.TrimSuffix(ae.message, "\n"))
		}
		return errorReply(ae)
	}
	rec.Params = redactParams(params)
	delete(params, "_dc")

	if m == nil || rt == nil {
		return errorReply(&apiError{
			status:  http.StatusNotImplemented,
			message: fmt.Sprintf("Method '%s %s' not implemented", r.Method, rel),
		})
	}
	return s.dispatch(rel, m, rt, vars, params, user, cr.apiToken != "")
}

// pve-manager PVE/HTTPServer.pm rest_handler: duplicate path parameters,
// the API token restriction, check_api2_permissions, proxyto, then
// pve-common src/PVE/JSONSchema.pm validate and the handler.
//
// A key with several values is an array, from a JSON body or a form key
// sent twice alike (schema.Method.Validate): an array parameter (a
// mapping's "map") takes it as its list.
func (s *Sim) dispatch(rel string, m *schema.Method, rt *route, vars map[string]string,
	params map[string][]string, user identity, viaToken bool,
) reply {
	dup := map[string]string{}
	for k, v := range vars {
		if got, ok := params[k]; ok && strings.Join(got, "\x00") != v {
			dup[k] = "duplicate parameter (already defined in URI) with conflicting values!"
		}
	}
	if len(dup) > 0 {
		return errorReply(asAPIError(paramError(dup)))
	}
	for k, v := range vars {
		params[k] = []string{v}
	}
	if !m.AllowToken() && viaToken {
		return errorReply(asAPIError(permError(fmt.Sprintf("URI '%s' not available with API token, need proper ticket.\n", rel))))
	}
	flat := make(map[string]string, len(params))
	for k, v := range params {
		flat[k] = m.JoinedValue(k, v)
	}
	// pve-access-control src/PVE/RPCEnvironment.pm check_api2_permissions:
	// check_any names every privilege, check the first one missing.
	if p := rt.perm; p.path != "" {
		s.mu.Lock()
		err := (&call{sim: s, user: user}).checkRoute(p, flat)
		s.mu.Unlock()
		if err != nil {
			return errorReply(asAPIError(err))
		}
	}
	// check_api2_permissions: root@pam passes every check unseen.
	if rt.check != nil && user.String() != rootUser {
		s.mu.Lock()
		err := rt.check(&call{sim: s, cluster: s.cluster, user: user, method: m, params: flat})
		s.mu.Unlock()
		if err != nil {
			return errorReply(asAPIError(err))
		}
	}
	if param := m.ProxyTo(); param != "" {
		if err := s.resolveNode(flat[param]); err != nil {
			return errorReply(asAPIError(err))
		}
	}
	if errs := m.Validate(params); len(errs) > 0 {
		return errorReply(asAPIError(paramError(errs)))
	}

	c := &call{sim: s, user: user, method: m, params: flat}
	if rt.configLock {
		// The handler runs under the guest's config flock, which a worker
		// may hold: wait for it as lock_config does.
		if err := s.waitFlock(rel); err != nil {
			return errorReply(asAPIError(err))
		}
	} else {
		s.mu.Lock()
		s.settleTasksLocked()
	}
	c.cluster = s.cluster
	// The HA manager's rounds due now run before the handler (ha_manager.go).
	s.haTickLocked()
	data, err := s.handleArmed(c, rt, m, rel)
	s.mu.Unlock()
	if err != nil {
		return errorReply(asAPIError(err))
	}
	return dataReply(data, c.total)
}

// resolveNode is what pveproxy does before forwarding to another node: a
// name that is not a cluster member fails the host lookup.
func (s *Sim) resolveNode(node string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cluster.Node(node) != nil {
		return nil
	}
	// pve-common src/PVE/Network.pm get_ip_from_hostname ("hostname lookup
	// failed"); inferred: the rest is getaddrinfo's text (glibc).
	return errorf("hostname lookup '%s' failed - failed to get address info for: %s: Name or service not known", node, node)
}

const (
	formType = "application/x-www-form-urlencoded"
	jsonType = "application/json"
)

// mediaType is parse_content_type: the part before the first ';' or ','.
func mediaType(ct string) string {
	if i := strings.IndexAny(ct, ";,"); i >= 0 {
		ct = ct[:i]
	}
	return strings.TrimSpace(ct)
}

// readParams merges body and query parameters like pveproxy's
// extract_params: a query parameter replaces a body parameter of the same
// name.
func readParams(r *http.Request) (map[string][]string, error) {
	params := map[string][]string{}
	if (r.Method == http.MethodPost || r.Method == http.MethodPut) && r.ContentLength > 0 {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPostBytes+1))
		if err != nil {
			// not simulated: a body that cannot be read (the client broke off)
			return nil, statusError(http.StatusInternalServerError, "unable to read request body - %v", err)
		}
		if mediaType(r.Header.Get("Content-Type")) == jsonType {
			params, err = decodeJSONParams(body)
			if err != nil {
				return nil, err
			}
		} else {
			params = decodeURLEncoded(string(body))
		}
	}
	for k, v := range decodeURLEncoded(r.URL.RawQuery) {
		params[k] = v
	}
	return params, nil
}

// decodeURLEncoded is pveproxy's decode_urlencoded: pairs split at '&' or
// ';', key and value split at '=' where only the first two fields count,
// '+' is a space, %XX is decoded, and a pair without a value sets the
// parameter to undef: not given, and values of the same key before it are
// dropped (a later value starts afresh). A key given several times
// collects its values (an array reference in PVE; see
// schema.Method.Validate).
// pve-http-server src/PVE/APIServer/AnyEvent.pm decode_urlencoded
func decodeURLEncoded(data string) map[string][]string {
	out := map[string][]string{}
	if data == "" {
		return out
	}
	for _, kv := range strings.FieldsFunc(data, func(r rune) bool { return r == '&' || r == ';' }) {
		fields := strings.Split(kv, "=")
		k := formUnescape(fields[0])
		if len(fields) < 2 || fields[1] == "" {
			delete(out, k)
			continue
		}
		v := formUnescape(fields[1])
		if !utf8.ValidString(v) {
			v = strings.ToValidUTF8(v, "\uFFFD")
		}
		out[k] = append(out[k], v)
	}
	return out
}

func formUnescape(s string) string {
	return uriUnescape(strings.ReplaceAll(s, "+", " "))
}

// decodeJSONParams reads a JSON object body. JSON booleans become 1/0 (PVE
// accepts true/false only in JSON bodies, W6), numbers their decimal text,
// arrays repeated values, null an absent parameter.
func decodeJSONParams(body []byte) (map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		// pve-http-server src/PVE/APIServer/AnyEvent.pm extract_params:
		// decode_json dies (inferred: JSON::XS words it "malformed JSON
		// string, ..." for most bad bodies, with its position).
		return nil, statusError(http.StatusInternalServerError, "malformed JSON string in request body")
	}
	out := map[string][]string{}
	bad := map[string]string{}
	for k, v := range obj {
		vals, err := jsonScalars(v)
		if err != nil {
			bad[k] = err.Error()
			continue
		}
		if len(vals) > 0 {
			out[k] = vals
		}
	}
	if len(bad) > 0 {
		return nil, paramError(bad)
	}
	return out, nil
}

// errJSONObject is pve-common src/PVE/JSONSchema.pm check_type's text for a
// nested object where a scalar is wanted.
var errJSONObject = errors.New("type check failed - got HASH")

// pve-http-server src/PVE/APIServer/AnyEvent.pm extract_params (decode_json), then
// pve-common src/PVE/JSONSchema.pm check_type.
func jsonScalars(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{x}, nil
	case bool:
		if x {
			return []string{"1"}, nil
		}
		return []string{"0"}, nil
	case json.Number:
		return []string{x.String()}, nil
	case []any:
		var out []string
		for _, e := range x {
			switch e.(type) {
			case []any, map[string]any:
				return nil, errJSONObject
			}
			vals, err := jsonScalars(e)
			if err != nil {
				return nil, err
			}
			out = append(out, vals...)
		}
		return out, nil
	default:
		return nil, errJSONObject
	}
}
