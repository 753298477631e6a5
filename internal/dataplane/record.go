package dataplane

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"gopkg.in/yaml.v3"

	"github.com/qjump-net/qjump/internal/config"
)

// record is what `up` did to a device, pinned beside the program so that `status`, `reload` and
// `down` (other processes, maybe in other mount namespaces) know it. bpffs holds only BPF objects,
// so it lives as JSON in a one-entry array map.
type record struct {
	Device        string `json:"device"`
	Ifindex       int    `json:"ifindex"`
	Attach        Attach `json:"attach"`                   // tcx or clsact
	ClsactCreated bool   `json:"clsact_created,omitempty"` // up added the clsact qdisc
	HTB           bool   `json:"htb,omitempty"`            // up added the shape-mode HTB tree
	Generation    uint64 `json:"generation"`
	Config        string `json:"config"` // the solved configuration, in the file format (YAML)
}

const recordSize = 8192

var recordSpec = &ebpf.MapSpec{
	Name: "qjump_record", Type: ebpf.Array, KeySize: 4, ValueSize: recordSize, MaxEntries: 1,
}

func (r record) dataplane() (config.Dataplane, error) {
	f, err := config.Parse("pinned record", []byte(r.Config))
	if err != nil {
		return config.Dataplane{}, err
	}
	d := config.Default()
	return d, f.Apply(&d)
}

func newRecord(dev string, ifindex int, d config.Dataplane) (record, error) {
	y, err := yaml.Marshal(config.ToFile(d))
	if err != nil {
		return record{}, fmt.Errorf("encode config: %w", err)
	}
	return record{Device: dev, Ifindex: ifindex, Config: string(y)}, nil
}

// writeRecord stores r in the pinned record map of p, creating and pinning the map if needed.
func writeRecord(p paths, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	if len(data) > recordSize {
		return fmt.Errorf("encode record: %d bytes, more than %d", len(data), recordSize)
	}
	m, err := ebpf.LoadPinnedMap(p.pin(pinMeta), nil)
	if err != nil {
		if m, err = ebpf.NewMap(recordSpec); err != nil {
			return fmt.Errorf("create record map: %w", err)
		}
		if err := m.Pin(p.pin(pinMeta)); err != nil {
			m.Close()
			return fmt.Errorf("pin record: %w", err)
		}
	}
	defer m.Close()
	buf := make([]byte, recordSize)
	copy(buf, data)
	if err := m.Put(uint32(0), buf); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	return nil
}

// ErrNotUp means QJump is not attached to the device (in this network namespace).
var ErrNotUp = errors.New("qjump is not up")

func readRecord(p paths) (record, error) {
	var r record
	m, err := ebpf.LoadPinnedMap(p.pin(pinMeta), nil)
	if err != nil {
		return r, fmt.Errorf("%w on %s", ErrNotUp, p.deviceName())
	}
	defer m.Close()
	buf := make([]byte, recordSize)
	if err := m.Lookup(uint32(0), &buf); err != nil {
		return r, fmt.Errorf("read record: %w", err)
	}
	if err := json.Unmarshal(bytes.TrimRight(buf, "\x00"), &r); err != nil {
		return r, fmt.Errorf("decode record: %w", err)
	}
	return r, nil
}
