package guestops

import (
	"strings"
	"testing"
)

// W17: the import errors name the resource type to use instead.
func TestWrongTemplateKindW17(t *testing.T) {
	t.Parallel()
	summary, detail := wrongTemplateKind(VM, 120)
	if summary != "VM Is A Template" || !strings.Contains(detail, "import it as pve_vm_template") {
		t.Errorf("VM: %q %q", summary, detail)
	}
	summary, detail = wrongTemplateKind(ContainerTemplate, 130)
	if summary != "Not A Container Template" || !strings.Contains(detail, "import it as pve_container.") {
		t.Errorf("container template: %q %q", summary, detail)
	}
}
