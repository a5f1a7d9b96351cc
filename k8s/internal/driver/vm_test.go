//go:build vmtest

package driver

// The driver against a real vgpu.ko and vgpuctl, in the project's VM
// (k8s/vmtest/run): built with -tags vmtest, run as root where vgpuctl is
// on the PATH, the module is loaded with GPUs 0 and 1 declared (16 GiB,
// NVLinked), and cgroup2 is at /sys/fs/cgroup. Only the API server is a
// fake.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vgpu.io/k8s/internal/vgpu"
)

func TestVgpuctlEndToEnd(t *testing.T) {
	ctx := t.Context()
	v := vgpu.NewVgpuctl([]string{"vgpuctl"})
	pod := testPod("web", "0a1b2c3d-0000-4000-8000-0000000000e1")
	e := newEnv(t, pod)
	e.cgRoot = "/sys/fs/cgroup"
	rel := e.podCgroup(t, pod.UID)
	defer os.Remove(filepath.Join(e.cgRoot, rel))
	e.fake = nil
	mk := func() *Driver {
		d, err := New(Config{NodeName: testNode, Vgpu: v, Kube: e.kube, Cgroups: PodCgroups{Root: e.cgRoot},
			CDI: CDI{Dir: e.cdiDir, Vgpuctl: "/usr/sbin/vgpuctl", Libvgpu: "/usr/lib/libvgpu.so", Preload: "/p"}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := mk()

	gpus, err := v.GPUs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	devs := d.Resources(gpus).Pools[testNode].Slices[0].Devices
	if len(devs) != 2 || devs[0].Attributes["nvlinkPeers"].StringValue == nil ||
		*devs[0].Attributes["nvlinkPeers"].StringValue != "gpu-1" || devs[1].Attributes["numaNode"].IntValue == nil {
		t.Fatalf("devices from vgpu.ko: %+v", devs)
	}
	t.Logf("vgpu.ko's GPUs published as %d devices: %s %v", len(devs), devs[0].Name, devs[0].Attributes)

	a := withConfig(testClaim("a", "claim-a", pod, alloc{0, "8Gi", "25"}),
		`{"apiVersion":"gpu.vgpu.io/v1alpha1","kind":"GpuConfig","computeCap":true}`)
	b := testClaim("b", "claim-b", pod, alloc{0, "4Gi", "20"})
	mustPrepare(t, d, a, b)
	tn := realTenant(t, v, "team-a/web@0a1b2c3d")
	if *tn.VRAMMax != 12*gib || *tn.Weight != 4500 || tn.ComputeMax == nil || *tn.ComputeMax != 4500 ||
		len(tn.GPUs) != 1 || tn.GPUs[0] != 0 || !tn.Ephemeral || tn.Cgroup != "/"+rel ||
		!strings.HasPrefix(tn.Labels[claimLabelKey(a.UID)], "a gpu=0:8589934592:25 cap") {
		t.Fatalf("tenant %+v", tn)
	}
	t.Logf("tenant %s: vram-max %d weight %d compute-max %d bp, labels %v", tn.Name, *tn.VRAMMax, *tn.Weight, *tn.ComputeMax, tn.Labels)

	mustPrepare(t, mk(), a, b)
	if again := realTenant(t, v, tn.Name); !tenantMatchesTenant(again, tn) {
		t.Fatalf("prepare again changed the tenant: %+v", again)
	}
	bad := testClaim("c", "claim-c", pod, alloc{0, "17Gi", "10"})
	res, err := mk().PrepareResourceClaims(ctx, claimsOf(bad))
	if err != nil || res[bad.UID].Err == nil {
		t.Fatalf("a claim beyond the GPU: %v, %v", err, res[bad.UID].Err)
	}
	mustUnprepare(t, mk(), a)
	if tn = realTenant(t, v, tn.Name); *tn.VRAMMax != 4*gib || *tn.Weight != 2000 || tn.ComputeMax != nil {
		t.Fatalf("after a left: %+v", tn)
	}
	mustUnprepare(t, mk(), b)
	ts, err := v.Tenants(ctx)
	if err != nil || len(ts) != 0 {
		t.Fatalf("tenants left: %+v, %v", ts, err)
	}
}

func realTenant(t *testing.T, v vgpu.Client, name string) vgpu.Tenant {
	t.Helper()
	ts, err := v.Tenants(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range ts {
		if tn.Name == name {
			return tn
		}
	}
	t.Fatalf("no tenant %s in %+v", name, ts)
	return vgpu.Tenant{}
}

func tenantMatchesTenant(a, b vgpu.Tenant) bool {
	return a.Cgroup == b.Cgroup && eqPtr(a.VRAMMax, b.VRAMMax) && eqPtr(a.Weight, b.Weight) &&
		eqPtr(a.ComputeMax, b.ComputeMax) && len(a.Labels) == len(b.Labels)
}
