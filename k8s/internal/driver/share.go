package driver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// gpuShare is what a claim holds of one GPU: bytes of VRAM and percent
// of the GPU's time.
type gpuShare struct {
	GPU     int
	Memory  int64
	Compute int
}

// claimShare is one prepared claim as the driver keeps it: in a label of
// its pod's tenant (encodeClaim), so that vgpu.ko holds the driver's
// state and a restarted plugin reads it back.
type claimShare struct {
	UID  types.UID
	Name string
	// Shares, one per GPU, in GPU order.
	Shares []gpuShare
	// Cap asks for compute-max at the claimed compute, not only a weight.
	Cap bool
	// Priority is "low", "normal", "high" or "" (unset).
	Priority string
}

// claimLabelPrefix starts the label key of each claim a tenant serves.
const claimLabelPrefix = "claim.vgpu.io/"

// maxLabelValue is vgpu.ko's longest label value.
const maxLabelValue = 255

func claimLabelKey(uid types.UID) string {
	return claimLabelPrefix + string(uid)
}

// encodeClaim writes a claim as a label value:
// "NAME gpu=IDX:BYTES:PERCENT... [cap] [priority=P]".
func encodeClaim(c claimShare) (string, error) {
	words := []string{c.Name}
	for _, s := range c.Shares {
		words = append(words, fmt.Sprintf("gpu=%d:%d:%d", s.GPU, s.Memory, s.Compute))
	}
	if c.Cap {
		words = append(words, "cap")
	}
	if c.Priority != "" {
		words = append(words, "priority="+c.Priority)
	}
	v := strings.Join(words, " ")
	if len(v) > maxLabelValue {
		return "", fmt.Errorf("claim %s spans too many GPUs to record in a tenant label (%d characters, at most %d)",
			c.Name, len(v), maxLabelValue)
	}
	return v, nil
}

// decodeClaim reads back what encodeClaim wrote.
func decodeClaim(uid types.UID, v string) (claimShare, error) {
	words := strings.Fields(v)
	if len(words) == 0 {
		return claimShare{}, fmt.Errorf("claim %s: empty label", uid)
	}
	c := claimShare{UID: uid, Name: words[0]}
	for _, w := range words[1:] {
		switch {
		case w == "cap":
			c.Cap = true
		case strings.HasPrefix(w, "priority="):
			c.Priority = strings.TrimPrefix(w, "priority=")
		case strings.HasPrefix(w, "gpu="):
			s, err := decodeShare(strings.TrimPrefix(w, "gpu="))
			if err != nil {
				return claimShare{}, fmt.Errorf("claim %s: label word %q: %w", uid, w, err)
			}
			c.Shares = append(c.Shares, s)
		default:
			return claimShare{}, fmt.Errorf("claim %s: unknown label word %q", uid, w)
		}
	}
	sort.Slice(c.Shares, func(i, j int) bool { return c.Shares[i].GPU < c.Shares[j].GPU })
	return c, nil
}

func decodeShare(s string) (gpuShare, error) {
	f := strings.Split(s, ":")
	if len(f) != 3 {
		return gpuShare{}, fmt.Errorf("want IDX:BYTES:PERCENT")
	}
	gpu, err1 := strconv.Atoi(f[0])
	mem, err2 := strconv.ParseInt(f[1], 10, 64)
	comp, err3 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil || err3 != nil {
		return gpuShare{}, fmt.Errorf("want IDX:BYTES:PERCENT in decimal")
	}
	return gpuShare{GPU: gpu, Memory: mem, Compute: comp}, nil
}
