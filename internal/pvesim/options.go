package pvesim

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// Options configure a simulator. The zero value is a usable three-node
// cluster with no credentials (every request then fails with 401).
type Options struct {
	Nodes int // cluster size, nodes pve1..pveN; default 3
	// PVEVersion is the PVE release served: "8.4", "9.1" or "9.2" (see
	// PVEVersions); default DefaultPVEVersion. It selects the API schema
	// and the behaviours that differ between releases.
	PVEVersion     string
	Tokens         []string      // API tokens, "USER@REALM!TOKENID=SECRET"
	Passwords      []string      // ticket logins, "USER@REALM=PASSWORD"
	TicketLifetime time.Duration // default 2h, as on PVE
	Latency        time.Duration // added to every request
	TaskDuration   time.Duration // how long a task runs; 0 finishes at once
	// StatsInterval is pvestatd's cycle: how often the guests' name,
	// status, template flag, uptime and usage reach /cluster/resources.
	// Default 10 s as on PVE; negative reports them live.
	StatsInterval time.Duration
	// ZFSStorage adds the "local-zfs" zfspool storage of a PVE installed
	// on ZFS to every node (the default seed has LVM-thin only), for
	// storage replication.
	ZFSStorage bool
	// ReplicationInterval is how often the scheduler runs the due
	// replication jobs (pvescheduler: every minute, the default); negative
	// stops it (RunReplication still runs them).
	ReplicationInterval time.Duration
	Seed                int64     // seeds PIDs and fault rates
	AccessLog           io.Writer // one line per request: method, path, status, duration
	Now                 func() time.Time

	// Privileges restricts identities ("USER@REALM" or
	// "USER@REALM!TOKENID") to the listed privileges, on every path. An
	// identity that is not listed holds every privilege. A token that is not
	// listed falls back to its user's entry.
	Privileges map[string][]string

	// AgentBootDelay is how long after its start a VM's guest agent takes
	// to answer; until then agent commands fail with "QEMU guest agent is
	// not running". Default 0: the agent answers as soon as the VM runs.
	AgentBootDelay time.Duration

	// AuthFailureDelay delays every 401 answer. PVE waits 3 seconds; the
	// default 0 keeps tests fast.
	AuthFailureDelay time.Duration
}

const (
	defaultNodes          = 3
	defaultTicketLifetime = 2 * time.Hour
	// defaultStatsInterval is pvestatd's $updatetime
	// (pve-manager PVE/Service/pvestatd.pm).
	defaultStatsInterval = 10 * time.Second
)

// userIDPattern follows PVE's user@realm grammar (Auth/Plugin.pm): the user
// part has no ':' or '@' or '/' and no white space, the realm starts with a
// letter.
var (
	userIDPattern  = regexp.MustCompile(`^([^\s:/@]+)@([A-Za-z][A-Za-z0-9.\-_]+)$`)
	tokenIDPattern = regexp.MustCompile(`^([^\s:/@]+@[A-Za-z][A-Za-z0-9.\-_]+)!([A-Za-z][A-Za-z0-9.\-_]+)$`)
)

// apiToken is a configured token: the full id "user@realm!name" and its
// secret.
type apiToken struct {
	user   string
	id     string
	secret string
}

func parseToken(spec string) (apiToken, error) {
	// PVE splits the header value at the last '=' (AccessControl.pm
	// verify_token: /^(.*)=(.*)$/), so a secret cannot contain '='.
	i := strings.LastIndexByte(spec, '=')
	if i < 0 {
		return apiToken{}, fmt.Errorf("token %q: want USER@REALM!TOKENID=SECRET", redactSpec(spec))
	}
	id, secret := spec[:i], spec[i+1:]
	m := tokenIDPattern.FindStringSubmatch(id)
	if m == nil || secret == "" {
		return apiToken{}, fmt.Errorf("token %q: want USER@REALM!TOKENID=SECRET", redactSpec(spec))
	}
	return apiToken{user: m[1], id: id, secret: secret}, nil
}

func parsePassword(spec string) (user, password string, err error) {
	user, password, ok := strings.Cut(spec, "=")
	if !ok || !userIDPattern.MatchString(user) || password == "" {
		return "", "", fmt.Errorf("password entry %q: want USER@REALM=PASSWORD", redactSpec(spec))
	}
	return user, password, nil
}

// redactSpec keeps the identity part of a credential spec for an error
// message and drops the secret.
func redactSpec(spec string) string {
	if i := strings.IndexByte(spec, '='); i >= 0 {
		return spec[:i] + "=<redacted>"
	}
	return spec
}
