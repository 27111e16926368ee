package pveapi

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// SDNSession coordinates the SDN writes of one provider configuration so
// that a Terraform run stages all its SDN changes and applies them once.
//
// On PVE 9 the first write takes PVE's SDN lock (POST /cluster/sdn/lock
// with allow-pending=1) and every write passes its token; Apply commits
// with the token and release-lock=1. PVE 8.4 has no lock: writes pass no
// token. When a write fails the session stops holding the lock: it releases
// it as soon as no write is in flight, and later writes take and release
// the lock around themselves. What was staged stays pending in PVE.
type SDNSession struct {
	client *Client
	// LockPoll is how long to wait between attempts while someone else
	// holds the lock.
	LockPoll time.Duration
	// LockWait bounds the wait for someone else's lock when the caller's
	// context has no earlier deadline.
	LockWait time.Duration

	mu   sync.Mutex
	cond *sync.Cond
	// probed tells whether the lock endpoint was tried; noLock is true on a
	// PVE without it (8.4).
	probed, noLock bool
	token          string
	inFlight       int
	applying       bool
	failed         bool
	staged         map[string]bool
	// expected are the sdn_ids whose deletions end the run (ExpectDeletions);
	// expectedAll is the whole list, the managed objects of that apply.
	expected    map[string]bool
	expectedAll []string
}

