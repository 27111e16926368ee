// Command scale measures the provider at scale: against an in-process PVE
// simulator with a set latency per request and task duration, it runs the
// real terraform binary over a generated estate of N guests (apply, a no-op
// plan, a refresh-only plan, destroy) and reports, per phase, wall time,
// the requests the simulator answered by method, errors and the provider's
// peak memory, next to Terraform's own overhead on an empty configuration.
//
//	go run ./tools/scale -n 200 -p 10 -latency 5ms -task 50ms [-pools 10] [-json] [-profile DIR]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

type options struct {
	guests      int
	pools       int // pve_pool resources the guests are spread over; 0: no pools
	parallelism int
	latency     time.Duration
	task        time.Duration
	jsonOut     bool
	provider    string
	terraform   string
	keep        bool
	// profileDir, when set, measures a provider built with profiling and
	// collects its profiles and allocation totals there, one directory per
	// phase.
	profileDir string
}

func main() {
	if wrapMode() {
		os.Exit(runWrapped(os.Args[1:]))
	}
	opts, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	rep, err := run(ctx, opts, os.Stderr)
	if rep != nil {
		if opts.jsonOut {
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(rep)
		} else {
			writeTable(os.Stdout, rep)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, errOut io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.IntVar(&o.guests, "n", 200, "number of guests (half VMs, half containers, across 3 nodes)")
	fs.IntVar(&o.pools, "pools", 0, "put the guests in this many pools (pve_pool), spread evenly; 0 for none")
	fs.IntVar(&o.parallelism, "p", 10, "terraform -parallelism")
	fs.DurationVar(&o.latency, "latency", 5*time.Millisecond, "simulated latency added to every API request")
	fs.DurationVar(&o.task, "task", 50*time.Millisecond, "simulated duration of every PVE task")
	fs.BoolVar(&o.jsonOut, "json", false, "print the report as JSON instead of a table")
	fs.StringVar(&o.provider, "provider", "", "provider binary to measure (default: build this module's provider)")
	fs.StringVar(&o.terraform, "terraform", "terraform", "terraform binary")
	fs.BoolVar(&o.keep, "keep", false, "keep the working directory (configuration, logs) and print its path")
	fs.StringVar(&o.profileDir, "profile", "", "build the provider with profiling and write each instance's CPU profile, peak heap profile and allocation totals under this directory, per phase")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments: %v", fs.Args())
	case o.guests < 1:
		return o, fmt.Errorf("-n must be at least 1, got %d", o.guests)
	case o.pools < 0:
		return o, fmt.Errorf("-pools must not be negative, got %d", o.pools)
	case o.parallelism < 1:
		return o, fmt.Errorf("-p must be at least 1, got %d", o.parallelism)
	case o.latency < 0 || o.task < 0:
		return o, errors.New("-latency and -task must not be negative")
	case o.profileDir != "" && o.provider != "":
		return o, errors.New("-profile builds its own provider: it cannot be used with -provider")
	}
	return o, nil
}
