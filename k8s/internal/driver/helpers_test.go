package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"vgpu.io/k8s/internal/vgpu"
)

const (
	testNode = "node-a"
	gib      = int64(1) << 30
)

// testGPUs: two 16 GiB GPUs linked by NVLink, and a third, unhealthy.
func testGPUs() []vgpu.GPU {
	return []vgpu.GPU{
		{Index: 0, UUID: "GPU-00000000-0000-4000-8000-000000000000", PCI: "0000:3b:00.0", VRAM: 16 * gib,
			NUMA: ptr.To(0), NVLink: []int{1}, State: "healthy"},
		{Index: 1, UUID: "GPU-11111111-0000-4000-8000-000000000000", PCI: "0000:5e:00.0", VRAM: 16 * gib,
			NUMA: ptr.To(1), NVLink: []int{0}, State: "healthy"},
		{Index: 2, UUID: "GPU-22222222-0000-4000-8000-000000000000", PCI: "0000:86:00.0", VRAM: 16 * gib,
			State: "unhealthy", Reason: "row remapping failed"},
	}
}

// env is a driver over a fake vgpu.ko, a fake API server holding pods,
// a cgroup tree in a temporary directory and a CDI directory.
type env struct {
	fake    *vgpu.Fake
	kube    *fake.Clientset
	cgRoot  string
	cdiDir  string
	drivers int
	// driverDevice is the plugin's --driver-cdi-device ("": none).
	driverDevice string
}

func newEnv(t *testing.T, pods ...*corev1.Pod) *env {
	t.Helper()
	objs := make([]runtime.Object, len(pods))
	for i, p := range pods {
		objs[i] = p
	}
	e := &env{fake: vgpu.NewFake(testGPUs()...), kube: fake.NewClientset(objs...),
		cgRoot: t.TempDir(), cdiDir: filepath.Join(t.TempDir(), "cdi")}
	for _, p := range pods {
		e.podCgroup(t, p.UID)
	}
	return e
}

// podCgroup makes the pod's cgroup as kubelet's systemd driver names a
// burstable pod's.
func (e *env) podCgroup(t *testing.T, uid types.UID) string {
	t.Helper()
	rel := "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
		strings.ReplaceAll(string(uid), "-", "_") + ".slice"
	if err := os.MkdirAll(filepath.Join(e.cgRoot, rel), 0o755); err != nil {
		t.Fatal(err)
	}
	return rel
}

// driver is a new Driver over the environment, as a restarted plugin is.
func (e *env) driver(t *testing.T) *Driver {
	t.Helper()
	e.drivers++
	d, err := New(Config{NodeName: testNode, Vgpu: e.fake, Kube: e.kube,
		Cgroups: PodCgroups{Root: e.cgRoot},
		CDI: CDI{Dir: e.cdiDir, Vgpuctl: "/usr/sbin/vgpuctl",
			Libvgpu: "/usr/lib/x86_64-linux-gnu/vgpu/libvgpu.so", Preload: "/usr/share/vgpu/ld.so.preload",
			DriverDevice: e.driverDevice}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testPod(name string, uid types.UID) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: uid},
		Spec: corev1.PodSpec{NodeName: testNode}}
}

// alloc is one allocated device of a claim: GPU index, memory, compute.
type alloc struct {
	gpu     int
	memory  string
	compute string
}

// testClaim is a claim of pod allocated allocs from this node's pool
// (consumed capacity as the scheduler records it).
func testClaim(name string, uid types.UID, pod *corev1.Pod, allocs ...alloc) *resourceapi.ResourceClaim {
	c := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name, UID: uid},
		Status: resourceapi.ResourceClaimStatus{
			Allocation: &resourceapi.AllocationResult{},
		},
	}
	if pod != nil {
		c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{
			{Resource: "pods", Name: pod.Name, UID: pod.UID}}
	}
	for i, a := range allocs {
		r := resourceapi.DeviceRequestAllocationResult{
			Request: "gpu", Driver: DefaultDriverName, Pool: testNode, Device: DeviceName(a.gpu),
			ShareID: ptr.To(types.UID("share-" + string(uid) + "-" + string(rune('a'+i)))),
		}
		if a.memory != "" || a.compute != "" {
			r.ConsumedCapacity = map[resourceapi.QualifiedName]resource.Quantity{}
			if a.memory != "" {
				r.ConsumedCapacity[CapacityMemory] = resource.MustParse(a.memory)
			}
			if a.compute != "" {
				r.ConsumedCapacity[CapacityCompute] = resource.MustParse(a.compute)
			}
		}
		c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results, r)
	}
	return c
}

// withConfig adds an opaque configuration of the driver from the claim.
func withConfig(c *resourceapi.ResourceClaim, raw string) *resourceapi.ResourceClaim {
	c.Status.Allocation.Devices.Config = append(c.Status.Allocation.Devices.Config,
		resourceapi.DeviceAllocationConfiguration{
			Source: resourceapi.AllocationConfigSourceClaim,
			DeviceConfiguration: resourceapi.DeviceConfiguration{Opaque: &resourceapi.OpaqueDeviceConfiguration{
				Driver: DefaultDriverName, Parameters: runtime.RawExtension{Raw: []byte(raw)}}},
		})
	return c
}

// tenants is what the fake vgpu.ko holds.
func (e *env) tenants(t *testing.T) []vgpu.Tenant {
	t.Helper()
	ts, err := e.fake.Tenants(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// specs lists the claims that have a CDI spec.
func (e *env) specs(t *testing.T) []types.UID {
	t.Helper()
	u, err := (CDI{Dir: e.cdiDir}).Claims()
	if err != nil {
		t.Fatal(err)
	}
	return u
}
