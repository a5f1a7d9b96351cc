// Package vgpu is the driver's narrow view of vgpu.ko: the GPU inventory
// and the tenant table, as vgpuctl shows and changes them. The driver
// depends only on the Client interface, so that its tests use Fake.
package vgpu

import "context"

// GPU is one GPU of vgpu.ko's inventory ("vgpuctl -j gpu show").
type GPU struct {
	Index  int    `json:"index"`
	UUID   string `json:"uuid"`
	PCI    string `json:"pci"`
	VRAM   int64  `json:"vram"`
	NUMA   *int   `json:"numa"`
	NVLink []int  `json:"nvlink"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// Healthy reports whether the GPU may take new tenants (a module that
// does not report states has only healthy GPUs).
func (g GPU) Healthy() bool {
	return g.State == "" || g.State == "healthy"
}

// Tenant is one tenant of vgpu.ko ("vgpuctl -j tenant show"), the fields
// the driver uses.
type Tenant struct {
	Name          string            `json:"name"`
	Cgroup        string            `json:"cgroup"`
	CgroupRemoved bool              `json:"cgroup_removed"`
	Ephemeral     bool              `json:"ephemeral"`
	Labels        map[string]string `json:"labels"`
	VRAMMax       *int64            `json:"vram_max"`
	GPUs          []int             `json:"gpus"`
	Weight        *int              `json:"weight"`
	// ComputeMax is in basis points (3750 is 37.5 %).
	ComputeMax *int   `json:"compute_max"`
	Priority   string `json:"priority"`
}

// TenantSpec is what "vgpuctl tenant replace" makes a tenant: exactly
// these quotas and labels, ephemeral, on Cgroup (a path under the cgroup2
// mount point, relative to it).
type TenantSpec struct {
	Name    string
	Cgroup  string
	VRAMMax int64
	GPUs    []int
	Weight  int
	// ComputeMax in percent; 0 leaves the tenant uncapped.
	ComputeMax int
	// Priority is "low", "normal" or "high"; empty leaves it unset.
	Priority string
	Labels   map[string]string
}

// Client is what the driver asks of vgpu.ko.
type Client interface {
	// GPUs lists the inventory in slot order.
	GPUs(ctx context.Context) ([]GPU, error)
	// Tenants lists every tenant.
	Tenants(ctx context.Context) ([]Tenant, error)
	// ReplaceTenant makes the tenant exactly spec, whether it exists or
	// not ("tenant replace ... ephemeral").
	ReplaceTenant(ctx context.Context, spec TenantSpec) error
	// DeleteTenant deletes a tenant ("tenant del NAME").
	DeleteTenant(ctx context.Context, name string) error
}
