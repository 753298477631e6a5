package experiment

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjump-net/qjump/internal/testbed"
	"github.com/qjump-net/qjump/internal/testutil"
)

// An arm longer than longArmEvery says how far it is while it runs, and nothing once stopped.
func TestStillRunningSaysHowFar(t *testing.T) {
	testutil.Set(t, &longArmEvery, 20*time.Millisecond)
	var b syncBuffer
	env := newEnv(experiments["fan-in"], Options{Testbed: withDefaults(experiments["fan-in"], testbed.DefaultConfig(0)), Progress: &b})
	stop := env.stillRunning("f7=1", time.Hour)
	time.Sleep(70 * time.Millisecond)
	stop()
	said := b.String()
	time.Sleep(50 * time.Millisecond)
	if !strings.Contains(said, "f7=1: 0s of 1h0m0s") || b.String() != said {
		t.Errorf("progress of a long arm: %q then %q; want lines naming the arm and its length, none after stop", said, b.String())
	}
}

// syncBuffer is a bytes.Buffer for one writer and one reader at a time.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
