package pvegrammar

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
)

// diskSize is parse_size's pattern (pve-common src/PVE/JSONSchema.pm
// parse_size): digits with an optional fraction, then an optional unit K, M,
// G or T, each also spelled KiB, MiB, GiB, TiB. Perl's \d on a character
// string is any Unicode decimal digit (\p{Nd}), and Perl's $ also matches
// before one trailing newline.
var diskSize = regexp.MustCompile(`^(\p{Nd}+)(\.\p{Nd}+)?([KMGT](?:iB)?)?\n?$`)

// unitShift is the power of two each of parse_size's units multiplies by.
var unitShift = map[byte]uint{'K': 10, 'M': 20, 'G': 30, 'T': 40}

// ParseSize is pve-common src/PVE/JSONSchema.pm parse_size: the size in
// bytes, false where PVE returns undef (and pve_verify_disk_size answers
// "value does not look like a valid disk size: S").
//
// The arithmetic is Perl's: a whole number is multiplied as an integer, a
// number with a fraction as a double, and int() truncates. A digit outside
// ASCII passes the pattern but counts as a non-number, 0, as Perl's numeric
// conversion of such a string does. A result beyond int64 is reported as not
// a size: the simulator keeps sizes in int64 (PVE would carry on with a
// float, and no storage could allocate it).
func ParseSize(s string) (int64, bool) {
	m := diskSize.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	whole, fraction, unit := m[1], m[2], m[3]
	var shift uint
	if unit != "" {
		shift = unitShift[unit[0]]
	}
	if !isASCIIDigits(whole) || (fraction != "" && !isASCIIDigits(fraction[1:])) {
		// Perl numifies "٣" (or "1.٣") to its leading ASCII number: 0 for
		// a non-ASCII first digit, the ASCII part otherwise.
		whole, fraction = asciiPrefix(whole), asciiFractionPrefix(fraction)
		if whole == "" {
			return 0, true
		}
	}
	if fraction == "" || fraction == "." {
		n, ok := new(big.Int).SetString(whole, 10)
		if !ok {
			return 0, false
		}
		n.Lsh(n, shift)
		if !n.IsInt64() {
			return 0, false
		}
		return n.Int64(), true
	}
	f, err := strconv.ParseFloat(whole+fraction, 64)
	if err != nil {
		return 0, false
	}
	f = math.Trunc(math.Ldexp(f, int(shift)))
	if f >= math.Ldexp(1, 63) {
		return 0, false
	}
	return int64(f), true
}

func isASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// asciiPrefix is the leading ASCII digits of s.
func asciiPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// asciiFractionPrefix is ".digits" cut at the first non-ASCII digit.
func asciiFractionPrefix(fraction string) string {
	if fraction == "" {
		return ""
	}
	rest := asciiPrefix(fraction[1:])
	if rest == "" {
		return ""
	}
	return "." + rest
}

// FormatSize is pve-common src/PVE/JSONSchema.pm format_size: the largest of
// T, G, M and K that divides the size, else plain bytes. Zero is "0T", as the
// loop reaches the last unit.
func FormatSize(bytes int64) string {
	units := []string{"K", "M", "G", "T"}
	n, unit := bytes, ""
	for _, u := range units {
		if n%1024 != 0 {
			break
		}
		n /= 1024
		unit = u
	}
	return strconv.FormatInt(n, 10) + unit
}
