package wire

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Binary size units as PVE uses them: K, M, G and T are powers of 1024.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40
)

// diskSizePattern is PVE's disk-size format: a decimal number with an
// optional unit K, M, G or T, also spelled KiB, MiB, GiB or TiB.
var diskSizePattern = lazyPattern(`^(\d+(?:\.\d+)?)(?:([KMGT])(?:iB)?)?$`)

var unitBytes = map[string]int64{"": 1, "K": KiB, "M": MiB, "G": GiB, "T": TiB}

// ParseSize reads a PVE disk size ("32G", "754M", "1.5G", "4194304") into
// bytes. Like PVE, a fractional result is truncated to whole bytes. PVE's
// text for a malformed size is "value does not look like a valid disk size:
// S".
//
// The arithmetic is Perl's (pve-common JSONSchema.pm parse_size): a whole
// number is multiplied exactly, a number with a fraction as a double, so a
// fraction beyond a double's precision reads as PVE reads it
// ("0.99999999999999999999K" is 1024 bytes).
func ParseSize(s string) (int64, error) {
	match := diskSizePattern().FindStringSubmatch(s)
	if match == nil {
		return 0, fmt.Errorf("value does not look like a valid disk size: %s", s)
	}
	if strings.Contains(match[1], ".") {
		f, err := strconv.ParseFloat(match[1], 64)
		if err != nil {
			return 0, fmt.Errorf("value does not look like a valid disk size: %s", s)
		}
		f = math.Trunc(f * float64(unitBytes[match[2]]))
		if f >= math.Ldexp(1, 63) {
			return 0, fmt.Errorf("disk size %s is too large", s)
		}
		return int64(f), nil
	}
	number, ok := new(big.Rat).SetString(match[1])
	if !ok {
		return 0, fmt.Errorf("value does not look like a valid disk size: %s", s)
	}
	number.Mul(number, new(big.Rat).SetInt64(unitBytes[match[2]]))
	bytes := new(big.Int).Quo(number.Num(), number.Denom())
	if !bytes.IsInt64() {
		return 0, fmt.Errorf("disk size %s is too large", s)
	}
	return bytes.Int64(), nil
}

// FormatSize prints bytes the way PVE writes a drive's size= option: in the
// largest of T, G, M, K that divides it exactly, else in bytes without a unit
// ("32G", "512M", "1T", "1536K", "1000"). Zero is "0T", as in PVE.
func FormatSize(bytes int64) string {
	units := []struct {
		suffix string
		size   int64
	}{{"T", TiB}, {"G", GiB}, {"M", MiB}, {"K", KiB}}
	for _, unit := range units {
		if bytes%unit.size == 0 {
			return strconv.FormatInt(bytes/unit.size, 10) + unit.suffix
		}
	}
	return strconv.FormatInt(bytes, 10)
}

// ParseMemoryMiB reads a qemu memory value in MiB (W43). PVE's schema makes
// memory a property string with the default key "current", so "4096",
// "current=4096" and "4096,KEY=..." all mean 4096 MiB; other keys are
// ignored. Only a non-negative whole number is accepted, with an optional
// "+": PVE's integer type check (pve-common JSONSchema.pm is_integer,
// /^[+-]?\d+$/) lets "+4096" through and stores it as sent.
func ParseMemoryMiB(s string) (int64, error) {
	props, err := ParsePropertyString(s, "current")
	if err != nil {
		return 0, fmt.Errorf("memory %q: %w", s, err)
	}
	current, ok := props["current"]
	if !ok {
		return 0, fmt.Errorf("memory %q: current: property is missing and it is not optional", s)
	}
	mib, err := parseDecimalInt64(current)
	if err != nil {
		return 0, fmt.Errorf("memory %q: current: type check ('integer') failed - got '%s'", s, current)
	}
	return mib, nil
}

// FormatMemoryMiB prints a memory size in MiB as PVE reports it: a plain
// number (W43).
func FormatMemoryMiB(mib int64) string {
	return strconv.FormatInt(mib, 10)
}

// parseDecimalInt64 accepts ASCII digits with an optional leading "+" (no
// minus, no spaces).
func parseDecimalInt64(s string) (int64, error) {
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return 0, strconv.ErrSyntax
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, strconv.ErrSyntax
		}
	}
	return strconv.ParseInt(s, 10, 64)
}
