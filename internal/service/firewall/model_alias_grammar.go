package firewall

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// The firewall grammar the alias and IP set resources need, over
// internal/wire, in the words their attributes' errors use.

func validateAliasName(name string) error {
	return wire.ValidateFirewallName(wire.FirewallAliasName, name)
}

// normalizeAliasCIDR is the address of an alias as PVE stores it: as sent,
// less a /32 or /128.
func normalizeAliasCIDR(cidr string) (string, error) {
	stored, _, err := wire.NormalizeAliasCIDR(cidr)
	if err != nil {
		return "", fmt.Errorf("must be an IPv4 or IPv6 address or a network in CIDR notation: %w", err)
	}
	return stored, nil
}

// normalizeIPSetCIDR is an IP set entry's address as PVE stores it: an
// alias reference as written; an address or network with its host bits
// cleared and /32 or /128 stripped. A zero prefix length is refused.
func normalizeIPSetCIDR(cidr string) (string, error) {
	stored, err := wire.NormalizeIPSetCIDR(cidr)
	if err != nil {
		return "", fmt.Errorf("must be an IPv4 or IPv6 address, a network in CIDR notation, or an alias (NAME, dc/NAME or guest/NAME): %w", err)
	}
	return stored, nil
}

// validateFirewallComment refuses comments PVE's firewall file cannot keep
// as given: the file holds one entry per line with the comment after '#';
// PVE trims the comment and drops one it takes for empty.
func validateFirewallComment(comment string) error {
	if strings.ContainsAny(comment, "\r\n") {
		return errors.New("must be a single line")
	}
	stored := wire.FirewallComment(comment)
	if comment == "-" {
		// "-" clears a rule's comment only (copy_rule_data); an alias or
		// IP set entry keeps it.
		stored = comment
	}
	switch {
	case stored == "":
		return errors.New("is one PVE keeps no comment for: leave it out for no comment")
	case stored != comment:
		return fmt.Errorf("must not start or end with white space: PVE would store %q", stored)
	}
	return nil
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

func nameValidator(check func(string) error) validator.String {
	return grammarValidator{check: func(name string) error {
		if err := check(name); err != nil {
			return fmt.Errorf("is not a name PVE accepts: %w", err)
		}
		return nil
	}, description: "2 to 64 letters, digits, '-' and '_', starting with a letter"}
}

func commentValidator() validator.String {
	return grammarValidator{check: validateFirewallComment, description: "a single line without leading or trailing white space"}
}
