package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vgpu.io/k8s/internal/vgpu"
)

// TestCDISpec: the spec brings /dev/vgpu, libvgpu, the preload file and
// the poststop hook, is written once, and removed without error twice.
func TestCDISpec(t *testing.T) {
	c := CDI{Dir: filepath.Join(t.TempDir(), "cdi"), Vgpuctl: "/usr/sbin/vgpuctl",
		Libvgpu: "/usr/lib/vgpu-host/libvgpu.so", Preload: "/usr/share/vgpu/ld.so.preload"}
	if err := c.Write("u1"); err != nil {
		t.Fatal(err)
	}
	// tests/host/k8s.sh checks a copy against the CDI JSON schema.
	if out := os.Getenv("VGPU_K8S_CDI_OUT"); out != "" {
		if err := (CDI{Dir: out, Vgpuctl: c.Vgpuctl, Libvgpu: c.Libvgpu, Preload: c.Preload}).Write("u1"); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(c.Dir, "vgpu.io-claim_u1.json")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write("u1"); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(p); !fi2.ModTime().Equal(fi.ModTime()) || fi.Mode().Perm() != 0o644 {
		t.Fatalf("spec rewritten or mode %v", fi.Mode())
	}
	var s cdiSpec
	data, _ := os.ReadFile(p)
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	ed := s.Devices[0].ContainerEdits
	switch {
	case s.Kind != "vgpu.io/claim" || s.CDIVersion != "0.5.0" || s.Devices[0].Name != "u1":
		t.Fatalf("spec %+v", s)
	case len(ed.DeviceNodes) != 1 || ed.DeviceNodes[0].Path != "/dev/vgpu":
		t.Fatalf("device nodes %+v", ed.DeviceNodes)
	case len(ed.Mounts) != 2 || ed.Mounts[0].HostPath != c.Libvgpu || ed.Mounts[0].ContainerPath != "/usr/lib/vgpu/libvgpu.so" ||
		ed.Mounts[1].ContainerPath != "/etc/ld.so.preload":
		t.Fatalf("mounts %+v", ed.Mounts)
	case len(ed.Hooks) != 1 || ed.Hooks[0].HookName != "poststop" || ed.Hooks[0].Path != c.Vgpuctl:
		t.Fatalf("hooks %+v", ed.Hooks)
	case c.DeviceID("u1") != "vgpu.io/claim=u1":
		t.Fatalf("device id %s", c.DeviceID("u1"))
	}
	for i := 0; i < 2; i++ {
		if err := c.Remove("u1"); err != nil {
			t.Fatal(err)
		}
	}
	if u, _ := c.Claims(); len(u) != 0 {
		t.Fatalf("specs left %v", u)
	}
}

// TestPodCgroups: a pod's cgroup is found with either cgroup driver and
// every QoS class.
func TestPodCgroups(t *testing.T) {
	uid := "0a1b2c3d-0000-4000-8000-00000000000d"
	us := "0a1b2c3d_0000_4000_8000_00000000000d"
	tests := []string{
		"kubepods/pod" + uid,
		"kubepods/burstable/pod" + uid,
		"kubepods/besteffort/pod" + uid,
		"kubepods.slice/kubepods-pod" + us + ".slice",
		"kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + us + ".slice",
		"kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + us + ".slice",
	}
	for _, rel := range tests {
		t.Run(rel, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
				t.Fatal(err)
			}
			got, err := PodCgroups{Root: root}.Find("0a1b2c3d-0000-4000-8000-00000000000d")
			if err != nil || got != rel {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
	if _, err := (PodCgroups{Root: t.TempDir()}).Find("../x"); err == nil {
		t.Fatal("a UID with a path in it was looked up")
	}
}

// TestDriverDevice: the driver's CDI device of a GPU from the template,
// and the templates refused, each with the reason.
func TestDriverDevice(t *testing.T) {
	g := vgpu.GPU{Index: 1, UUID: "GPU-11111111-0000-4000-8000-000000000000"}
	tests := []struct {
		template, want, wantErr string
	}{
		{template: "", want: ""},
		{template: "nvidia.com/gpu={uuid}", want: "nvidia.com/gpu=GPU-11111111-0000-4000-8000-000000000000"},
		{template: "nvidia.com/gpu={index}", want: "nvidia.com/gpu=1"},
		{template: "nvidia.com/gpu=all", want: "nvidia.com/gpu=all"},
		{template: "gpu={uuid}", wantErr: "want VENDOR/CLASS=NAME"},
		{template: "nvidia.com/gpu", wantErr: "want VENDOR/CLASS=NAME"},
		{template: "nvidia.com/gpu={name}", wantErr: "only {uuid} and {index}"},
		{template: "nvidia.com/gpu=a b", wantErr: "want VENDOR/CLASS=NAME"},
	}
	for _, tc := range tests {
		t.Run(tc.template, func(t *testing.T) {
			err := checkDriverDevice(tc.template)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case (CDI{DriverDevice: tc.template}).DriverID(g) != tc.want:
				t.Fatalf("device %q, want %q", (CDI{DriverDevice: tc.template}).DriverID(g), tc.want)
			}
		})
	}
}
