package dataplane

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/qjump-net/qjump/internal/testutil"
)

// The layout of a map's value as this build reads it is alike a copy of itself for every map of
// the program: what a reload compares with the pinned maps of the same build never differs.
func TestLayoutOfEveryMapIsAlikeItself(t *testing.T) {
	spec, err := qjumpSpec()
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range spec.Maps {
		if m.Value == nil {
			continue // .rodata and the like, which no build takes over
		}
		if err := layoutDiff(m.Value, btf.Copy(m.Value)); err != nil {
			t.Errorf("map %s: its value's layout differs from a copy of itself: %v", name, err)
		}
	}
}

// A build that moves the fields of a value at the same size, as the maps of two builds would be,
// is told apart from this one: budget's epoch_end and charge swapped, and within counters' array
// of tallies, packets and bytes.
func TestLayoutOfAnotherBuildsValueDiffers(t *testing.T) {
	for _, c := range []struct {
		name, a, b string // the map, and the members whose names are swapped
		says       string
	}{
		{qjumpMapBudget, "epoch_end", "charge", "member epoch_end at offset 8, was 16"},
		{qjumpMapCounters, "packets", "bytes", "member verdict[].packets at offset 0, was 8"},
		{qjumpMapCgroupCeilings, "level", "depth", "member level at offset 0, was 1"},
	} {
		spec := thisBuildsMap(t, c.name)
		was := swapMembers(t, spec.Value, c.a, c.b)
		if err := layoutDiff(spec.Value, was); err == nil || err.Error() != c.says {
			t.Errorf("map %s with %s and %s swapped: %v; want %q", c.name, c.a, c.b, err, c.says)
		}
	}
}

// thisBuildsMap is the spec of one of the program's maps, by name.
func thisBuildsMap(t *testing.T, name string) *ebpf.MapSpec {
	t.Helper()
	spec, err := qjumpSpec()
	if err != nil {
		t.Fatal(err)
	}
	return spec.Maps[name].Copy()
}

// swapMembers is a copy of value (or of the struct its arrays and structs hold) in which the
// members named a and b, of one struct, have each other's name: a build that reordered them.
func swapMembers(t testing.TB, value btf.Type, a, b string) btf.Type {
	t.Helper()
	cp := btf.Copy(value)
	if !swapIn(cp, a, b) {
		t.Fatalf("no struct with members %s and %s in %v", a, b, value)
	}
	return cp
}

func swapIn(typ btf.Type, a, b string) bool {
	switch v := btf.UnderlyingType(typ).(type) {
	case *btf.Array:
		return swapIn(v.Type, a, b)
	case *btf.Struct:
		ia, ib := -1, -1
		for i, m := range v.Members {
			switch m.Name {
			case a:
				ia = i
			case b:
				ib = i
			}
		}
		if ia >= 0 && ib >= 0 {
			v.Members[ia].Name, v.Members[ib].Name = b, a
			return true
		}
		for _, m := range v.Members {
			if swapIn(m.Type, a, b) {
				return true
			}
		}
	}
	return false
}

