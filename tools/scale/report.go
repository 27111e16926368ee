package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// rssGoalMiB is the provider's memory budget at N=1000.
const rssGoalMiB = 150

type report struct {
	Machine   machine       `json:"machine"`
	Terraform string        `json:"terraform"`
	Settings  settings      `json:"settings"`
	Phases    []phaseReport `json:"phases"`
	Goals     []goal        `json:"goals"`
}

type settings struct {
	Guests      int     `json:"guests"`
	VMs         int     `json:"vms"`
	Containers  int     `json:"containers"`
	Pools       int     `json:"pools"`
	Nodes       int     `json:"nodes"`
	Parallelism int     `json:"parallelism"`
	LatencyMS   float64 `json:"latency_ms"`
	TaskMS      float64 `json:"task_ms"`
}

type phaseReport struct {
	Name        string  `json:"name"`
	Command     string  `json:"command"`
	ExitCode    int     `json:"exit_code"`
	WallSeconds float64 `json:"wall_seconds"`
	Requests    int     `json:"requests"`
	// RequestsByMethod counts every request the simulator received.
	RequestsByMethod map[string]int `json:"requests_by_method"`
	// RequestsByPath counts the requests by method and path, with the
	// node, VMID, task and other ids replaced by placeholders: where the
	// requests of a phase go.
	RequestsByPath map[string]int `json:"requests_by_path"`
	Writes         int            `json:"writes"`
	// RequestsPerGuest leaves out what the empty configuration costs too
	// (provider start-up), so it is the price of the guests themselves.
	RequestsPerGuest float64 `json:"requests_per_guest"`
	// PoolReads counts reads of one pool (GET /pools?poolid=), which
	// guests in a pool and pve_pool resources make; NodeListReads counts
	// GET /nodes, which plans of guests that are created or move make.
	// PoolReadErrors are the pool reads PVE answered with an error, as it
	// does for a pool that does not exist yet.
	PoolReads      int `json:"pool_reads"`
	PoolReadErrors int `json:"pool_read_errors"`
	NodeListReads  int `json:"node_list_reads"`
	// Errors are API answers with a status of 400 or more, or dropped
	// connections.
	Errors             int            `json:"errors"`
	ErrorsByStatus     map[string]int `json:"errors_by_status,omitempty"`
	ProviderPeakRSSMiB float64        `json:"provider_peak_rss_mib"`
	// ProviderCPUSeconds is the user and system time of every provider
	// instance of the phase, to tell the provider's work from Terraform's.
	ProviderCPUSeconds float64 `json:"provider_cpu_seconds"`
	ProviderStarts     int     `json:"provider_starts"`
	// ProviderCPUMsPerGuest is ProviderCPUSeconds less what the empty
	// configuration cost, per guest, in milliseconds: the figure that
	// stays flat when the cost is linear in the estate.
	ProviderCPUMsPerGuest float64 `json:"provider_cpu_ms_per_guest"`
	// TerraformCPUSeconds is Terraform's own user and system time: the
	// command's and its children's, less the provider's.
	TerraformCPUSeconds float64 `json:"terraform_cpu_seconds"`
	// The allocation totals are measured only by a profiled run (-profile).
	ProviderAllocMiB float64 `json:"provider_alloc_mib,omitempty"`
	ProviderAllocs   uint64  `json:"provider_alloc_objects,omitempty"`
	ProviderGCCycles uint64  `json:"provider_gc_cycles,omitempty"`
	Failure          string  `json:"failure,omitempty"`
}

type goal struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
}

type machine struct {
	CPUs     int    `json:"cpus"`
	CPUModel string `json:"cpu_model"`
	MemoryMB int64  `json:"memory_mib"`
	OS       string `json:"os"`
	Go       string `json:"go"`
}

func newReport(opts options, tfVersion string) *report {
	vms, cts := guestMix(opts.guests)
	return &report{
		Machine:   describeMachine(),
		Terraform: tfVersion,
		Settings: settings{
			Guests: opts.guests, VMs: vms, Containers: cts, Pools: opts.pools, Nodes: scaleNodes,
			Parallelism: opts.parallelism,
			LatencyMS:   durationMS(opts.latency),
			TaskMS:      durationMS(opts.task),
		},
	}
}

