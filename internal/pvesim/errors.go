package pvesim

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// apiError is an error as PVE's REST layer answers it: a status, a message
// (whose first line becomes the HTTP reason phrase) and, for parameter
// errors, one text per parameter.
type apiError struct {
	status  int
	message string
	params  map[string]string
}

func (e *apiError) Error() string { return strings.TrimRight(e.message, "\n") }

// errorf is a handler's plain die "text\n": HTTP 500 (W4).
func errorf(format string, args ...any) error {
	return &apiError{status: http.StatusInternalServerError, message: fmt.Sprintf(format, args...) + "\n"}
}

// paramError is raise_param_exc: HTTP 400 "Parameter verification failed."
// with the texts per parameter.
func paramError(params map[string]string) error {
	return &apiError{
		status:  http.StatusBadRequest,
		message: "Parameter verification failed.\n",
		params:  params,
	}
}

// permError is raise_perm_exc: HTTP 403 "Permission check failed (what)"
// (W49).
func permError(what string) error {
	msg := "Permission check failed"
	if what != "" {
		msg += " (" + what + ")"
	}
	return &apiError{status: http.StatusForbidden, message: msg + "\n"}
}

// statusError is PVE::Exception->new(text, code => N).
func statusError(status int, format string, args ...any) error {
	return &apiError{status: status, message: fmt.Sprintf(format, args...) + "\n"}
}

// asAPIError turns any handler error into PVE's answer; an error that is not
// an apiError is a plain die, hence a 500.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return &apiError{status: http.StatusInternalServerError, message: err.Error() + "\n"}
}

// IsAPIError reports whether err is an answer the simulator would send, and
// returns its HTTP status and message. Later handlers and tests use it to
// inspect model errors such as a guest lock.
func IsAPIError(err error) (status int, message string, ok bool) {
	var ae *apiError
	if !errors.As(err, &ae) {
		return 0, "", false
	}
	return ae.status, ae.message, true
}

// sortedKeys is a helper for deterministic iteration over string sets.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
