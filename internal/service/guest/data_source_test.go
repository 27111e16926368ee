package guest

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"

	"github.com/proxops/terraform-provider-pve/internal/service/guestops"
)

// One implementation serves both kinds: the guestops.Kind picks the type
// name and the schema's own attributes.
func TestDataSourcesOfKind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		constructor func() datasource.DataSource
		typeName    string
		attribute   string
	}{
		{LookupDataSource(guestops.VM), "pve_vm", "name"},
		{ListDataSource(guestops.VM), "pve_vms", "name_regex"},
		{LookupDataSource(guestops.Container), "pve_container", "hostname"},
		{ListDataSource(guestops.Container), "pve_containers", "hostname_regex"},
	} {
		ds := tt.constructor()
		var meta datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "pve"}, &meta)
		if meta.TypeName != tt.typeName {
			t.Errorf("type name = %q, want %q", meta.TypeName, tt.typeName)
		}
		var s datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &s)
		if _, ok := s.Schema.Attributes[tt.attribute]; !ok {
			t.Errorf("%s lacks %q", tt.typeName, tt.attribute)
		}
	}
}

func TestWordsOf(t *testing.T) {
	t.Parallel()
	if wordsOf(guestops.VM) != vmWords || wordsOf(guestops.Container) != containerWords {
		t.Error("wordsOf does not pick the kind's words")
	}
}
