package agent

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// PodSource lists and watches pods: what the pod watch needs of the API server. client-go's typed
// clients have these methods (a fake clientset's CoreV1().Pods("") too, for tests), but they link
// every API group of Kubernetes into the binary; NewPodSource speaks core/v1 alone.
type PodSource interface {
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// podScheme knows core/v1 and nothing else.
var podScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		panic(err)
	}
	metav1.AddToGroupVersion(s, corev1.SchemeGroupVersion)
	return s
}()

// NewPodSource is a client of the pods of every namespace at the API server cfg names.
func NewPodSource(cfg *rest.Config) (PodSource, error) {
	c := rest.CopyConfig(cfg)
	c.APIPath = "/api"
	c.GroupVersion = &corev1.SchemeGroupVersion
	c.NegotiatedSerializer = serializer.NewCodecFactory(podScheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = "qjump-agent"
	}
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return restPods{rc}, nil
}

type restPods struct{ c rest.Interface }

var podParams = runtime.NewParameterCodec(podScheme)

func (r restPods) List(ctx context.Context, opts metav1.ListOptions) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	err := r.c.Get().Resource("pods").VersionedParams(&opts, podParams).Do(ctx).Into(out)
	return out, err
}

func (r restPods) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	return r.c.Get().Resource("pods").VersionedParams(&opts, podParams).Watch(ctx)
}
