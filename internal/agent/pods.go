package agent

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/qjump-net/qjump/internal/model"
)

// The annotations that put a pod on a level (docs/deployment.md).
const (
	// AnnotationLevel is the level of every socket the pod's containers make, "0".."7".
	AnnotationLevel = "qjump.io/level"
	// AnnotationMaxLevel is the pod's ceiling: its packets never leave above it, whatever
	// priority its programs set.
	AnnotationMaxLevel = "qjump.io/max-level"
	// AnnotationEnforce "true" refuses the programs' own SO_PRIORITY calls.
	AnnotationEnforce = "qjump.io/enforce"
)

// annotationMirror is on the API server's mirror of a static pod (a manifest the kubelet runs
// from its own directory, as control-plane pods are): its value is the UID the kubelet runs the
// pod under, and so names its cgroup, where the mirror has a UID of its own.
const annotationMirror = "kubernetes.io/config.mirror"

// podPlacement is an annotated pod of this node and the level it asks for.
type podPlacement struct {
	UID       types.UID // the UID its cgroup is named by: the kubelet's, for a static pod
	Namespace string
	Name      string
	QOS       corev1.PodQOSClass
	Placement Placement
}

func (p podPlacement) source() string { return "pod " + p.Namespace + "/" + p.Name }

// podWatch follows the pods of one node through the API server. The informer lists and watches
// only that node's pods (a field selector on spec.nodeName, so a node of a large cluster does not
// receive every pod), and keeps the annotated ones; the agent's loop reads them with placements.
type podWatch struct {
	node    string
	changed chan<- struct{}
	invalid func(pod string, err error) // a pod with an annotation the agent cannot use
	// failed is told every failure of the pod list or watch (the API server unreachable, the
	// RBAC not yet applied), which client-go only logs and retries: counted, so an alert fires.
	failed func(err error)

	mu   sync.Mutex
	pods map[types.UID]podPlacement
	// bad is each pod's annotation error as last told through invalid: a pod is updated many
	// times (status changes, relists) and its error is told (logged, counted) once, not each time.
	bad map[types.UID]string
}

func newPodWatch(node string, changed chan<- struct{}, invalid func(string, error), failed func(error)) *podWatch {
	return &podWatch{node: node, changed: changed, invalid: invalid, failed: failed, pods: map[types.UID]podPlacement{},
		bad: map[types.UID]string{}}
}

// start runs the informer until ctx ends and waits for its first list, so that a restarted agent
// knows every pod before it unassigns any cgroup.
func (w *podWatch) start(ctx context.Context, pods PodSource) error {
	onNode := fields.OneTermEqualSelector("spec.nodeName", w.node).String()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = onNode
			return pods.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = onNode
			return pods.Watch(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.update(obj) },
		UpdateFunc: func(_, obj any) { w.update(obj) },
		DeleteFunc: w.delete,
	})
	if err != nil {
		return fmt.Errorf("watch pods: %w", err)
	}
	err = inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		cache.DefaultWatchErrorHandler(ctx, r, err) // logs it, as before
		w.failed(err)
	})
	if err != nil {
		return fmt.Errorf("watch pods: %w", err)
	}
	go inf.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("watch pods of node %s: %w", w.node, ctx.Err())
	}
	return nil
}

func (w *podWatch) update(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	p, placed, err := placementOf(pod)
	// The API server filters by node; a client that does not (a fake, an old proxy) must not make
	// this agent assign another node's pods.
	if pod.Spec.NodeName != w.node || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		placed, err = false, nil
	}
	w.mu.Lock()
	tell := err != nil && w.bad[pod.UID] != err.Error()
	if err != nil {
		w.bad[pod.UID] = err.Error()
	} else {
		delete(w.bad, pod.UID)
	}
	old, had := w.pods[pod.UID]
	if placed {
		w.pods[pod.UID] = p
	} else {
		delete(w.pods, pod.UID)
	}
	w.mu.Unlock()
	if tell {
		w.invalid(pod.Namespace+"/"+pod.Name, err)
	}
	if had != placed || old != p {
		notify(w.changed)
	}
}

func (w *podWatch) delete(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	w.mu.Lock()
	_, had := w.pods[pod.UID]
	delete(w.pods, pod.UID)
	delete(w.bad, pod.UID)
	w.mu.Unlock()
	if had {
		notify(w.changed)
	}
}

// placements are the annotated pods of the node now, sorted by namespace and name.
func (w *podWatch) placements() []podPlacement {
	w.mu.Lock()
	out := make([]podPlacement, 0, len(w.pods))
	for _, p := range w.pods {
		out = append(out, p)
	}
	w.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].source() < out[j].source() })
	return out
}

// placementOf reads a pod's annotations: placed is false for a pod without qjump.io/level.
func placementOf(pod *corev1.Pod) (p podPlacement, placed bool, err error) {
	a := pod.Annotations
	uid := pod.UID
	if m := a[annotationMirror]; m != "" {
		uid = types.UID(m)
	}
	p = podPlacement{UID: uid, Namespace: pod.Namespace, Name: pod.Name, QOS: pod.Status.QOSClass,
		Placement: Placement{MaxLevel: noCeiling}}
	level, hasLevel := a[AnnotationLevel]
	max, hasMax := a[AnnotationMaxLevel]
	if !hasLevel {
		if hasMax {
			return p, false, fmt.Errorf("annotation %s needs %s beside it", AnnotationMaxLevel, AnnotationLevel)
		}
		return p, false, nil
	}
	if p.Placement.Level, err = annotationLevel(AnnotationLevel, level); err != nil {
		return p, false, err
	}
	if hasMax {
		if p.Placement.MaxLevel, err = annotationLevel(AnnotationMaxLevel, max); err != nil {
			return p, false, err
		}
		if err := model.CheckCeiling(AnnotationLevel, model.Level(p.Placement.Level), model.Level(p.Placement.MaxLevel)); err != nil {
			return p, false, fmt.Errorf("annotation %s %q: %w", AnnotationMaxLevel, max, err)
		}
	}
	if e, ok := a[AnnotationEnforce]; ok {
		if p.Placement.Enforce, err = strconv.ParseBool(e); err != nil {
			return p, false, fmt.Errorf("annotation %s %q: need true or false", AnnotationEnforce, e)
		}
	}
	return p, true, nil
}

func annotationLevel(key, v string) (int, error) {
	l, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || !isLevel(l) {
		return 0, fmt.Errorf("annotation %s %q: need a level from 0 to 7", key, v)
	}
	return l, nil
}

// notify wakes whoever waits on ch without blocking: one pending wake-up is enough.
func notify(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
