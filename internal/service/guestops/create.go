package guestops

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/proxops/terraform-provider-pve/internal/fwutil"
	"github.com/proxops/terraform-provider-pve/internal/pveapi"
)

// maxCreateAttempts bounds how often Create takes another VMID after losing
// a race for one (W13).
const maxCreateAttempts = 5

// CreateRequest is one guest to create.
type CreateRequest struct {
	Node string
	// VMID is the configured id; 0 allocates one in the API's VMIDRange.
	VMID int
	// Form is the create request without vmid. Create adds the create
	// marker to its description (CreateMarker); the caller removes it with
	// RemoveCloneMarker once the guest is complete.
	Form url.Values
	// Name is the planned name (hostname for containers), empty when none
	// is planned. With a name and no VMID, a guest an interrupted apply
	// left half-made (same name, create marker) is adopted instead of
	// creating another one (W13); without a name that cannot be told
	// apart safely, so nothing is adopted.
	Name string
	// Recognize tells whether a guest found on the VMID after a lost answer,
	// and no longer locked for creation, is the one Form describes.
	Recognize func(config pveapi.GuestConfig) bool
	// Send, when set, replaces the create request (a clone sends POST
	// .../clone instead); Form is then unused.
	Send func(ctx context.Context, vmid int) (string, error)
	// Marker is the marker line Send writes into the guest's description
	// (a restore's), for finding a half-made guest of an interrupted apply
	// as with plain creates; empty when Send writes none.
	Marker string
	// Lock is the lock a guest carries while this request's task runs:
	// "create" when empty. A guest found with it after a lost answer is
	// ours (W10, W11).
	Lock string
	// AdoptOwn also inspects a configured VMID that is taken: a guest that
	// Recognize claims (left by an apply that died mid-task) is adopted
	// rather than refused.
	AdoptOwn bool
}

// Created is a create request PVE accepted: the task to wait for, or, when
// the answer was lost and the guest was found being created, no task
// (Adopted).
type Created struct {
	VMID    int
	UPID    string
	Adopted bool
}

