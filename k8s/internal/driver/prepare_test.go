package driver

import (
	"slices"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"vgpu.io/k8s/internal/vgpu"
)

func unprepareArgs(claims ...*resourceapi.ResourceClaim) []kubeletplugin.NamespacedObject {
	var out []kubeletplugin.NamespacedObject
	for _, c := range claims {
		out = append(out, kubeletplugin.NamespacedObject{UID: c.UID})
		out[len(out)-1].Namespace, out[len(out)-1].Name = c.Namespace, c.Name
	}
	return out
}

func mustPrepare(t *testing.T, d *Driver, claims ...*resourceapi.ResourceClaim) map[types.UID]kubeletplugin.PrepareResult {
	t.Helper()
	res, err := d.PrepareResourceClaims(t.Context(), claims)
	if err != nil {
		t.Fatalf("PrepareResourceClaims: %v", err)
	}
	if len(res) != len(claims) {
		t.Fatalf("%d results for %d claims", len(res), len(claims))
	}
	for uid, r := range res {
		if r.Err != nil {
			t.Fatalf("claim %s: %v", uid, r.Err)
		}
	}
	return res
}

func mustUnprepare(t *testing.T, d *Driver, claims ...*resourceapi.ResourceClaim) {
	t.Helper()
	res, err := d.UnprepareResourceClaims(t.Context(), unprepareArgs(claims...))
	if err != nil {
		t.Fatalf("UnprepareResourceClaims: %v", err)
	}
	for _, c := range claims {
		if e, ok := res[c.UID]; !ok || e != nil {
			t.Fatalf("claim %s: present %v, error %v", c.Name, ok, e)
		}
	}
}

// wantTenant checks the one tenant the fake vgpu.ko holds.
func wantTenant(t *testing.T, e *env, name string, vram int64, weight int, gpus []int, claims ...types.UID) vgpu.Tenant {
	t.Helper()
	ts := e.tenants(t)
	if len(ts) != 1 {
		t.Fatalf("%d tenants, want 1: %+v", len(ts), ts)
	}
	tn := ts[0]
	if tn.Name != name || *tn.VRAMMax != vram || *tn.Weight != weight || !slices.Equal(tn.GPUs, gpus) || !tn.Ephemeral {
		t.Fatalf("tenant %s vram-max %d weight %d gpus %v ephemeral %v, want %s %d %d %v ephemeral",
			tn.Name, *tn.VRAMMax, *tn.Weight, tn.GPUs, tn.Ephemeral, name, vram, weight, gpus)
	}
	for _, c := range claims {
		if _, ok := tn.Labels[claimLabelKey(c)]; !ok {
			t.Fatalf("tenant %s has no label of claim %s: %v", tn.Name, c, tn.Labels)
		}
	}
	if n := len(tn.Labels); n != 4+len(claims) {
		t.Fatalf("tenant %s has %d labels, want %d: %v", tn.Name, n, 4+len(claims), tn.Labels)
	}
	return tn
}

// TestPrepareIdempotent: preparing and unpreparing again changes nothing,
// in either order and any number of times.
func TestPrepareIdempotent(t *testing.T) {
	pod := testPod("web", "0a1b2c3d-0000-4000-8000-000000000001")
	claim := testClaim("small", "claim-1", pod, alloc{0, "8Gi", "25"})
	tests := []struct {
		name              string
		prepares, unprep  int
		wantCallsPrepared int
	}{
		{name: "once", prepares: 1, unprep: 1, wantCallsPrepared: 1},
		{name: "prepared three times", prepares: 3, unprep: 1, wantCallsPrepared: 1},
		{name: "unprepared three times", prepares: 1, unprep: 3, wantCallsPrepared: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, pod)
			d := e.driver(t)
			var first map[types.UID]kubeletplugin.PrepareResult
			for i := 0; i < tc.prepares; i++ {
				res := mustPrepare(t, d, claim)
				if first == nil {
					first = res
				}
				got, want := res[claim.UID].Devices, first[claim.UID].Devices
				if len(got) != 1 || got[0].CDIDeviceIDs[0] != "vgpu.io/claim=claim-1" || got[0].DeviceName != "gpu-0" ||
					got[0].PoolName != testNode || *got[0].ShareID != *want[0].ShareID {
					t.Fatalf("prepare %d: devices %+v", i, got)
				}
			}
			if e.fake.Calls != tc.wantCallsPrepared {
				t.Fatalf("%d changes to vgpu.ko, want %d", e.fake.Calls, tc.wantCallsPrepared)
			}
			tn := wantTenant(t, e, "team-a/web@0a1b2c3d", 8*gib, 2500, []int{0}, claim.UID)
			if tn.Labels["pod"] != "web" || tn.Labels["namespace"] != "team-a" || tn.Labels["pod-uid"] != string(pod.UID) {
				t.Fatalf("pod labels %v", tn.Labels)
			}
			if s := e.specs(t); len(s) != 1 || s[0] != claim.UID {
				t.Fatalf("CDI specs %v", s)
			}
			for i := 0; i < tc.unprep; i++ {
				mustUnprepare(t, d, claim)
			}
			if ts := e.tenants(t); len(ts) != 0 {
				t.Fatalf("tenants left: %+v", ts)
			}
			if s := e.specs(t); len(s) != 0 {
				t.Fatalf("CDI specs left: %v", s)
			}
			if e.fake.Calls != tc.wantCallsPrepared+1 {
				t.Fatalf("%d changes to vgpu.ko in all, want %d", e.fake.Calls, tc.wantCallsPrepared+1)
			}
		})
	}
}

