// Package functions serves the provider-defined functions
// (provider::pve::NAME, Terraform 1.8 and later): pure readers and writers of
// PVE's notations, each backed by internal/wire. They need no PVE endpoint
// and work before the provider is configured.
package functions

import (
	"github.com/hashicorp/terraform-plugin-framework/function"
)

// All lists the constructors of every function, for the provider to
// register.
func All() []func() function.Function {
	return []func() function.Function{
		NewParseVolumeIDFunction,
		NewSizeToBytesFunction,
		NewBytesToSizeFunction,
		NewParsePropertyStringFunction,
	}
}
