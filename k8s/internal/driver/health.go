package driver

import (
	"context"
	"time"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"

	"vgpu.io/k8s/internal/vgpu"
)

// healthReport is the health of every GPU vgpu.ko knows, for the kubelet
// (which shows it in the status of the pods that were allocated the GPU):
// unhealthy is Unhealthy, healthy and draining (being emptied, but
// working) are Healthy, a state this driver does not know is Unknown.
func (d *Driver) healthReport(gpus []vgpu.GPU, now time.Time) kubeletplugin.DeviceHealthReport {
	var r kubeletplugin.DeviceHealthReport
	for _, g := range gpus {
		h := kubeletplugin.DeviceHealth{PoolName: d.cfg.NodeName, DeviceName: DeviceName(g.Index),
			LastUpdated: now, HealthCheckTimeout: 3 * d.cfg.Interval}
		switch g.State {
		case "", "healthy":
			h.Health = kubeletplugin.HealthStatusHealthy
		case "draining":
			h.Health = kubeletplugin.HealthStatusHealthy
			h.Message = "draining: " + g.Reason
		case "unhealthy":
			h.Health = kubeletplugin.HealthStatusUnhealthy
			h.Message = "unhealthy: " + g.Reason
		default:
			h.Health = kubeletplugin.HealthStatusUnknown
			h.Message = "vgpu.ko reports state " + g.State
		}
		r.Devices = append(r.Devices, h)
	}
	return r
}

// WatchHealthStatus implements kubeletplugin.DRAPlugin: it reports the
// health of every GPU at once and then every interval (well within the
// timeout it gives, after which the kubelet takes the health as
// unknown), until ctx ends. A GPU that is not healthy is also withdrawn
// from the ResourceSlice (Publish), so that no new claim gets it.
func (d *Driver) WatchHealthStatus(ctx context.Context, reports chan<- kubeletplugin.DeviceHealthReport) error {
	logger := klog.FromContext(ctx)
	t := time.NewTicker(d.cfg.Interval)
	defer t.Stop()
	for {
		gpus, err := d.vgpu.GPUs(ctx)
		if err != nil {
			logger.Error(err, "GPU health not reported; trying again", "interval", d.cfg.Interval)
		} else {
			select {
			case <-ctx.Done():
				return nil
			case reports <- d.healthReport(gpus, time.Now()):
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