// Each way two layouts can differ is named, with the member where it does; typedefs, qualifiers
// and the names of types are looked through.
func TestLayoutDiff(t *testing.T) {
	u8 := &btf.Int{Name: "unsigned char", Size: 1}
	u32 := &btf.Int{Name: "unsigned int", Size: 4}
	s32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	u64 := &btf.Int{Name: "unsigned long long", Size: 8}
	typedef := &btf.Typedef{Name: "__u64", Type: u64}
	member := func(name string, typ btf.Type, offset btf.Bits) btf.Member {
		return btf.Member{Name: name, Type: typ, Offset: offset * 8}
	}
	pair := func(name string, m ...btf.Member) *btf.Struct { return &btf.Struct{Name: name, Size: 16, Members: m} }
	tally := pair("qj_tally", member("packets", u64, 0), member("bytes", u64, 8))
	tallies := func(n uint32, elem btf.Type) *btf.Struct {
		return &btf.Struct{Name: "qj_counters", Size: 32, Members: []btf.Member{
			member("verdict", &btf.Array{Index: u32, Type: elem, Nelems: n}, 0)}}
	}
	bits := func(size btf.Bits) *btf.Struct {
		return &btf.Struct{Size: 4, Members: []btf.Member{{Name: "level", Type: u32, BitfieldSize: size}, {Name: "depth", Type: u32, Offset: 3, BitfieldSize: 5}}}
	}
	for _, c := range []struct {
		name      string
		want, was btf.Type
		says      string // "" alike
	}{
		{"alike", tally, pair("qj_tally", member("packets", u64, 0), member("bytes", u64, 8)), ""},
		{"through typedefs, qualifiers and type names", tally,
			pair("other", member("packets", &btf.Volatile{Type: typedef}, 0), member("bytes", typedef, 8)), ""},
		{"members declared in another order at the same offsets", tally,
			pair("qj_tally", member("bytes", u64, 8), member("packets", u64, 0)), ""},
		{"moved", tally, pair("qj_tally", member("bytes", u64, 0), member("packets", u64, 8)),
			"member packets at offset 0, was 8"},
		{"renamed", tally, pair("qj_tally", member("packets", u64, 0), member("octets", u64, 8)),
			"member bytes is new"},
		{"gone", tally, pair("qj_tally", member("packets", u64, 0), member("bytes", u64, 8), member("drops", u64, 8)),
			"member drops is gone"},
		{"another kind", tally, pair("qj_tally", member("packets", u64, 0), member("bytes", pair("x"), 8)),
			"member bytes is an int, was a struct"},
		{"another size", pair("s", member("a", u64, 0), member("b", u64, 8)), pair("s", member("a", u32, 0), member("b", u64, 8)),
			"member a has 8 bytes, was 4"},
		{"signed", pair("s", member("a", s32, 0)), pair("s", member("a", u32, 0)),
			"member a is encoded signed, was unsigned"},
		{"in an array's elements", tallies(2, tally), tallies(2, pair("qj_tally", member("bytes", u64, 0), member("packets", u64, 8))),
			"member verdict[].packets at offset 0, was 8"},
		{"an array of as many bytes in more elements", tallies(2, tally), tallies(4, &btf.Struct{Name: "half", Size: 8, Members: []btf.Member{member("packets", u64, 0)}}),
			"member verdict has 2 elements, was 4"},
		{"a bitfield's size", bits(3), bits(2), "member level has 3 bits, was 2"},
		{"a bitfield's offset", bits(3), &btf.Struct{Size: 4, Members: []btf.Member{{Name: "level", Type: u32, BitfieldSize: 3}, {Name: "depth", Type: u32, Offset: 4, BitfieldSize: 5}}},
			"member depth at bit offset 3, was 4"},
		{"anonymous members by place", pair("s", member("", pair("a", member("x", u64, 0)), 0)), pair("s", member("", pair("a", member("y", u64, 0)), 0)),
			"member #0.x is new"},
		{"the value's kind", u8, &btf.Enum{Size: 1}, "the value is an int, was an enum"},
		{"no type pinned", tally, nil, "the value is a struct, was nothing"},
	} {
		err := layoutDiff(c.want, c.was)
		if got := errText(err); got != c.says {
			t.Errorf("%s: layoutDiff says %q; want %q", c.name, got, c.says)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// The maps this build makes fit this build's specs through the kernel: the value types read back
// from the BTF the kernel keeps with each map are alike the ones they were made from.
func TestMapsOfThisBuildFit(t *testing.T) {
	testutil.RequirePriv(t, "eBPF maps")
	for _, name := range []string{qjumpMapBudget, qjumpMapCounters, qjumpMapDemotions, qjumpMapCgroupCeilings, qjumpMapCeilingDepths} {
		spec := thisBuildsMap(t, name)
		spec.Pinning = ebpf.PinNone
		m, err := ebpf.NewMap(spec)
		if err != nil {
			t.Fatalf("make map %s: %v", name, err)
		}
		if err := mapFits(thisBuildsMap(t, name), m); err != nil {
			t.Errorf("map %s as this build makes it does not fit this build's: %v", name, err)
		}
		m.Close()
	}
}

// A map whose BTF cannot be read (the kernel refuses, or runs out of something) is no finding
// about its layout: the error is not ErrMapIncompatible, on which a reload takes the device down
// and up, losing its budgets and counters, and assign tells the user to remove the ceilings' pins.
// A map without BTF is one.
func TestMapFitsTellsAReadFailureFromAnotherLayout(t *testing.T) {
	testutil.RequirePriv(t, "eBPF maps")
	spec := thisBuildsMap(t, qjumpMapBudget)
	spec.Pinning = ebpf.PinNone
	m, err := ebpf.NewMap(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	refused := errors.New("refused by the test")
	testutil.Set(t, &valueTypeOf, func(*ebpf.Map) (btf.Type, error) { return nil, refused })
	if err := mapFits(spec, m); !errors.Is(err, refused) || errors.Is(err, ebpf.ErrMapIncompatible) {
		t.Errorf("BTF that cannot be read: %v; want the failure, not ErrMapIncompatible", err)
	}
	testutil.Set(t, &valueTypeOf, func(*ebpf.Map) (btf.Type, error) { return nil, errNoBTF })
	if err := mapFits(spec, m); !errors.Is(err, ebpf.ErrMapIncompatible) {
		t.Errorf("a map without BTF: %v; want ErrMapIncompatible", err)
	}
}
