package driver

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// ModelFunc names the model of the GPU at a PCI address, or "" when it
// is not known. vgpu.ko does not hold models.
type ModelFunc func(pci string) string

// ProcModel reads the model from NVIDIA's driver, the "Model:" line of
// DIR/<pci>/information (DIR is /proc/driver/nvidia/gpus).
func ProcModel(dir string) ModelFunc {
	return func(pci string) string {
		if pci == "" || strings.ContainsAny(pci, "/") {
			return ""
		}
		f, err := os.Open(filepath.Join(dir, pci, "information"))
		if err != nil {
			return ""
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "Model:"); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
}
