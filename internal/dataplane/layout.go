package dataplane

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// A pinned map is only taken over by a program of another build (a reload after an upgrade) when
// its values mean what that program reads: the kernel, and cilium/ebpf's MapSpec.Compatible,
// compare only the map's type, sizes and flags, so a build that reorders struct qj_budget's fields
// or qj_counters' tallies at the same size would read the budgets and counters of the old one as
// its own. Every map is made from the embedded object with the BTF of its key and value, and the
// kernel keeps that BTF with the map, so the layout it was made with is compared as well.

// mapFits says whether a pinned map m can serve as the map spec describes: nil, or why not, an
// error that wraps ebpf.ErrMapIncompatible as a map of another size's does; or another error
// where the map's BTF could not be read. A map without BTF
// (made by hand or by another tool: every qjump build makes its maps with BTF) does not fit: what
// its values mean cannot be told, and taking over budgets or ceilings that may mean something
// else is worse than the new maps of a down and up.
func mapFits(spec *ebpf.MapSpec, m *ebpf.Map) error {
	if err := spec.Compatible(m); err != nil {
		return err
	}
	was, err := valueTypeOf(m)
	if errors.Is(err, errNoBTF) {
		return fmt.Errorf("%w: %w", err, ebpf.ErrMapIncompatible)
	}
	if err != nil {
		// Not a finding about the map (the kernel refused to say, or ran out of something): an
		// error of its own, not ErrMapIncompatible, on which a reload would take the device down
		// and up, losing its budgets and counters, or status tell the user to remove the
		// ceilings' pins.
		return fmt.Errorf("read the pinned map's value layout: %w", err)
	}
	if err := layoutDiff(spec.Value, was); err != nil {
		return fmt.Errorf("value layout differs: %w: %w", err, ebpf.ErrMapIncompatible)
	}
	return nil
}

// valueTypeOf is pinnedValueType; tests make it fail.
var valueTypeOf = pinnedValueType

// errNoBTF is a pinned map that carries no BTF to compare its value's layout with.
var errNoBTF = errors.New("the pinned map carries no BTF, so the layout of its values cannot be compared")

// pinnedValueType is the value type the kernel keeps with m, from the BTF m was made with.
func pinnedValueType(m *ebpf.Map) (btf.Type, error) {
	info, err := mapBTFInfo(m)
	if err != nil {
		return nil, err
	}
	if info.btfID == 0 || info.valueTypeID == 0 {
		return nil, errNoBTF
	}
	h, err := btf.NewHandleFromID(btf.ID(info.btfID))
	if err != nil {
		return nil, fmt.Errorf("open the pinned map's BTF: %w", err)
	}
	defer h.Close()
	spec, err := h.Spec(nil) // a map's BTF stands alone: cilium/ebpf makes it of the key and value only
	if err != nil {
		return nil, fmt.Errorf("read the pinned map's BTF: %w", err)
	}
	return spec.TypeByID(btf.TypeID(info.valueTypeID))
}

// mapInfoBTF is struct bpf_map_info (include/uapi/linux/bpf.h) as far as its BTF ids, which
// cilium/ebpf's MapInfo keeps to itself but for the BTF object's: the kernel fills as much of the
// struct as it is given room for.
type mapInfoBTF struct {
	typ, id, keySize, valueSize, maxEntries, flags uint32
	name                                           [16]byte
	ifindex, vmlinuxValueTypeID                    uint32
	netnsDev, netnsIno                             uint64
	btfID, keyTypeID, valueTypeID                  uint32
	_                                              uint32 // btf_vmlinux_id
}

// objInfoAttr is union bpf_attr for BPF_OBJ_GET_INFO_BY_FD. info is a __u64 in the kernel: the
// padding makes it one on 32-bit hosts too (every host the program builds for is little-endian).
type objInfoAttr struct {
	fd, infoLen uint32
	info        unsafe.Pointer
	_           [8 - unsafe.Sizeof(unsafe.Pointer(nil))]byte
}

// objInfoAttrSize is the size of objInfoAttr as the kernel has it. Not unsafe.Sizeof: on a 64-bit
// host Go pads the struct past its last field, zero bytes long, and the kernel refuses an
// attribute with bytes it does not know (EINVAL) unless they are zero, which padding need not be.
const objInfoAttrSize = unsafe.Offsetof(objInfoAttr{}.info) + 8

// mapBTFInfo asks the kernel for m's BTF ids.
func mapBTFInfo(m *ebpf.Map) (mapInfoBTF, error) {
	var info mapInfoBTF
	attr := objInfoAttr{fd: uint32(m.FD()), infoLen: uint32(unsafe.Sizeof(info)), info: unsafe.Pointer(&info)}
	_, _, errno := unix.Syscall(unix.SYS_BPF, unix.BPF_OBJ_GET_INFO_BY_FD, uintptr(unsafe.Pointer(&attr)), objInfoAttrSize)
	if errno != 0 {
		return info, fmt.Errorf("get the pinned map's information: %w", errno)
	}
	return info, nil
}

// sharedMapsFit says whether the maps every device shares, where some program pinned them under
// pinRoot, fit spec's (mapFits): nil when they do or none is pinned yet. The loader takes pinned
// ones over by name, comparing their sizes only.
func sharedMapsFit(pinRoot string, spec *ebpf.CollectionSpec) error {
	for _, name := range []string{qjumpMapCgroupCeilings, qjumpMapCeilingDepths} {
		m, err := ebpf.LoadPinnedMap(filepath.Join(pinRoot, name), nil)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("open pinned map %s: %w", name, err)
		}
		err = mapFits(spec.Maps[name], m)
		m.Close()
		if err != nil {
			return fmt.Errorf("use pinned map %s: %w", name, err)
		}
	}
	return nil
}

