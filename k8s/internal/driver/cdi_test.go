package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestRemoveStale: Prepare and Unprepare remove the temporary spec files
// that a plugin killed between writing a spec and renaming it left
// (older than a minute), and keep a younger one, which may be a Write in
// progress, and every claim's spec.
func TestRemoveStale(t *testing.T) {
	pod := testPod("tmp", "0a1b2c3d-0000-4000-8000-000000000009")
	c := testClaim("c", "claim-tmp", pod, alloc{0, "1Gi", "10"})
	old := time.Now().Add(-2 * time.Minute)
	tests := []struct {
		name string
		// call prepares c (false: unprepares it).
		prepare bool
		// files in the CDI directory before the call, and their age.
		files map[string]time.Time
		// left is what the directory holds after the call.
		left []string
	}{
		{name: "prepare, a killed plugin's file", prepare: true,
			files: map[string]time.Time{".vgpu.io-claim-1.tmp": old},
			left:  []string{"vgpu.io-claim_claim-tmp.json"}},
		{name: "prepare, a file being written", prepare: true,
			files: map[string]time.Time{".vgpu.io-claim-2.tmp": time.Now()},
			left:  []string{".vgpu.io-claim-2.tmp", "vgpu.io-claim_claim-tmp.json"}},
		{name: "unprepare, both", prepare: false,
			files: map[string]time.Time{".vgpu.io-claim-1.tmp": old, ".vgpu.io-claim-2.tmp": time.Now()},
			left:  []string{".vgpu.io-claim-2.tmp"}},
		{name: "unprepare, another claim's old spec and other files", prepare: false,
			files: map[string]time.Time{"vgpu.io-claim_other.json": old, "simgpu.json": old,
				".other-1.tmp": old},
			left: []string{".other-1.tmp", "simgpu.json", "vgpu.io-claim_other.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, pod)
			d := e.driver(t)
			if !tc.prepare {
				mustPrepare(t, d, c)
			}
			if err := os.MkdirAll(e.cdiDir, 0o755); err != nil {
				t.Fatal(err)
			}
			for f, when := range tc.files {
				p := filepath.Join(e.cdiDir, f)
				if err := os.WriteFile(p, []byte("{"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, when, when); err != nil {
					t.Fatal(err)
				}
			}
			if tc.prepare {
				mustPrepare(t, d, c)
			} else {
				mustUnprepare(t, d, c)
			}
			ents, err := os.ReadDir(e.cdiDir)
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for _, ent := range ents {
				left = append(left, ent.Name())
			}
			if strings.Join(left, " ") != strings.Join(tc.left, " ") {
				t.Fatalf("left %q, want %q", left, tc.left)
			}
		})
	}
}
