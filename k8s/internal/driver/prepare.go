package driver

import (
	"context"
	"fmt"
	"strings"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"vgpu.io/k8s/internal/vgpu"
)

// PrepareResourceClaims implements kubeletplugin.DRAPlugin. The claims of
// each pod are checked, then the pod's tenant is made (or updated) to
// serve them together with the claims it served already, and each claim
// gets its CDI spec. A claim that cannot be honoured fails alone, with
// an error that names the problem; the kubelet reports it on the pod.
// Calling it again with the same claims changes nothing. The temporary
// spec files of a plugin killed while writing one are removed first.
func (d *Driver) PrepareResourceClaims(ctx context.Context, claims []*resourceapi.ResourceClaim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	d.sweep(ctx)
	gpus, err := d.vgpu.GPUs(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	tenants, err := d.vgpu.Tenants(ctx)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	inv := inventory(gpus)
	result := make(map[types.UID]kubeletplugin.PrepareResult, len(claims))
	byPod := map[types.UID][]parsedClaim{}
	var pods []types.UID
	for _, c := range claims {
		pc, err := d.parseClaim(c, inv)
		if err == nil {
			err = d.checkPod(ctx, pc.Pod)
		}
		if err != nil {
			result[c.UID] = kubeletplugin.PrepareResult{Err: fmt.Errorf("claim %s/%s: %w", c.Namespace, c.Name, err)}
			continue
		}
		if _, ok := byPod[pc.Pod.UID]; !ok {
			pods = append(pods, pc.Pod.UID)
		}
		byPod[pc.Pod.UID] = append(byPod[pc.Pod.UID], pc)
	}
	for _, uid := range pods {
		pcs := byPod[uid]
		podErr := d.preparePod(ctx, pcs, tenants, inv)
		for _, pc := range pcs {
			err := podErr
			if err == nil {
				err = d.cdi.Write(pc.Share.UID)
			}
			if err != nil {
				result[pc.Share.UID] = kubeletplugin.PrepareResult{
					Err: fmt.Errorf("claim %s/%s: %w", pc.Pod.Namespace, pc.Share.Name, err)}
				continue
			}
			result[pc.Share.UID] = kubeletplugin.PrepareResult{Devices: pc.Devices}
		}
	}
	return result, nil
}

// preparePod makes the pod's tenant serve pcs and the claims it already
// serves.
func (d *Driver) preparePod(ctx context.Context, pcs []parsedClaim, tenants []vgpu.Tenant, inv map[string]vgpu.GPU) error {
	pod := pcs[0].Pod
	shares := map[types.UID]claimShare{}
	existing := d.podTenant(tenants, pod.UID)
	var cg string
	if existing != nil {
		if existing.CgroupRemoved {
			return fmt.Errorf("pod %s/%s's tenant %s is on a removed cgroup: the pod is gone", pod.Namespace, pod.Name, existing.Name)
		}
		old, err := tenantClaims(*existing)
		if err != nil {
			return err
		}
		for _, c := range old {
			shares[c.UID] = c
		}
		cg = strings.TrimPrefix(existing.Cgroup, "/")
	} else {
		var err error
		if cg, err = d.cfg.Cgroups.Find(pod.UID); err != nil {
			return err
		}
	}
	for _, pc := range pcs {
		shares[pc.Share.UID] = pc.Share
	}
	spec, err := d.tenantSpec(pod, cg, shares, inv)
	if err != nil {
		return fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if existing != nil && tenantMatches(*existing, spec) {
		return nil
	}
	return d.vgpu.ReplaceTenant(ctx, spec)
}

// podTenant is the tenant the driver made for pod uid, or nil.
func (d *Driver) podTenant(tenants []vgpu.Tenant, uid types.UID) *vgpu.Tenant {
	for i := range tenants {
		if d.ownTenant(tenants[i], uid) {
			return &tenants[i]
		}
	}
	return nil
}
