// Package crosscheck holds the differential tests between the provider's
// reading of PVE's grammar (internal/wire) and the simulator's own
// (internal/pvesim/pvegrammar and the simulator's schema validator). The
// simulator may not import the provider's grammar, so the comparison lives
// here, where both can be imported. Where the two disagree, PVE's source
// decides which side is wrong.
package crosscheck
