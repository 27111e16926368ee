package storagecfg_test

import (
	"maps"
	"reflect"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// Every storage type returns its identity, the storage ID, from Create and
// Read, and an import by identity reads what the import by id reads.
func TestStorageIdentityEveryType(t *testing.T) {
	t.Parallel()
	p := acctest.NewProtocol(t)
	for _, c := range typeCases {
		typeName, id := resType(c.typ), "ident-"+c.typ
		attrs := maps.Clone(c.required)
		attrs["storage"] = id
		want := map[string]any{"storage": id}

		created := p.Create(t, typeName, attrs)
		if got := p.IdentityValues(t, typeName, created.Identity); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: create identity %v, want %v", typeName, got, want)
		}
		if got := p.IdentityValues(t, typeName, p.Refresh(t, typeName, created).Identity); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: refresh identity %v, want %v", typeName, got, want)
		}
		byID := p.ImportByID(t, typeName, id)
		byIdentity := p.ImportByIdentity(t, typeName, p.Identity(t, typeName, map[string]any{"storage": id}))
		if got := p.IdentityValues(t, typeName, byIdentity.Identity); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: import identity %v, want %v", typeName, got, want)
		}
		if got, want := p.StateValue(t, typeName, byIdentity.State), p.StateValue(t, typeName, byID.State); !got.Equal(want) {
			t.Errorf("%s: import by identity read\n%v\nimport by id read\n%v", typeName, got, want)
		}
	}
}
