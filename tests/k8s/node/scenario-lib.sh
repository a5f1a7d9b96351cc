# SPDX-License-Identifier: GPL-2.0
# What the scenarios of tests/k8s/run share. A scenario sets "scenario"
# to its name and sources this file (. "$VGPU_K8S_LIB", which node.sh
# exports); it ends with [ "$fails" = 0 ].
fails=0
ok() { echo "PASS: k8s-$scenario: $*"; }
bad() { echo "FAIL: k8s-$scenario: $*"; fails=$((fails + 1)); }

# claim_pod NAME MEMORY COMPUTE [CONFIG [COMMAND]]: a ResourceClaimTemplate
# of one device of class gpu.vgpu.io with MEMORY and COMPUTE (percent) of
# its capacities (and, with CONFIG, the driver's opaque parameters, JSON),
# and a pod NAME whose container uses the claim and runs COMMAND (a JSON
# array; default: sleep an hour), from localhost/vgpu-clients:latest.
# NAME is not y or n: YAML reads them as booleans.
claim_pod() {
	cmd='["sleep", "3600"]'
	[ -z "${5:-}" ] || cmd=$5
	cat <<-EOF
	apiVersion: resource.k8s.io/v1
	kind: ResourceClaimTemplate
	metadata:
	  name: $1
	spec:
	  spec:
	    devices:
	      requests:
	      - name: gpu
	        exactly:
	          deviceClassName: gpu.vgpu.io
	          capacity:
	            requests:
	              memory: $2
	              compute: "$3"
	EOF
	[ -z "${4:-}" ] || cat <<-EOF
	      config:
	      - opaque:
	          driver: gpu.vgpu.io
	          parameters: $4
	EOF
	cat <<-EOF
	---
	apiVersion: v1
	kind: Pod
	metadata:
	  name: $1
	spec:
	  restartPolicy: Never
	  terminationGracePeriodSeconds: 1
	  resourceClaims:
	  - name: gpu
	    resourceClaimTemplateName: $1
	  containers:
	  - name: c
	    image: localhost/vgpu-clients:latest
	    imagePullPolicy: Never
	    command: $cmd
	    resources:
	      claims:
	      - name: gpu
	---
	EOF
}

# runs WHAT POD...: the pods are Ready within 300 s (status 0), or WHAT
# fails and what kubectl knows of them is shown (status 1).
runs() {
	what=$1
	shift
	# shellcheck disable=SC2046 # one pod/NAME word per pod
	if kubectl wait --for=condition=Ready $(printf 'pod/%s ' "$@") --timeout=300s; then
		ok "$what"
		return 0
	fi
	bad "$what: not running"
	kubectl describe pod "$@"
	return 1
}

# pod_uid POD: the pod's UID.
pod_uid() { kubectl get pod "$1" -o jsonpath='{.metadata.uid}'; }

# is_tenant POD VRAM: the pod is a tenant (its UID among a tenant's
# labels), and a tenant has that vram-max.
is_tenant() {
	vgpuctl -j tenant list >/tmp/tenants.json
	uid=$(pod_uid "$1")
	if grep -q "$uid" /tmp/tenants.json &&
		grep -Eq "\"vram_max\": *$2[,} ]" /tmp/tenants.json; then
		ok "pod $1 is a tenant, and a tenant has vram-max $2"
	else
		bad "pod $1 ($uid) is no tenant, or none has vram-max $2"
		cat /tmp/tenants.json
	fi
}
