package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestPodCgroup finds a pod's cgroup where each kubelet cgroup driver puts it.
func TestPodCgroup(t *testing.T) {
	const uid = "6f1e2d3c-0000-4a5b-8c9d-0123456789ab"
	const us = "6f1e2d3c_0000_4a5b_8c9d_0123456789ab"
	cases := []struct {
		dir string
		qos corev1.PodQOSClass
	}{
		{"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + us + ".slice", corev1.PodQOSBurstable},
		{"kubepods.slice/kubepods-pod" + us + ".slice", corev1.PodQOSGuaranteed},
		{"kubepods/besteffort/pod" + uid, corev1.PodQOSBestEffort},
		{"kubepods/pod" + uid, corev1.PodQOSGuaranteed},
		{"custom.slice/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + us + ".slice", corev1.PodQOSBestEffort},
	}
	for _, tc := range cases {
		root := t.TempDir()
		want := filepath.Join(root, tc.dir)
		if err := os.MkdirAll(filepath.Join(want, "cri-containerd-1.scope"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := podCgroup(root, uid, tc.qos)
		if err != nil || got != want {
			t.Errorf("%s: found %q, %v", tc.dir, got, err)
		}
	}
	if _, err := podCgroup(t.TempDir(), uid, corev1.PodQOSBurstable); !errors.Is(err, errNoPodCgroup) {
		t.Errorf("no pod cgroup: error %v, want errNoPodCgroup", err)
	}
}
