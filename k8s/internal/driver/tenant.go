package driver

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"vgpu.io/k8s/internal/vgpu"
)

// tenantSpec is the pod's tenant serving claims: quotas from their sums
// (podQuota), the pod's labels, the driver's, one label per claim.
func (d *Driver) tenantSpec(pod podRef, cgroup string, claims map[types.UID]claimShare, inv map[string]vgpu.GPU) (vgpu.TenantSpec, error) {
	fixed := 4
	if len(claims)+fixed > maxLabels {
		return vgpu.TenantSpec{}, fmt.Errorf("%d claims of driver %s: a pod's tenant records at most %d",
			len(claims), d.cfg.DriverName, maxLabels-fixed)
	}
	list := make([]claimShare, 0, len(claims))
	for _, c := range claims {
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].UID < list[j].UID })
	q, err := podQuota(list)
	if err != nil {
		return vgpu.TenantSpec{}, err
	}
	for _, g := range q.GPUs {
		gpu, ok := inv[DeviceName(g)]
		if !ok {
			return vgpu.TenantSpec{}, fmt.Errorf("GPU %d is no longer in vgpu.ko's inventory", g)
		}
		if q.VRAMMax > gpu.VRAM {
			return vgpu.TenantSpec{}, fmt.Errorf("the pod's claims add up to %d bytes of GPU %d, which has %d", q.VRAMMax, g, gpu.VRAM)
		}
	}
	labels := map[string]string{
		labelNamespace: pod.Namespace,
		labelPod:       pod.Name,
		labelPodUID:    string(pod.UID),
		labelDriver:    d.cfg.DriverName,
	}
	for _, c := range list {
		v, err := encodeClaim(c)
		if err != nil {
			return vgpu.TenantSpec{}, err
		}
		labels[claimLabelKey(c.UID)] = v
	}
	return vgpu.TenantSpec{Name: tenantName(pod), Cgroup: cgroup, VRAMMax: q.VRAMMax, GPUs: q.GPUs,
		Weight: q.Weight, ComputeMax: q.ComputeMax, Priority: q.Priority, Labels: labels}, nil
}

// tenantClaims reads back the claims a tenant serves from its labels.
func tenantClaims(t vgpu.Tenant) ([]claimShare, error) {
	var out []claimShare
	for k, v := range t.Labels {
		uid, ok := strings.CutPrefix(k, claimLabelPrefix)
		if !ok {
			continue
		}
		c, err := decodeClaim(types.UID(uid), v)
		if err != nil {
			return nil, fmt.Errorf("tenant %s: %w", t.Name, err)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	return out, nil
}

// podOf is the pod a tenant of the driver serves, from its labels.
func podOf(t vgpu.Tenant) podRef {
	return podRef{Namespace: t.Labels[labelNamespace], Name: t.Labels[labelPod], UID: types.UID(t.Labels[labelPodUID])}
}

// tenantMatches reports whether t already is spec, so that nothing need
// be sent.
func tenantMatches(t vgpu.Tenant, spec vgpu.TenantSpec) bool {
	want := vgpu.TenantFromSpec(spec)
	prio := func(p string) string {
		if p == "" {
			return "normal"
		}
		return p
	}
	return t.Cgroup == want.Cgroup && t.Ephemeral && maps.Equal(t.Labels, want.Labels) &&
		eqPtr(t.VRAMMax, want.VRAMMax) && slices.Equal(t.GPUs, want.GPUs) &&
		eqPtr(t.Weight, want.Weight) && eqPtr(t.ComputeMax, want.ComputeMax) &&
		prio(t.Priority) == prio(want.Priority)
}

func eqPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
