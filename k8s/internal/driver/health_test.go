package driver

import (
	"context"
	"testing"
	"time"

	"k8s.io/dynamic-resource-allocation/kubeletplugin"

	"vgpu.io/k8s/internal/vgpu"
)

// TestHealthReports: the kubelet hears every GPU's health at once, again
// each interval, a change of state in the next report, and the watch
// ends without error with its context.
func TestHealthReports(t *testing.T) {
	e := newEnv(t)
	d := e.driver(t)
	d.cfg.Interval = 10 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	reports := make(chan kubeletplugin.DeviceHealthReport)
	done := make(chan error, 1)
	go func() { done <- d.WatchHealthStatus(ctx, reports) }()

	health := func(r kubeletplugin.DeviceHealthReport) map[string]kubeletplugin.DeviceHealth {
		m := map[string]kubeletplugin.DeviceHealth{}
		for _, h := range r.Devices {
			if h.PoolName != testNode || h.HealthCheckTimeout != 3*d.cfg.Interval || h.LastUpdated.IsZero() {
				t.Fatalf("report %+v", h)
			}
			m[h.DeviceName] = h
		}
		return m
	}
	steps := []struct {
		name string
		gpus []vgpu.GPU
		want map[string]kubeletplugin.HealthStatus
		msg  map[string]string
	}{
		{name: "first report", gpus: testGPUs(),
			want: map[string]kubeletplugin.HealthStatus{"gpu-0": "Healthy", "gpu-1": "Healthy", "gpu-2": "Unhealthy"},
			msg:  map[string]string{"gpu-2": "unhealthy: row remapping failed"}},
		{name: "draining is working", gpus: []vgpu.GPU{{Index: 0, State: "draining", Reason: "maintenance"}},
			want: map[string]kubeletplugin.HealthStatus{"gpu-0": "Healthy"},
			msg:  map[string]string{"gpu-0": "draining: maintenance"}},
		{name: "a state not known", gpus: []vgpu.GPU{{Index: 0, State: "melting"}},
			want: map[string]kubeletplugin.HealthStatus{"gpu-0": "Unknown"},
			msg:  map[string]string{"gpu-0": "vgpu.ko reports state melting"}},
	}
	for _, s := range steps {
		e.fake.SetGPUs(s.gpus...)
		// A report may have been read before the change: wait for one
		// that shows it.
		deadline := time.After(5 * time.Second)
		for ok := false; !ok; {
			select {
			case r := <-reports:
				got := health(r)
				ok = len(got) == len(s.want)
				for dev, st := range s.want {
					ok = ok && got[dev].Health == st && got[dev].Message == s.msg[dev]
				}
			case <-deadline:
				t.Fatalf("%s: no report shows %v", s.name, s.want)
			}
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("WatchHealthStatus: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("WatchHealthStatus did not end with its context")
	}
}
