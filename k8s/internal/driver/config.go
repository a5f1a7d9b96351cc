package driver

import (
	"bytes"
	"encoding/json"
	"fmt"

	resourceapi "k8s.io/api/resource/v1"
)

// ConfigAPIVersion and ConfigKind name the opaque configuration a claim
// or DeviceClass may give for this driver.
const (
	ConfigAPIVersion = "gpu.vgpu.io/v1alpha1"
	ConfigKind       = "GpuConfig"
)

// GpuConfig is the opaque configuration of a request:
//
//	{"apiVersion": "gpu.vgpu.io/v1alpha1", "kind": "GpuConfig",
//	 "computeCap": true, "priority": "high"}
type GpuConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// ComputeCap also caps the pod at its claimed compute (compute-max),
	// where the weight alone lets it use time others leave idle.
	ComputeCap *bool `json:"computeCap,omitempty"`
	// Priority is vgpu.ko's compute priority class: low, normal or high.
	Priority string `json:"priority,omitempty"`
}

// decodeConfig reads one opaque configuration strictly: an unknown field,
// kind or version, or a bad value, is an error naming it.
func decodeConfig(raw []byte) (GpuConfig, error) {
	var c GpuConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return GpuConfig{}, fmt.Errorf("opaque parameters: %w", err)
	}
	if c.APIVersion != ConfigAPIVersion || c.Kind != ConfigKind {
		return GpuConfig{}, fmt.Errorf("opaque parameters: apiVersion %q kind %q, want %q %q",
			c.APIVersion, c.Kind, ConfigAPIVersion, ConfigKind)
	}
	switch c.Priority {
	case "", "low", "normal", "high":
	default:
		return GpuConfig{}, fmt.Errorf("opaque parameters: priority %q: want low, normal or high", c.Priority)
	}
	return c, nil
}

// claimConfig merges the driver's configurations of an allocation that
// apply to request (all requests when a configuration names none): the
// class's first, then the claim's, a later field replacing an earlier.
func claimConfig(driverName string, cfgs []resourceapi.DeviceAllocationConfiguration, request string) (GpuConfig, error) {
	var out GpuConfig
	for _, src := range []resourceapi.AllocationConfigSource{
		resourceapi.AllocationConfigSourceClass, resourceapi.AllocationConfigSourceClaim} {
		for _, cfg := range cfgs {
			if cfg.Source != src || cfg.Opaque == nil || cfg.Opaque.Driver != driverName ||
				!appliesTo(cfg.Requests, request) {
				continue
			}
			c, err := decodeConfig(cfg.Opaque.Parameters.Raw)
			if err != nil {
				return GpuConfig{}, fmt.Errorf("%s configuration: %w", src, err)
			}
			if c.ComputeCap != nil {
				out.ComputeCap = c.ComputeCap
			}
			if c.Priority != "" {
				out.Priority = c.Priority
			}
		}
	}
	return out, nil
}

// appliesTo: a configuration naming requests applies to them and their
// subrequests ("req" covers "req/sub").
func appliesTo(requests []string, request string) bool {
	if len(requests) == 0 {
		return true
	}
	for _, r := range requests {
		if r == request || (len(request) > len(r) && request[:len(r)] == r && request[len(r)] == '/') {
			return true
		}
	}
	return false
}