func durationMS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// summarize counts one phase's requests from the simulator's log.
func summarize(name string, reqs []pvesim.RequestRecord, guests, baselineRequests int) phaseReport {
	pr := phaseReport{Name: name, Requests: len(reqs), RequestsByMethod: map[string]int{}, RequestsByPath: map[string]int{}}
	for _, r := range reqs {
		pr.RequestsByMethod[r.Method]++
		pr.RequestsByPath[r.Method+" "+pathShape(r.Path)]++
		if r.Method == "GET" && r.Path == "/pools" && len(r.Params["poolid"]) > 0 {
			pr.PoolReads++
			if r.Status >= 400 {
				pr.PoolReadErrors++
			}
		}
		if r.Method == "GET" && r.Path == "/nodes" {
			pr.NodeListReads++
		}
		if r.Method != "GET" && r.Method != "HEAD" {
			pr.Writes++
		}
		if r.Dropped || r.Status >= 400 {
			pr.Errors++
			if pr.ErrorsByStatus == nil {
				pr.ErrorsByStatus = map[string]int{}
			}
			key := strconv.Itoa(r.Status)
			if r.Dropped {
				key = "dropped"
			}
			pr.ErrorsByStatus[key]++
		}
	}
	if name != "baseline" && guests > 0 {
		pr.RequestsPerGuest = float64(len(reqs)-baselineRequests) / float64(guests)
	}
	return pr
}

// setCPUPerGuest fills each phase's provider CPU per guest, less the
// baseline phase's CPU (what starting the provider costs).
func (r *report) setCPUPerGuest(guests int) {
	if guests <= 0 {
		return
	}
	base, _ := r.phase("baseline")
	for i := range r.Phases {
		if r.Phases[i].Name == "baseline" {
			continue
		}
		r.Phases[i].ProviderCPUMsPerGuest = max(0, r.Phases[i].ProviderCPUSeconds-base.ProviderCPUSeconds) * 1000 / float64(guests)
	}
}

func (r *report) phase(name string) (phaseReport, bool) {
	for _, p := range r.Phases {
		if p.Name == name {
			return p, true
		}
	}
	return phaseReport{}, false
}

