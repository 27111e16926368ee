package acctest

import (
	"strings"
	"testing"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
	"github.com/proxops/terraform-provider-pve/internal/pvesim"
)

// NewWithOtherIdentity is NewOnPVE with one more API token in the
// simulator, tokenID ("alice@pve!probe", without privilege separation), whose
// user holds no privileges until the test grants them; it returns a
// client that acts as that token, to show what an ACL lets another
// identity do. The simulator seeds every user of a token with
// Administrator on "/", which this takes away again. A live node has no
// such spare identity, so the test is skipped there.
func NewWithOtherIdentity(t *testing.T, version, tokenID string) (*Target, *pveapi.Client) {
	t.Helper()
	if IsLive() {
		t.Skip("adds an identity to the simulator")
	}
	secret := randomHex(16)
	tg := newSim(t, false, version, nil, tokenID+"="+secret)
	user := tokenID[:max(strings.LastIndexByte(tokenID, '!'), 0)]
	if err := tg.Sim.Update(func(c *pvesim.Cluster) error {
		if root := c.Access.ACL["/"]; root != nil {
			delete(root.Users, user)
		}
		return nil
	}); err != nil {
		t.Fatalf("take the seeded grant from %s: %v", user, err)
	}
	client, err := pveapi.New(pveapi.Config{Endpoint: tg.endpoint, APIToken: tokenID + "=" + secret, CAFile: tg.caFile, TaskPollInterval: pollInterval})
	if err != nil {
		t.Fatalf("client for %s: %v", tokenID, err)
	}
	return tg, client
}
