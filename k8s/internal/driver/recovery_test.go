package driver

import (
	"errors"
	"testing"
)

// TestRestartRecovery: a plugin restarted between any two steps (a new
// Driver over the same vgpu.ko and files) goes on where the last one
// stopped: what is prepared stays prepared without a change, a pod's
// next claim adds to its tenant, and unprepare needs no claim object.
func TestRestartRecovery(t *testing.T) {
	pod := testPod("svc", "0a1b2c3d-0000-4000-8000-000000000004")
	a := testClaim("a", "claim-a", pod, alloc{0, "4Gi", "20"}, alloc{1, "4Gi", "20"})
	b := testClaim("b", "claim-b", pod, alloc{0, "2Gi", "10"}, alloc{1, "2Gi", "10"})
	tests := []struct {
		name string
		// restart before step i (0: prepare a, 1: prepare a again,
		// 2: prepare b, 3: unprepare a, 4: unprepare b).
		restart map[int]bool
	}{
		{name: "never", restart: map[int]bool{}},
		{name: "before every step", restart: map[int]bool{1: true, 2: true, 3: true, 4: true}},
		{name: "only before unprepare", restart: map[int]bool{3: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, pod)
			d := e.driver(t)
			step := func(i int) {
				if tc.restart[i] {
					d = e.driver(t)
				}
			}
			step(0)
			mustPrepare(t, d, a)
			step(1)
			mustPrepare(t, d, a)
			if e.fake.Calls != 1 {
				t.Fatalf("prepare again made %d changes, want none", e.fake.Calls-1)
			}
			step(2)
			mustPrepare(t, d, b)
			wantTenant(t, e, "team-a/svc@0a1b2c3d", 6*gib, 3000, []int{0, 1}, a.UID, b.UID)
			step(3)
			mustUnprepare(t, d, a)
			wantTenant(t, e, "team-a/svc@0a1b2c3d", 2*gib, 1000, []int{0, 1}, b.UID)
			step(4)
			mustUnprepare(t, d, b)
			if ts := e.tenants(t); len(ts) != 0 {
				t.Fatalf("tenants left: %+v", ts)
			}
			if s := e.specs(t); len(s) != 0 {
				t.Fatalf("CDI specs left: %v", s)
			}
		})
	}
}

// TestVgpuFailure: when vgpu.ko refuses, Prepare fails the claim, writes
// no spec, and a later Prepare succeeds.
func TestVgpuFailure(t *testing.T) {
	pod := testPod("retry", "0a1b2c3d-0000-4000-8000-000000000005")
	c := testClaim("c", "claim-c", pod, alloc{0, "1Gi", "10"})
	e := newEnv(t, pod)
	d := e.driver(t)
	e.fake.Fail = errors.New("vgpu.ko: no memory")
	res, err := d.PrepareResourceClaims(t.Context(), claimsOf(c))
	if err != nil {
		t.Fatal(err)
	}
	if res[c.UID].Err == nil {
		t.Fatal("prepare succeeded while vgpu.ko refused")
	}
	if s := e.specs(t); len(s) != 0 {
		t.Fatalf("CDI specs written for a failed claim: %v", s)
	}
	mustPrepare(t, d, c)
	wantTenant(t, e, "team-a/retry@0a1b2c3d", gib, 1000, []int{0}, c.UID)
}
