package config

import (
	"errors"
	"reflect"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
)

func TestResolvePacket(t *testing.T) {
	tests := []struct {
		name         string
		mark         Mark
		packet       string // "" leaves the default (auto)
		mtu          int
		wantPacket   model.Bytes
		wantMaxFrame model.Bytes
	}{
		{"default: one 1500-MTU frame on the wire", MarkDSCP, "", 1500, 1538, 1538},
		{"auto said outright", MarkDSCP, "auto", 1500, 1538, 1538},
		{"PCP marking pushes a tag", MarkPCP, "", 1500, 1542, 1542},
		{"both marks push a tag", MarkBoth, "", 1500, 1542, 1542},
		{"no marking", MarkNone, "", 1500, 1538, 1538},
		{"a jumbo device", MarkDSCP, "AUTO", 9000, 9038, 9038},
		{"loopback", MarkDSCP, "", 65536, 65574, 65574},
		{"an explicit P stays; the device's frame is still known", MarkDSCP, "1500B", 9000, 1500, 9038},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Default()
			d.Mark = tt.mark
			if tt.packet != "" {
				if err := (File{Packet: &tt.packet}).Apply(&d); err != nil {
					t.Fatal(err)
				}
			}
			got, err := d.ResolvePacket(tt.mtu)
			if err != nil {
				t.Fatal(err)
			}
			if got.Model.Packet != tt.wantPacket || got.Model.MaxFrame != tt.wantMaxFrame {
				t.Errorf("P = %v, MaxFrame = %v; want %v, %v", got.Model.Packet, got.Model.MaxFrame, tt.wantPacket, tt.wantMaxFrame)
			}
			if again, _ := got.ResolvePacket(tt.mtu); !reflect.DeepEqual(again, got) {
				t.Errorf("resolving twice changed %+v to %+v", got.Model, again.Model)
			}
			if d.Model.MaxFrame != 0 {
				t.Error("the receiver changed")
			}
		})
	}
	if _, err := Default().ResolvePacket(0); err == nil {
		t.Error("MTU 0 accepted")
	}
}

// An explicit P is not auto any more, and auto given after a size makes it auto again.
func TestPacketFromFile(t *testing.T) {
	d := Default()
	if !d.AutoPacket || d.Model.Packet != model.DefaultPacket {
		t.Fatalf("Default: auto %v, P %v; want auto and %v", d.AutoPacket, d.Model.Packet, model.DefaultPacket)
	}
	size, auto := "9k", "auto"
	if err := (File{Packet: &size}).Apply(&d); err != nil || d.AutoPacket || d.Model.Packet != 9000 {
		t.Fatalf("packet: 9k gave auto %v, P %v, %v", d.AutoPacket, d.Model.Packet, err)
	}
	if err := (File{Packet: &auto}).Apply(&d); err != nil || !d.AutoPacket {
		t.Fatalf("packet: auto gave auto %v, %v", d.AutoPacket, err)
	}
	if d, _ = d.ResolvePacket(1500); d.Model.Packet != 1538 {
		t.Errorf("auto after 9k resolved to %v, want 1538", d.Model.Packet)
	}
}

func TestSolvedRefusesImpossibleTargetRates(t *testing.T) {
	for _, tc := range []struct {
		rate  model.Rate
		mode  Mode
		hosts int
		field string
	}{
		{20e9, Police, 12, "target-rate"},
		{1, Police, 12, "target-rate"},
		// E = 2.4 s with P = 1500 B: 8 Gb/s needs a shape-mode bucket of 2.4 GB, more than a
		// TBF holds. It is the target rate that is refused, not the factor it would solve to.
		{8e9, Shape, 1000000, "target-rate"},
	} {
		d := Default()
		d.Model.Hosts, d.Model.Rate, d.Model.Packet, d.Mode = tc.hosts, 10e9, 1500, tc.mode
		d.TargetRates = map[model.Level]model.Rate{5: tc.rate}
		_, err := d.Solved()
		var fe *model.FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("target rate %v in %s mode: error %v, want a field error on %s", tc.rate, tc.mode, err, tc.field)
		}
	}
	d := Default()
	d.Model.Hosts, d.Model.Rate, d.Model.Packet, d.Mode = 1000000, 10e9, 1500, Police
	d.TargetRates = map[model.Level]model.Rate{5: 8e9}
	if _, err := d.Solved(); err != nil {
		t.Errorf("8 Gb/s in police mode, which has no bucket: %v", err)
	}
}
