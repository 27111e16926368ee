// Command profiled is the provider with profiling: the scale benchmark
// builds it instead of the plain provider when asked for profiles
// (-profile). Each instance Terraform starts writes into the directory named
// by PVE_SCALE_PROFILE_DIR a CPU profile of its whole life, a heap profile
// taken at the largest heap it reached and its allocation totals, all named
// by process id.
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/provider"
)

// profileDirEnv names the directory the profiles go to.
const profileDirEnv = "PVE_SCALE_PROFILE_DIR"

// heapSampleEvery is how often the heap size is checked for a new peak;
// a peak between two checks is missed, which is fine for finding what
// holds memory.
const heapSampleEvery = 200 * time.Millisecond

func main() {
	dir := os.Getenv(profileDirEnv)
	if dir == "" {
		log.Fatal(profileDirEnv + " is not set")
	}
	// As the real provider does.
	fwutil.TuneGC(os.LookupEnv)
	if err := fwutil.QuietDiscardedLogs(os.LookupEnv, os.Setenv); err != nil {
		log.Fatal(err)
	}
	stop, err := startProfiles(dir)
	if err != nil {
		log.Fatal(err)
	}
	err = providerserver.Serve(context.Background(), provider.New("profiled"), providerserver.ServeOpts{
		Address: provider.RegistryAddress,
	})
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// startProfiles starts the CPU profile and the heap peak watcher; the
// returned function ends both and writes the files.
func startProfiles(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pid := os.Getpid()
	cpuFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", pid)))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(cpuFile); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchHeapPeak(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", pid)), done)
	}()
	return func() {
		pprof.StopCPUProfile()
		_ = cpuFile.Close()
		close(done)
		<-watched
		writeAllocStats(filepath.Join(dir, fmt.Sprintf("alloc-%d.txt", pid)))
	}, nil
}

// writeAllocStats records what the instance allocated in its life, one line
// "BYTES OBJECTS GC_CYCLES": unlike CPU time, these hardly depend on how
// busy the machine was.
func writeAllocStats(path string) {
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/gc/heap/allocs:objects"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(samples)
	line := fmt.Sprintf("%d %d %d\n", samples[0].Value.Uint64(), samples[1].Value.Uint64(), samples[2].Value.Uint64())
	_ = os.WriteFile(path, []byte(line), 0o644)
}

// watchHeapPeak rewrites the heap profile whenever the heap grows past its
// last peak by a tenth, so the file left shows what was held at the top.
func watchHeapPeak(path string, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	ticker := time.NewTicker(heapSampleEvery)
	defer ticker.Stop()
	for {
		select {
		case <-done:
			return
		case <-ticker.C:
		}
		metrics.Read(sample)
		heap := sample[0].Value.Uint64()
		if heap <= peak+peak/10 {
			continue
		}
		peak = heap
		// A collection first, so the profile shows what is live, not
		// garbage waiting for the next cycle.
		runtime.GC()
		writeHeapProfile(path)
	}
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	_ = pprof.Lookup("heap").WriteTo(f, 0)
	_ = f.Close()
}
