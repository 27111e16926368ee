package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// allocStats sums the allocation totals the profiled provider instances of
// one phase wrote (-profile): they compare runs on a busy machine better
// than CPU time does.
type allocStats struct {
	bytes, objects, gcCycles uint64
	instances                int
}

func readAllocStats(dir string) (allocStats, error) {
	var total allocStats
	files, err := filepath.Glob(filepath.Join(dir, "alloc-*.txt"))
	if err != nil {
		return total, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return total, err
		}
		fields := strings.Fields(string(data))
		if len(fields) != 3 {
			return total, fmt.Errorf("%s: want BYTES OBJECTS GC_CYCLES, got %q", f, data)
		}
		var values [3]uint64
		for i, field := range fields {
			if values[i], err = strconv.ParseUint(field, 10, 64); err != nil {
				return total, fmt.Errorf("%s: %w", f, err)
			}
		}
		total.bytes += values[0]
		total.objects += values[1]
		total.gcCycles += values[2]
		total.instances++
	}
	return total, nil
}
