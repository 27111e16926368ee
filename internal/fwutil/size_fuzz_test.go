package fwutil

import (
	"context"
	"testing"
)

// FuzzParseSizeAttribute checks that a size attribute never parses
// negative, that a bare number means GiB, and that what
// FormatSizeAttribute writes back reads as the same bytes and is
// semantically equal to the input, so a refresh never plans a change.
func FuzzParseSizeAttribute(f *testing.F) {
	for _, s := range []string{"32", "1.5", "32G", "2252M", "1.5T", "0.9765625K", "0", "", "-1", "32GB", "1,5", "8388608T", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		bytes, err := ParseSizeAttribute(s)
		if err != nil {
			return
		}
		if bytes < 0 {
			t.Fatalf("ParseSizeAttribute(%q) = %d", s, bytes)
		}
		if bareNumberPattern.MatchString(s) {
			withUnit, err := ParseSizeAttribute(s + "G")
			if err != nil || withUnit != bytes {
				t.Fatalf("%q = %d bytes but %qG = %d, %v", s, bytes, s, withUnit, err)
			}
		}
		formatted := FormatSizeAttribute(bytes)
		again, err := ParseSizeAttribute(formatted)
		if err != nil || again != bytes {
			t.Fatalf("ParseSizeAttribute(FormatSizeAttribute(%d)) = %q -> %d, %v", bytes, formatted, again, err)
		}
		equal, diags := SizeFromString(s).StringSemanticEquals(context.Background(), SizeFromBytes(bytes))
		if !equal || diags.HasError() {
			t.Fatalf("%q and %q are not semantically equal", s, formatted)
		}
	})
}
