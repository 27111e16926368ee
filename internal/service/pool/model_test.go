package pool

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

func TestFromAPIEmptyCommentIsNull(t *testing.T) {
	t.Parallel()
	var m poolModel
	m.fromAPI("prod", &pveapi.Pool{Comment: ""})
	if !m.Comment.IsNull() {
		t.Fatalf("empty comment from PVE must be null in state, got %v", m.Comment)
	}
	if m.ID.ValueString() != "prod" || m.PoolID.ValueString() != "prod" {
		t.Fatalf("id/poolid not set: %+v", m)
	}
	m.fromAPI("prod", &pveapi.Pool{Comment: "line one\nline two"})
	if m.Comment.ValueString() != "line one\nline two" {
		t.Fatalf("comment must survive verbatim, got %q", m.Comment.ValueString())
	}
}

func TestToUpdate(t *testing.T) {
	t.Parallel()
	base := poolModel{PoolID: types.StringValue("prod"), Comment: types.StringValue("a")}

	if _, needed := toUpdate(base, base); needed {
		t.Fatal("no change must send nothing")
	}

	changed := base
	changed.Comment = types.StringValue("b")
	u, needed := toUpdate(base, changed)
	if !needed || u.PoolID != "prod" || u.Comment == nil || *u.Comment != "b" {
		t.Fatalf("comment change: got %+v needed=%v", u, needed)
	}

	cleared := base
	cleared.Comment = types.StringNull()
	u, needed = toUpdate(base, cleared)
	if !needed || u.Comment == nil || *u.Comment != "" {
		t.Fatalf("clearing the comment must send an empty comment: got %+v needed=%v", u, needed)
	}
}
