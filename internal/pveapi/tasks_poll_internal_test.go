package pveapi

import (
	"testing"
	"time"
)

// A task's status is read again after 100 ms, then 200, 400 and every
// 500 ms at the default interval.
func TestTaskPollDelayRamp(t *testing.T) {
	c := &Client{pollInterval: DefaultTaskPollInterval}
	want := []time.Duration{100, 200, 400, 500, 500}
	for attempt, w := range want {
		if got := c.taskPollDelay(attempt); got != w*time.Millisecond {
			t.Errorf("attempt %d: %v, want %v", attempt, got, w*time.Millisecond)
		}
	}
}
