package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// errNoPodCgroup means the kubelet has not made the pod's cgroup (yet).
var errNoPodCgroup = errors.New("no cgroup for the pod")

// podCgroup finds the cgroup the kubelet made for a pod under the cgroup v2 root. The kubelet
// names it after the pod's UID and QoS class, differently for its two cgroup drivers:
//
//	systemd:  kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid, - as _>.slice
//	cgroupfs: kubepods/burstable/pod<uid>
//
// (guaranteed pods sit directly under kubepods). A kubelet with its own --cgroup-root puts these
// one level lower, so the known places are tried first and then a shallow search.
func podCgroup(root string, uid types.UID, qos corev1.PodQOSClass) (string, error) {
	u := string(uid)
	us := strings.ReplaceAll(u, "-", "_")
	q := strings.ToLower(string(qos))
	var candidates []string
	if qos == corev1.PodQOSGuaranteed || qos == "" {
		candidates = append(candidates, "kubepods.slice/kubepods-pod"+us+".slice", "kubepods/pod"+u)
	}
	if qos != corev1.PodQOSGuaranteed {
		for _, c := range []string{q, "burstable", "besteffort"} {
			if c != "" {
				candidates = append(candidates, fmt.Sprintf("kubepods.slice/kubepods-%s.slice/kubepods-%s-pod%s.slice", c, c, us),
					fmt.Sprintf("kubepods/%s/pod%s", c, u))
			}
		}
	}
	for _, c := range candidates {
		if isDir(filepath.Join(root, c)) {
			return filepath.Join(root, c), nil
		}
	}
	if found := searchPod(root, "pod"+u, "pod"+us); found != "" {
		return found, nil
	}
	return "", fmt.Errorf("%w %s under %s", errNoPodCgroup, u, root)
}

// searchPod looks four levels deep for a directory whose name holds one of the markers.
func searchPod(root string, markers ...string) string {
	var found string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if rel, _ := filepath.Rel(root, p); strings.Count(rel, string(filepath.Separator)) >= 4 {
			return filepath.SkipDir
		}
		for _, m := range markers {
			name := d.Name()
			if name == m || strings.HasSuffix(name, "-"+m+".slice") {
				found = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