// evaluate sets the goals from the phases that ran. They are reported, not
// enforced: timings depend on the machine.
func (r *report) evaluate() {
	r.Goals = nil
	add := func(name, target, measured string, met bool) {
		r.Goals = append(r.Goals, goal{Name: name, Target: target, Measured: measured, Met: met})
	}
	// A refresh reads each guest's config and status, and each pool once
	// (its pve_pool's refresh; the guests in it share the answer).
	s := r.Settings
	floor := 2.0
	target := "<= 2 requests per guest"
	if s.Pools > 0 && s.Guests > 0 {
		floor += float64(s.Pools) / float64(s.Guests)
		target = fmt.Sprintf("<= 2 requests per guest + 1 per pool = %.2f per guest", floor)
	}
	if p, ok := r.phase("refresh"); ok {
		add("refresh cost", target, fmt.Sprintf("%.2f per guest", p.RequestsPerGuest), p.RequestsPerGuest <= floor+1e-9)
	}
	if p, ok := r.phase("plan"); ok {
		add("no-op plan cost", target, fmt.Sprintf("%.2f per guest", p.RequestsPerGuest), p.RequestsPerGuest <= floor+1e-9)
	}
	base, haveBase := r.phase("baseline")
	if p, ok := r.phase("plan"); ok {
		add("no-op plan writes", "0", strconv.Itoa(p.Writes), p.Writes == 0)
		if haveBase {
			latency := time.Duration(r.Settings.LatencyMS * float64(time.Millisecond))
			ideal := time.Duration(p.Requests)*latency/time.Duration(r.Settings.Parallelism) +
				time.Duration(base.WallSeconds*float64(time.Second))
			bound := 2 * ideal
			wall := time.Duration(p.WallSeconds * float64(time.Second))
			add("no-op plan wall time", fmt.Sprintf("<= 2 x (requests x latency / P + empty-config %.2fs) = %.2fs", base.WallSeconds, bound.Seconds()),
				fmt.Sprintf("%.2fs", wall.Seconds()), wall <= bound)
		}
	}
	if p, ok := r.phase("apply"); ok {
		name := fmt.Sprintf("apply at P=%d", r.Settings.Parallelism)
		if s.Pools == 0 {
			add(name, "exit 0, 0 API errors",
				fmt.Sprintf("exit %d, %d API errors", p.ExitCode, p.Errors), p.ExitCode == 0 && p.Errors == 0)
		} else {
			// The plan asks for each pool it is about to create, to warn
			// about a pool name nothing creates: PVE answers 500 "does
			// not exist", once per pool.
			add(name, fmt.Sprintf("exit 0, no API error but at most %d answers \"pool does not exist\"", s.Pools),
				fmt.Sprintf("exit %d, %d API errors, %d of them pool reads", p.ExitCode, p.Errors, p.PoolReadErrors),
				p.ExitCode == 0 && p.Errors == p.PoolReadErrors && p.PoolReadErrors <= s.Pools)
		}
	}
	peak := 0.0
	for _, p := range r.Phases {
		peak = max(peak, p.ProviderPeakRSSMiB)
	}
	add("provider peak RSS", fmt.Sprintf("< %d MiB at N=1000", rssGoalMiB),
		fmt.Sprintf("%.1f MiB at N=%d", peak, r.Settings.Guests), peak < rssGoalMiB)
}

// writeTable prints the report for people.
func writeTable(w io.Writer, r *report) {
	s := r.Settings
	fmt.Fprintf(w, "PVE provider scale benchmark: %d guests (%d VMs with 2 disks and 2 NICs, %d containers) on %d nodes",
		s.Guests, s.VMs, s.Containers, s.Nodes)
	if s.Pools > 0 {
		fmt.Fprintf(w, ", in %d pools", s.Pools)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "parallelism %d, simulated latency %gms per request, task %gms\n", s.Parallelism, s.LatencyMS, s.TaskMS)
	fmt.Fprintf(w, "machine: %d CPUs, %s, %d MiB memory, %s, %s; %s\n\n",
		r.Machine.CPUs, r.Machine.CPUModel, r.Machine.MemoryMB, r.Machine.OS, r.Machine.Go, r.Terraform)

	methods := methodsSeen(r.Phases)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"phase", "exit", "wall s", "requests"}
	header = append(header, methods...)
	header = append(header, "req/guest", "pool reads", "node lists", "errors", "peak RSS MiB", "provider CPU s", "CPU ms/guest", "terraform CPU s", "starts", "")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, p := range r.Phases {
		row := []string{p.Name, strconv.Itoa(p.ExitCode), fmt.Sprintf("%.2f", p.WallSeconds), strconv.Itoa(p.Requests)}
		for _, m := range methods {
			row = append(row, strconv.Itoa(p.RequestsByMethod[m]))
		}
		perGuest, cpuPerGuest := "-", "-"
		if p.Name != "baseline" {
			perGuest = fmt.Sprintf("%.2f", p.RequestsPerGuest)
			cpuPerGuest = fmt.Sprintf("%.1f", p.ProviderCPUMsPerGuest)
		}
		row = append(row, perGuest, strconv.Itoa(p.PoolReads), strconv.Itoa(p.NodeListReads), strconv.Itoa(p.Errors), fmt.Sprintf("%.1f", p.ProviderPeakRSSMiB),
			fmt.Sprintf("%.2f", p.ProviderCPUSeconds), cpuPerGuest, fmt.Sprintf("%.2f", p.TerraformCPUSeconds), strconv.Itoa(p.ProviderStarts), "")
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	_ = tw.Flush()
	writeAllocTable(w, r.Phases)
	writeTopPaths(w, r.Phases, r.Settings.Guests)
	for _, p := range r.Phases {
		if len(p.ErrorsByStatus) > 0 {
			fmt.Fprintf(w, "%s: API errors by status %v\n", p.Name, p.ErrorsByStatus)
		}
		if p.Failure != "" {
			fmt.Fprintf(w, "%s: FAILED: %s\n", p.Name, p.Failure)
		}
	}

	fmt.Fprintln(w, "\ngoals (reported, not enforced):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range r.Goals {
		verdict := "met"
		if !g.Met {
			verdict = "MISSED"
		}
		fmt.Fprintf(tw, "  %s\t%s\ttarget %s\t%s\n", g.Name, g.Measured, g.Target, verdict)
	}
	_ = tw.Flush()
}

