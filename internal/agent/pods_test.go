package agent

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
)

func pod(name, node string, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Annotations: annotations},
		Spec:       corev1.PodSpec{NodeName: node},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable},
	}
}

// TestPodWatch runs the controller against client-go's fake clientset: it keeps exactly the
// annotated pods of its own node, follows annotation changes and deletions, and reports pods
// whose annotations it cannot use.
func TestPodWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset(
		pod("memcached", "node-a", map[string]string{AnnotationLevel: "5", AnnotationMaxLevel: "5"}),
		pod("elsewhere", "node-b", map[string]string{AnnotationLevel: "7"}),
		pod("plain", "node-a", nil),
		pod("typo", "node-a", map[string]string{AnnotationLevel: "eight"}),
	)
	changed := make(chan struct{}, 1)
	// invalid is appended to by the informer's goroutine.
	var mu sync.Mutex
	var invalid []string
	w := newPodWatch("node-a", changed, func(p string, _ error) { mu.Lock(); invalid = append(invalid, p); mu.Unlock() }, func(error) {})
	reported := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(invalid) }
	if err := w.start(ctx, client.CoreV1().Pods("")); err != nil {
		t.Fatal(err)
	}
	want := func(what string, expect map[string]Placement) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			got := map[string]Placement{}
			for _, p := range w.placements() {
				got[p.Name] = p.Placement
			}
			if equalPlacements(got, expect) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: placements %v, want %v", what, got, expect)
			}
			select {
			case <-changed:
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	want("initial list", map[string]Placement{"memcached": {Level: 5, MaxLevel: 5}})
	for deadline := time.Now().Add(5 * time.Second); len(reported()) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := reported(); len(got) != 1 || got[0] != "default/typo" {
		t.Errorf("invalid pods reported: %v, want [default/typo]", got)
	}

	pods := client.CoreV1().Pods("default")
	p, _ := pods.Get(ctx, "plain", metav1.GetOptions{})
	p.Annotations = map[string]string{AnnotationLevel: "3", AnnotationEnforce: "true"}
	if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want("annotated later", map[string]Placement{"memcached": {Level: 5, MaxLevel: 5}, "plain": {Level: 3, MaxLevel: noCeiling, Enforce: true}})

	if err := pods.Delete(ctx, "memcached", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want("deleted", map[string]Placement{"plain": {Level: 3, MaxLevel: noCeiling, Enforce: true}})

	// A bad pod is told once, not at each of its updates; a new error is told again.
	for _, msg := range []string{"pulling", "started"} {
		p, _ = pods.Get(ctx, "typo", metav1.GetOptions{})
		p.Status.Message = msg
		if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p, _ = pods.Get(ctx, "typo", metav1.GetOptions{})
	p.Annotations = map[string]string{AnnotationLevel: "nine"}
	if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The watch handles updates in order: once plain's, made after every update of typo, shows,
	// all of typo's have been handled and told. (Waiting for two reports instead stopped as soon
	// as there were two, and a watch that told every update could pass.)
	p, _ = pods.Get(ctx, "plain", metav1.GetOptions{})
	p.Status.Phase = corev1.PodSucceeded
	if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want("finished", map[string]Placement{})
	if got := reported(); len(got) != 2 {
		t.Errorf("invalid pods reported after two status updates and a new bad annotation: %v, want typo twice", got)
	}
}

func equalPlacements(a, b map[string]Placement) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestPlacementOf(t *testing.T) {
	cases := []struct {
		ann    map[string]string
		placed bool
		err    bool
	}{
		{nil, false, false},
		{map[string]string{AnnotationLevel: "7"}, true, false},
		{map[string]string{AnnotationMaxLevel: "3"}, false, true},
		{map[string]string{AnnotationLevel: "2", AnnotationMaxLevel: "9"}, false, true},
		{map[string]string{AnnotationLevel: "2", AnnotationEnforce: "yes please"}, false, true},
	}
	for _, tc := range cases {
		_, placed, err := placementOf(pod("p", "n", tc.ann))
		if placed != tc.placed || (err != nil) != tc.err {
			t.Errorf("%v: placed %v, err %v; want placed %v, error %v", tc.ann, placed, err, tc.placed, tc.err)
		}
	}
}

// TestStaticPodUsesTheKubeletsUID: a static pod's mirror in the API server has a UID of its own,
// and the kubelet names the pod's cgroup by the UID in its kubernetes.io/config.mirror
// annotation; placing it by the mirror's UID looked for a cgroup that never exists.
func TestStaticPodUsesTheKubeletsUID(t *testing.T) {
	mirror := pod("etcd", "n", map[string]string{AnnotationLevel: "6", annotationMirror: "0f1e2d3c"})
	p, placed, err := placementOf(mirror)
	if err != nil || !placed || p.UID != "0f1e2d3c" {
		t.Errorf("static pod: UID %q, placed %v, %v; want the mirror annotation's UID", p.UID, placed, err)
	}
	p, _, _ = placementOf(pod("web", "n", map[string]string{AnnotationLevel: "6"}))
	if p.UID != "uid-web" {
		t.Errorf("ordinary pod: UID %q, want its own", p.UID)
	}
}
