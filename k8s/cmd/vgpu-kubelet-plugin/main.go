// Command vgpu-kubelet-plugin is vgpu's DRA kubelet plugin: it runs on
// each GPU node (a DaemonSet beside vgpu.service), publishes the GPUs
// vgpu.ko knows as shareable devices and makes each pod that claims them
// a vgpu tenant (Documentation/kubernetes.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
	"k8s.io/klog/v2"

	"vgpu.io/k8s/internal/driver"
	"vgpu.io/k8s/internal/vgpu"
)

type flags struct {
	nodeName, driverName, vgpuctl, cgroupRoot, cdiDir            string
	hostVgpuctl, hostLibvgpu, hostPreload, nvidiaProc, driverCDI string
	kubeconfig, pluginDir, registrarDir                          string
	interval                                                     time.Duration
}

func parseFlags() flags {
	var f flags
	flag.StringVar(&f.nodeName, "node-name", os.Getenv("NODE_NAME"), "this node (default $NODE_NAME)")
	flag.StringVar(&f.driverName, "driver-name", driver.DefaultDriverName, "the DRA driver's name")
	flag.StringVar(&f.vgpuctl, "vgpuctl", "vgpuctl", "the vgpuctl command, words split at spaces (from a pod: \"nsenter -t 1 -m -n -C -- vgpuctl\")")
	flag.StringVar(&f.cgroupRoot, "cgroup-root", "/sys/fs/cgroup", "the host's cgroup2 mount point as this process sees it")
	flag.StringVar(&f.cdiDir, "cdi-dir", "/var/run/cdi", "where the claims' CDI specs are written")
	flag.StringVar(&f.hostVgpuctl, "host-vgpuctl", "/usr/sbin/vgpuctl", "vgpuctl on the host (the CDI hooks)")
	flag.StringVar(&f.hostLibvgpu, "host-libvgpu", "/usr/lib/x86_64-linux-gnu/vgpu/libvgpu.so", "libvgpu on the host")
	flag.StringVar(&f.hostPreload, "host-preload", "/usr/share/vgpu/ld.so.preload", "the preload file on the host, naming /usr/lib/vgpu/libvgpu.so")
	flag.StringVar(&f.driverCDI, "driver-cdi-device", "", "the GPU driver's CDI device a claim also brings for each of its GPUs, {uuid} or {index} standing for the GPU's (such as nvidia.com/gpu={uuid}, as nvidia-ctk cdi generate names them); empty: none")
	flag.StringVar(&f.nvidiaProc, "nvidia-proc", "/proc/driver/nvidia/gpus", "NVIDIA's driver's GPU directory (models)")
	flag.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig (default: in-cluster)")
	flag.StringVar(&f.pluginDir, "plugin-dir", "/var/lib/kubelet/plugins/"+driver.DefaultDriverName, "the plugin's socket directory")
	flag.StringVar(&f.registrarDir, "registrar-dir", "/var/lib/kubelet/plugins_registry", "kubelet's plugin registration directory")
	flag.DurationVar(&f.interval, "interval", 10*time.Second, "how often the GPU inventory is read again (the ResourceSlice, health reports)")
	klog.InitFlags(nil)
	flag.Parse()
	return f
}

func kubeClient(kubeconfig string) (kubernetes.Interface, error) {
	var cfg *rest.Config
	var err error
	if kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("kubernetes client configuration: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return cs, nil
}

func run(ctx context.Context, f flags) error {
	kube, err := kubeClient(f.kubeconfig)
	if err != nil {
		return err
	}
	drv, err := driver.New(driver.Config{
		DriverName: f.driverName,
		NodeName:   f.nodeName,
		Vgpu:       vgpu.NewVgpuctl(strings.Fields(f.vgpuctl)),
		Kube:       kube,
		Cgroups:    driver.PodCgroups{Root: f.cgroupRoot},
		CDI: driver.CDI{Dir: f.cdiDir, Vgpuctl: f.hostVgpuctl,
			Libvgpu: f.hostLibvgpu, Preload: f.hostPreload, DriverDevice: f.driverCDI},
		Model:    driver.ProcModel(f.nvidiaProc),
		Interval: f.interval,
	})
	if err != nil {
		return err
	}
	helper, err := kubeletplugin.Start(ctx, drv,
		kubeletplugin.KubeClient(kube),
		kubeletplugin.NodeName(f.nodeName),
		kubeletplugin.DriverName(f.driverName),
		kubeletplugin.PluginDataDirectoryPath(f.pluginDir),
		kubeletplugin.RegistrarDirectoryPath(f.registrarDir))
	if err != nil {
		return fmt.Errorf("start the kubelet plugin: %w", err)
	}
	defer helper.Stop()
	drv.Publish(ctx, helper)
	return nil
}

func main() {
	f := parseFlags()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, f); err != nil {
		klog.Background().Error(err, "vgpu-kubelet-plugin")
		os.Exit(1)
	}
}
