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
	      - requests: ["gpu"]
	        opaque:
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

# tenants_of UID: how many tenants carry the pod's UID as their pod-uid
# label (the driver's and the OCI hook's label).
tenants_of() {
	vgpuctl -j tenant list | grep -Eo "\"pod-uid\": *\"$1\"" | wc -l
}

# is_tenant POD VRAM: the pod is exactly one tenant, named as the driver
# names it (NAMESPACE/NAME@UID8), with that vram-max.
is_tenant() {
	uid=$(pod_uid "$1")
	name=default/$1@$(echo "$uid" | cut -c1-8)
	n=$(tenants_of "$uid")
	if [ "$n" = 1 ] && vgpuctl -j tenant show "$name" >/tmp/tenant.json 2>&1 &&
		grep -Eq "\"vram_max\": *$2([,} ]|\$)" /tmp/tenant.json; then
		ok "pod $1 is one tenant, $name, with vram-max $2"
	else
		bad "pod $1 ($uid) is $n tenants, or $name has not vram-max $2"
		cat /tmp/tenant.json
		vgpuctl tenant list
	fi
}

# claim_of POD: the name of the claim made for the pod from its template.
claim_of() {
	kubectl get pod "$1" -o jsonpath='{.status.resourceClaimStatuses[0].resourceClaimName}'
}

# event POD REASON PATTERN SECONDS: within SECONDS, an event of the pod
# with that reason has a message matching PATTERN (grep -E); the
# messages are in /tmp/events.txt. (Helpers count in variables of their
# own: sh has one scope.)
event() {
	ev=0
	while [ "$ev" -lt "$4" ]; do
		kubectl get events --field-selector "involvedObject.name=$1,reason=$2" \
			-o jsonpath='{range .items[*]}{.message}{"\n"}{end}' >/tmp/events.txt 2>&1 || true
		grep -Eq "$3" /tmp/events.txt && return 0
		sleep 1
		ev=$((ev + 1))
	done
	return 1
}

# unschedulable POD WHAT: the pod stays Pending, its claim is never
# allocated, and the scheduler's event says it cannot allocate the claim.
unschedulable() {
	event "$1" FailedScheduling . 120 || true
	phase=$(kubectl get pod "$1" -o jsonpath='{.status.phase}')
	claim=$(claim_of "$1")
	alloc=$(kubectl get resourceclaim "$claim" -o jsonpath='{.status.allocation}' 2>&1)
	kubectl describe pod "$1" | sed -n '/^Events:/,$p'
	if [ "$phase" = Pending ] && [ -n "$claim" ] && [ -z "$alloc" ] &&
		kubectl describe pod "$1" | grep -q 'FailedScheduling.*cannot allocate all claims'; then
		ok "$2 stays Pending, its claim unallocated: the scheduler cannot allocate all claims"
	else
		bad "$2 is $phase, its claim '$claim' allocated '$alloc', or its events do not say why"
	fi
}

# clean WHAT: within 120 s no pod's tenant (ephemeral) and no claim's CDI
# spec (nor a temporary one) is left; for when no pod of the driver runs.
clean() {
	cl=0
	while [ $cl -lt 120 ] && { vgpuctl -j tenant list | grep -q '"ephemeral": *true' ||
		ls /var/run/cdi/vgpu.io-claim_* /var/run/cdi/.vgpu.io-claim-* >/dev/null 2>&1; }; do
		sleep 1
		cl=$((cl + 1))
	done
	if ! vgpuctl -j tenant list >/tmp/tenants.json; then
		bad "$1: vgpuctl tenant list fails"
	elif grep -q '"ephemeral": *true' /tmp/tenants.json; then
		bad "$1: a pod's tenant is left"
		vgpuctl tenant list
	elif ls /var/run/cdi/vgpu.io-claim_* /var/run/cdi/.vgpu.io-claim-* >/dev/null 2>&1; then
		bad "$1: a claim's CDI spec is left: $(ls -A /var/run/cdi)"
	else
		ok "$1: no pod's tenant and no claim's CDI spec is left (after $cl s)"
	fi
}
