package lxc_test

import (
	"net/url"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/proxops/terraform-provider-pve/internal/acctest"
)

// An import block with generated configuration plans no change: the
// template PVE does not report (W35) is left out rather than guessed, and
// nothing generated conflicts. The end-to-end tests go on to apply the
// generated configuration; this one also runs against a live node.
func TestAccContainer_importBlockGeneratedConfigW35(t *testing.T) {
	t.Parallel()
	tg := acctest.New(t)
	vmid := createOutside(t, tg, "pve1", url.Values{
		"ostemplate":   {ctTemplate},
		"hostname":     {acctest.Name("tfacc-adopted")},
		"tags":         {"Adopted"},
		"rootfs":       {"local-lvm:4"},
		"mp0":          {"local-lvm:2,mp=/data,backup=1"},
		"net0":         {"name=eth0,bridge=vmbr0,ip=dhcp"},
		"features":     {"nesting=1"},
		"searchdomain": {"example.org"},
		"startup":      {"order=1"},
	})
	t.Cleanup(func() { destroyOutside(tg, "pve1", vmid) })
	tg.Run(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config:          tg.Config(""),
			ResourceName:    ctAddr,
			ImportState:     true,
			ImportStateKind: resource.ImportBlockWithID,
			ImportStateId:   strconv.Itoa(vmid),
			GenerateConfig:  true,
		}},
	})
}
