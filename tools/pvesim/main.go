// Command pvesim serves the PVE simulator over HTTPS, for demos and manual
// use: point terraform (or curl) at the endpoint it prints.
//
//	eval "$(go run ./tools/pvesim --listen 127.0.0.1:0 | sed -n '/^PVE_/s/^/export /p')"
//
// When ready it prints PVE_ENDPOINT, PVE_API_TOKEN and PVE_CA_FILE lines and
// then "ready", and it stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pvesim:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("pvesim", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8006", "address to listen on (port 0 picks a free port)")
	nodes := fs.Int("nodes", 3, "number of cluster nodes (pve1..pveN)")
	pveVersion := fs.String("pve-version", pvesim.DefaultPVEVersion, "PVE release to simulate: "+strings.Join(pvesim.PVEVersions(), ", "))
	var tokens, passwords listFlag
	fs.Var(&tokens, "token", "API token USER@REALM!TOKENID=SECRET (repeatable; default root@pam!terraform= and a random secret)")
	fs.Var(&passwords, "password", "password user USER@REALM=PASSWORD (repeatable)")
	latency := fs.Duration("latency", 0, "added latency per request")
	taskDuration := fs.Duration("task-duration", 0, "how long each task runs")
	statsInterval := fs.Duration("stats-interval", 0, "how often guest statistics reach /cluster/resources (default 10s as on PVE; negative: at once)")
	zfs := fs.Bool("zfs", false, "add a local-zfs (zfspool) storage to every node, as on a PVE installed on ZFS (replication needs it)")
	replicationInterval := fs.Duration("replication-interval", 0, "how often due replication jobs run (default 1m as on PVE)")
	accessLog := fs.String("access-log", "", "file to append one line per request to (method, path, status, duration)")
	caFile := fs.String("ca-file", "", "where to write the CA certificate (default: a new temporary directory)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *nodes < 1 {
		return errors.New("--nodes must be at least 1")
	}

	if len(tokens) == 0 {
		secret, err := randomSecret()
		if err != nil {
			return err
		}
		tokens = append(tokens, "root@pam!terraform="+secret)
	}

	opts := pvesim.Options{
		Nodes:               *nodes,
		PVEVersion:          *pveVersion,
		Tokens:              tokens,
		Passwords:           passwords,
		Latency:             *latency,
		TaskDuration:        *taskDuration,
		StatsInterval:       *statsInterval,
		ZFSStorage:          *zfs,
		ReplicationInterval: *replicationInterval,
		Seed:                time.Now().UnixNano(),
	}
	if *accessLog != "" {
		f, err := os.OpenFile(*accessLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("open access log: %w", err)
		}
		defer f.Close()
		opts.AccessLog = f
	}

	if *caFile == "" {
		dir, err := os.MkdirTemp("", "pvesim-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*caFile = filepath.Join(dir, "pvesim-ca.pem")
	}

	sim, err := pvesim.New(opts)
	if err != nil {
		return err
	}
	srv, err := sim.StartTLS(*listen, *caFile)
	if err != nil {
		return err
	}
	defer srv.Close()

	fmt.Fprintf(stdout, "PVE_ENDPOINT=%s\n", srv.URL)
	fmt.Fprintf(stdout, "PVE_API_TOKEN=%s\n", tokens[0])
	fmt.Fprintf(stdout, "PVE_CA_FILE=%s\n", srv.CAFile)
	fmt.Fprintln(stdout, "ready")

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

func randomSecret() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	h := hex.EncodeToString(b)
	// Shaped like PVE's own token secrets (a UUID).
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], nil
}
