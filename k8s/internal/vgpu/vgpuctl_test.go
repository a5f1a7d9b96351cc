package vgpu

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// fakeRunner answers each command line from a table.
type fakeRunner struct {
	out  map[string]string
	err  error
	seen [][]string
}

func (f *fakeRunner) run(_ context.Context, argv []string) ([]byte, error) {
	f.seen = append(f.seen, argv)
	if f.err != nil {
		return nil, f.err
	}
	return []byte(f.out[strings.Join(argv, " ")]), nil
}

// gpuJSON and tenantJSON are "vgpuctl -j gpu show" and "tenant show" as
// Documentation/vgpuctl.8 (OUTPUT) describes them.
const gpuJSON = `[{"index":0,"uuid":"GPU-5d2c3a1e-0000-4000-8000-000000000000","pci":"0000:3b:00.0","vram":17179869184,"numa":0,"nvlink":[2],"state":"healthy","reason":null,"backstop":"driver"},
{"index":2,"uuid":null,"pci":null,"vram":1073741824,"numa":null,"nvlink":null,"state":"unhealthy","reason":"row remapping failed","backstop":"none"}]`

const tenantJSON = `[{"name":"team-a/web@0a1b2c3d","id":1,"cgroup":"/kubepods.slice/x.slice","cgroup_id":1234,"cgroup_removed":false,"ephemeral":true,"created":1795957200000000000,
"labels":{"namespace":"team-a","vgpu.io/driver":"gpu.vgpu.io"},"vram_max":8589934592,"vram_min":null,"gpus":[0,1],"weight":2500,"compute_max":3750,"priority":null,
"cpus":null,"mems":null,"placement":null,"exclusive":false,"cpus_effective":null,"mems_effective":null,"usage":[]}]`

// TestVgpuctlClient: the JSON is read into GPUs and tenants, changes are
// the documented command lines, and errors say which call failed.
func TestVgpuctlClient(t *testing.T) {
	f := &fakeRunner{out: map[string]string{
		"nsenter -t 1 -- vgpuctl -j gpu show":    gpuJSON,
		"nsenter -t 1 -- vgpuctl -j tenant show": tenantJSON,
	}}
	v := &Vgpuctl{Command: []string{"nsenter", "-t", "1", "--", "vgpuctl"}, Run: f.run}
	gpus, err := v.GPUs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 2 || gpus[0].VRAM != 16<<30 || *gpus[0].NUMA != 0 || !slices.Equal(gpus[0].NVLink, []int{2}) ||
		!gpus[0].Healthy() || gpus[1].Healthy() || gpus[1].NUMA != nil || gpus[1].Reason != "row remapping failed" {
		t.Fatalf("GPUs %+v", gpus)
	}
	ts, err := v.Tenants(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || *ts[0].VRAMMax != 8<<30 || *ts[0].ComputeMax != 3750 || *ts[0].Weight != 2500 ||
		ts[0].Labels["vgpu.io/driver"] != "gpu.vgpu.io" || !ts[0].Ephemeral || ts[0].Priority != "" {
		t.Fatalf("tenants %+v", ts)
	}
	f.err = errors.New("exit status 1: Error: the module is not loaded.")
	if _, err := v.GPUs(t.Context()); err == nil || !strings.Contains(err.Error(), "list GPUs") ||
		!strings.Contains(err.Error(), "not loaded") {
		t.Fatalf("error %v", err)
	}
	if err := v.DeleteTenant(t.Context(), "x"); err == nil || !strings.Contains(err.Error(), "delete tenant x") {
		t.Fatalf("error %v", err)
	}
}

// TestReplaceArgs: a tenant spec becomes "tenant replace" with its quotas
// and sorted labels.
func TestReplaceArgs(t *testing.T) {
	tests := []struct {
		name string
		spec TenantSpec
		want string
	}{
		{name: "weight only",
			spec: TenantSpec{Name: "ns/p@1234abcd", Cgroup: "kubepods/pod1", VRAMMax: 8 << 30, GPUs: []int{0}, Weight: 2500,
				Labels: map[string]string{"pod": "p", "namespace": "ns"}},
			want: "tenant replace ns/p@1234abcd cgroup kubepods/pod1 ephemeral vram-max 8589934592 gpus 0 weight 2500 label namespace=ns label pod=p"},
		{name: "capped, priority, GPU ranges",
			spec: TenantSpec{Name: "t", Cgroup: "c", VRAMMax: 1, GPUs: []int{3, 0, 1, 2, 5}, Weight: 100, ComputeMax: 25, Priority: "high"},
			want: "tenant replace t cgroup c ephemeral vram-max 1 gpus 0-3,5 weight 100 compute-max 25% priority high"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(ReplaceArgs(tc.spec), " "); got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestFakeRules: the fake refuses what vgpu.ko refuses of replace.
func TestFakeRules(t *testing.T) {
	f := NewFake()
	ctx := t.Context()
	if err := f.ReplaceTenant(ctx, TenantSpec{Name: "a", Cgroup: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := f.ReplaceTenant(ctx, TenantSpec{Name: "a", Cgroup: "y"}); err == nil {
		t.Fatal("a tenant moved to another cgroup")
	}
	if err := f.ReplaceTenant(ctx, TenantSpec{Name: "b", Cgroup: "/x"}); err == nil {
		t.Fatal("two tenants on one cgroup")
	}
	if err := f.DeleteTenant(ctx, "b"); err == nil {
		t.Fatal("deleted a tenant that does not exist")
	}
}
