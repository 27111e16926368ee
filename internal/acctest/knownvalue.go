package acctest

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

// NullOrLacks checks that a value in state is null, or an object or map in
// which each of keys is absent or null: "the guest has no disk scsi1", "the
// clone block sets no source_vmid". A path to the key itself cannot say
// that, since a state check fails on a path that does not exist.
func NullOrLacks(keys ...string) knownvalue.Check {
	return nullOrLacks(keys)
}

type nullOrLacks []string

func (c nullOrLacks) CheckValue(value any) error {
	if value == nil {
		return nil
	}
	m, ok := value.(map[string]any)
	if !ok {
		return fmt.Errorf("expected null or an object or map, got %T", value)
	}
	for _, key := range c {
		if v, found := m[key]; found && v != nil {
			return fmt.Errorf("expected no %s, got %v", key, v)
		}
	}
	return nil
}

func (c nullOrLacks) String() string {
	return "null or without " + strings.Join(c, ", ")
}