// writeAllocTable prints the provider's allocations per phase, when the
// run was profiled.
func writeAllocTable(w io.Writer, phases []phaseReport) {
	profiled := false
	for _, p := range phases {
		profiled = profiled || p.ProviderAllocs > 0
	}
	if !profiled {
		return
	}
	fmt.Fprintln(w, "\nprovider allocations (profiled build):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tallocated MiB\tobjects\tGC cycles\t")
	for _, p := range phases {
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t\n", p.Name, p.ProviderAllocMiB, p.ProviderAllocs, p.ProviderGCCycles)
	}
	_ = tw.Flush()
}

// methodsSeen lists the HTTP methods in any phase, in a fixed order.
func methodsSeen(phases []phaseReport) []string {
	seen := map[string]bool{}
	for _, p := range phases {
		for m := range p.RequestsByMethod {
			seen[m] = true
		}
	}
	order := map[string]int{"GET": 0, "POST": 1, "PUT": 2, "DELETE": 3}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		oi, iok := order[out[i]]
		oj, jok := order[out[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return out[i] < out[j]
	})
	return out
}

// describeMachine reads what the figures depend on from /proc; fields it
// cannot read stay empty.
func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				fields := strings.Fields(rest)
				if len(fields) > 0 {
					if kib, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
						m.MemoryMB = kib / 1024
					}
				}
			}
		}
	}
	return m
}

// pathShape is path with its ids replaced: /nodes/pve1/qemu/101/config
// becomes /nodes/{node}/qemu/{vmid}/config, a task's UPID {upid}.
func pathShape(path string) string {
	parts := strings.Split(path, "/")
	for i, part := range parts {
		switch {
		case i > 0 && parts[i-1] == "nodes":
			parts[i] = "{node}"
		case strings.HasPrefix(part, "UPID:"):
			parts[i] = "{upid}"
		case part != "" && strings.Trim(part, "0123456789") == "":
			parts[i] = "{vmid}"
		case i > 0 && (parts[i-1] == "storage" || parts[i-1] == "content" || parts[i-1] == "pools"):
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// topPaths is how many of a phase's most requested paths the table shows.
const topPaths = 5

// writeTopPaths lists each phase's most requested paths, per guest.
func writeTopPaths(w io.Writer, phases []phaseReport, guests int) {
	fmt.Fprintln(w, "\nmost requested, per guest:")
	for _, p := range phases {
		if p.Name == "baseline" || len(p.RequestsByPath) == 0 {
			continue
		}
		paths := make([]string, 0, len(p.RequestsByPath))
		for path := range p.RequestsByPath {
			paths = append(paths, path)
		}
		sort.Slice(paths, func(i, j int) bool {
			a, b := p.RequestsByPath[paths[i]], p.RequestsByPath[paths[j]]
			return a > b || a == b && paths[i] < paths[j]
		})
		var shown []string
		for _, path := range paths[:min(topPaths, len(paths))] {
			shown = append(shown, fmt.Sprintf("%s %.2f", path, float64(p.RequestsByPath[path])/float64(max(guests, 1))))
		}
		fmt.Fprintf(w, "  %s: %s\n", p.Name, strings.Join(shown, "; "))
	}
}
