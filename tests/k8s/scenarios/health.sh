#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/k8s/run tests/k8s/scenarios/health.sh: a GPU that vgpu.ko marks
# unhealthy or draining is withdrawn from the node's ResourceSlice, so no
# new claim gets it (a pod stays Pending and the scheduler says why),
# while a pod already running on it keeps its tenant; once the GPU is
# healthy again it comes back and the Pending pod runs. The plugin looks
# every 10 s (its --interval).
set -eu
scenario=health
# shellcheck source=tests/k8s/node/scenario-lib.sh
. "$VGPU_K8S_LIB"

# devices: the names of the devices the node's slices publish.
devices() {
	kubectl get resourceslices -o jsonpath='{range .items[*].spec.devices[*]}{.name}{" "}{end}'
}
# in_time SECONDS WHAT COMMAND...: COMMAND succeeds within SECONDS.
in_time() {
	lim=$1 what=$2
	shift 2
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		if [ "$i" -ge "$lim" ]; then
			bad "$what: not within $lim s"
			return 1
		fi
		sleep 1
	done
	ok "$what (after $i s)"
}
published() { devices | grep -qw gpu-0; }
withdrawn() { ! devices | grep -qw gpu-0; }
# tenant_of POD: the pod's UID is among the tenants' labels.
tenant_of() { vgpuctl -j tenant list | grep -q "$(pod_uid "$1")"; }

claim_pod a 1Gi 10 | kubectl apply -f -
kubectl wait --for=condition=Ready pod/a --timeout=300s >/dev/null ||
	bad "pod a does not run on the healthy GPU"
for state in unhealthy draining; do
	vgpuctl gpu set 0 state "$state" reason "k8s-health test"
	in_time 60 "a GPU $state is withdrawn from the ResourceSlice" withdrawn || devices
	claim_pod "p-$state" 1Gi 10 | kubectl apply -f -
	in_time 120 "a new pod's claim is not allocated while the GPU is $state" sh -c \
		"kubectl get events --field-selector involvedObject.name=p-$state,reason=FailedScheduling -o name | grep -q ."
	phase=$(kubectl get pod "p-$state" -o jsonpath='{.status.phase}')
	[ "$phase" = Pending ] && ok "and the pod stays Pending" || bad "the pod is $phase, want Pending"
	if tenant_of a; then
		ok "pod a, already running, keeps its tenant while the GPU is $state"
	else
		bad "pod a lost its tenant when the GPU became $state"
	fi
	vgpuctl gpu set 0 state healthy
	in_time 60 "healthy again, the GPU is published again" published || devices
	if kubectl wait --for=condition=Ready "pod/p-$state" --timeout=300s >/dev/null; then
		ok "the Pending pod runs once the GPU is healthy"
	else
		bad "the Pending pod does not run once the GPU is healthy"
		kubectl describe pod "p-$state" | sed -n '/^Events:/,$p'
	fi
	kubectl delete pod "p-$state" --wait=true --timeout=120s >/dev/null
done
kubectl delete pod a --wait=true --timeout=120s >/dev/null
[ "$fails" = 0 ]
