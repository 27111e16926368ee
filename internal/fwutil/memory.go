package fwutil

import "runtime/debug"

// What the provider keeps between requests is small (a few MiB); what it
// holds is the working set of the requests in flight, a MiB or two each,
// and what it allocates is large: about 9 MiB of short-lived garbage per
// guest in a plan, most of it the plugin framework's value conversions.
// With Go's defaults the collector ran for about a third of a large plan's
// CPU time, and the heap still peaked near 200 MiB of resident memory.
const (
	// DefaultGCPercent lets the heap grow to three times what is live
	// before a collection, a third as many collections as Go's default.
	DefaultGCPercent = 200
	// DefaultMemoryLimit caps what that growth may cost: near the limit
	// the collector runs sooner, so the peak stays bounded however many
	// requests Terraform runs at once.
	DefaultMemoryLimit = 112 << 20
)

// TuneGC sets the collector's defaults for the provider process, each
// unless its environment variable (GOGC, GOMEMLIMIT) chose another. A memory
// limit is soft: it makes the collector run sooner, it never fails an
// allocation.
func TuneGC(lookupEnv func(string) (string, bool)) {
	tuneGC(lookupEnv, debug.SetGCPercent, debug.SetMemoryLimit)
}

func tuneGC(lookupEnv func(string) (string, bool), setGCPercent func(int) int, setMemoryLimit func(int64) int64) {
	if value, ok := lookupEnv("GOGC"); !ok || value == "" {
		setGCPercent(DefaultGCPercent)
	}
	if value, ok := lookupEnv("GOMEMLIMIT"); !ok || value == "" {
		setMemoryLimit(DefaultMemoryLimit)
	}
}
