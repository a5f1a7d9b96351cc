package driver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"vgpu.io/k8s/internal/vgpu"
)

// CDI is where and how the driver writes one CDI spec per prepared claim:
// the device vgpu.io/claim=UID brings /dev/vgpu, libvgpu preloaded
// through /etc/ld.so.preload, and vgpuctl's poststop hook, as "vgpuctl
// cdi generate" does for a flavour (Documentation/containers.md). The
// quotas are not in the spec: Prepare has set them on the pod's tenant.
type CDI struct {
	// Dir holds the specs (/var/run/cdi).
	Dir string
	// Vgpuctl, Libvgpu and Preload are paths on the host, where the
	// container runtime runs the hooks and makes the mounts.
	Vgpuctl string
	Libvgpu string
	Preload string
	// DriverDevice names the GPU driver's own CDI device for an allocated
	// GPU, as NVIDIA's container toolkit generates them ("nvidia-ctk cdi
	// generate"): a template in which {uuid} and {index} stand for the
	// GPU's, such as nvidia.com/gpu={uuid}. A claim's devices then bring
	// the driver's libraries and device nodes for its GPUs too. Empty:
	// none (they reach the container some other way).
	DriverDevice string
}

// The CDI kind of the devices the driver writes, and the spec version:
// 0.5.0, the version "vgpuctl cdi generate" writes and every runtime
// with CDI reads.
const (
	cdiKind    = "vgpu.io/claim"
	cdiVersion = "0.5.0"
	// libvgpuInContainer is where libvgpu is mounted (the preload file
	// names it).
	libvgpuInContainer = "/usr/lib/vgpu/libvgpu.so"
	// hookTimeout is the hooks' timeout in seconds, ctl/cmd/cdi.c's.
	hookTimeout = 10
)

type cdiSpec struct {
	CDIVersion string      `json:"cdiVersion"`
	Kind       string      `json:"kind"`
	Devices    []cdiDevice `json:"devices"`
}

type cdiDevice struct {
	Name           string   `json:"name"`
	ContainerEdits cdiEdits `json:"containerEdits"`
}

type cdiEdits struct {
	Env         []string     `json:"env,omitempty"`
	DeviceNodes []cdiNode    `json:"deviceNodes,omitempty"`
	Mounts      []cdiMount   `json:"mounts,omitempty"`
	Hooks       []cdiHookDef `json:"hooks,omitempty"`
}

type cdiNode struct {
	Path string `json:"path"`
}

type cdiMount struct {
	HostPath      string   `json:"hostPath"`
	ContainerPath string   `json:"containerPath"`
	Options       []string `json:"options,omitempty"`
}

type cdiHookDef struct {
	HookName string   `json:"hookName"`
	Path     string   `json:"path"`
	Args     []string `json:"args,omitempty"`
	Timeout  int      `json:"timeout,omitempty"`
}

// DeviceID is the CDI device of a claim.
func (c CDI) DeviceID(claim types.UID) string {
	return cdiKind + "=" + string(claim)
}

// DriverID is the GPU driver's CDI device for g, "" when none is set.
func (c CDI) DriverID(g vgpu.GPU) string {
	if c.DriverDevice == "" {
		return ""
	}
	return strings.NewReplacer("{uuid}", g.UUID, "{index}", strconv.Itoa(g.Index)).Replace(c.DriverDevice)
}

// cdiDeviceRE is a qualified CDI device name, VENDOR/CLASS=NAME, as the
// CDI specification allows them (its name may hold the placeholders).
var cdiDeviceRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*=[A-Za-z0-9{}][A-Za-z0-9_.:{}-]*$`)

// checkDriverDevice says what is wrong with a DriverDevice template.
func checkDriverDevice(t string) error {
	if t == "" {
		return nil
	}
	if !cdiDeviceRE.MatchString(t) {
		return fmt.Errorf("driver CDI device %q: want VENDOR/CLASS=NAME (such as nvidia.com/gpu={uuid})", t)
	}
	rest := strings.NewReplacer("{uuid}", "", "{index}", "").Replace(t)
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("driver CDI device %q: only {uuid} and {index} may stand in it", t)
	}
	return nil
}

// path is the spec file of a claim.
func (c CDI) path(claim types.UID) string {
	return filepath.Join(c.Dir, "vgpu.io-claim_"+string(claim)+".json")
}

func (c CDI) spec(claim types.UID) cdiSpec {
	ro := []string{"ro", "nosuid", "nodev", "bind"}
	return cdiSpec{CDIVersion: cdiVersion, Kind: cdiKind, Devices: []cdiDevice{{
		Name: string(claim),
		ContainerEdits: cdiEdits{
			Env:         []string{"VGPU_CLAIM=" + string(claim)},
			DeviceNodes: []cdiNode{{Path: "/dev/vgpu"}},
			Mounts: []cdiMount{
				{HostPath: c.Libvgpu, ContainerPath: libvgpuInContainer, Options: ro},
				{HostPath: c.Preload, ContainerPath: "/etc/ld.so.preload", Options: ro},
			},
			Hooks: []cdiHookDef{{HookName: "poststop", Path: c.Vgpuctl,
				Args: []string{"vgpuctl", "hook", "poststop"}, Timeout: hookTimeout}},
		},
	}}}
}

// Write writes the claim's spec, atomically (a temporary file renamed),
// and not at all when the file already holds it.
func (c CDI) Write(claim types.UID) error {
	data, err := json.MarshalIndent(c.spec(claim), "", "  ")
	if err != nil {
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	data = append(data, '\n')
	p := c.path(claim)
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	tmp, err := os.CreateTemp(c.Dir, tmpPattern)
	if err != nil {
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("CDI spec of claim %s: write %s: %w", claim, tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("CDI spec of claim %s: %w", claim, err)
	}
	return nil
}

// tmpPattern names Write's temporary files.
const tmpPattern = ".vgpu.io-claim-*.tmp"

// RemoveStale removes Write's temporary files older than age: those of a
// plugin killed between writing a spec and renaming it into place (its
// deferred removal never ran). A Write takes far less than age, so a
// younger file may be another Write's, still in progress. It returns how
// many it removed.
func (c CDI) RemoveStale(age time.Duration) (int, error) {
	m, err := filepath.Glob(filepath.Join(c.Dir, tmpPattern))
	if err != nil {
		return 0, fmt.Errorf("list temporary CDI specs: %w", err)
	}
	n := 0
	for _, p := range m {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, fmt.Errorf("temporary CDI spec: %w", err)
		}
		if time.Since(fi.ModTime()) < age {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return n, fmt.Errorf("remove stale temporary CDI spec: %w", err)
		}
		n++
	}
	return n, nil
}

// Remove deletes the claim's spec; a spec already gone is no error.
func (c CDI) Remove(claim types.UID) error {
	if err := os.Remove(c.path(claim)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove CDI spec of claim %s: %w", claim, err)
	}
	return nil
}

// Claims lists the claims that have a spec in Dir.
func (c CDI) Claims() ([]types.UID, error) {
	m, err := filepath.Glob(filepath.Join(c.Dir, "vgpu.io-claim_*.json"))
	if err != nil {
		return nil, fmt.Errorf("list CDI specs: %w", err)
	}
	var out []types.UID
	for _, p := range m {
		b := filepath.Base(p)
		out = append(out, types.UID(b[len("vgpu.io-claim_"):len(b)-len(".json")]))
	}
	return out, nil
}
