package storagecfg

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/wire"
)

// Every resource documents every attribute, has exactly its type's options
// (sensitive ones as a write-only value and its version), and no secret is
// stored.
func TestStorageSchemas(t *testing.T) {
	t.Parallel()
	if len(Resources()) != len(wire.StorageTypes) {
		t.Fatalf("%d resources for %d types", len(Resources()), len(wire.StorageTypes))
	}
	for _, newRes := range Resources() {
		r := fwutil.Unidentified(newRes()).(*storageResource)
		var resp resource.SchemaResponse
		r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
		s := resp.Schema
		if s.MarkdownDescription == "" {
			t.Errorf("%s: no description", r.st.Name)
		}
		want := map[string]bool{attrID: true, attrStorage: true, attrAllowDestroy: true}
		for _, o := range r.st.Options {
			if o.Sensitive {
				want[woName(o)] = true
				want[woVersionName(o)] = true
				continue
			}
			want[wire.StorageAttributeName(o.Key)] = true
		}
		for name, a := range s.Attributes {
			if !want[name] {
				t.Errorf("%s: unexpected attribute %s", r.st.Name, name)
			}
			if a.GetMarkdownDescription() == "" {
				t.Errorf("%s: %s has no description", r.st.Name, name)
			}
			if nested, ok := a.(schema.SingleNestedAttribute); ok {
				for sub, sa := range nested.Attributes {
					if sa.GetMarkdownDescription() == "" {
						t.Errorf("%s: %s.%s has no description", r.st.Name, name, sub)
					}
				}
			}
			if a.IsSensitive() && !a.IsWriteOnly() {
				t.Errorf("%s: %s is sensitive but stored", r.st.Name, name)
			}
		}
		if len(s.Attributes) != len(want) {
			t.Errorf("%s: %d attributes, want %d", r.st.Name, len(s.Attributes), len(want))
		}
	}
}