// NewSDNSession is the session of client's provider configuration.
func NewSDNSession(client *Client) *SDNSession {
	s := &SDNSession{client: client, LockPoll: time.Second, LockWait: 5 * time.Minute, staged: map[string]bool{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// lockedSessions are the sessions holding PVE's SDN lock, so that the
// process can release them when it ends (ReleaseSDNLocks).
var lockedSessions = struct {
	sync.Mutex
	set map[*SDNSession]bool
}{set: map[*SDNSession]bool{}}

func trackLock(s *SDNSession, held bool) {
	lockedSessions.Lock()
	defer lockedSessions.Unlock()
	if held {
		lockedSessions.set[s] = true
	} else {
		delete(lockedSessions.set, s)
	}
}

// ReleaseSDNLocks releases the SDN lock of every session of this process
// still holding one (a run that ended without applying). It returns the
// first error.
func ReleaseSDNLocks(ctx context.Context) error {
	lockedSessions.Lock()
	sessions := make([]*SDNSession, 0, len(lockedSessions.set))
	for s := range lockedSessions.set {
		sessions = append(sessions, s)
	}
	lockedSessions.Unlock()
	var first error
	for _, s := range sessions {
		if err := s.Release(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Write stages one change of the object sdnID ("zone/lab"). On PVE 9 the
// first write of a run takes the SDN lock (allow-pending=1, waiting while
// another holder has it, up to ctx's deadline or LockWait) and every write passes its
// token; fn sends lockToken as "lock-token" when it is not empty (PVE 8.4:
// always empty).
func (s *SDNSession) Write(ctx context.Context, sdnID string, fn func(ctx context.Context, lockToken string) error) error {
	s.mu.Lock()
	for s.applying {
		s.cond.Wait()
	}
	if err := s.ensureLockLocked(ctx); err != nil {
		s.mu.Unlock()
		return err
	}
	s.inFlight++
	token := s.token
	s.mu.Unlock()

	err := fn(ctx, token)

	s.mu.Lock()
	s.inFlight--
	if err != nil {
		s.failed = true
	} else {
		s.staged[sdnID] = true
	}
	applyNow := false
	if err == nil && s.expected[sdnID] {
		delete(s.expected, sdnID)
		applyNow = len(s.expected) == 0
	}
	if s.failed && s.inFlight == 0 {
		// A release that fails leaves the lock to the next write's
		// release or to the process end.
		_ = s.releaseLocked(ctx)
	}
	managed := s.expectedAll
	if applyNow {
		s.expected, s.expectedAll = nil, nil
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if applyNow {
		return s.Apply(ctx, managed)
	}
	return nil
}

// ExpectDeletions tells the session that the objects sdnIDs are being
// destroyed in this run (the applier listing them is destroyed first): the
// write that stages the last of them applies, with sdnIDs as the managed
// objects.
func (s *SDNSession) ExpectDeletions(sdnIDs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(sdnIDs) == 0 {
		s.expected, s.expectedAll = nil, nil
		return
	}
	s.expected = map[string]bool{}
	for _, id := range sdnIDs {
		s.expected[id] = true
	}
	s.expectedAll = append([]string(nil), sdnIDs...)
}

// Staged lists the sdn_ids this session staged since its last apply.
func (s *SDNSession) Staged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.staged))
	for id := range s.staged {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// SDNForeignPendingError is Apply's refusal: PVE has staged changes on
// objects that are not among the managed ones.
type SDNForeignPendingError struct {
	SDNIDs []string
}

func (e *SDNForeignPendingError) Error() string {
	return "PVE has pending SDN changes on objects this configuration does not manage: " + strings.Join(e.SDNIDs, ", ")
}

// ForeignPending returns the sdn_ids of pending entries not in managed.
func ForeignPending(pending []SDNEntry, managed []string) []string {
	ours := map[string]bool{}
	for _, id := range managed {
		ours[id] = true
	}
	var out []string
	for _, e := range pending {
		if id := e.SDNID(); !ours[id] {
			out = append(out, id)
		}
	}
	return out
}

// Apply commits all staged changes: PUT /cluster/sdn with the token and
// release-lock=1, and waits for its task. It waits for the writes in flight
// and holds new ones back meanwhile. It refuses, releasing the lock, when
// PVE has pending changes on objects outside managed (someone else's),
// naming them. With nothing pending it sends nothing and releases the lock.
func (s *SDNSession) Apply(ctx context.Context, managed []string) error {
	s.mu.Lock()
	for s.applying || s.inFlight > 0 {
		s.cond.Wait()
	}
	s.applying = true
	defer func() {
		s.applying = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	if err := s.ensureLockLocked(ctx); err != nil {
		return err
	}
	pending, err := s.client.SDNPending(ctx)
	if err != nil {
		_ = s.releaseLocked(ctx)
		return err
	}
	if foreign := ForeignPending(pending, managed); len(foreign) > 0 {
		_ = s.releaseLocked(ctx)
		return &SDNForeignPendingError{SDNIDs: foreign}
	}
	if len(pending) == 0 {
		s.staged = map[string]bool{}
		return s.releaseLocked(ctx)
	}
	upid, err := s.client.ApplySDN(ctx, s.token)
	if err != nil {
		_ = s.releaseLocked(ctx)
		return err
	}
	// PVE released the lock with the commit (release-lock=1).
	s.setToken("")
	s.staged = map[string]bool{}
	s.failed = false
	_, err = s.client.WaitTask(ctx, upid)
	return err
}

// Release gives PVE's SDN lock back when the session holds it.
func (s *SDNSession) Release(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.releaseLocked(ctx)
}

// releaseLocked releases the lock (s.mu held). It does so with a context
// that outlives ctx's cancellation: a run interrupted by the user must
// still give the lock back.
func (s *SDNSession) releaseLocked(ctx context.Context) error {
	if s.token == "" {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	err := s.client.ReleaseSDNLock(rctx, s.token)
	if err != nil && IsSDNLockHeld(err) {
		// Someone released (force) and perhaps took it meanwhile: it is not
		// ours any more.
		err = nil
	}
	if err == nil {
		s.setToken("")
	}
	return err
}

func (s *SDNSession) setToken(token string) {
	s.token = token
	trackLock(s, token != "")
}

// ensureLockLocked takes the lock when PVE has one and the session does
// not hold it (s.mu held). While someone else holds it, it retries every
// LockPoll until ctx ends.
func (s *SDNSession) ensureLockLocked(ctx context.Context) error {
	if s.token != "" || (s.probed && s.noLock) {
		return nil
	}
	deadline := time.Now().Add(s.LockWait)
	var held error
	for {
		token, err := s.client.AcquireSDNLock(ctx, true)
		if err == nil {
			s.probed = true
			s.setToken(token)
			return nil
		}
		if IsNotImplemented(err) {
			s.probed, s.noLock = true, true
			return nil
		}
		if held != nil && ctx.Err() != nil {
			return &SDNLockedError{Err: held, Wait: ctx.Err()}
		}
		if !IsSDNLockHeld(err) {
			return err
		}
		held = err
		if time.Now().After(deadline) {
			return &SDNLockedError{Err: held, Wait: context.DeadlineExceeded}
		}
		t := time.NewTimer(s.LockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return &SDNLockedError{Err: err, Wait: ctx.Err()}
		case <-t.C:
		}
	}
}

// SDNLockedError is a write or apply that gave up waiting for PVE's SDN
// lock, held by someone else.
type SDNLockedError struct {
	Err  error
	Wait error
}

func (e *SDNLockedError) Error() string {
	return fmt.Sprintf("PVE's SDN configuration stayed locked by someone else (another Terraform run, or an administrator "+
		"editing SDN) while waiting for it: %v. Wait until they apply or roll back, then run again; a lock left over by a "+
		"run that crashed can be removed with DELETE /cluster/sdn/lock and force=1", e.Err)
}

func (e *SDNLockedError) Unwrap() []error { return []error{e.Err, e.Wait} }

// IsSDNForeignPending returns the refusal of Apply when err is one.
func IsSDNForeignPending(err error) (*SDNForeignPendingError, bool) {
	var fe *SDNForeignPendingError
	if errors.As(err, &fe) {
		return fe, true
	}
	return nil, false
}
