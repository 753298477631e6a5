package apputil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/qjump-net/qjump/internal/model"
)

// Settings are what every IP socket made in a cgroup gets.
type Settings struct {
	Level   model.Level // the socket priority (the identity priority→level table)
	SndBuf  int         // SO_SNDBUF bytes for TCP connections; 0 keeps the kernel's default
	Enforce bool        // refuse the program's own SO_PRIORITY
	// MaxLevel, if set, is the cgroup's ceiling in the dataplane: its packets are never sent
	// above it, whatever priority its programs set (cgroup mode and assign only).
	MaxLevel *model.Level
}

// attachment is one loaded copy of the cgroup programs, linked to one cgroup.
type attachment struct {
	objs  cgroupSockObjects
	links map[string]link.Link // by pin name
}

// hook is one of the cgroup programs and where it attaches; name is also its pin's name.
type hook struct {
	name string
	prog *ebpf.Program
	typ  ebpf.AttachType
}

// attach loads the programs with s as their constants and links them to the cgroup at path. The
// links last as long as the attachment is open, or until unpinned if pinned.
func attach(path string, s Settings) (*attachment, error) {
	spec, err := loadCgroupSock()
	if err != nil {
		return nil, fmt.Errorf("load cgroup programs: %w", err)
	}
	if err := setConstants(spec, s); err != nil {
		return nil, err
	}
	// Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK; later ones ignore it.
	_ = rlimit.RemoveMemlock()
	a := &attachment{links: map[string]link.Link{}}
	if err := spec.LoadAndAssign(&a.objs, nil); err != nil {
		return nil, fmt.Errorf("load cgroup programs: %w", err)
	}
	hooks := []hook{
		{"sock_create", a.objs.QjumpSockCreate, ebpf.AttachCGroupInetSockCreate},
		{"sock_ops", a.objs.QjumpSockOps, ebpf.AttachCGroupSockOps},
	}
	if s.Enforce {
		hooks = append(hooks, hook{"setsockopt", a.objs.QjumpSetsockopt, ebpf.AttachCGroupSetsockopt})
	}
	for _, h := range hooks {
		l, err := link.AttachCgroup(link.CgroupOptions{Path: path, Attach: h.typ, Program: h.prog})
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("attach %s program to cgroup %s: %w", h.name, path, err)
		}
		a.links[h.name] = l
	}
	return a, nil
}

func setConstants(spec *ebpf.CollectionSpec, s Settings) error {
	enforce := uint32(0)
	if s.Enforce {
		enforce = 1
	}
	for name, v := range map[string]any{
		cgroupSockVarQjumpPriority: uint32(s.Level),
		cgroupSockVarQjumpSndbuf:   int32(s.SndBuf),
		cgroupSockVarQjumpEnforce:  enforce,
	} {
		if err := spec.Variables[name].Set(v); err != nil {
			return fmt.Errorf("set %s: %w", name, err)
		}
	}
	return nil
}

// Refused is how many times the program's own SO_PRIORITY was refused under enforce.
func (a *attachment) Refused() uint64 {
	var n uint64
	if a.objs.QjumpRefused == nil || a.objs.QjumpRefused.Get(&n) != nil {
		return 0
	}
	return n
}

// pin keeps the links alive after qjump exits, one file per hook in dir.
func (a *attachment) pin(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create pin directory: %w", err)
	}
	for name, l := range a.links {
		if err := l.Pin(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("pin %s link: %w", name, err)
		}
	}
	return nil
}

// Close detaches whatever is not pinned and frees the programs.
func (a *attachment) Close() error {
	var errs []error
	for _, l := range a.links {
		errs = append(errs, l.Close())
	}
	errs = append(errs, a.objs.Close())
	return errors.Join(errs...)
}
