package pveapi

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Error is an answer from PVE with a non-2xx status (W4). Message is the
// trimmed body "message" (PVE 8.4+) or else the HTTP reason phrase, which
// PVE sets to the first line of the error text. Errors holds parameter
// errors of a 400 "Parameter verification failed." keyed by parameter.
// Privilege and PrivPath are filled for a 403 "Permission check failed
// (PATH, PRIV)" (W49).
type Error struct {
	Method     string
	Path       string
	StatusCode int
	Message    string
	Errors     map[string]string
	Privilege  string
	PrivPath   string
}

// Error renders one line (parameter errors sorted by name):
//
//	PVE API error: POST /nodes/pve1/qemu: 500 VM is locked (clone)
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PVE API error: %s %s: %d %s", e.Method, e.Path, e.StatusCode, oneLine(e.Message))
	if len(e.Errors) > 0 {
		keys := make([]string, 0, len(e.Errors))
		for k := range e.Errors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, k+": "+oneLine(e.Errors[k]))
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(parts, "; "))
	}
	return b.String()
}

// oneLine joins the non-empty lines of a multi-line PVE text, as property
// string errors span several lines ("format error\nnet0.bridge: ...").
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, " / ")
}

// TransportError is a request that got no HTTP answer from PVE (connection
// refused, TLS failure, connection lost, no complete answer within the
// request timeout, context ended). NotSent is true
// when the request provably never reached PVE, so a write did not happen.
type TransportError struct {
	Method  string
	Path    string
	NotSent bool
	Err     error
	msg     string // redacted text of Err
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("PVE API request failed: %s %s: %s", e.Method, e.Path, e.msg)
}

// Unwrap gives the underlying error, so errors.Is(err, context.Canceled)
// works. Its text is not redacted: print the TransportError instead.
func (e *TransportError) Unwrap() error { return e.Err }

var (
	// W12: the only 500 that means "this guest does not exist".
	notFoundPattern = regexp.MustCompile(`^Configuration file 'nodes/[^/']+/(qemu-server|lxc)/[0-9]+\.conf' does not exist$`)
	// W10.
	lockedPattern = regexp.MustCompile(`^(VM|CT) is locked \(([^)]*)\)$`)
	// W13: create or clone onto a taken VMID.
	alreadyExistsPatterns = []*regexp.Regexp{
		regexp.MustCompile(`^unable to create VM [0-9]+: config file already exists$`),
		regexp.MustCompile(`^unable to (create|restore) (VM|CT) [0-9]+ - (VM|CT) [0-9]+ already exists on node '[^']*'$`),
		regexp.MustCompile(`^(VM|CT) [0-9]+ already exists on node '[^']*'$`),
	}
	// W49: raise_perm_exc("$path, $priv") from check, "$path, P1|P2" from
	// check_any, or free text.
	permissionPattern     = regexp.MustCompile(`^Permission check failed(?: \((.*)\))?$`)
	permissionPathPattern = regexp.MustCompile(`^(/[^,]*), ([A-Za-z][A-Za-z0-9.]*(?:\|[A-Za-z][A-Za-z0-9.]*)*)$`)
	poolMissingPattern    = regexp.MustCompile(`^pool '([^']*)' does not exist$`)
	// check_pool_exist's answer when a guest is created into, or moved to,
	// a pool that is not there: a permission exception (pve-access-control,
	// src/PVE/RPCEnvironment.pm, check_pool_exist and raise_perm_exc).
	poolMissingPermPattern = regexp.MustCompile(`^Permission check failed \(pool '([^']*)' does not exist\)$`)
	// lock_file_full's timeout: another operation held the flock too long.
	lockTimeoutPattern = regexp.MustCompile(`^can't lock file '([^']+)' - got timeout$`)
	// pve-cluster src/PVE/Cluster.pm $cfs_lock: the wait for a cluster
	// file system lock ran out ("got lock request timeout"), so the
	// locked code never ran; callers prefix their own words and ": "
	// (pve-access-control src/PVE/AccessControl.pm lock_user_config).
	clusterLockTimeoutPattern = regexp.MustCompile(`(?:^|: )cfs-lock '[^']+' error: got lock request timeout$`)
	// The per-guest config flocks (qemu-server, pve-container). A
	// synchronous handler takes one around its whole change, so its
	// timeout means the change never started.
	guestLockFilePattern = regexp.MustCompile(`^(?:/var/lock/qemu-server/lock-([0-9]+)\.conf|/run/lock/lxc/pve-config-([0-9]+)\.lock)$`)
)

// firstLine is the part of a PVE message the patterns look at: the reason
// phrase carries only the first line, the body the whole text.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// AsError returns the *Error in err's chain.
func AsError(err error) (*Error, bool) {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr, true
	}
	return nil, false
}

// IsNotFound reports the W12 answer for a missing guest: 500 "Configuration
// file 'nodes/N/qemu-server/ID.conf' does not exist" (lxc/ID.conf for a
// container). No other error means NotFound.
func IsNotFound(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && notFoundPattern.MatchString(firstLine(apiErr.Message))
}

// IsLocked reports "VM is locked (KIND)" / "CT is locked (KIND)" (W10) and
// returns KIND. It looks at synchronous errors and at failed tasks.
func IsLocked(err error) (lock string, ok bool) {
	var text string
	var taskErr *TaskError
	if apiErr, isAPI := AsError(err); isAPI {
		text = apiErr.Message
	} else if errors.As(err, &taskErr) {
		text = taskErr.ExitStatus
	} else {
		return "", false
	}
	m := lockedPattern.FindStringSubmatch(firstLine(text))
	if m == nil {
		return "", false
	}
	return m[2], true
}

