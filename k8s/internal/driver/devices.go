package driver

import (
	"fmt"
	"sort"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/deviceattribute"
	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/utils/ptr"

	"vgpu.io/k8s/internal/vgpu"
)

// The consumable capacities of each GPU.
const (
	// CapacityMemory is VRAM in bytes.
	CapacityMemory resourceapi.QualifiedName = "memory"
	// CapacityCompute is a share of the GPU's time, percent: 1 to 100.
	CapacityCompute resourceapi.QualifiedName = "compute"
)

// Request policies: memory in steps of 256 MiB (1 GiB when a request
// names none), compute in whole percent (10 % when it names none).
const (
	memoryStep    = 256 << 20
	memoryDefault = 1 << 30
	computeMax    = 100
	computeStep   = 1
	// ComputeDefault is the compute a request that names none consumes.
	ComputeDefault = 10
)

// DeviceName is the device of GPU slot index in the ResourceSlice.
func DeviceName(index int) string {
	return fmt.Sprintf("gpu-%d", index)
}

func resourceQuantity(v int64) *resource.Quantity {
	return resource.NewQuantity(v, resource.BinarySI)
}

// inventory maps device names to the GPUs vgpu.ko knows.
func inventory(gpus []vgpu.GPU) map[string]vgpu.GPU {
	inv := make(map[string]vgpu.GPU, len(gpus))
	for _, g := range gpus {
		inv[DeviceName(g.Index)] = g
	}
	return inv
}

// Resources is the pool this node publishes: one device per healthy GPU
// (a GPU that is unhealthy or draining is withdrawn until it is healthy
// again), shared by many claims through its memory and compute.
func (d *Driver) Resources(gpus []vgpu.GPU) resourceslice.DriverResources {
	var devices []resourceapi.Device
	for _, g := range gpus {
		if g.Healthy() {
			devices = append(devices, d.device(g))
		}
	}
	sort.Slice(devices, func(i, j int) bool { return devices[i].Name < devices[j].Name })
	return resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
		d.cfg.NodeName: {Slices: []resourceslice.Slice{{Devices: devices}}},
	}}
}

func (d *Driver) device(g vgpu.GPU) resourceapi.Device {
	attrs := map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"index": {IntValue: ptr.To(int64(g.Index))},
	}
	if g.UUID != "" {
		attrs["uuid"] = resourceapi.DeviceAttribute{StringValue: ptr.To(g.UUID)}
	}
	if g.PCI != "" {
		attrs[deviceattribute.StandardDeviceAttributePCIBusID] = resourceapi.DeviceAttribute{StringValue: ptr.To(g.PCI)}
	}
	if g.NUMA != nil {
		attrs["numaNode"] = resourceapi.DeviceAttribute{IntValue: ptr.To(int64(*g.NUMA))}
	}
	if len(g.NVLink) > 0 {
		peers := make([]string, len(g.NVLink))
		for i, p := range g.NVLink {
			peers[i] = DeviceName(p)
		}
		attrs["nvlinkPeers"] = resourceapi.DeviceAttribute{StringValue: ptr.To(strings.Join(peers, ","))}
	}
	if d.model != nil {
		if m := d.model(g.PCI); m != "" {
			attrs["model"] = resourceapi.DeviceAttribute{StringValue: ptr.To(m)}
		}
	}
	return resourceapi.Device{
		Name:                     DeviceName(g.Index),
		Attributes:               attrs,
		AllowMultipleAllocations: ptr.To(true),
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			CapacityMemory:  memoryCapacity(g.VRAM),
			CapacityCompute: computeCapacity(),
		},
	}
}

// memoryCapacity: the GPU's VRAM; requests from one step to the VRAM
// rounded down to a step, rounded up to a step. A GPU too small for
// two steps takes requests in MiB.
func memoryCapacity(vram int64) resourceapi.DeviceCapacity {
	step := int64(memoryStep)
	if vram < 2*step {
		step = 1 << 20
	}
	c := resourceapi.DeviceCapacity{Value: *resourceQuantity(vram)}
	if vram < 2*step {
		return c
	}
	top := vram / step * step
	def := min(int64(memoryDefault), top)
	c.RequestPolicy = &resourceapi.CapacityRequestPolicy{
		Default: resourceQuantity(def),
		ValidRange: &resourceapi.CapacityRequestPolicyRange{
			Min:  resourceQuantity(step),
			Max:  resourceQuantity(top),
			Step: resourceQuantity(step),
		},
	}
	return c
}

// computeCapacity: 100 % of the GPU's time, requests in whole percent.
func computeCapacity() resourceapi.DeviceCapacity {
	q := func(v int64) *resource.Quantity { return resource.NewQuantity(v, resource.DecimalSI) }
	return resourceapi.DeviceCapacity{
		Value: *q(computeMax),
		RequestPolicy: &resourceapi.CapacityRequestPolicy{
			Default: q(ComputeDefault),
			ValidRange: &resourceapi.CapacityRequestPolicyRange{
				Min:  q(computeStep),
				Max:  q(computeMax),
				Step: q(computeStep),
			},
		},
	}
}
