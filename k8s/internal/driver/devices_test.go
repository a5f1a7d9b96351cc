package driver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/resourceslice"

	"vgpu.io/k8s/internal/vgpu"
)

// checkPolicy checks a capacity's request policy against the rules the
// API server applies (resource.k8s.io/v1 CapacityRequestPolicy).
func checkPolicy(t *testing.T, name resourceapi.QualifiedName, c resourceapi.DeviceCapacity) {
	t.Helper()
	p := c.RequestPolicy
	if p == nil {
		return
	}
	r := p.ValidRange
	if p.Default == nil || r == nil || r.Min == nil || r.Max == nil || r.Step == nil {
		t.Fatalf("%s: incomplete policy %+v", name, p)
	}
	def, lo, hi, step, val := p.Default.Value(), r.Min.Value(), r.Max.Value(), r.Step.Value(), c.Value.Value()
	switch {
	case lo < 0 || lo > val || hi > val:
		t.Fatalf("%s: range %d-%d outside 0-%d", name, lo, hi, val)
	case def < lo || def > hi:
		t.Fatalf("%s: default %d outside %d-%d", name, def, lo, hi)
	case hi%step != 0 || def%step != 0:
		t.Fatalf("%s: max %d or default %d not a multiple of step %d", name, hi, def, step)
	case lo+step > val:
		t.Fatalf("%s: min %d + step %d > %d", name, lo, step, val)
	}
}

// TestResources: one device per healthy GPU with its attributes, the
// consumable capacities and valid request policies.
func TestResources(t *testing.T) {
	proc := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proc, "0000:3b:00.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proc, "0000:3b:00.0", "information"),
		[]byte("Model: \t\t NVIDIA H100 80GB HBM3\nIRQ: 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		gpus    []vgpu.GPU
		devices []string
		memDef  int64
		memMax  int64
	}{
		{name: "unhealthy withdrawn", gpus: testGPUs(), devices: []string{"gpu-0", "gpu-1"}, memDef: gib, memMax: 16 * gib},
		{name: "odd VRAM rounded down to a step", gpus: []vgpu.GPU{{Index: 3, VRAM: 81559 << 20}},
			devices: []string{"gpu-3"}, memDef: gib, memMax: 81408 << 20},
		{name: "small GPU in MiB", gpus: []vgpu.GPU{{Index: 4, VRAM: 300 << 20}},
			devices: []string{"gpu-4"}, memDef: 300 << 20, memMax: 300 << 20},
		{name: "draining withdrawn", gpus: []vgpu.GPU{{Index: 5, VRAM: gib, State: "draining"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newEnv(t).driver(t)
			d.model = ProcModel(proc)
			res := d.Resources(tc.gpus)
			pool, ok := res.Pools[testNode]
			if !ok || len(pool.Slices) != 1 {
				t.Fatalf("pools %+v", res.Pools)
			}
			devs := pool.Slices[0].Devices
			if len(devs) != len(tc.devices) {
				t.Fatalf("%d devices, want %v", len(devs), tc.devices)
			}
			for i, dev := range devs {
				if dev.Name != tc.devices[i] || dev.AllowMultipleAllocations == nil || !*dev.AllowMultipleAllocations {
					t.Fatalf("device %d: %+v", i, dev)
				}
				mem, comp := dev.Capacity[CapacityMemory], dev.Capacity[CapacityCompute]
				checkPolicy(t, CapacityMemory, mem)
				checkPolicy(t, CapacityCompute, comp)
				if mem.RequestPolicy.Default.Value() != tc.memDef || mem.RequestPolicy.ValidRange.Max.Value() != tc.memMax {
					t.Fatalf("memory policy %+v, want default %d max %d", mem.RequestPolicy, tc.memDef, tc.memMax)
				}
				if comp.Value.Value() != 100 || comp.RequestPolicy.Default.Value() != ComputeDefault {
					t.Fatalf("compute %+v", comp)
				}
			}
		})
	}
	dev := newEnv(t).driver(t)
	dev.model = ProcModel(proc)
	a := dev.Resources(testGPUs()).Pools[testNode].Slices[0].Devices[0].Attributes
	want := map[resourceapi.QualifiedName]string{"uuid": "GPU-00000000-0000-4000-8000-000000000000",
		"resource.kubernetes.io/pciBusID": "0000:3b:00.0", "nvlinkPeers": "gpu-1", "model": "NVIDIA H100 80GB HBM3"}
	for k, v := range want {
		if a[k].StringValue == nil || *a[k].StringValue != v {
			t.Fatalf("attribute %s: %+v, want %q", k, a[k], v)
		}
	}
	if *a["numaNode"].IntValue != 0 || *a["index"].IntValue != 0 {
		t.Fatalf("numaNode %v index %v", *a["numaNode"].IntValue, *a["index"].IntValue)
	}
}

type fakePublisher struct {
	published []resourceslice.DriverResources
	fail      error
}

func (p *fakePublisher) PublishResources(_ context.Context, r resourceslice.DriverResources) error {
	if p.fail != nil {
		return p.fail
	}
	p.published = append(p.published, r)
	return nil
}

// TestPublishOnChange: the slice is published first, again only when the
// inventory changed, and a failure is tried again.
func TestPublishOnChange(t *testing.T) {
	e := newEnv(t)
	d := e.driver(t)
	p := &fakePublisher{}
	steps := []struct {
		name      string
		gpus      []vgpu.GPU
		fail      error
		published int
	}{
		{name: "first", gpus: testGPUs(), published: 1},
		{name: "unchanged", gpus: testGPUs(), published: 1},
		{name: "GPU 2 healthy again", gpus: append(testGPUs()[:2], vgpu.GPU{Index: 2, VRAM: 16 * gib, State: "healthy"}), published: 2},
		{name: "publish fails", gpus: testGPUs(), fail: errors.New("apiserver down"), published: 2},
		{name: "tried again", gpus: testGPUs(), published: 3},
	}
	var last []vgpu.GPU
	for _, s := range steps {
		d.vgpu = vgpu.NewFake(s.gpus...)
		p.fail = s.fail
		var err error
		last, err = d.publishOnce(t.Context(), p, last)
		if (err != nil) != (s.fail != nil) || len(p.published) != s.published {
			t.Fatalf("%s: error %v, %d published, want %d", s.name, err, len(p.published), s.published)
		}
	}
	if n := len(p.published[1].Pools[testNode].Slices[0].Devices); n != 3 {
		t.Fatalf("GPU 2 came back with %d devices, want 3", n)
	}
}
