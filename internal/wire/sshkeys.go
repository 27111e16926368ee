package wire

import (
	"fmt"
	"strings"
	"unicode"
)

// EncodeSSHKeys prints the qemu sshkeys value (W30): each key trimmed, blank
// keys dropped, percent-encoded, joined by "%0A". Every byte outside
// [A-Za-z0-9_.!~*'()-] becomes %XX (uppercase hex), so the result always
// passes PVE's urlencoded format check. The HTTP form encoding applied later
// encodes the "%" signs again; that is expected.
func EncodeSSHKeys(keys []string) string {
	var b strings.Builder
	first := true
	for _, key := range keys {
		for _, line := range splitLines(key) {
			if !first {
				b.WriteString("%0A")
			}
			first = false
			percentEncode(&b, line)
		}
	}
	return b.String()
}

// SSHKeyLines is keys one key per line, each trimmed, blank lines dropped:
// an element may hold several lines, or end with the newline of the file
// it was read from.
func SSHKeyLines(keys []string) []string {
	var out []string
	for _, key := range keys {
		out = append(out, splitLines(key)...)
	}
	return out
}

// DecodeSSHKeys reads a qemu sshkeys value as PVE does (qemu-server
// API2/Qemu.pm and QemuServer/Cloudinit.pm decode it with URI::Escape's
// uri_unescape): every "%" followed by two hex digits is that byte, any
// other "%" stays as it is, and "+" stays "+". The result is split on
// newlines ("\r\n" tolerated), each key trimmed, blank lines dropped. It
// cannot fail: PVE stores any value of its urlencoded alphabet, so a key
// whose comment holds a stray "%" ("50%off") is a key PVE accepted.
func DecodeSSHKeys(s string) []string {
	return splitLines(uriUnescape(s))
}

// SameSSHKeys reports whether a and b hold the same set of keys, after
// trimming and ignoring blank entries and repeats (W30: compare the decoded
// set, not the string).
func SameSSHKeys(a, b []string) bool {
	return sameSet(sshKeySet(a), sshKeySet(b))
}

// CheckURLEncoded applies PVE's urlencoded format check, with its text
// "invalid urlencoded string: S". Its pattern ends in Perl's $, which also
// matches before one final newline.
func CheckURLEncoded(s string) error {
	body := strings.TrimSuffix(s, "\n")
	for i := 0; i < len(body); i++ {
		if body[i] != '%' && !isUnreserved(body[i]) {
			return fmt.Errorf("invalid urlencoded string: %s", s)
		}
	}
	return nil
}

func sshKeySet(keys []string) map[string]bool {
	set := make(map[string]bool, len(keys))
	for _, key := range keys {
		for _, line := range splitLines(key) {
			set[line] = true
		}
	}
	return set
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// splitLines splits on "\n", trims each line (which also removes a "\r"
// before the newline) and drops blank lines. A line is also blank when each
// of its bytes is white space as a Latin-1 character (NBSP, NEL): PVE
// decodes the escapes into characters 0-255 and skips such lines
// (pve-common Tools.pm validate_ssh_public_keys, /^\s*$/).
func splitLines(s string) []string {
	var lines []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !isLatin1Blank(line) {
			lines = append(lines, line)
		}
	}
	return lines
}

func isLatin1Blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !unicode.IsSpace(rune(s[i])) {
			return false
		}
	}
	return true
}

// isUnreserved is the byte set encodeURIComponent leaves alone, which is also
// PVE's urlencoded alphabet without "%".
func isUnreserved(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-_.!~*'()", c) >= 0
}

func percentEncode(b *strings.Builder, s string) {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0x0f])
	}
}

// uriUnescape is URI::Escape's uri_unescape: "%" and two hex digits become
// that byte; anything else, a stray "%" included, is kept.
func uriUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, okHi := unhex(s[i+1])
			lo, okLo := unhex(s[i+2])
			if okHi && okLo {
				out = append(out, hi<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, s[i])
	}
	return string(out)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