// TestOneTenantPerPod: a pod's claims, prepared together or one after
// the other, make one tenant holding their sum; unpreparing one leaves
// the other's quota.
func TestOneTenantPerPod(t *testing.T) {
	pod := testPod("train", "0a1b2c3d-0000-4000-8000-000000000002")
	a := testClaim("a", "claim-a", pod, alloc{1, "8Gi", "30"})
	b := testClaim("b", "claim-b", pod, alloc{1, "6Gi", "20"})
	tests := []struct {
		name    string
		batches [][]*resourceapi.ResourceClaim
	}{
		{name: "one call", batches: [][]*resourceapi.ResourceClaim{{a, b}}},
		{name: "two calls", batches: [][]*resourceapi.ResourceClaim{{a}, {b}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, pod)
			d := e.driver(t)
			for _, batch := range tc.batches {
				mustPrepare(t, d, batch...)
			}
			wantTenant(t, e, "team-a/train@0a1b2c3d", 14*gib, 5000, []int{1}, a.UID, b.UID)
			mustUnprepare(t, d, a)
			wantTenant(t, e, "team-a/train@0a1b2c3d", 6*gib, 2000, []int{1}, b.UID)
			if s := e.specs(t); len(s) != 1 || s[0] != b.UID {
				t.Fatalf("CDI specs %v, want only b's", s)
			}
			mustUnprepare(t, d, b)
			if ts := e.tenants(t); len(ts) != 0 {
				t.Fatalf("tenants left: %+v", ts)
			}
		})
	}
}

// TestUnprepareWithoutTenant: a claim never prepared, or whose tenant
// vgpu.ko deleted with the pod's cgroup, unprepares without error and
// loses its spec.
func TestUnprepareWithoutTenant(t *testing.T) {
	pod := testPod("gone", "0a1b2c3d-0000-4000-8000-000000000003")
	c := testClaim("c", "claim-c", pod, alloc{0, "1Gi", "10"})
	e := newEnv(t, pod)
	d := e.driver(t)
	mustUnprepare(t, d, c)
	mustPrepare(t, d, c)
	e.fake.Remove("team-a/gone@0a1b2c3d")
	mustUnprepare(t, d, c)
	if s := e.specs(t); len(s) != 0 {
		t.Fatalf("CDI specs left: %v", s)
	}
}

// TestPrepareDriverDevice: with a driver CDI device set, each allocated
// GPU's device brings the driver's own CDI device for that GPU after the
// claim's; a template that is not a CDI device name is refused at start.
func TestPrepareDriverDevice(t *testing.T) {
	pod := testPod("web", "0a1b2c3d-0000-4000-8000-000000000001")
	claim := testClaim("small", "claim-1", pod, alloc{1, "8Gi", "25"})
	e := newEnv(t, pod)
	e.driverDevice = "nvidia.com/gpu={uuid}"
	res := mustPrepare(t, e.driver(t), claim)
	got := res[claim.UID].Devices
	want := []string{"vgpu.io/claim=claim-1", "nvidia.com/gpu=GPU-11111111-0000-4000-8000-000000000000"}
	if len(got) != 1 || !slices.Equal(got[0].CDIDeviceIDs, want) {
		t.Fatalf("devices %+v, want CDI devices %v", got, want)
	}
	_, err := New(Config{NodeName: testNode, Vgpu: e.fake, Cgroups: PodCgroups{Root: e.cgRoot},
		CDI: CDI{Dir: e.cdiDir, Vgpuctl: "v", Libvgpu: "l", Preload: "p", DriverDevice: "nvidia.com/gpu={name}"}})
	if err == nil || !strings.Contains(err.Error(), "only {uuid} and {index}") {
		t.Fatalf("New with a bad template: %v", err)
	}
}