// Create sends the create request, on the configured VMID or on one it
// allocates. Losing an allocated id to another creator (W13) moves on to
// another id; a configured id that is taken is an error. A request whose
// answer was lost may have created the guest: the id is inspected before
// anything is sent again, so the guest is never created twice.
func (a API) Create(ctx context.Context, req CreateRequest, diags *diag.Diagnostics) (Created, bool) {
	noun, summary := a.Kind.Noun, "Unable To Create "+a.Kind.Title
	configured := req.VMID != 0
	vmid := req.VMID
	marker, hash := req.Marker, ""
	if req.Send == nil {
		until := time.Now().Add(DefaultCreateTimeout)
		if deadline, ok := ctx.Deadline(); ok {
			until = deadline
		}
		hash = formHash(req.Form)
		marker = a.createMarker(req.Name, req.Form, until)
		form := make(url.Values, len(req.Form)+1)
		for k, v := range req.Form {
			form[k] = v
		}
		form.Set(KeyDescription, WithCloneMarker(req.Form.Get(KeyDescription), marker))
		req.Form = form
	}
	if !configured && marker != "" && (req.Send == nil || req.Name != "") {
		halfMade, found, err := a.findHalfMade(ctx, req, marker, hash, diags)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To Look For A Half-Made "+a.Kind.Title, err)
			return Created{}, false
		}
		if found {
			return Created{VMID: halfMade, Adopted: true}, true
		}
	}
	if !configured {
		id, err := a.Client.AllocateVMID(ctx, a.VMIDRange.Min, a.VMIDRange.Max, nil)
		if err != nil {
			fwutil.AddAPIError(diags, "Unable To Allocate VMID", err)
			return Created{}, false
		}
		vmid = id
	}

	answerLost := false
	for attempt := 0; attempt < maxCreateAttempts; attempt++ {
		upid, err := a.send(ctx, req, vmid)
		if err == nil {
			a.claim(vmid)
			return Created{VMID: vmid, UPID: upid}, true
		}
		var transportErr *pveapi.TransportError
		switch {
		case errors.As(err, &transportErr) && !transportErr.NotSent, answerLost && pveapi.IsAlreadyExists(err), proxyLostAnswer(err):
			adopted, found, inspectErr := a.inspectCreate(ctx, req, vmid)
			if inspectErr != nil {
				diags.AddError(summary, fmt.Sprintf(
					"The answer to creating %s %d was lost (%v), and looking at VMID %d afterwards failed: %v. "+
						"Check in PVE whether %s %d exists before running apply again.", noun, vmid, err, vmid, inspectErr, noun, vmid))
				return Created{}, false
			}
			if adopted {
				a.claim(vmid)
				return Created{VMID: vmid, Adopted: true}, true
			}
			if found {
				diags.AddError(summary, fmt.Sprintf(
					"The answer to creating %s %d was lost, and VMID %d now holds a guest that is not the one this apply asked for. "+
						"Nothing was adopted; check VMID %d in PVE and run apply again.", noun, vmid, vmid, vmid))
				return Created{}, false
			}
			// Nothing was made: the request never took effect.
			answerLost = true
		case pveapi.IsAlreadyExists(err):
			if configured && req.Send == nil && a.adoptConfigured(ctx, req, vmid, marker, hash) {
				return Created{VMID: vmid, Adopted: true}, true
			}
			if configured && req.AdoptOwn {
				if adopted, _, inspectErr := a.inspectCreate(ctx, req, vmid); inspectErr == nil && adopted {
					a.claim(vmid)
					return Created{VMID: vmid, Adopted: true}, true
				}
			}
			if configured {
				fwutil.AddAttributeAPIError(diags, path.Root("vmid"), "VMID Already In Use", fmt.Errorf(
					"%w\n\nVMID %d is taken by another guest, one this resource does not manage (when it replaced this resource's own guest, the refresh said so in a warning). "+
						"Choose another vmid, leave vmid out to have one allocated, or import VMID %d to manage that guest", err, vmid, vmid))
				return Created{}, false
			}
			// Another creator took the id between allocation and create
			// (W13): keep it reserved, so it is not proposed again, and
			// take the next.
			id, allocErr := a.Client.AllocateVMID(ctx, a.VMIDRange.Min, a.VMIDRange.Max, nil)
			if allocErr != nil {
				fwutil.AddAPIError(diags, "Unable To Allocate VMID", allocErr)
				return Created{}, false
			}
			vmid = id
		default:
			if !configured {
				a.Client.ReleaseVMID(vmid)
			}
			fwutil.AddAPIError(diags, summary, err)
			return Created{}, false
		}
	}
	diags.AddError(summary, fmt.Sprintf(
		"Gave up after %d attempts: every VMID tried was taken by another creator first. Run apply again.", maxCreateAttempts))
	return Created{}, false
}

// proxyLostAnswer tells a proxy status that may hide an executed request:
// pveproxy forwards a request for another node with AnyEvent::HTTP
// (pve-http-server, APIServer/AnyEvent.pm proxy_request), whose 596 means
// the connection broke while the request was sent or its answer awaited,
// 597 while the body was read, 599 anything else; 595 (no connection)
// means it was never forwarded.
func proxyLostAnswer(err error) bool {
	var apiErr *pveapi.Error
	if !errors.As(err, &apiErr) {
		return false
	}
	switch apiErr.StatusCode {
	case 596, 597, 599:
		return true
	}
	return false
}

// adoptConfigured takes up the guest at a configured VMID when it is a
// half-made one of this configuration whose creator is gone (a create that
// outlived its timeout, an apply killed mid-create).
func (a API) adoptConfigured(ctx context.Context, req CreateRequest, vmid int, marker, hash string) bool {
	config, err := a.Config(ctx, req.Node, vmid)
	if err != nil {
		return false
	}
	ours, _, _ := a.halfMadeOf(req, vmid, config, hash)
	return ours && a.takeOver(ctx, req, vmid, config, marker, hash)
}

