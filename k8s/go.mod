// vgpu's Kubernetes side (the DRA driver). The go line is the one place
// the Go version the project needs is named: "make deps" checks the
// installed go against it. Modules come through the Go module proxy and
// are verified against go.sum.
module vgpu.io/k8s

go 1.26.0
