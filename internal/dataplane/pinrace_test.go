package dataplane

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/testutil"
)

// Programs loaded at the same moment on one machine (agents bringing up several namespaces or
// devices at once) race to pin the shared ceiling maps: every load must succeed and share them.
func TestConcurrentLoadsShareThePinnedMaps(t *testing.T) {
	testutil.RequirePriv(t, "pinning eBPF maps")
	d := testConfig()
	for round := range 10 {
		root := filepath.Join(host.DefaultBPFFS, fmt.Sprintf("qjump-pinrace-%d-%d", os.Getpid(), round))
		if err := os.MkdirAll(root, 0o700); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 4)
		ids := make([]uint32, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				objs, err := loadObjects(root, encode(d, 1, testClassIDs(d)), nil)
				if errs[i] = err; err == nil {
					info, _ := objs.CgroupCeilings.Info()
					if id, ok := info.ID(); ok {
						ids[i] = uint32(id)
					}
					_ = objs.Close()
				}
			}()
		}
		wg.Wait()
		_ = os.RemoveAll(root)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: load %d of 4 at once: %v", round, i, err)
			}
			if ids[i] != ids[0] {
				t.Fatalf("round %d: loads got cgroup_ceilings maps %v, want one shared map", round, ids)
			}
		}
	}
}