// inspectCreate looks at a VMID after a create whose answer was lost (W13).
// The guest is ours when it is still being created (lock "create") or
// req recognizes its configuration.
func (a API) inspectCreate(ctx context.Context, req CreateRequest, vmid int) (adopted, found bool, err error) {
	config, err := a.Config(ctx, req.Node, vmid)
	if pveapi.IsNotFound(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if config.Lock() == req.lock() {
		return true, true, nil
	}
	return req.Recognize(config), true, nil
}

func (a API) send(ctx context.Context, req CreateRequest, vmid int) (string, error) {
	if req.Send != nil {
		return req.Send(ctx, vmid)
	}
	return a.create(ctx, req.Node, vmid, req.Form)
}

func (req CreateRequest) lock() string {
	if req.Lock == "" {
		return "create"
	}
	return req.Lock
}

// AwaitCreate waits for the create task, or, for an adopted guest, for its
// create lock to go (W10).
func (a API) AwaitCreate(ctx context.Context, node string, created Created, diags *diag.Diagnostics) bool {
	noun, summary := a.Kind.Noun, "Unable To Create "+a.Kind.Title
	if created.UPID != "" {
		return fwutil.SettleTask(ctx, a.Client, created.UPID, fmt.Sprintf("creating %s %d", noun, created.VMID), summary, diags)
	}
	if _, err := a.Client.WaitUnlocked(ctx, node, a.Kind.Type, created.VMID); err != nil {
		if pveapi.IsNotFound(err) {
			diags.AddError(summary, fmt.Sprintf(
				"%s %d was being created when the answer was lost, and PVE removed it since: the create task failed. See the PVE task log on node %s.",
				fwutil.Capitalize(noun), created.VMID, node))
			return false
		}
		fwutil.AddAPIError(diags, summary, err)
		return false
	}
	return true
}

// AwaitNew waits for a new guest's create or restore task, as AwaitCreate.
// A task that outlives the create timeout leaves a guest that will be
// complete and healthy: Terraform would taint it and the next apply
// destroy it. So it is taken out of the state instead, and the error says
// how the next apply takes it up by its marker (recognisable: a later
// apply can find it) or how to import it.
func (a API) AwaitNew(ctx context.Context, state *tfsdk.State, node string, created Created, recognisable bool, diags *diag.Diagnostics) bool {
	var waited diag.Diagnostics
	if a.AwaitCreate(ctx, node, created, &waited) {
		diags.Append(waited...)
		return true
	}
	if ctx.Err() == nil {
		diags.Append(waited...)
		return false
	}
	state.RemoveResource(ctx)
	task := "its create task"
	if created.UPID != "" {
		task = "task " + created.UPID
	}
	next := fmt.Sprintf("Once the task has ended, the next apply finds the %s by the marker line in its description, "+
		"finishes it (configuration, start) and records it; nothing is created twice.", a.Kind.Noun)
	if !recognisable {
		next = fmt.Sprintf("Nothing planned (no name, no vmid) lets a later apply recognise it: once the task has ended, "+
			"import it (terraform import ADDRESS %s/%d) or delete it in PVE.", node, created.VMID)
	}
	diags.AddError(a.Kind.Title+" Still Being Created At Timeout", fmt.Sprintf(
		"%s %d on node %s was still being created by PVE (%s) when the create timeout ran out. "+
			"It is not recorded in the Terraform state, so Terraform does not destroy it when its task finishes. %s "+
			"Raise timeouts.create when creates take this long.",
		fwutil.Capitalize(a.Kind.Noun), created.VMID, node, task, next))
	return false
}

// SaveIdentity records id, vmid and node in state. A create calls it as
// soon as PVE accepted the request, before waiting: an interrupted apply
// then still tracks the guest (and taints it on failure).
func SaveIdentity(ctx context.Context, state *tfsdk.State, vmid int, node string, diags *diag.Diagnostics) bool {
	diags.Append(state.SetAttribute(ctx, path.Root("id"), strconv.Itoa(vmid))...)
	diags.Append(state.SetAttribute(ctx, path.Root("vmid"), int64(vmid))...)
	diags.Append(state.SetAttribute(ctx, path.Root("node"), node)...)
	return !diags.HasError()
}
