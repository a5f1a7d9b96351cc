package driver

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/dynamic-resource-allocation/resourceslice"
	"k8s.io/klog/v2"

	"vgpu.io/k8s/internal/vgpu"
)

// Publisher publishes a node's ResourceSlices (kubeletplugin.Helper).
type Publisher interface {
	PublishResources(ctx context.Context, resources resourceslice.DriverResources) error
}

// publishOnce publishes the inventory when it differs from last and
// returns what it published (last when unchanged).
func (d *Driver) publishOnce(ctx context.Context, p Publisher, last []vgpu.GPU) ([]vgpu.GPU, error) {
	gpus, err := d.vgpu.GPUs(ctx)
	if err != nil {
		return last, fmt.Errorf("publish: %w", err)
	}
	if last != nil && reflect.DeepEqual(gpus, last) {
		return last, nil
	}
	if err := p.PublishResources(ctx, d.Resources(gpus)); err != nil {
		return last, fmt.Errorf("publish %d GPUs: %w", len(gpus), err)
	}
	if gpus == nil {
		gpus = []vgpu.GPU{}
	}
	return gpus, nil
}

// Publish publishes the GPUs vgpu.ko knows, then looks every interval
// and publishes again when they change (a GPU added or removed, or one
// becoming unhealthy or draining, which withdraws it, or healthy again),
// until ctx ends.
func (d *Driver) Publish(ctx context.Context, p Publisher) {
	interval := d.cfg.Interval
	logger := klog.FromContext(ctx)
	var last []vgpu.GPU
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		var err error
		if last, err = d.publishOnce(ctx, p, last); err != nil {
			logger.Error(err, "ResourceSlice not updated; trying again", "interval", interval)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
