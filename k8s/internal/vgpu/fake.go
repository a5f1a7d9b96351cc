package vgpu

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Fake is an in-memory Client for tests: a GPU inventory and a tenant
// table with the rules of "tenant replace" that the driver relies on
// (a name on another cgroup, and a cgroup held by another tenant, are
// refused). It is safe for concurrent use.
type Fake struct {
	mu      sync.Mutex
	gpus    []GPU
	tenants map[string]Tenant
	// Calls counts the changes made (replace and delete), so that tests
	// can see that an idempotent call changed nothing.
	Calls int
	// Fail, when set, is returned by the next change and then cleared.
	Fail error
}

// NewFake returns a Fake holding gpus and no tenant.
func NewFake(gpus ...GPU) *Fake {
	return &Fake{gpus: gpus, tenants: map[string]Tenant{}}
}

// GPUs implements Client.
func (f *Fake) GPUs(context.Context) ([]GPU, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]GPU{}, f.gpus...), nil
}

// Tenants implements Client.
func (f *Fake) Tenants(context.Context) ([]Tenant, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Tenant, 0, len(f.tenants))
	for _, t := range f.tenants {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (f *Fake) takeFail() error {
	err := f.Fail
	f.Fail = nil
	return err
}

// ReplaceTenant implements Client.
func (f *Fake) ReplaceTenant(_ context.Context, spec TenantSpec) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.takeFail(); err != nil {
		return fmt.Errorf("replace tenant %s: %w", spec.Name, err)
	}
	cg := "/" + strings.TrimPrefix(spec.Cgroup, "/")
	if old, ok := f.tenants[spec.Name]; ok && old.Cgroup != cg {
		return fmt.Errorf("replace tenant %s: exists on another cgroup (%s)", spec.Name, old.Cgroup)
	}
	for _, t := range f.tenants {
		if t.Name != spec.Name && t.Cgroup == cg {
			return fmt.Errorf("replace tenant %s: cgroup %s belongs to tenant %s", spec.Name, spec.Cgroup, t.Name)
		}
	}
	f.Calls++
	f.tenants[spec.Name] = TenantFromSpec(spec)
	return nil
}

// DeleteTenant implements Client.
func (f *Fake) DeleteTenant(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.takeFail(); err != nil {
		return fmt.Errorf("delete tenant %s: %w", name, err)
	}
	if _, ok := f.tenants[name]; !ok {
		return fmt.Errorf("delete tenant %s: no such tenant", name)
	}
	f.Calls++
	delete(f.tenants, name)
	return nil
}

// SetGPUs replaces the inventory (a GPU added, removed, or changing state).
func (f *Fake) SetGPUs(gpus ...GPU) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gpus = gpus
}

// Remove drops a tenant as the module does when its cgroup goes.
func (f *Fake) Remove(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.tenants, name)
}

// TenantFromSpec is the tenant that "tenant show" lists after spec was
// applied (its cgroup shown from the mount point, with a leading "/").
func TenantFromSpec(spec TenantSpec) Tenant {
	t := Tenant{Name: spec.Name, Cgroup: "/" + strings.TrimPrefix(spec.Cgroup, "/"), Ephemeral: true, Priority: spec.Priority,
		Labels: map[string]string{}, GPUs: append([]int{}, spec.GPUs...)}
	for k, v := range spec.Labels {
		t.Labels[k] = v
	}
	vram := spec.VRAMMax
	t.VRAMMax = &vram
	if spec.Weight > 0 {
		w := spec.Weight
		t.Weight = &w
	}
	if spec.ComputeMax > 0 {
		c := spec.ComputeMax * 100
		t.ComputeMax = &c
	}
	return t
}
