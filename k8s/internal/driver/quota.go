package driver

import (
	"fmt"
	"sort"
)

// quota is what a pod's tenant gets from the claims it serves.
type quota struct {
	VRAMMax int64
	GPUs    []int
	// Weight is the claimed compute times weightPerPercent.
	Weight int
	// ComputeMax is the claimed compute in percent when a claim asks for
	// a cap, else 0 (uncapped).
	ComputeMax int
	Priority   string
}

// weightPerPercent maps compute (percent of one GPU, 1 to 100) onto
// vgpu.ko's weight (1 to 10000): a full GPU is the largest weight, and
// tenants made without a claim (weight 100 when unset) count as 1 %.
const weightPerPercent = 100

// podQuota sums the claims of one pod per GPU. vgpu.ko holds one vram-max
// and one weight for all of a tenant's GPUs, so every GPU must carry the
// same sums; claims that give GPUs different amounts are refused, naming
// them, rather than enforced loosely.
func podQuota(claims []claimShare) (quota, error) {
	mem := map[int]int64{}
	comp := map[int]int{}
	var q quota
	for _, c := range claims {
		for _, s := range c.Shares {
			mem[s.GPU] += s.Memory
			comp[s.GPU] += s.Compute
		}
		if c.Cap {
			q.ComputeMax = -1
		}
		if c.Priority != "" {
			if q.Priority != "" && q.Priority != c.Priority {
				return quota{}, fmt.Errorf("claims of one pod ask for priorities %s and %s: a pod's tenant has one",
					q.Priority, c.Priority)
			}
			q.Priority = c.Priority
		}
	}
	if len(mem) == 0 {
		return quota{}, fmt.Errorf("no GPU allocated")
	}
	for g := range mem {
		q.GPUs = append(q.GPUs, g)
	}
	sort.Ints(q.GPUs)
	first := q.GPUs[0]
	for _, g := range q.GPUs[1:] {
		if mem[g] != mem[first] || comp[g] != comp[first] {
			return quota{}, fmt.Errorf("the pod's claims give GPU %d %d bytes and %d%% but GPU %d %d bytes and %d%%: "+
				"vgpu.ko holds one vram-max and weight for all of a tenant's GPUs, so every GPU must be claimed alike",
				first, mem[first], comp[first], g, mem[g], comp[g])
		}
	}
	if comp[first] < 1 || comp[first] > 100 {
		return quota{}, fmt.Errorf("the pod's claims add up to %d%% of GPU %d: compute is 1 to 100", comp[first], first)
	}
	q.VRAMMax = mem[first]
	q.Weight = comp[first] * weightPerPercent
	if q.ComputeMax < 0 {
		q.ComputeMax = comp[first]
	}
	return q, nil
}
