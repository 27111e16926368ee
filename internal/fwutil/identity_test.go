package fwutil

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
)

// An identity's schema has each attribute with its description, required
// or optional for import; the import id of a single attribute is its
// value, of several what ImportID makes of them.
func TestIdentitySchemaAndImportID(t *testing.T) {
	t.Parallel()
	single := Identity{Attributes: []IdentityAttribute{{Name: "poolid", Description: "The pool."}}}
	if got := single.importID(map[string]string{"poolid": "prod/web"}); got != "prod/web" {
		t.Errorf("import id %q", got)
	}
	guest := Identity{
		Attributes: []IdentityAttribute{
			{Name: "vmid", Int: true, Description: "The VMID."},
			{Name: "node", Optional: true, Description: "The node."},
		},
		ImportID: func(v map[string]string) string { return v["node"] + "/" + v["vmid"] },
	}
	if got := guest.importID(map[string]string{"vmid": "100", "node": "pve1"}); got != "pve1/100" {
		t.Errorf("import id %q", got)
	}
	s := guest.Schema()
	vmid, ok := s.Attributes["vmid"].(identityschema.Int64Attribute)
	if !ok || !vmid.RequiredForImport || vmid.OptionalForImport || vmid.Description != "The VMID." {
		t.Errorf("vmid: %#v", s.Attributes["vmid"])
	}
	node, ok := s.Attributes["node"].(identityschema.StringAttribute)
	if !ok || node.RequiredForImport || !node.OptionalForImport || node.Description != "The node." {
		t.Errorf("node: %#v", s.Attributes["node"])
	}
	if _, ok := Unidentified(WithIdentity(nil, single)).(*identified); ok {
		t.Error("Unidentified returned the wrapper")
	}
}
