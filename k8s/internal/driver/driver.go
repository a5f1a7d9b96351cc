// Package driver is vgpu's DRA kubelet plugin: it publishes the GPUs
// vgpu.ko knows as shareable devices with consumable memory and compute,
// and prepares a claim by making its pod a vgpu tenant whose quotas are
// what the pod's claims were allocated.
package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"

	"vgpu.io/k8s/internal/vgpu"
)

// DefaultDriverName is the driver's name and its DeviceClass's.
const DefaultDriverName = "gpu.vgpu.io"

// Config is what a Driver is made of.
type Config struct {
	DriverName string
	NodeName   string
	// Vgpu talks to vgpu.ko.
	Vgpu vgpu.Client
	// Kube reads pods (nil: the pod a claim is reserved for is not
	// looked up).
	Kube kubernetes.Interface
	// Cgroups finds a pod's cgroup.
	Cgroups PodCgroups
	// CDI writes the claims' CDI specs.
	CDI CDI
	// Model names a GPU's model (nil: none published).
	Model ModelFunc
	// Interval is how often the inventory is read again for the
	// ResourceSlice and health reports (default 10 s).
	Interval time.Duration
}

// Driver implements kubeletplugin.DRAPlugin. It keeps no state of its
// own: what it prepared lives in vgpu.ko (the pod tenants and their
// claim labels) and in its CDI spec files, so a restarted plugin goes on
// where the last one stopped.
type Driver struct {
	cfg   Config
	vgpu  vgpu.Client
	cdi   CDI
	model ModelFunc
}

var _ kubeletplugin.DRAPlugin = (*Driver)(nil)

// New checks cfg and returns its Driver.
func New(cfg Config) (*Driver, error) {
	if cfg.DriverName == "" {
		cfg.DriverName = DefaultDriverName
	}
	switch {
	case cfg.NodeName == "":
		return nil, errors.New("driver: no node name")
	case cfg.Vgpu == nil:
		return nil, errors.New("driver: no vgpu client")
	case cfg.CDI.Dir == "" || cfg.CDI.Vgpuctl == "" || cfg.CDI.Libvgpu == "" || cfg.CDI.Preload == "":
		return nil, errors.New("driver: the CDI directory and the host paths of vgpuctl, libvgpu and the preload file are needed")
	case cfg.Cgroups.Root == "":
		return nil, errors.New("driver: no cgroup2 mount point")
	}
	if err := checkDriverDevice(cfg.CDI.DriverDevice); err != nil {
		return nil, fmt.Errorf("driver: %w", err)
	}
	if cfg.Interval <= 0 {
		cfg.Interval = 10 * time.Second
	}
	return &Driver{cfg: cfg, vgpu: cfg.Vgpu, cdi: cfg.CDI, model: cfg.Model}, nil
}

// HandleError implements kubeletplugin.DRAPlugin: background errors
// (publishing ResourceSlices) are logged; the helper retries those that
// are recoverable, and the others are logged as such.
func (d *Driver) HandleError(ctx context.Context, err error, msg string) {
	logger := klog.FromContext(ctx)
	if errors.Is(err, kubeletplugin.ErrRecoverable) {
		logger.Error(err, msg, "recoverable", true)
		return
	}
	logger.Error(err, msg, "recoverable", false)
}

// staleTmpAge is the age from which a temporary CDI spec is a killed
// plugin's (CDI.RemoveStale).
const staleTmpAge = time.Minute

// sweep removes the temporary CDI specs a plugin killed in a Write left.
// A failure is logged: it is no claim's.
func (d *Driver) sweep(ctx context.Context) {
	logger := klog.FromContext(ctx)
	n, err := d.cdi.RemoveStale(staleTmpAge)
	if err != nil {
		logger.Error(err, "temporary CDI specs of a killed plugin are left")
	}
	if n > 0 {
		logger.Info("removed temporary CDI specs of a killed plugin", "count", n)
	}
}

// checkPod verifies that the pod a claim is reserved for still exists,
// is the same pod (UID) and runs on this node: a pod deleted while
// Prepare runs gets no tenant.
func (d *Driver) checkPod(ctx context.Context, p podRef) error {
	if d.cfg.Kube == nil {
		return nil
	}
	pod, err := d.cfg.Kube.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	if pod.UID != p.UID {
		return fmt.Errorf("pod %s/%s is %s now, not %s the claim is reserved for", p.Namespace, p.Name, pod.UID, p.UID)
	}
	if pod.Spec.NodeName != "" && pod.Spec.NodeName != d.cfg.NodeName {
		return fmt.Errorf("pod %s/%s runs on node %s, not %s", p.Namespace, p.Name, pod.Spec.NodeName, d.cfg.NodeName)
	}
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return fmt.Errorf("pod %s/%s is terminating or done", p.Namespace, p.Name)
	}
	return nil
}

// podUIDLabel etc. are the labels of a pod's tenant: those the OCI hook
// gives a pod's tenant (Documentation/containers.md), and the driver's.
const (
	labelNamespace = "namespace"
	labelPod       = "pod"
	labelPodUID    = "pod-uid"
	labelDriver    = "vgpu.io/driver"
	// maxLabels is vgpu.ko's limit of labels per tenant.
	maxLabels = 16
)

// tenantName is a pod's tenant, named as the OCI hook names it:
// NAMESPACE/NAME@UID8, cut so that the UID's first 8 characters fit in 63.
func tenantName(p podRef) string {
	full := p.Namespace + "/" + p.Name
	if len(full) > 54 {
		full = full[:54]
	}
	uid := string(p.UID)
	if len(uid) > 8 {
		uid = uid[:8]
	}
	return full + "@" + uid
}

// ownTenant reports whether t is a tenant this driver made for pod uid
// (any pod when uid is empty).
func (d *Driver) ownTenant(t vgpu.Tenant, uid types.UID) bool {
	return t.Labels[labelDriver] == d.cfg.DriverName && (uid == "" || t.Labels[labelPodUID] == string(uid))
}
