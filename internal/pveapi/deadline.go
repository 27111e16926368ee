package pveapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Every attempt of a request is bounded by the client's request timeout,
// from the moment it is sent to the last byte of the answer: a server that
// sends headers and then stalls must not hold a plan forever. An upload is
// bounded from the moment its body is sent, as sending a large file may
// take as long as the network needs.

// TimeoutError is an attempt that got no complete answer within the
// request timeout. A read that times out is retried; a write is not (it
// may have reached PVE), and its caller treats the answer as lost.
type TimeoutError struct {
	Timeout time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no complete answer within the request timeout of %s", e.Timeout)
}

// IsRequestTimeout reports a request whose last attempt ran out of time.
func IsRequestTimeout(err error) bool {
	var timeout *TimeoutError
	return errors.As(err, &timeout)
}

type streamedBodyKey struct{}

// withStreamedBody marks a request whose body may take long to send: its
// timeout starts once the body is sent.
func withStreamedBody(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamedBodyKey{}, true)
}

// attemptDeadline cancels one attempt when its time is up.
type attemptDeadline struct {
	timeout time.Duration
	cancel  context.CancelFunc
	expired atomic.Bool

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// newAttemptDeadline derives the attempt's context. The clock starts now,
// or for a streamed body when bodySent is called.
func newAttemptDeadline(parent context.Context, timeout time.Duration) (*attemptDeadline, context.Context) {
	ctx, cancel := context.WithCancel(parent)
	d := &attemptDeadline{timeout: timeout, cancel: cancel}
	if streamed, _ := parent.Value(streamedBodyKey{}).(bool); !streamed {
		d.start()
	}
	return d, ctx
}

func (d *attemptDeadline) start() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timeout <= 0 || d.stopped || d.timer != nil {
		return
	}
	d.timer = time.AfterFunc(d.timeout, func() {
		d.expired.Store(true)
		d.cancel()
	})
}

// bodySent starts the clock of a streamed request; for the others it runs
// already.
func (d *attemptDeadline) bodySent() { d.start() }

// stop ends the attempt's context once its answer is read or it failed.
func (d *attemptDeadline) stop() {
	d.mu.Lock()
	d.stopped = true
	if d.timer != nil {
		d.timer.Stop()
	}
	d.mu.Unlock()
	d.cancel()
}

// explain replaces the cancellation error of an attempt that ran out of
// time, which would otherwise read like a cancelled run.
func (d *attemptDeadline) explain(err error) error {
	if err == nil || errors.Is(err, io.EOF) || !d.expired.Load() {
		return err
	}
	return &TimeoutError{Timeout: d.timeout}
}

// deadlineBody keeps the attempt's clock running while the answer is read.
type deadlineBody struct {
	io.ReadCloser
	deadline *attemptDeadline
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	return n, b.deadline.explain(err)
}

func (b *deadlineBody) Close() error {
	err := b.ReadCloser.Close()
	b.deadline.stop()
	return err
}

// bound hands the attempt's deadline to the answer's body, or ends it when
// there is no answer.
func (d *attemptDeadline) bound(resp *http.Response, err error) (*http.Response, error) {
	if err != nil || resp == nil || resp.Body == nil {
		d.stop()
		return resp, d.explain(err)
	}
	resp.Body = &deadlineBody{ReadCloser: resp.Body, deadline: d}
	return resp, nil
}
