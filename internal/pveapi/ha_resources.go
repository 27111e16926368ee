package pveapi

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// HAResource is one entry of ha/resources.cfg as GET
// /cluster/ha/resources/{sid} answers it: only the options set are there
// (PVE's defaults are not filled in), with the file's digest.
type HAResource struct {
	SID         string       `json:"sid"`
	Type        string       `json:"type"`
	State       string       `json:"state,omitempty"`
	Group       string       `json:"group,omitempty"`
	Comment     string       `json:"comment,omitempty"`
	MaxRestart  *IntOrString `json:"max_restart,omitempty"`
	MaxRelocate *IntOrString `json:"max_relocate,omitempty"`
	Failback    *Bool01      `json:"failback,omitempty"`
	Digest      string       `json:"digest,omitempty"`
	// Errors flags problems the list shows, e.g. a group that does not
	// exist (PVE 8).
	Errors map[string]string `json:"errors,omitempty"`
}

// HAResourceParams are the options of a create or update; nil leaves an
// option out.
type HAResourceParams struct {
	State       *string
	Group       *string
	Comment     *string
	MaxRestart  *int64
	MaxRelocate *int64
	Failback    *bool
}

func (p HAResourceParams) form(form url.Values) {
	if p.State != nil {
		form.Set("state", *p.State)
	}
	if p.Group != nil {
		form.Set("group", *p.Group)
	}
	if p.Comment != nil {
		form.Set("comment", *p.Comment)
	}
	if p.MaxRestart != nil {
		form.Set("max_restart", strconv.FormatInt(*p.MaxRestart, 10))
	}
	if p.MaxRelocate != nil {
		form.Set("max_relocate", strconv.FormatInt(*p.MaxRelocate, 10))
	}
	if p.Failback != nil {
		form.Set("failback", FormBool(*p.Failback))
	}
}

// HAResources lists GET /cluster/ha/resources; typ ("vm", "ct") filters.
func (c *Client) HAResources(ctx context.Context, typ string) ([]HAResource, error) {
	var query url.Values
	if typ != "" {
		query = url.Values{"type": {typ}}
	}
	var out []HAResource
	if err := c.Get(ctx, "/cluster/ha/resources", query, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetHAResource reads one HA resource by sid ("vm:100") or bare VMID.
// found is false for PVE's answers for a resource that is not there
// ("no such resource") or a bare VMID no guest has.
func (c *Client) GetHAResource(ctx context.Context, sid string) (res *HAResource, found bool, err error) {
	var out HAResource
	if err := c.Get(ctx, "/cluster/ha/resources/"+url.PathEscape(sid), nil, &out); err != nil {
		if IsHAResourceNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &out, true, nil
}

// CreateHAResource puts a guest under HA (POST /cluster/ha/resources).
func (c *Client) CreateHAResource(ctx context.Context, sid string, params HAResourceParams) error {
	form := url.Values{"sid": {sid}}
	params.form(form)
	return c.Post(ctx, "/cluster/ha/resources", form, nil)
}

// UpdateHAResource sets options, deletes others (PVE's option names) and
// sends digest when not empty: the digest of the whole resources file,
// so any change to any HA resource since it was read makes PVE refuse
// (IsHADigestMismatch).
func (c *Client) UpdateHAResource(ctx context.Context, sid string, params HAResourceParams, del []string, digest string) error {
	form := url.Values{}
	params.form(form)
	if len(del) > 0 {
		form.Set("delete", strings.Join(del, ","))
	}
	setDigest(form, digest)
	return c.Put(ctx, "/cluster/ha/resources/"+url.PathEscape(sid), form, nil)
}

// DeleteHAResource takes a guest out of HA. found is false when PVE says
// the resource is not there. On PVE 9 the resource also leaves the rules
// that name it (PVE's purge default).
func (c *Client) DeleteHAResource(ctx context.Context, sid string) (found bool, err error) {
	if err := c.Delete(ctx, "/cluster/ha/resources/"+url.PathEscape(sid), nil, nil); err != nil {
		if IsHAResourceNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// HAMotion is PVE 9's answer to a migrate or relocate request; PVE 8
// answers nothing (zero value).
type HAMotion struct {
	SID           string   `json:"sid"`
	RequestedNode string   `json:"requested-node"`
	Comigrated    []string `json:"comigrated-resources,omitempty"`
	Blocking      []struct {
		SID   string `json:"sid"`
		Cause string `json:"cause"`
	} `json:"blocking-resources,omitempty"`
}

// RequestHAMove asks the HA manager to migrate (or relocate: stop, move,
// start) a resource to node. The request is queued: the manager carries
// it out in its next rounds; poll HAStatus to see it done.
func (c *Client) RequestHAMove(ctx context.Context, sid, node string, relocate bool) (*HAMotion, error) {
	verb := "migrate"
	if relocate {
		verb = "relocate"
	}
	var out HAMotion
	if err := c.Post(ctx, "/cluster/ha/resources/"+url.PathEscape(sid)+"/"+verb, url.Values{"node": {node}}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// haResourceMissing are PVE's answers for an HA resource that is not
// there: read and update ("no such resource 'SID'", also behind the
// update's "update resources config failed: " prefix), delete ("cannot
// delete service 'SID', not HA managed!") and a bare VMID without a guest
// ("unable to detect SID from VMID", PVE 8.4: "unable do detect").
// pve-ha-manager src/PVE/API2/HA/Resources.pm, src/PVE/HA/Config.pm.
var haResourceMissing = regexp.MustCompile(`^(?:update resources config failed: )?no such resource '|^cannot delete service '[^']*', not HA managed!|^unable (?:to|do) detect SID from VMID`)

// IsHAResourceNotFound reports PVE's answer for an HA resource that does
// not exist.
func IsHAResourceNotFound(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 && haResourceMissing.MatchString(firstLine(apiErr.Message))
}

// IsHADigestMismatch reports PVE's refusal of an HA resource update whose
// digest is not the resources file's any more.
func IsHADigestMismatch(err error) bool {
	apiErr, ok := AsError(err)
	return ok && apiErr.StatusCode == 500 &&
		strings.Contains(firstLine(apiErr.Message), "detected modified configuration - file changed by other user?")
}
