package pvegrammar

import (
	"regexp"
	"strings"
	"unicode"
)

// urlencoded is pve-common src/PVE/JSONSchema.pm pve_verify_urlencoded's
// alphabet, the format of qemu-server's sshkeys option.
var urlencoded = regexp.MustCompile(`^[-%a-zA-Z0-9_.!~*'()]*\n?$`)

// IsURLEncoded is pve_verify_urlencoded (pve-common src/PVE/JSONSchema.pm),
// whose text on failure is "invalid urlencoded string: S". It checks the
// alphabet only: "%" need not start a valid escape.
func IsURLEncoded(s string) bool { return urlencoded.MatchString(s) }

// URIUnescape is URI::Escape's uri_unescape, which qemu-server applies to
// sshkeys before checking them (src/PVE/API2/Qemu.pm, create_vm and
// update_vm_api) and before writing them to the cloud-init drive
// (src/PVE/QemuServer/Cloudinit.pm): every "%" followed by two hex digits is
// that byte; any other "%" stays as it is. "+" is not a space.
func URIUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(hexValue(s[i+1])<<4 | hexValue(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// URIEscape is URI::Escape's uri_escape with its default set: every byte
// but the RFC 3986 unreserved characters [A-Za-z0-9._~-] becomes %XX in
// uppercase hex. It is how a client encodes sshkeys for PVE.
func URIEscape(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&0xf])
	}
	return b.String()
}

// SSHKeyLines is how PVE walks a decoded sshkeys value: the lines of
// pve-common src/PVE/Tools.pm validate_ssh_public_keys (split on "\n",
// lines matching /^\s*$/ skipped), which are also the keys
// src/PVE/QemuServer/Cloudinit.pm writes (split on "\n", chomped, lines
// without /\S/ dropped). Lines are not trimmed: a "\r" or a space at either
// end stays part of the key. uri_unescape turns each escape into the
// character of that code (0-255) of a character string, so a byte is blank
// when its Latin-1 character is white space (NBSP and NEL included).
func SSHKeyLines(decoded string) []string {
	var out []string
	for _, line := range strings.Split(decoded, "\n") {
		if !isLatin1Blank(line) {
			out = append(out, line)
		}
	}
	return out
}

func isLatin1Blank(s string) bool {
	for i := 0; i < len(s); i++ {
		if !unicode.IsSpace(rune(s[i])) {
			return false
		}
	}
	return true
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
