package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Terraform starts the provider itself (dev_overrides), several times per
// command. To learn each instance's peak memory without racing its short
// life, the plugin directory holds a launcher that runs this program in
// wrap mode: it starts the real provider as its child, passes the plugin
// handshake through on the inherited stdio, and on exit appends the child's
// peak resident set (getrusage's ru_maxrss, exact, kept by the kernel) to a
// log.
const (
	wrapTargetEnv = "PVE_SCALE_WRAP_TARGET"
	wrapLogEnv    = "PVE_SCALE_RSS_LOG"
)

// wrapMode reports whether this process was started as the provider
// launcher.
func wrapMode() bool {
	return os.Getenv(wrapTargetEnv) != ""
}

// runWrapped runs the real provider and returns the exit code to use.
func runWrapped(args []string) int {
	target, logPath := os.Getenv(wrapTargetEnv), os.Getenv(wrapLogEnv)
	cmd := exec.Command(target, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The provider must not see the launcher's own settings.
	cmd.Env = withoutEnv(os.Environ(), wrapTargetEnv, wrapLogEnv)

	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "provider launcher: %v\n", err)
		return 1
	}
	go func() {
		for sig := range signals {
			_ = cmd.Process.Signal(sig)
		}
	}()
	waitErr := cmd.Wait()
	signal.Stop(signals)

	if usage, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && logPath != "" {
		cpu := time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
		appendUsage(logPath, usage.Maxrss, cpu)
	}
	if waitErr != nil && cmd.ProcessState.ExitCode() < 0 {
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

func withoutEnv(env []string, names ...string) []string {
	out := env[:0:0]
next:
	for _, kv := range env {
		for _, name := range names {
			if strings.HasPrefix(kv, name+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}

// appendUsage adds one line, "MAXRSS_KIB CPU_NANOSECONDS"; a single short
// O_APPEND write keeps lines from concurrent provider instances whole.
func appendUsage(path string, maxRSSKiB int64, cpu time.Duration) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = fmt.Fprintf(f, "%d %d\n", maxRSSKiB, cpu.Nanoseconds())
	_ = f.Close()
}

// providerUsage sums up the launcher log of one phase.
type providerUsage struct {
	peakRSSKiB int64         // the largest peak of any provider instance
	cpu        time.Duration // user plus system time of all instances
	instances  int
}

func readUsage(path string) (providerUsage, error) {
	var u providerUsage
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		rss, errRSS := strconv.ParseInt(fields[0], 10, 64)
		cpu, errCPU := strconv.ParseInt(fields[1], 10, 64)
		if errRSS != nil || errCPU != nil {
			continue
		}
		u.instances++
		u.peakRSSKiB = max(u.peakRSSKiB, rss)
		u.cpu += time.Duration(cpu)
	}
	return u, sc.Err()
}

// installLauncher puts a launcher named like the provider into pluginDir:
// a shell script that re-enters this program in wrap mode.
func installLauncher(pluginDir, realProvider, rssLog string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	script := fmt.Sprintf("#!/bin/sh\nexport %s=%s %s=%s\nexec %s \"$@\"\n",
		wrapTargetEnv, shellQuote(realProvider), wrapLogEnv, shellQuote(rssLog), shellQuote(self))
	return os.WriteFile(filepath.Join(pluginDir, "terraform-provider-pve"), []byte(script), 0o755)
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
