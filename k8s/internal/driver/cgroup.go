package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// PodCgroups finds a pod's cgroup as kubelet names it, with either cgroup
// driver and any QoS class: cgroupfs kubepods[/QOS]/pod<UID>, systemd
// kubepods.slice[/kubepods-QOS.slice]/kubepods[-QOS]-pod<UID, '-' as
// '_'>.slice (the names ctl/oci/oci_pod.c checks too).
type PodCgroups struct {
	// Root is the cgroup2 mount point as the plugin sees it
	// (/sys/fs/cgroup, or the host's mounted elsewhere).
	Root string
}

// candidates are the directories, relative to the mount point, where
// kubelet puts pod uid's cgroup.
func (p PodCgroups) candidates(uid types.UID) []string {
	u := string(uid)
	us := strings.ReplaceAll(u, "-", "_")
	var out []string
	for _, qos := range []string{"", "burstable", "besteffort"} {
		if qos == "" {
			out = append(out, "kubepods/pod"+u,
				"kubepods.slice/kubepods-pod"+us+".slice")
			continue
		}
		out = append(out, "kubepods/"+qos+"/pod"+u,
			"kubepods.slice/kubepods-"+qos+".slice/kubepods-"+qos+"-pod"+us+".slice")
	}
	return out
}

// Find returns pod uid's cgroup relative to the mount point (no leading
// "/"), the form vgpuctl takes.
func (p PodCgroups) Find(uid types.UID) (string, error) {
	if strings.ContainsAny(string(uid), "/.") || uid == "" {
		return "", fmt.Errorf("pod UID %q is not a UID", uid)
	}
	c := p.candidates(uid)
	for _, rel := range c {
		fi, err := os.Stat(filepath.Join(p.Root, rel))
		if err == nil && fi.IsDir() {
			return rel, nil
		}
	}
	return "", fmt.Errorf("pod %s has no cgroup under %s yet (looked for %s, ...): is kubelet's cgroups-per-qos on?",
		uid, p.Root, c[0])
}
