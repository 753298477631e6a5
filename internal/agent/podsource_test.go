package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// TestPodSourceSpeaksTheAPI runs the pod watch through NewPodSource against an HTTP server that
// answers as the API server does: the list and the watch must ask for this node's pods only, and
// what they return must arrive as placements.
func TestPodSourceSpeaksTheAPI(t *testing.T) {
	var mu sync.Mutex
	var selectors []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/pods" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		selectors = append(selectors, r.URL.Query().Get("fieldSelector"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") != "true" {
			list := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"},
				ListMeta: metav1.ListMeta{ResourceVersion: "1"},
				Items:    []corev1.Pod{*pod("memcached", "node-a", map[string]string{AnnotationLevel: "5"})}}
			_ = json.NewEncoder(w).Encode(list)
			return
		}
		p := pod("late", "node-a", map[string]string{AnnotationLevel: "2"})
		p.TypeMeta = metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"}
		p.ResourceVersion = "2"
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "ADDED", "object": p})
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()

	src := podSourceOf(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newPodWatch("node-a", make(chan struct{}, 1), func(string, error) {}, func(error) {})
	if err := w.start(ctx, src); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(w.placements()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	got := w.placements()
	if len(got) != 2 || got[0].Name != "late" || got[1].Name != "memcached" || got[1].Placement.Level != 5 {
		t.Errorf("placements %+v, want late (from the watch) and memcached at 5 (from the list)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, s := range selectors {
		if s != "spec.nodeName=node-a" {
			t.Errorf("request with field selector %q, want spec.nodeName=node-a", s)
		}
	}
}

// A pod list that fails (an API server refusing, RBAC not applied yet) is told to the watch's
// failed, which the agent counts as apply_errors{operation="pods"}: client-go only logged and
// retried it, and no metric or probe said that the node's pods were not on their levels (review,
// helper-66).
func TestPodListFailuresAreTold(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer srv.Close()
	src := podSourceOf(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	failures := make(chan error, 16)
	w := newPodWatch("node-a", make(chan struct{}, 1), func(string, error) {}, func(err error) {
		select {
		case failures <- err:
		default:
		}
	})
	started := make(chan error, 1)
	go func() { started <- w.start(ctx, src) }()
	select {
	case err := <-failures:
		if !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("failure told: %v; want the list's", err)
		}
	case err := <-started:
		t.Fatalf("start returned (%v) before any list failed", err)
	case <-time.After(10 * time.Second):
		t.Fatal("a failing pod list was never told")
	}
	cancel()
	if err := <-started; err == nil {
		t.Error("start succeeded with no pod ever listed")
	}
}

// podSourceOf is NewPodSource for the API server srv plays.
func podSourceOf(t *testing.T, srv *httptest.Server) PodSource {
	t.Helper()
	src, err := NewPodSource(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return src
}
