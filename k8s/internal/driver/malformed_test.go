package driver

import (
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

func claimsOf(c ...*resourceapi.ResourceClaim) []*resourceapi.ResourceClaim { return c }

// TestMalformedClaims: a claim the driver cannot honour fails Prepare
// with an error naming the problem, makes no tenant and writes no spec.
func TestMalformedClaims(t *testing.T) {
	pod := testPod("bad", "0a1b2c3d-0000-4000-8000-000000000006")
	other := testPod("other", "0a1b2c3d-0000-4000-8000-000000000007")
	noCgroup := testPod("early", "0a1b2c3d-0000-4000-8000-000000000008")
	cfg := func(raw string) *resourceapi.ResourceClaim {
		return withConfig(testClaim("c", "claim-x", pod, alloc{0, "1Gi", "10"}), raw)
	}
	mk := func(f func(c *resourceapi.ResourceClaim)) *resourceapi.ResourceClaim {
		c := testClaim("c", "claim-x", pod, alloc{0, "1Gi", "10"})
		f(c)
		return c
	}
	tests := []struct {
		name  string
		claim *resourceapi.ResourceClaim
		err   string
	}{
		{"parameters not JSON", cfg(`{computeCap`), "opaque parameters"},
		{"unknown parameter", cfg(`{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","vram":"8Gi"}`), `unknown field "vram"`},
		{"wrong kind", cfg(`{"apiVersion":"gpu.vgpu.io/v1","kind":"GpuConfig"}`), `apiVersion "gpu.vgpu.io/v1"`},
		{"bad priority", cfg(`{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","priority":"urgent"}`), `priority "urgent"`},
		{"reserved for no pod", testClaim("c", "claim-x", nil, alloc{0, "1Gi", "10"}), "reserved for no pod"},
		{"shared by two pods", mk(func(c *resourceapi.ResourceClaim) {
			c.Status.ReservedFor = append(c.Status.ReservedFor,
				resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: other.Name, UID: other.UID})
		}), "reserved for 2 pods"},
		{"reserved for a non-pod", mk(func(c *resourceapi.ResourceClaim) {
			c.Status.ReservedFor[0].APIGroup, c.Status.ReservedFor[0].Resource = "apps", "deployments"
		}), "not a pod"},
		{"not allocated", mk(func(c *resourceapi.ResourceClaim) { c.Status.Allocation = nil }), "not allocated"},
		{"unknown device", testClaim("c", "claim-x", pod, alloc{9, "1Gi", "10"}), "gpu-9 is not a GPU vgpu.ko knows"},
		{"unhealthy GPU", testClaim("c", "claim-x", pod, alloc{2, "1Gi", "10"}), "unhealthy: row remapping failed"},
		{"another node's pool", mk(func(c *resourceapi.ResourceClaim) {
			c.Status.Allocation.Devices.Results[0].Pool = "node-b"
		}), "pool node-b, not this node's"},
		{"memory beyond the GPU", testClaim("c", "claim-x", pod, alloc{0, "17Gi", "10"}), "memory 17Gi"},
		{"fractional compute", testClaim("c", "claim-x", pod, alloc{0, "1Gi", "2500m"}), "whole percent"},
		{"no compute", testClaim("c", "claim-x", pod, alloc{0, "1Gi", ""}), "no compute"},
		{"compute over 100", testClaim("c", "claim-x", pod, alloc{0, "1Gi", "101"}), "compute 101"},
		{"no device of the driver", mk(func(c *resourceapi.ResourceClaim) {
			c.Status.Allocation.Devices.Results[0].Driver = "gpu.nvidia.com"
		}), "no device of driver gpu.vgpu.io"},
		{"pod gone", testClaim("c", "claim-x", testPod("deleted", "0a1b2c3d-0000-4000-8000-000000000009"),
			alloc{0, "1Gi", "10"}), `"deleted" not found`},
		{"pod replaced", testClaim("c", "claim-x", testPod("bad", "0a1b2c3d-0000-4000-8000-00000000000a"),
			alloc{0, "1Gi", "10"}), "not 0a1b2c3d-0000-4000-8000-00000000000a"},
		{"pod's cgroup not there", testClaim("c", "claim-x", noCgroup, alloc{0, "1Gi", "10"}), "has no cgroup"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, pod, other)
			if _, err := e.kube.CoreV1().Pods("team-a").Create(t.Context(), noCgroup, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			d := e.driver(t)
			res, err := d.PrepareResourceClaims(t.Context(), claimsOf(tc.claim))
			if err != nil {
				t.Fatalf("PrepareResourceClaims failed as a whole: %v", err)
			}
			r, ok := res[types.UID("claim-x")]
			if !ok || r.Err == nil || !strings.Contains(r.Err.Error(), tc.err) {
				t.Fatalf("got %v (present %v), want an error saying %q", r.Err, ok, tc.err)
			}
			if !strings.Contains(r.Err.Error(), "claim team-a/c") {
				t.Fatalf("error %q does not name the claim", r.Err)
			}
			if ts := e.tenants(t); len(ts) != 0 {
				t.Fatalf("tenants made: %+v", ts)
			}
			if s := e.specs(t); len(s) != 0 {
				t.Fatalf("CDI specs written: %v", s)
			}
		})
	}
}

// TestBadClaimBesideGood: in one call, a bad claim fails alone.
func TestBadClaimBesideGood(t *testing.T) {
	good := testPod("good", "0a1b2c3d-0000-4000-8000-00000000000b")
	bad := testPod("bad", "0a1b2c3d-0000-4000-8000-00000000000c")
	g := testClaim("g", "claim-g", good, alloc{0, "2Gi", "20"})
	b := testClaim("b", "claim-b", bad, alloc{0, "2Gi", "20"}, alloc{1, "1Gi", "20"})
	e := newEnv(t, good, bad)
	res, err := e.driver(t).PrepareResourceClaims(t.Context(), claimsOf(g, b))
	if err != nil {
		t.Fatal(err)
	}
	if res[g.UID].Err != nil || res[b.UID].Err == nil || !strings.Contains(res[b.UID].Err.Error(), "claimed alike") {
		t.Fatalf("good: %v, bad: %v", res[g.UID].Err, res[b.UID].Err)
	}
	wantTenant(t, e, "team-a/good@0a1b2c3d", 2*gib, 2000, []int{0}, g.UID)
}
