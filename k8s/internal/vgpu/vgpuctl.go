package vgpu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// Runner runs one command line and returns its standard output; an error
// carries what the command said on standard error.
type Runner func(ctx context.Context, argv []string) ([]byte, error)

// Vgpuctl is the Client that runs vgpuctl and reads its JSON output (-j,
// Documentation/vgpuctl.8, OUTPUT).
type Vgpuctl struct {
	// Command is the vgpuctl command line before its options, for
	// example {"vgpuctl"} or {"nsenter", "-t", "1", "-m", "-n", "-C",
	// "--", "vgpuctl"} from a pod that shares the host's PID namespace.
	Command []string
	// Run runs it; nil runs it with os/exec.
	Run Runner
}

// NewVgpuctl returns a Client that runs command (with os/exec).
func NewVgpuctl(command []string) *Vgpuctl {
	return &Vgpuctl{Command: command}
}

// ExecRunner runs argv with os/exec.
func ExecRunner(ctx context.Context, argv []string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
		}
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, msg)
	}
	return stdout.Bytes(), nil
}

func (v *Vgpuctl) run(ctx context.Context, args ...string) ([]byte, error) {
	if len(v.Command) == 0 {
		return nil, errors.New("vgpuctl: no command configured")
	}
	run := v.Run
	if run == nil {
		run = ExecRunner
	}
	argv := append(append([]string{}, v.Command...), args...)
	return run(ctx, argv)
}

// GPUs implements Client.
func (v *Vgpuctl) GPUs(ctx context.Context) ([]GPU, error) {
	out, err := v.run(ctx, "-j", "gpu", "show")
	if err != nil {
		return nil, fmt.Errorf("list GPUs: %w", err)
	}
	var gpus []GPU
	if err := json.Unmarshal(out, &gpus); err != nil {
		return nil, fmt.Errorf("list GPUs: parse vgpuctl's JSON: %w", err)
	}
	return gpus, nil
}

// Tenants implements Client.
func (v *Vgpuctl) Tenants(ctx context.Context) ([]Tenant, error) {
	out, err := v.run(ctx, "-j", "tenant", "show")
	if err != nil {
		return nil, fmt.Errorf("list tenants: %w", err)
	}
	var tenants []Tenant
	if err := json.Unmarshal(out, &tenants); err != nil {
		return nil, fmt.Errorf("list tenants: parse vgpuctl's JSON: %w", err)
	}
	return tenants, nil
}

// ReplaceArgs is the vgpuctl command line (after the command) that makes
// a tenant spec.
func ReplaceArgs(spec TenantSpec) []string {
	args := []string{"tenant", "replace", spec.Name, "cgroup", spec.Cgroup, "ephemeral",
		"vram-max", strconv.FormatInt(spec.VRAMMax, 10)}
	if len(spec.GPUs) > 0 {
		args = append(args, "gpus", FormatList(spec.GPUs))
	}
	if spec.Weight > 0 {
		args = append(args, "weight", strconv.Itoa(spec.Weight))
	}
	if spec.ComputeMax > 0 {
		args = append(args, "compute-max", strconv.Itoa(spec.ComputeMax)+"%")
	}
	if spec.Priority != "" {
		args = append(args, "priority", spec.Priority)
	}
	keys := make([]string, 0, len(spec.Labels))
	for k := range spec.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "label", k+"="+spec.Labels[k])
	}
	return args
}

// ReplaceTenant implements Client.
func (v *Vgpuctl) ReplaceTenant(ctx context.Context, spec TenantSpec) error {
	if _, err := v.run(ctx, ReplaceArgs(spec)...); err != nil {
		return fmt.Errorf("replace tenant %s: %w", spec.Name, err)
	}
	return nil
}

// DeleteTenant implements Client.
func (v *Vgpuctl) DeleteTenant(ctx context.Context, name string) error {
	if _, err := v.run(ctx, "tenant", "del", name); err != nil {
		return fmt.Errorf("delete tenant %s: %w", name, err)
	}
	return nil
}

// FormatList writes GPU indexes as vgpuctl's LIST ("0-2,5"), ascending.
func FormatList(idx []int) string {
	s := append([]int{}, idx...)
	sort.Ints(s)
	s = slicesCompact(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// slicesCompact drops repeated neighbours of a sorted slice.
func slicesCompact(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