// layoutDiff compares the layout of a map value this build's program reads (want) with the one a
// pinned map was made with (was): nil when they are alike, else the first difference. Alike is
// the same kind and size, through typedefs and qualifiers, and further: ints of the same encoding,
// arrays of as many alike elements, structs and unions whose members, by name, are at the same
// offsets with the same bit sizes and alike types. Names of types, and what a pointer points to,
// are not compared: neither changes what the bytes of a value mean.
func layoutDiff(want, was btf.Type) error {
	if want == nil {
		return errors.New("this build's map has no value type to compare") // never: every map of the object has one
	}
	return typeDiff("", want, was)
}

// typeDiff is layoutDiff of the member at path ("" the value itself).
func typeDiff(path string, want, was btf.Type) error {
	want, was = btf.UnderlyingType(want), btf.UnderlyingType(was)
	if kindOf(want) != kindOf(was) {
		return fmt.Errorf("%s is %s, was %s", subject(path), kindOf(want), kindOf(was))
	}
	if err := sizeDiff(path, want, was); err != nil {
		return err
	}
	switch w := want.(type) {
	case *btf.Int:
		if v := was.(*btf.Int); w.Encoding != v.Encoding {
			return fmt.Errorf("%s is encoded %s, was %s", subject(path), w.Encoding, v.Encoding)
		}
	case *btf.Array:
		v := was.(*btf.Array)
		if w.Nelems != v.Nelems {
			return fmt.Errorf("%s has %d elements, was %d", subject(path), w.Nelems, v.Nelems)
		}
		return typeDiff(path+"[]", w.Type, v.Type)
	case *btf.Struct:
		return membersDiff(path, w.Members, was.(*btf.Struct).Members)
	case *btf.Union:
		return membersDiff(path, w.Members, was.(*btf.Union).Members)
	}
	return nil
}

// sizeDiff compares the sizes of want and was, of one kind.
func sizeDiff(path string, want, was btf.Type) error {
	w, err := btf.Sizeof(want)
	if err != nil {
		return fmt.Errorf("%s: %w", subject(path), err)
	}
	v, err := btf.Sizeof(was)
	if err != nil {
		return fmt.Errorf("%s, as pinned: %w", subject(path), err)
	}
	if w != v {
		return fmt.Errorf("%s has %d bytes, was %d", subject(path), w, v)
	}
	return nil
}

// membersDiff compares the members of a struct or union at path, by name: a member's place in
// the declaration is its offset, compared, and a member renamed is one gone and one new.
func membersDiff(path string, want, was []btf.Member) error {
	old := map[string]btf.Member{}
	for i, m := range was {
		old[memberKey(m, i)] = m
	}
	for i, w := range want {
		key := memberKey(w, i)
		v, ok := old[key]
		if !ok {
			return fmt.Errorf("member %s is new", join(path, key))
		}
		delete(old, key)
		if err := memberDiff(join(path, key), w, v); err != nil {
			return err
		}
	}
	for i, v := range was {
		if _, ok := old[memberKey(v, i)]; ok {
			return fmt.Errorf("member %s is gone", join(path, memberKey(v, i)))
		}
	}
	return nil
}

// memberDiff compares one member, at path, as this build has it (want) and as pinned (was).
func memberDiff(path string, want, was btf.Member) error {
	if want.Offset != was.Offset {
		return fmt.Errorf("member %s at %s", path, offsetsText(want.Offset, was.Offset))
	}
	if want.BitfieldSize != was.BitfieldSize {
		return fmt.Errorf("member %s has %d bits, was %d", path, want.BitfieldSize, was.BitfieldSize)
	}
	return typeDiff(path, want.Type, was.Type)
}

// memberKey names a member for membersDiff: its name, or for one without (an anonymous struct or
// union, or a bitfield's padding) its place, "#2" for the third member.
func memberKey(m btf.Member, i int) string {
	if m.Name != "" {
		return m.Name
	}
	return fmt.Sprintf("#%d", i)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// subject names what is at path in a difference.
func subject(path string) string {
	if path == "" {
		return "the value"
	}
	return "member " + path
}

// offsetsText is a member's offset in this build and as pinned, in bytes, or in bits where either
// is not whole bytes (a bitfield).
func offsetsText(want, was btf.Bits) string {
	if want%8 != 0 || was%8 != 0 {
		return fmt.Sprintf("bit offset %d, was %d", want, was)
	}
	return fmt.Sprintf("offset %d, was %d", want.Bytes(), was.Bytes())
}

// kindOf names the kind of a type, with no typedef or qualifier.
func kindOf(t btf.Type) string {
	switch t.(type) {
	case nil:
		return "nothing"
	case *btf.Int:
		return "an int"
	case *btf.Enum:
		return "an enum"
	case *btf.Pointer:
		return "a pointer"
	case *btf.Array:
		return "an array"
	case *btf.Struct:
		return "a struct"
	case *btf.Union:
		return "a union"
	case *btf.Float:
		return "a float"
	}
	return fmt.Sprintf("a %T", t)
}
