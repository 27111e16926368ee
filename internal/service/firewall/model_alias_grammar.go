package firewall

import (
	"context"
	"crypto/sha1" //nolint:gosec // PVE's digest is SHA-1; it guards edits, it is no security boundary
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// The firewall's grammar as the alias and IP set resources need it. These
// stand in for the firewall functions of internal/wire until they land
// there; each names the PVE source it follows.

// firewallNamePattern is the pattern of alias and IP set names
// (pve-firewall src/PVE/Firewall.pm $ip_alias_pattern, $ipset_name_pattern;
// at most 64 characters, $max_alias_name_length, $max_ipset_name_length).
var firewallNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9\-_]+$`)

// aliasReferencePattern is an alias named where an address may stand:
// "name", "dc/name" (the cluster's) or "guest/name" (the guest's own)
// (pve-firewall src/PVE/Firewall.pm pve_verify_ip_or_cidr_or_alias).
var aliasReferencePattern = regexp.MustCompile(`^(dc/|guest/)?[A-Za-z][A-Za-z0-9\-_]+$`)

func validateFirewallName(name string) error {
	if len(name) < 2 || len(name) > 64 {
		return fmt.Errorf("must be 2 to 64 characters long")
	}
	if !firewallNamePattern.MatchString(name) {
		return fmt.Errorf("must start with a letter and contain only letters, digits, '-' and '_'")
	}
	return nil
}

// parseIPOrCIDR checks an address or network as PVE's IPorCIDR format does
// and returns it with the host bits cleared (pve-firewall
// src/PVE/Firewall.pm pve_verify_ip_or_cidr, clean_cidr). An address
// without a prefix length is kept as written.
func parseIPOrCIDR(cidr string) (cleaned string, v6 bool, err error) {
	addrText, lenText, hasLen := strings.Cut(cidr, "/")
	addr, perr := netip.ParseAddr(addrText)
	if perr != nil || addr.Zone() != "" || addr.Is4In6() {
		return "", false, errors.New("must be an IPv4 or IPv6 address or network in CIDR notation")
	}
	if !hasLen {
		return cidr, addr.Is6(), nil
	}
	bits, cerr := strconv.Atoi(lenText)
	if cerr != nil || bits < 0 || bits > addr.BitLen() || strconv.Itoa(bits) != lenText {
		return "", false, fmt.Errorf("has an invalid prefix length %q", lenText)
	}
	prefix, _ := addr.Prefix(bits)
	return prefix.Addr().String() + "/" + lenText, addr.Is6(), nil
}

// stripHostLength drops the /32 of an IPv4 address and the /128 of an IPv6
// address, as PVE's parser does when it reads the firewall file back
// (pve-firewall src/PVE/Firewall.pm parse_ip_or_cidr).
func stripHostLength(cidr string, v6 bool) string {
	if v6 {
		return strings.TrimSuffix(cidr, "/128")
	}
	return strings.TrimSuffix(cidr, "/32")
}

// normalizeAliasCIDR is the address of an alias as PVE stores it: PVE
// checks the address and keeps it as sent, and its parser strips /32 and
// /128 (pve-firewall src/PVE/API2/Firewall/Aliases.pm create_alias,
// src/PVE/Firewall.pm parse_alias).
func normalizeAliasCIDR(cidr string) (string, error) {
	_, v6, err := parseIPOrCIDR(cidr)
	if err != nil {
		return "", err
	}
	return stripHostLength(cidr, v6), nil
}

// normalizeIPSetCIDR is an IP set entry's address as PVE stores it: an
// alias reference as written; an address or network with its host bits
// cleared and /32 or /128 stripped. A zero prefix length is refused
// (pve-firewall src/PVE/API2/Firewall/IPSet.pm create_ip).
func normalizeIPSetCIDR(cidr string) (string, error) {
	if aliasReferencePattern.MatchString(cidr) {
		return cidr, nil
	}
	cleaned, v6, err := parseIPOrCIDR(cidr)
	if err != nil {
		return "", errors.New("must be an IPv4 or IPv6 address, a network in CIDR notation, or an alias (NAME, dc/NAME or guest/NAME)")
	}
	stored := stripHostLength(cleaned, v6)
	if strings.HasSuffix(stored, "/0") || strings.HasSuffix(stored, "/00") {
		return "", errors.New("must not have a zero prefix length: PVE refuses /0 in IP sets")
	}
	return stored, nil
}

// validateFirewallComment refuses comments PVE's firewall file cannot keep
// as given: the file holds one entry per line with the comment after '#',
// and its parser trims the comment (pve-firewall src/PVE/Firewall.pm
// parse_alias, generic_fw_config_parser).
func validateFirewallComment(comment string) error {
	switch {
	case comment == "":
		return errors.New("must not be empty: leave it out for no comment")
	case strings.ContainsAny(comment, "\r\n"):
		return errors.New("must be a single line")
	case strings.TrimSpace(comment) != comment:
		return errors.New("must not start or end with white space: PVE trims it")
	case comment == "0":
		return errors.New(`must not be "0": PVE drops that comment`)
	}
	return nil
}

// firewallListDigest is the digest PVE gives a list and checks guarded
// edits against: SHA-1 over every entry's keys in sorted order, each as
// "key:value\n" (pve-firewall src/PVE/Firewall.pm copy_list_with_digest).
func firewallListDigest(entries []map[string]string) string {
	h := sha1.New() //nolint:gosec // see the import
	for _, e := range entries {
		keys := make([]string, 0, len(e))
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s:%s\n", k, e[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// grammarValidator refuses a configured string that check refuses, naming
// the attribute and saying why.
type grammarValidator struct {
	check       func(string) error
	description string
}

func (v grammarValidator) Description(context.Context) string { return v.description }

func (v grammarValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v grammarValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if err := v.check(value); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			fmt.Sprintf("Attribute %s %s, got: %q", req.Path, err, value))
	}
}

func nameValidator() validator.String {
	return grammarValidator{check: validateFirewallName, description: "2 to 64 letters, digits, '-' and '_', starting with a letter"}
}

func commentValidator() validator.String {
	return grammarValidator{check: validateFirewallComment, description: "a single line without leading or trailing white space"}
}
