package pvegrammar

import (
	"math/big"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// pve-firewall checks addresses with Net::IP (libnet-ip-perl, Net/IP.pm
// new, set, ip_normalize): a single address, a prefix "ADDR/LEN" whose
// host bits are zero, or a range "BEGIN-END". This is our own reading of
// what that module accepts and the error it leaves in Net::IP::Error(),
// limited to the forms a firewall address can take.

var (
	netIPPrefixForm = regexp.MustCompile(`^(\S+?)(/\S+)$`)
	netIPPrefixLen  = regexp.MustCompile(`^/(\d+)(,|$)`)
	netIPRangeForm  = regexp.MustCompile(`^(.+?)\s*-\s*(.+)$`)
	netIPv4Chars    = regexp.MustCompile(`^[\d.]+$`)
	netIPv6Group    = regexp.MustCompile(`^(?i)[a-f\d]{1,4}$`)
	netIPv4Quad     = regexp.MustCompile(`^\d{1,3}$`)
)

// NetIPVersion is Net::IP->new: the IP version (4 or 6) of an address,
// prefix or range, or 0 and Net::IP's error text.
func NetIPVersion(data string) (int, string) {
	begin, end, version, msg := netIPNormalize(data)
	if msg != "" {
		return 0, msg
	}
	if end == nil {
		return version, ""
	}
	if begin.Cmp(end) > 0 {
		return 0, "Begin address is greater than End address " + formatNetIP(begin, version) + " - " + formatNetIP(end, version)
	}
	return version, ""
}

// netIPNormalize is Net/IP.pm ip_normalize: the first and (for a prefix or
// range) last address as integers. not simulated: the "IP + number" form
// ("10.0.0.1 + 5"), which fails here as an address with invalid
// characters.
func netIPNormalize(data string) (begin, end *big.Int, version int, msg string) {
	if m := netIPPrefixForm.FindStringSubmatch(data); m != nil {
		version, msg = netIPGetVersion(m[1])
		if msg != "" {
			return nil, nil, 0, msg
		}
		begin, msg = netIPExpand(m[1], version)
		if msg != "" {
			return nil, nil, 0, msg
		}
		bits := netIPBits(version)
		cur := new(big.Int).Set(begin)
		rest := m[2]
		// Each "/LEN" (optionally followed by ",/LEN...") must be a prefix
		// whose host bits are zero; anything else after the address ends
		// the loop and is ignored.
		for rest != "" {
			pm := netIPPrefixLen.FindStringSubmatch(rest)
			if pm == nil {
				break
			}
			rest = rest[len(pm[0]):]
			plen, _ := strconv.Atoi(pm[1])
			if len(pm[1]) > 4 || plen > bits {
				return nil, nil, 0, "Prefix length " + pm[1] + " is longer than IP address (" + strconv.Itoa(bits) + ")"
			}
			host := new(big.Int).Lsh(big.NewInt(1), uint(bits-plen))
			host.Sub(host, big.NewInt(1))
			if new(big.Int).And(cur, host).Sign() != 0 {
				return nil, nil, 0, "Invalid prefix " + binaryNetIP(cur, bits) + "/" + pm[1]
			}
			cur = new(big.Int).Or(cur, host)
			if pm[2] == "," {
				cur.Add(cur, big.NewInt(1))
			}
		}
		return begin, cur, version, ""
	}
	if m := netIPRangeForm.FindStringSubmatch(data); m != nil {
		version, msg = netIPGetVersion(m[1])
		if msg != "" {
			return nil, nil, 0, msg
		}
		if begin, msg = netIPExpand(m[1], version); msg != "" {
			return nil, nil, 0, msg
		}
		if end, msg = netIPExpand(m[2], version); msg != "" {
			return nil, nil, 0, msg
		}
		return begin, end, version, ""
	}
	version, msg = netIPGetVersion(data)
	if msg != "" {
		return nil, nil, 0, msg
	}
	begin, msg = netIPExpand(data, version)
	return begin, nil, version, msg
}

// netIPGetVersion is Net/IP.pm ip_get_version with ip_is_ipv4 and
// ip_is_ipv6 and their error texts.
func netIPGetVersion(ip string) (int, string) {
	if !strings.Contains(ip, ":") {
		if msg := netIPIsIPv4(ip); msg != "" {
			return 0, msg
		}
		return 4, ""
	}
	if msg := netIPIsIPv6(ip); msg != "" {
		return 0, msg
	}
	return 6, ""
}

func netIPIsIPv4(ip string) string {
	if !netIPv4Chars.MatchString(ip) {
		return "Invalid chars in IP " + ip
	}
	if strings.HasPrefix(ip, ".") {
		return "Invalid IP " + ip + " - starts with a dot"
	}
	if strings.HasSuffix(ip, ".") {
		return "Invalid IP " + ip + " - ends with a dot"
	}
	if n := strings.Count(ip, "."); n >= 4 {
		return "Invalid IP address " + ip
	}
	if strings.Contains(ip, "..") {
		return "Empty quad in IP address " + ip
	}
	for _, q := range strings.Split(ip, ".") {
		if v, err := strconv.ParseFloat(q, 64); err != nil || v >= 256 {
			return "Invalid quad in IP address " + ip + " - " + q
		}
	}
	return ""
}

func netIPIsIPv6(ip string) string {
	n := strings.Count(ip, ":")
	if n == 0 || n >= 8 {
		// inferred: Net::IP returns here without setting its error, so
		// Net::IP::Error() still holds the previous failure's text; the
		// simulator words it as a plain invalid address.
		return "Invalid IP address " + ip
	}
	parts := perlSplitFixed(ip, ":")
	for k, p := range parts {
		switch {
		case p == "", netIPv6Group.MatchString(p):
			continue
		case k+1 == n+1 && netIPIsIPv4(p) == "":
			n++ // an embedded IPv4 address counts as two groups
			continue
		}
		return "Invalid IP address " + ip
	}
	if len(ip) >= 2 && ip[0] == ':' && ip[1] != ':' {
		return "Invalid address " + ip + " (starts with :)"
	}
	if len(ip) >= 2 && ip[len(ip)-1] == ':' && ip[len(ip)-2] != ':' {
		return "Invalid address " + ip + " (ends with :)"
	}
	doubles := 0
	for i := 0; i+1 < len(ip); i++ {
		if ip[i] == ':' && ip[i+1] == ':' {
			doubles++
		}
	}
	if doubles > 1 {
		return "Invalid address " + ip + " (More than one :: pattern)"
	}
	if n != 7 && !strings.Contains(ip, "::") {
		return "Invalid number of octets " + ip
	}
	return ""
}

// netIPExpand is Net/IP.pm ip_expand_address followed by ip_iptobin: the
// address as an integer. Missing IPv4 quads are zero ("10" is 10.0.0.0).
func netIPExpand(ip string, version int) (*big.Int, string) {
	if version == 4 {
		quads := perlSplitFixed(ip, ".")
		if len(quads) > 4 {
			return nil, "Not a valid IPv address " + ip
		}
		v := uint32(0)
		expanded := make([]string, 4)
		for i := range expanded {
			q := 0
			if i < len(quads) {
				if !netIPv4Quad.MatchString(quads[i]) {
					return nil, "Not a valid IPv4 address " + ip
				}
				q, _ = strconv.Atoi(quads[i])
			}
			expanded[i] = strconv.Itoa(q)
			v = v<<8 | uint32(q&0xff)
		}
		// Net::IP's set checks the expanded end of a range once more
		// (ip_get_version), which refuses a quad above 255.
		if msg := netIPIsIPv4(strings.Join(expanded, ".")); msg != "" {
			return nil, msg
		}
		return new(big.Int).SetUint64(uint64(v)), ""
	}
	// An embedded IPv4 address is expanded as one of its own: missing
	// quads are zero ("::1.2.3" is ::1.2.3.0).
	parsed := ip
	if i := strings.LastIndexByte(ip, ':'); i >= 0 && strings.Contains(ip[i+1:], ".") {
		if v4, msg := netIPExpand(ip[i+1:], 4); msg == "" {
			parsed = ip[:i+1] + formatNetIP(v4, 4)
		}
	}
	addr, err := netip.ParseAddr(parsed)
	if err != nil || !addr.Is6() {
		// inferred: Net::IP expands such an address group by group and
		// refuses it in a later step with that step's text (an IPv4 or
		// malformed end of an IPv6 range, a group of five digits); the
		// simulator refuses the same values with ip_iptobin's text.
		return nil, "Bad IP address " + ip
	}
	b := addr.As16()
	return new(big.Int).SetBytes(b[:]), ""
}

// netIPBits is Net/IP.pm ip_iplengths: the bits of an address.
func netIPBits(version int) int {
	if version == 6 {
		return 128
	}
	return 32
}

// compressNetIP writes an address as Net/IP.pm ip_compress_address does:
// IPv4 as a dotted quad; IPv6 in lowercase groups without leading zeros,
// the run of two or more zero groups whose text (with the colons around
// it) is longest replaced by "::", the first of equal ones. Unlike RFC
// 5952, a run in the middle (two colons) beats an equally long one at
// either end, and an IPv4 tail is written in hex.
func compressNetIP(v *big.Int, version int) string {
	if version == 4 {
		return formatNetIP(v, 4)
	}
	groups := strings.Split(formatNetIP(v, 6), ":")
	for i, g := range groups {
		groups[i] = strings.TrimLeft(g, "0")
		if groups[i] == "" {
			groups[i] = "0"
		}
	}
	bestStart, bestEnd, bestLen := -1, -1, 0
	for i := 0; i < len(groups); {
		if groups[i] != "0" {
			i++
			continue
		}
		j := i
		for j+1 < len(groups) && groups[j+1] == "0" {
			j++
		}
		if j > i {
			text := 2*(j-i+1) - 1
			if i > 0 {
				text++
			}
			if j < len(groups)-1 {
				text++
			}
			if text > bestLen {
				bestStart, bestEnd, bestLen = i, j, text
			}
		}
		i = j + 1
	}
	if bestStart < 0 {
		return strings.Join(groups, ":")
	}
	return strings.Join(groups[:bestStart], ":") + "::" + strings.Join(groups[bestEnd+1:], ":")
}

// formatNetIP writes an address as Net::IP's ip() does: dotted quad, or
// eight zero-padded hex groups.
func formatNetIP(v *big.Int, version int) string {
	if version == 4 {
		n := v.Uint64()
		return strconv.FormatUint(n>>24&0xff, 10) + "." + strconv.FormatUint(n>>16&0xff, 10) + "." +
			strconv.FormatUint(n>>8&0xff, 10) + "." + strconv.FormatUint(n&0xff, 10)
	}
	hex := v.Text(16)
	hex = strings.Repeat("0", 32-len(hex)) + hex
	groups := make([]string, 8)
	for i := range groups {
		groups[i] = hex[i*4 : i*4+4]
	}
	return strings.Join(groups, ":")
}

// binaryNetIP is an address as the bit string Net::IP's prefix error shows.
func binaryNetIP(v *big.Int, bits int) string {
	s := v.Text(2)
	return strings.Repeat("0", bits-len(s)) + s
}
