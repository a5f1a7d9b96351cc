package driver

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestCapacityToQuota: what claims are allocated becomes the pod tenant's
// vram-max, gpus, weight, compute-max and priority.
func TestCapacityToQuota(t *testing.T) {
	pod := testPod("web", "pod-uid-1")
	tests := []struct {
		name   string
		claims []*claimInput
		want   quota
		err    string
	}{
		{name: "8Gi and a quarter", claims: []*claimInput{{allocs: []alloc{{0, "8Gi", "25"}}}},
			want: quota{VRAMMax: 8 * gib, GPUs: []int{0}, Weight: 2500}},
		{name: "a whole GPU's compute is the largest weight", claims: []*claimInput{{allocs: []alloc{{1, "16Gi", "100"}}}},
			want: quota{VRAMMax: 16 * gib, GPUs: []int{1}, Weight: 10000}},
		{name: "one percent", claims: []*claimInput{{allocs: []alloc{{0, "256Mi", "1"}}}},
			want: quota{VRAMMax: 256 << 20, GPUs: []int{0}, Weight: 100}},
		{name: "capped on request", claims: []*claimInput{{allocs: []alloc{{0, "8Gi", "30"}},
			config: `{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","computeCap":true}`}},
			want: quota{VRAMMax: 8 * gib, GPUs: []int{0}, Weight: 3000, ComputeMax: 30}},
		{name: "priority", claims: []*claimInput{{allocs: []alloc{{0, "1Gi", "10"}},
			config: `{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","priority":"high"}`}},
			want: quota{VRAMMax: gib, GPUs: []int{0}, Weight: 1000, Priority: "high"}},
		{name: "two claims on one GPU add up", claims: []*claimInput{
			{allocs: []alloc{{0, "8Gi", "30"}}}, {allocs: []alloc{{0, "6Gi", "20"}}}},
			want: quota{VRAMMax: 14 * gib, GPUs: []int{0}, Weight: 5000}},
		{name: "two GPUs claimed alike", claims: []*claimInput{{allocs: []alloc{{0, "4Gi", "50"}, {1, "4Gi", "50"}}}},
			want: quota{VRAMMax: 4 * gib, GPUs: []int{0, 1}, Weight: 5000}},
		{name: "no consumed capacity: the whole GPU", claims: []*claimInput{{allocs: []alloc{{1, "", ""}}}},
			want: quota{VRAMMax: 16 * gib, GPUs: []int{1}, Weight: 10000}},
		{name: "two GPUs claimed unalike", claims: []*claimInput{{allocs: []alloc{{0, "4Gi", "50"}, {1, "2Gi", "50"}}}},
			err: "every GPU must be claimed alike"},
		{name: "priorities disagree", claims: []*claimInput{
			{allocs: []alloc{{0, "1Gi", "10"}}, config: `{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","priority":"high"}`},
			{allocs: []alloc{{0, "1Gi", "10"}}, config: `{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","priority":"low"}`}},
			err: "priorities high and low"},
		{name: "more than a GPU's compute", claims: []*claimInput{
			{allocs: []alloc{{0, "1Gi", "60"}}}, {allocs: []alloc{{0, "1Gi", "60"}}}},
			err: "add up to 120%"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := newEnv(t).driver(t)
			inv := inventory(testGPUs())
			var shares []claimShare
			for i, ci := range tc.claims {
				c := testClaim("c", types.UID("claim-"+string(rune('a'+i))), pod, ci.allocs...)
				if ci.config != "" {
					withConfig(c, ci.config)
				}
				pc, err := d.parseClaim(c, inv)
				if err != nil {
					t.Fatalf("parseClaim: %v", err)
				}
				shares = append(shares, pc.Share)
			}
			q, err := podQuota(shares)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("podQuota: %v", err)
			}
			if q.VRAMMax != tc.want.VRAMMax || !slices.Equal(q.GPUs, tc.want.GPUs) || q.Weight != tc.want.Weight ||
				q.ComputeMax != tc.want.ComputeMax || q.Priority != tc.want.Priority {
				t.Fatalf("got %+v, want %+v", q, tc.want)
			}
		})
	}
}

type claimInput struct {
	allocs []alloc
	config string
}

// TestClaimLabelRoundTrip: a claim recorded in a tenant label reads back
// as it was.
func TestClaimLabelRoundTrip(t *testing.T) {
	tests := []claimShare{
		{UID: "u1", Name: "small", Shares: []gpuShare{{GPU: 0, Memory: 8 * gib, Compute: 25}}},
		{UID: "u2", Name: "two", Shares: []gpuShare{{GPU: 0, Memory: gib, Compute: 5}, {GPU: 63, Memory: gib, Compute: 5}},
			Cap: true, Priority: "low"},
	}
	for _, c := range tests {
		t.Run(c.Name, func(t *testing.T) {
			v, err := encodeClaim(c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeClaim(c.UID, v)
			if err != nil {
				t.Fatalf("decode %q: %v", v, err)
			}
			if got.Name != c.Name || got.Cap != c.Cap || got.Priority != c.Priority || !slices.Equal(got.Shares, c.Shares) {
				t.Fatalf("got %+v from %q, want %+v", got, v, c)
			}
		})
	}
	if _, err := decodeClaim("u3", "x gpu=1:2"); err == nil {
		t.Fatal("a malformed label was read")
	}
}
