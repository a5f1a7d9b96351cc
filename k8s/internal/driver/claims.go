package driver

import (
	"fmt"
	"sort"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"vgpu.io/k8s/internal/vgpu"
)

// podRef is the pod a claim is reserved for.
type podRef struct {
	Namespace string
	Name      string
	UID       types.UID
}

// parsedClaim is a claim checked against the inventory: what its pod's
// tenant must hold for it, and the devices Prepare returns.
type parsedClaim struct {
	Share   claimShare
	Pod     podRef
	Devices []kubeletplugin.Device
}

// parseClaim reads the allocation of one claim: the driver's devices in
// this node's pool, the memory and compute consumed on each, and its
// configuration. Anything the driver cannot honour is an error that
// names the problem.
func (d *Driver) parseClaim(claim *resourceapi.ResourceClaim, inv map[string]vgpu.GPU) (parsedClaim, error) {
	pc := parsedClaim{Share: claimShare{UID: claim.UID, Name: claim.Name}}
	pod, err := claimPod(claim)
	if err != nil {
		return parsedClaim{}, err
	}
	pc.Pod = pod
	if claim.Status.Allocation == nil {
		return parsedClaim{}, fmt.Errorf("not allocated")
	}
	alloc := claim.Status.Allocation.Devices
	perGPU := map[int]*gpuShare{}
	for _, r := range alloc.Results {
		if r.Driver != d.cfg.DriverName {
			continue
		}
		s, err := d.resultShare(r, inv)
		if err != nil {
			return parsedClaim{}, fmt.Errorf("request %s: %w", r.Request, err)
		}
		if cur, ok := perGPU[s.GPU]; ok {
			cur.Memory += s.Memory
			cur.Compute += s.Compute
		} else {
			perGPU[s.GPU] = &s
		}
		cfg, err := claimConfig(d.cfg.DriverName, alloc.Config, r.Request)
		if err != nil {
			return parsedClaim{}, fmt.Errorf("request %s: %w", r.Request, err)
		}
		if cfg.ComputeCap != nil && *cfg.ComputeCap {
			pc.Share.Cap = true
		}
		if cfg.Priority != "" {
			if pc.Share.Priority != "" && pc.Share.Priority != cfg.Priority {
				return parsedClaim{}, fmt.Errorf("requests ask for priorities %s and %s: a pod's tenant has one",
					pc.Share.Priority, cfg.Priority)
			}
			pc.Share.Priority = cfg.Priority
		}
		ids := []string{d.cdi.DeviceID(claim.UID)}
		if id := d.cdi.DriverID(inv[r.Device]); id != "" {
			ids = append(ids, id)
		}
		pc.Devices = append(pc.Devices, kubeletplugin.Device{
			Requests:     []string{r.Request},
			PoolName:     r.Pool,
			DeviceName:   r.Device,
			CDIDeviceIDs: ids,
			ShareID:      r.ShareID,
		})
	}
	if len(perGPU) == 0 {
		return parsedClaim{}, fmt.Errorf("no device of driver %s is allocated", d.cfg.DriverName)
	}
	for _, s := range perGPU {
		if s.Compute > 100 {
			return parsedClaim{}, fmt.Errorf("GPU %d: %d%% of compute claimed, at most 100", s.GPU, s.Compute)
		}
		pc.Share.Shares = append(pc.Share.Shares, *s)
	}
	sort.Slice(pc.Share.Shares, func(i, j int) bool { return pc.Share.Shares[i].GPU < pc.Share.Shares[j].GPU })
	return pc, nil
}

// claimPod is the one pod a claim is reserved for: a tenant is a pod's,
// so a claim shared by several pods (or reserved for something else)
// is refused.
func claimPod(claim *resourceapi.ResourceClaim) (podRef, error) {
	var pods []podRef
	for _, r := range claim.Status.ReservedFor {
		if r.APIGroup != "" || r.Resource != "pods" {
			return podRef{}, fmt.Errorf("reserved for %s %s, not a pod: vgpu shares GPUs between pods", r.Resource, r.Name)
		}
		pods = append(pods, podRef{Namespace: claim.Namespace, Name: r.Name, UID: r.UID})
	}
	switch len(pods) {
	case 0:
		return podRef{}, fmt.Errorf("reserved for no pod")
	case 1:
		return pods[0], nil
	default:
		return podRef{}, fmt.Errorf("reserved for %d pods (%s, %s, ...): a vgpu claim serves one pod, its tenant; give each pod its own claim (a ResourceClaimTemplate)",
			len(pods), pods[0].Name, pods[1].Name)
	}
}

// resultShare is what one allocated device result consumes of its GPU.
// Without consumed capacity (the scheduler's DRAConsumableCapacity off)
// the device was allocated whole: all its memory and compute.
func (d *Driver) resultShare(r resourceapi.DeviceRequestAllocationResult, inv map[string]vgpu.GPU) (gpuShare, error) {
	if r.Pool != d.cfg.NodeName {
		return gpuShare{}, fmt.Errorf("device %s is in pool %s, not this node's (%s)", r.Device, r.Pool, d.cfg.NodeName)
	}
	g, ok := inv[r.Device]
	if !ok {
		return gpuShare{}, fmt.Errorf("device %s is not a GPU vgpu.ko knows", r.Device)
	}
	if !g.Healthy() {
		return gpuShare{}, fmt.Errorf("device %s (GPU %d) is %s: %s", r.Device, g.Index, g.State, g.Reason)
	}
	if r.ConsumedCapacity == nil {
		return gpuShare{GPU: g.Index, Memory: g.VRAM, Compute: 100}, nil
	}
	mem, ok := r.ConsumedCapacity[CapacityMemory]
	if !ok {
		return gpuShare{}, fmt.Errorf("device %s: no %s in the consumed capacity", r.Device, CapacityMemory)
	}
	comp, ok := r.ConsumedCapacity[CapacityCompute]
	if !ok {
		return gpuShare{}, fmt.Errorf("device %s: no %s in the consumed capacity", r.Device, CapacityCompute)
	}
	if mem.Sign() <= 0 || mem.Cmp(*resourceQuantity(g.VRAM)) > 0 {
		return gpuShare{}, fmt.Errorf("device %s: memory %s: want 1 byte to the GPU's %d bytes", r.Device, mem.String(), g.VRAM)
	}
	if comp.MilliValue()%1000 != 0 || comp.Value() < 1 || comp.Value() > 100 {
		return gpuShare{}, fmt.Errorf("device %s: compute %s: want a whole percent from 1 to 100", r.Device, comp.String())
	}
	return gpuShare{GPU: g.Index, Memory: mem.Value(), Compute: int(comp.Value())}, nil
}