// IsPermission reports a 403 "Permission check failed" (W49). path and priv
// are set for the "(PATH, PRIV)" form; priv is "P1|P2" when any of several
// privileges would do. For the free-text form ("(mount point type bind is
// only allowed for root@pam)") both are empty; the text stays in Message.
func IsPermission(err error) (path, priv string, ok bool) {
	apiErr, isAPI := AsError(err)
	if !isAPI || apiErr.StatusCode != 403 {
		return "", "", false
	}
	return apiErr.PrivPath, apiErr.Privilege, true
}

// IsAlreadyExists reports the synchronous W13 answers for a VMID that is
// already taken: "unable to create VM N: config file already exists"
// (clone), "unable to create VM N - VM N already exists on node 'X'"
// (create), "CT N already exists on node 'X'" (container create; "VM N ..." when
// a VM holds the id).
func IsAlreadyExists(err error) bool {
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 500 {
		return false
	}
	line := firstLine(apiErr.Message)
	for _, p := range alreadyExistsPatterns {
		if p.MatchString(line) {
			return true
		}
	}
	return false
}

// configFileTakenPattern is the exit status of a VM clone task whose new
// vmid the cluster file system holds for another guest: the check before
// the fork looks on its own node only, and writing the new config then
// fails (qemu-server src/PVE/API2/Qemu.pm clone_vm, W13).
var configFileTakenPattern = regexp.MustCompile(`^close \(rename\) atomic file '[^']*/qemu-server/[0-9]+\.conf' failed: File exists$`)

// IsCloneVMIDTaken reports a clone task that failed because its new vmid
// is held by a guest on another node, or by a container (W13). Nothing
// was made.
func IsCloneVMIDTaken(err error) bool {
	var taskErr *TaskError
	return errors.As(err, &taskErr) && configFileTakenPattern.MatchString(strings.TrimSpace(taskErr.ExitStatus))
}

// IsAuth reports a 401: bad or expired credentials, or a missing CSRF token
// (W3).
func IsAuth(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 401
}

// IsNodeUnreachable reports pveproxy's answer when it cannot forward a
// request to the guest's node: 595 (no route, connection refused: the node
// is down or cut off) or 596 (the connection between the nodes broke). The
// guest itself is then neither confirmed nor gone.
func IsNodeUnreachable(err error) bool {
	apiErr, ok := AsError(err)
	return ok && (apiErr.StatusCode == 595 || apiErr.StatusCode == 596)
}

// MissingPool reports a 403 that says a pool does not exist, and names
// the pool: a privilege cannot help there.
func MissingPool(err error) (string, bool) {
	apiErr, ok := AsError(err)
	if !ok || apiErr.StatusCode != 403 {
		return "", false
	}
	if m := poolMissingPermPattern.FindStringSubmatch(firstLine(apiErr.Message)); m != nil {
		return m[1], true
	}
	return "", false
}

// IsPoolNotFound reports 500 "pool 'X' does not exist", PVE's answer when
// reading, updating or deleting a pool that is not there.
func IsPoolNotFound(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && poolMissingPattern.MatchString(firstLine(apiErr.Message))
}

// parsePermission fills Privilege and PrivPath from a 403 message.
func (e *Error) parsePermission() {
	if e.StatusCode != 403 {
		return
	}
	m := permissionPattern.FindStringSubmatch(firstLine(e.Message))
	if m == nil || m[1] == "" {
		return
	}
	if pm := permissionPathPattern.FindStringSubmatch(m[1]); pm != nil {
		e.PrivPath, e.Privilege = pm[1], pm[2]
	}
}

// IsLockTimeout reports PVE's "can't lock file 'FILE' - got timeout" (W10:
// another operation held the lock file longer than the caller waited) and
// returns FILE. It looks at synchronous errors and at failed tasks.
func IsLockTimeout(err error) (file string, ok bool) {
	var text string
	var taskErr *TaskError
	if apiErr, isAPI := AsError(err); isAPI {
		text = apiErr.Message
	} else if errors.As(err, &taskErr) {
		text = taskErr.ExitStatus
	} else {
		return "", false
	}
	m := lockTimeoutPattern.FindStringSubmatch(firstLine(text))
	if m == nil {
		return "", false
	}
	return m[1], true
}

// LockedGuest returns the VMID whose config lock file is named, for the
// lock files of qemu-server and pve-container.
func LockedGuest(file string) (vmid int, ok bool) {
	m := guestLockFilePattern.FindStringSubmatch(file)
	if m == nil {
		return 0, false
	}
	id := m[1] + m[2]
	vmid, err := strconv.Atoi(id)
	return vmid, err == nil
}

// isClusterLockTimeout reports a synchronous 500 whose reason phrase is a
// cluster file system lock that could not be taken in time: nothing was
// changed, so sending the request again is safe.
func isClusterLockTimeout(status int, statusLine string) bool {
	return status == 500 && clusterLockTimeoutPattern.MatchString(firstLine(reasonPhrase(statusLine, status)))
}

// isGuestLockTimeout reports a synchronous 500 whose reason phrase is a
// guest config lock timeout: the handler waited for the flock and gave up
// before it changed anything, so sending the request again is safe.
func isGuestLockTimeout(status int, statusLine string) bool {
	if status != 500 {
		return false
	}
	m := lockTimeoutPattern.FindStringSubmatch(firstLine(reasonPhrase(statusLine, status)))
	return m != nil && guestLockFilePattern.MatchString(m[1])
}
