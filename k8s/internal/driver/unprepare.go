package driver

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"vgpu.io/k8s/internal/vgpu"
)

// UnprepareResourceClaims implements kubeletplugin.DRAPlugin. It needs only
// the claims' UIDs: the tenant that serves a claim is found by its claim
// label in vgpu.ko. The claim leaves the tenant (the tenant is deleted
// with its last claim) and its CDI spec is removed. A claim that is not
// prepared, or whose tenant vgpu.ko already deleted with the pod's
// cgroup, is no error. Like Prepare, it first removes the temporary spec
// files of a plugin killed while writing one.
func (d *Driver) UnprepareResourceClaims(ctx context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	d.sweep(ctx)
	tenants, err := d.vgpu.Tenants(ctx)
	if err != nil {
		return nil, fmt.Errorf("unprepare: %w", err)
	}
	gpus, err := d.vgpu.GPUs(ctx)
	if err != nil {
		return nil, fmt.Errorf("unprepare: %w", err)
	}
	inv := inventory(gpus)
	result := make(map[types.UID]error, len(claims))
	for _, c := range claims {
		err := d.unprepareClaim(ctx, c.UID, tenants, inv)
		if err == nil {
			err = d.cdi.Remove(c.UID)
		}
		if err != nil {
			err = fmt.Errorf("claim %s/%s: %w", c.Namespace, c.Name, err)
		} else if tenants, err = d.vgpu.Tenants(ctx); err != nil {
			return nil, fmt.Errorf("unprepare: %w", err)
		}
		result[c.UID] = err
	}
	return result, nil
}

// unprepareClaim takes claim uid out of the tenant that serves it.
func (d *Driver) unprepareClaim(ctx context.Context, uid types.UID, tenants []vgpu.Tenant, inv map[string]vgpu.GPU) error {
	for _, t := range tenants {
		if !d.ownTenant(t, "") {
			continue
		}
		if _, ok := t.Labels[claimLabelKey(uid)]; !ok {
			continue
		}
		claims, err := tenantClaims(t)
		if err != nil {
			return err
		}
		rest := map[types.UID]claimShare{}
		for _, c := range claims {
			if c.UID != uid {
				rest[c.UID] = c
			}
		}
		if len(rest) == 0 {
			return d.deleteTenant(ctx, t.Name)
		}
		spec, err := d.tenantSpec(podOf(t), strings.TrimPrefix(t.Cgroup, "/"), rest, inv)
		if err != nil {
			return fmt.Errorf("tenant %s without the claim: %w", t.Name, err)
		}
		return d.vgpu.ReplaceTenant(ctx, spec)
	}
	return nil
}

// deleteTenant deletes a tenant; one that vgpu.ko deleted meanwhile (its
// cgroup went) is no error.
func (d *Driver) deleteTenant(ctx context.Context, name string) error {
	err := d.vgpu.DeleteTenant(ctx, name)
	if err == nil {
		return nil
	}
	tenants, lerr := d.vgpu.Tenants(ctx)
	if lerr != nil {
		return fmt.Errorf("%w (and then: %v)", err, lerr)
	}
	for _, t := range tenants {
		if t.Name == name {
			return err
		}
	}
	return nil
}
