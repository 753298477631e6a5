package apputil

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/qjump-net/qjump/internal/config"
	"github.com/qjump-net/qjump/internal/dataplane"
	"github.com/qjump-net/qjump/internal/host"
	"github.com/qjump-net/qjump/internal/model"
	"github.com/qjump-net/qjump/internal/testutil"
)

func TestPreloadEnv(t *testing.T) {
	s := Settings{Level: 5, SndBuf: 18000, Enforce: true}
	env := preloadEnv([]string{"HOME=/root", "LD_PRELOAD=/lib/other.so", "QJUMP_LEVEL=2", "QJUMP_VERBOSE=1"}, "/c/shim.so", s)
	want := []string{"HOME=/root", "QJUMP_VERBOSE=1", "LD_PRELOAD=/lib/other.so /c/shim.so", "QJUMP_LEVEL=5", "QJUMP_SNDBUF=18000", "QJUMP_ENFORCE=1"}
	if !slices.Equal(env, want) {
		t.Errorf("preloadEnv = %q, want %q", env, want)
	}
	// An outer run's shim is not preloaded twice, and its settings give way.
	env = preloadEnv([]string{"LD_PRELOAD=/c/shim.so", "QJUMP_SNDBUF=1", "QJUMP_ENFORCE=1"}, "/c/shim.so", Settings{Level: 1})
	want = []string{"LD_PRELOAD=/c/shim.so", "QJUMP_LEVEL=1"}
	if !slices.Equal(env, want) {
		t.Errorf("nested preloadEnv = %q, want %q", env, want)
	}
	// Nor does an inner run drop what the user preloaded beside an outer run's shim.
	env = preloadEnv([]string{"LD_PRELOAD=/lib/other.so /c/shim.so"}, "/c/shim.so", Settings{Level: 4})
	want = []string{"LD_PRELOAD=/lib/other.so /c/shim.so", "QJUMP_LEVEL=4"}
	if !slices.Equal(env, want) {
		t.Errorf("nested preloadEnv beside another preload = %q, want %q", env, want)
	}
}

// A cgroup run inside a preload run: the outer run's shim settings go, so that the shim CMD
// inherits does nothing and the cgroup's level holds (the innermost run decides).
func TestCgroupEnv(t *testing.T) {
	env := cgroupEnv([]string{"HOME=/root", "LD_PRELOAD=/lib/other.so /c/shim.so", "QJUMP_LEVEL=5",
		"QJUMP_SNDBUF=1", "QJUMP_ENFORCE=1", "QJUMP_VERBOSE=1", "QJUMP_LEVELX=1"})
	want := []string{"HOME=/root", "LD_PRELOAD=/lib/other.so /c/shim.so", "QJUMP_VERBOSE=1", "QJUMP_LEVELX=1"}
	if !slices.Equal(env, want) {
		t.Errorf("cgroupEnv = %q, want %q", env, want)
	}
}

func paperConfig() model.Config {
	return model.Config{Hosts: 12, Rate: 10e9, Packet: 1500, Mesochronous: 2,
		Factors: model.Factors{7: model.Limited(1), 5: model.Limited(6), 0: model.Unlimited()}}
}

func TestAutoSndBuf(t *testing.T) {
	cfg := paperConfig()
	for _, c := range []struct {
		level model.Level
		want  int
		err   bool
	}{
		{7, 3000, false},  // 2·1·1500
		{5, 18000, false}, // 2·6·1500
		{0, 0, true},      // unlimited: no budget
		{6, 18000, false}, // no factor: sent at its carrier, 5
		{3, 0, true},      // no factor: sent at its carrier, 0, which is unlimited
	} {
		got, err := AutoSndBuf(cfg, c.level)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("AutoSndBuf(level %d) = %d, %v; want %d, error %v", c.level, got, err, c.want, c.err)
		}
	}
	if _, err := AutoSndBuf(cfg, 0); !errors.Is(err, ErrUnlimitedLevel) {
		t.Errorf("unlimited level: %v, want ErrUnlimitedLevel", err)
	}
}

