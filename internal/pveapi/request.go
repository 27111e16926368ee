package pveapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hashicorp/go-retryablehttp"
)

// maxResponseBytes bounds a response body; the largest PVE answers
// (storage content, cluster resources) are far below it.
const maxResponseBytes = 64 << 20

// rawResponse is one HTTP answer with its body read.
type rawResponse struct {
	status     int
	statusLine string // "500 VM is locked (clone)"
	body       []byte
}

// roundTrip builds one API request from form parameters (a body for POST
// and PUT, the query otherwise) and sends it.
func (c *Client) roundTrip(ctx context.Context, method, path string, params url.Values, creds credentials) (*rawResponse, error) {
	target := c.apiRoot + path
	var body []byte
	contentType := "application/x-www-form-urlencoded"
	if method == http.MethodPost || method == http.MethodPut {
		var err error
		body, contentType, err = encodeBody(params)
		if err != nil {
			return nil, c.transportError(method, path, err)
		}
		if len(body) == 0 {
			// An empty reader would go out chunked, which pveproxy refuses
			// (501 chunked transfer encoding not supported): send no body.
			body = nil
		}
	} else if len(params) > 0 {
		target += "?" + params.Encode()
	}

	var rawBody any
	if body != nil {
		rawBody = body
	}
	req, err := retryablehttp.NewRequestWithContext(withAttemptCounter(ctx), method, target, rawBody)
	if err != nil {
		return nil, c.transportError(method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	creds.apply(req.Request, method)
	return c.send(req, method, path)
}

// send runs a prepared request through the retry policy and returns the
// answer, whatever its status. It fails only when there is no answer.
func (c *Client) send(req *retryablehttp.Request, method, path string) (*rawResponse, error) {
	// The body is read inside the retry loop, so a GET whose body breaks
	// off is retried like a GET that failed outright.
	var captured *rawResponse
	req.SetResponseHandler(func(resp *http.Response) error {
		res, readErr := readResponse(resp)
		if readErr != nil {
			return readErr
		}
		captured = res
		return nil
	})

	retrier := &retryablehttp.Client{
		HTTPClient:   c.httpClient,
		Logger:       nil,
		RetryWaitMin: c.retryWaitMin,
		RetryWaitMax: c.retryWaitMax,
		RetryMax:     c.retryMax,
		CheckRetry:   retryPolicy(method),
		Backoff:      backoff,
		ErrorHandler: func(resp *http.Response, err error, _ int) (*http.Response, error) {
			return resp, err // keep the last answer (e.g. a final 503) for the caller
		},
	}
	resp, err := retrier.Do(req)
	if resp != nil {
		// The response handler or readResponse has read the body already;
		// closing twice is harmless and keeps every path closed.
		defer func() { _ = resp.Body.Close() }()
	}
	if err != nil {
		return nil, c.transportError(method, path, err)
	}
	if captured != nil && resp.StatusCode == captured.status {
		return captured, nil
	}
	// Retries ran out on a retryable status: the handler never saw it.
	res, err := readResponse(resp)
	if err != nil {
		return nil, c.transportError(method, path, err)
	}
	return res, nil
}

func readResponse(resp *http.Response) (*rawResponse, error) {
	defer drainAndClose(resp.Body)
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading response body: %w", err)
	}
	if len(body) > maxResponseBytes {
		return nil, fmt.Errorf("response body larger than %d bytes", maxResponseBytes)
	}
	return &rawResponse{status: resp.StatusCode, statusLine: resp.Status, body: body}, nil
}

func drainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<16))
	_ = body.Close()
}

func (c *Client) transportError(method, path string, err error) error {
	var notSent *notSentError
	return &TransportError{
		Method:  method,
		Path:    path,
		NotSent: errors.As(err, &notSent),
		Err:     err,
		msg:     c.redactor.redact(err.Error()),
	}
}

// decodeResponse turns a 2xx answer into out (unwrapping "data", W5) and
// anything else into *Error (W4).
func (c *Client) decodeResponse(method, path string, res *rawResponse, out any) error {
	if res.status < 200 || res.status > 299 {
		return c.apiError(method, path, res)
	}
	if out == nil {
		return nil
	}
	var envelope struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.body, &envelope); err != nil {
		return fmt.Errorf("pve: %s %s: decoding response: %s", method, path, c.redactor.redact(err.Error()))
	}
	if len(envelope.Data) == 0 || bytes.Equal(bytes.TrimSpace(envelope.Data), jsonNull) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(envelope.Data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("pve: %s %s: decoding response data: %s", method, path, c.redactor.redact(err.Error()))
	}
	return nil
}

func (c *Client) apiError(method, path string, res *rawResponse) *Error {
	apiErr := &Error{Method: method, Path: path, StatusCode: res.status}
	var body struct {
		Message string         `json:"message"`
		Errors  map[string]any `json:"errors"`
	}
	// Bodies that are not JSON (a 401 has none, a proxy may send HTML)
	// leave the reason phrase as the only text.
	_ = json.Unmarshal(res.body, &body)
	apiErr.Message = strings.TrimSpace(body.Message)
	if apiErr.Message == "" {
		apiErr.Message = reasonPhrase(res.statusLine, res.status)
	}
	apiErr.Message = c.redactor.redact(apiErr.Message)
	if len(body.Errors) > 0 {
		apiErr.Errors = make(map[string]string, len(body.Errors))
		for k, v := range body.Errors {
			text, ok := v.(string)
			if !ok {
				encoded, _ := json.Marshal(v)
				text = string(encoded)
			}
			apiErr.Errors[k] = c.redactor.redact(strings.TrimSpace(text))
		}
	}
	apiErr.parsePermission()
	return apiErr
}

// reasonPhrase extracts the text after the status code in a status line;
// PVE puts the first line of its error message there (W4).
func reasonPhrase(statusLine string, status int) string {
	text := strings.TrimSpace(strings.TrimPrefix(statusLine, strconv.Itoa(status)))
	if text == "" {
		text = http.StatusText(status)
	}
	return text
}

// encodeBody encodes a POST or PUT body. pveproxy's form decoder drops a
// pair with an empty value ("comment=" means "comment not given"), so a
// request that must send an empty string, such as clearing a pool's
// comment, goes as a JSON object, which PVE decodes without that loss.
// A parameter with several values (an array parameter such as a
// mapping's "map") goes as JSON too, as an array. (pveproxy's form decoder
// would also collect a repeated key into an array, pve-http-server
// src/PVE/APIServer/AnyEvent.pm decode_urlencoded; the JSON body keeps the
// one encoding for both cases.)
// Everything else stays form-encoded, as PVE's own clients send it.
func encodeBody(params url.Values) (body []byte, contentType string, err error) {
	needsJSON := false
	for _, values := range params {
		if len(values) > 1 {
			needsJSON = true
		}
		for _, v := range values {
			if v == "" {
				needsJSON = true
			}
		}
	}
	if !needsJSON {
		return []byte(params.Encode()), "application/x-www-form-urlencoded", nil
	}
	obj := make(map[string]any, len(params))
	for k, values := range params {
		if len(values) == 1 {
			obj[k] = values[0]
		} else {
			obj[k] = values
		}
	}
	body, err = json.Marshal(obj)
	return body, "application/json", err
}
