package guestops

import (
	"errors"

	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// nodeUnreachable reports pveproxy's answer when it cannot forward a request
// to the guest's node: 595 (no route, connection refused: the node is down
// or cut off) or 596 (the connection between the nodes broke). The guest
// itself is then neither confirmed nor gone.
func nodeUnreachable(err error) bool {
	var apiErr *pveapi.Error
	return errors.As(err, &apiErr) && (apiErr.StatusCode == 595 || apiErr.StatusCode == 596)
}