// --sndbuf auto --config FILE reads the model as `qjump up` and reload do.
func TestAutoSndBufFromConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "qjump.yaml")
	os.WriteFile(path, []byte(paperYAML), 0o644)
	d, err := config.Load(path)
	if err == nil {
		d, err = d.Solved()
	}
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := AutoSndBuf(d.Model, 5); n != 18000 {
		t.Errorf("level 5 send buffer from %s = %d, want 18000", path, n)
	}
}

// paperYAML is the paper's 12-host 10G testbed with memcached's level 5 at factor 6.
const paperYAML = "hosts: 12\nrate: 10G\npacket: 1500B\nfactors:\n  7: 1\n  5: 6\n  0: unlimited\n"

func TestParseSndBuf(t *testing.T) {
	for in, want := range map[string]int{"65536": 65536, "64k": 64000, "64KiB": 65536, "1500B": 1500} {
		if got, err := ParseSndBuf(in); got != want || err != nil {
			t.Errorf("ParseSndBuf(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "2GiB", "lots", "1.5"} {
		if _, err := ParseSndBuf(in); err == nil {
			t.Errorf("ParseSndBuf(%q) accepted", in)
		}
	}
}

func TestSharedObjectIsCachedByContent(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path, err := SharedObject()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(path), "libqjump-preload-") {
		t.Errorf("shim at %s, want a content-addressed name", path)
	}
	// A damaged copy is replaced, not used.
	os.WriteFile(path, []byte("garbage"), 0o755)
	again, err := SharedObject()
	have, _ := os.ReadFile(again)
	if err != nil || again != path || !slices.Equal(have, preloadShim) {
		t.Errorf("second SharedObject = %s, %v; content restored: %v", again, err, slices.Equal(have, preloadShim))
	}
	st, _ := os.Stat(filepath.Dir(path))
	if st.Mode().Perm() != 0o700 {
		t.Errorf("cache directory mode %v, want 0700 (LD_PRELOAD runs what is there)", st.Mode().Perm())
	}
}

// Root (under sudo -E) never preloads from a cache a user could write: it uses its own.
func TestRootIgnoresAUsersCache(t *testing.T) {
	testutil.RequirePriv(t, "running as root with a user's cache")
	users := t.TempDir()
	if err := os.Chown(users, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", users)
	saved := rootCache
	rootCache = filepath.Join(t.TempDir(), "qjump")
	t.Cleanup(func() { rootCache = saved })
	path, err := SharedObject()
	if err != nil || filepath.Dir(path) != rootCache {
		t.Errorf("SharedObject = %s, %v; want it in %s", path, err, rootCache)
	}
	if _, err := os.Stat(filepath.Join(users, "qjump")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("root created something in the user's cache: %v", err)
	}
	st, _ := os.Stat(rootCache)
	if st == nil || st.Mode().Perm()&0o022 != 0 {
		t.Errorf("root's cache directory %v, want it writable by root alone", st)
	}
	// A root cache others could write to is refused, not used.
	os.Chmod(rootCache, 0o777)
	if path, err := SharedObject(); err == nil {
		t.Errorf("SharedObject used %s in a directory anyone can write", path)
	}
}

func TestShellCode(t *testing.T) {
	if c := (Status{Code: 3}).ShellCode(); c != 3 {
		t.Errorf("exit 3 → %d", c)
	}
	if c := (Status{Signal: 15}).ShellCode(); c != 143 {
		t.Errorf("SIGTERM → %d, want 143", c)
	}
}

// The warning names what the dataplane will do with the program's level: send it at another
// level, or, under a ceiling below every level that could carry it, drop all of it.
func TestMappingWarnings(t *testing.T) {
	d := config.Default()
	d.Model.Factors = model.Factors{7: model.Limited(1), 5: model.Limited(12)}
	active := []dataplane.DeviceConfig{{Device: "eth0", Config: d}}
	two, six := model.Level(2), model.Level(6)
	for _, c := range []struct {
		level   model.Level
		ceiling *model.Level
		want    string // "" for no warning
	}{
		{7, nil, ""},
		{5, &six, ""},
		{2, nil, "counts priority 2 as level 5"},
		{2, &two, "no level at or below --max-level 2"},
	} {
		w := MappingWarnings(active, c.level, c.ceiling)
		switch {
		case c.want == "" && len(w) > 0:
			t.Errorf("level %d: warned %q, want nothing", c.level, w)
		case c.want != "" && (len(w) != 1 || !strings.Contains(w[0], c.want)):
			t.Errorf("level %d: warned %q, want one warning saying %q", c.level, w, c.want)
		}
	}
}

// Under `ip netns exec` the cgroup v2 root is a private mount: a cgroup named by its host path
// is found under it, and is named back to the user relative to the root.
func TestCgroupUnderAPrivateRoot(t *testing.T) {
	private := "/tmp/qjump-cgroup2-1"
	for _, c := range []struct{ root, path, want string }{
		{"/sys/fs/cgroup", "/sys/fs/cgroup/a/b", "/sys/fs/cgroup/a/b"},
		{private, "/sys/fs/cgroup/a/b", private + "/a/b"},
		{private, "/sys/fs/cgroup/unified/a", private + "/a"},
		{private, "/sys/fs/cgroup", private},
		{private, "/elsewhere/a", "/elsewhere/a"},
		{private, "/sys/fs/cgroupx/a", "/sys/fs/cgroupx/a"},
	} {
		if got := underRoot(c.root, filepath.Clean(c.path)); got != c.want {
			t.Errorf("%s under root %s: %s, want %s", c.path, c.root, got, c.want)
		}
	}
	if got := CgroupName(private, private+"/a/b"); got != "a/b" {
		t.Errorf("a cgroup under a private root is named %q, want a/b", got)
	}
	if got := CgroupName("/sys/fs/cgroup", "/sys/fs/cgroup/a"); got != "/sys/fs/cgroup/a" {
		t.Errorf("a cgroup under the host's root is named %q, want its path", got)
	}
}

// A --cgroup that is not a cgroup v2 directory is named as the user knows it: under a private
// root (ip netns exec) not by that root's directory, which is gone when qjump exits ("not a cgroup
// v2 directory: /tmp/qjump-cgroup2-2444813672/nosuch"), nor, for a path that climbs out of it, by
// where that lands from the root's descriptor ("/proc/self/etc" for ../../etc); and a file of the hierarchy
// (cgroup.procs), which is on cgroup2 too, is refused here rather than failing to attach with
// "create link: bad file descriptor".
func TestResolveCgroupRefusals(t *testing.T) {
	private := t.TempDir()
	for _, c := range []struct{ arg, want string }{
		{"nosuch", "not a cgroup v2 directory: nosuch under the cgroup v2 root"},
		{"/sys/fs/cgroup/unified/a/b", "not a cgroup v2 directory: a/b under the cgroup v2 root"},
		{"/elsewhere", "not a cgroup v2 directory: /elsewhere"},
		// Climbing out of the private root named qjump's descriptor: "/proc/self/etc".
		{"../../etc", "not a cgroup v2 directory: ../../etc, outside the cgroup v2 root"},
	} {
		_, err := ResolveCgroup(private, c.arg)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s under a private root: %v; want %q", c.arg, err, c.want)
		}
	}
	root, err := host.CgroupMount()
	if err != nil {
		testutil.Unavailable(t, "cgroup v2 is not mounted here: "+err.Error())
	}
	for _, arg := range []string{"cgroup.procs", filepath.Join(root, "cgroup.procs")} {
		_, err := ResolveCgroup(root, arg)
		if !errors.Is(err, errNotCgroup) || !strings.Contains(err.Error(), filepath.Join(root, "cgroup.procs")) {
			t.Errorf("--cgroup %s: %v; want not a cgroup v2 directory, naming it", arg, err)
		}
	}
	if path, err := ResolveCgroup(root, "."); err != nil || path != root {
		t.Errorf("--cgroup . is %q, %v; want the root %s", path, err, root)
	}
}
