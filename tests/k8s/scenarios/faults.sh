#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/k8s/run tests/k8s/scenarios/faults.sh: issue 30's bad input and
# faults on the node's one 16 GiB GPU.
# - Claims no GPU can hold (32Gi; compute 150 %) are never allocated:
#   their pods stay Pending and the scheduler's event says why.
# - A claim whose configuration the driver refuses (priority "urgent", an
#   unknown field) fails Prepare: the pod's FailedPrepareDynamicResources
#   event carries the driver's message, the pod does not run, and no
#   tenant is ever made for it.
# - A pod deleted while its Prepare stands in the middle (vgpuctl-gate
#   holds the plugin's vgpuctl tenant replace: /run/vgpuctl.hold) leaves
#   no tenant and no CDI spec, whether the call runs out first (no tenant
#   is made) or goes on (the deleted pod's tenant is made, then
#   unprepared).
# - A Prepare held past the kubelet's 45 s fails with DeadlineExceeded;
#   the kubelet's retry prepares the claim once released.
# - The plugin killed (-9) in the middle of a Prepare loses nothing and
#   leaves nothing: started again, the kubelet's retry prepares the claim,
#   the pod runs as one tenant with its vram-max, and once it is deleted
#   no tenant and no CDI spec is left.
set -eu
scenario=faults
# shellcheck source=tests/k8s/node/scenario-lib.sh
. "$VGPU_K8S_LIB"
hold=/run/vgpuctl.hold
held=/run/vgpuctl.held

# refused POD WHAT PATTERN: the pod's Prepare fails with the driver's
# message (PATTERN) in a FailedPrepareDynamicResources event, the pod
# does not run, and no tenant was ever made for it (none now, and no
# final record of one).
refused() {
	uid=$(pod_uid "$1")
	if event "$1" FailedPrepareDynamicResources "$3" 180; then
		sed "s/^/pod $1: /" /tmp/events.txt | sort -u
		ok "$2: FailedPrepareDynamicResources names the problem ($3)"
	else
		bad "$2: no FailedPrepareDynamicResources event matches '$3'"
		kubectl describe pod "$1" | sed -n '/^Events:/,$p'
	fi
	phase=$(kubectl get pod "$1" -o jsonpath='{.status.phase}')
	ready=$(kubectl get pod "$1" -o jsonpath='{.status.containerStatuses[0].ready}')
	n=$(tenants_of "$uid")
	if [ "$phase" = Pending ] && [ "$ready" != true ] && [ "$n" = 0 ] &&
		! vgpuctl -j tenant final | grep -q "$uid"; then
		ok "$2: the pod stays Pending and no tenant was made for it"
	else
		bad "$2: the pod is $phase (ready '$ready'), with $n tenants"
		vgpuctl tenant list
	fi
}

# gone POD: the pod is deleted within 300 s.
gone() {
	kubectl wait --for=delete "pod/$1" --timeout=300s >/dev/null 2>&1 ||
		bad "pod $1 is not gone 300 s after its deletion: $(kubectl get pod "$1" -o wide 2>&1)"
}

# stop_at_replace POD MEMORY COMPUTE: the pod is made with the gate
# closed, and its Prepare is held at vgpuctl tenant replace (the pid of
# the held vgpuctl-gate in $gate); status 1 if it does not get there
# within 180 s.
stop_at_replace() {
	rm -f "$held"
	touch "$hold"
	claim_pod "$1" "$2" "$3" | kubectl apply -f -
	sa=0
	while [ $sa -lt 180 ] && [ ! -s "$held" ]; do
		sleep 1
		sa=$((sa + 1))
	done
	if [ ! -s "$held" ]; then
		bad "pod $1's Prepare never reached vgpuctl tenant replace"
		kubectl describe pod "$1" | sed -n '/^Events:/,$p'
		return 1
	fi
	gate=$(cut -d' ' -f1 "$held")
	echo "pod $1: Prepare held after $sa s: $(cat "$held")"
}

# 1. Claims no GPU can hold are never allocated.
claim_pod big 32Gi 10 | kubectl apply -f -
unschedulable big "pod big (32Gi of the 16 GiB GPU)"
# The API server takes a compute request of 150 (a claim's capacity
# requests are only quantities to it); the scheduler then finds that no
# device's compute (requests from 1 to 100) can serve it.
if out=$(claim_pod over 1Gi 150 | kubectl apply -f - 2>&1); then
	echo "$out"
	unschedulable over "pod over (compute 150 %)"
else
	bad "a claim of compute 150 was refused at admission: $out"
fi
kubectl delete pod big over --wait=false

# 2. Configurations the driver refuses fail Prepare, naming the problem.
v='"apiVersion": "gpu.vgpu.io/v1alpha1", "kind": "GpuConfig"'
claim_pod urgent 1Gi 10 "{$v, \"priority\": \"urgent\"}" | kubectl apply -f -
claim_pod colour 1Gi 10 "{$v, \"colour\": \"red\"}" | kubectl apply -f -
refused urgent 'priority "urgent"' 'priority "urgent"'
refused colour 'an unknown field "colour"' 'unknown field "colour"'
kubectl delete pod urgent colour --wait=false
gone big
gone over
gone urgent
gone colour
clean "the refused and unschedulable pods deleted"

# 3. A pod deleted while its Prepare is held. The kubelet does not cancel
# a Prepare in flight when the pod is deleted (its runtime sync runs
# without cancellation), so the call goes on:
# - held past the kubelet's 45 s, the call's end stops the plugin's held
#   vgpuctl before it runs vgpuctl: no tenant is made, and the kubelet
#   unprepares a claim that was never prepared;
# - released before, Prepare (which found the pod before its deletion)
#   makes the deleted pod's tenant and the claim's spec, and the kubelet
#   then unprepares them.
if stop_at_replace early 2Gi 10; then
	uid=$(pod_uid early)
	kubectl delete pod early --wait=false
	i=0
	while [ $i -lt 120 ] && kill -0 "$gate" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 "$gate" 2>/dev/null; then
		bad "pod early deleted while its Prepare was held: the held vgpuctl still waits 120 s later"
	else
		ok "pod early deleted while its Prepare was held: the call's end stopped the plugin's held vgpuctl ($i s after the deletion)"
	fi
	rm -f "$hold"
	gone early
	if vgpuctl -j tenant final | grep -q "$uid"; then
		bad "pod early: a tenant was made for it (its final record is there)"
	else
		ok "pod early: no tenant was ever made for it (no final record)"
	fi
	clean "pod early deleted in its Prepare"
fi
if stop_at_replace late 2Gi 10; then
	uid=$(pod_uid late)
	kubectl delete pod late --wait=false
	i=0
	while [ $i -lt 30 ] && [ -z "$(kubectl get pod late -o jsonpath='{.metadata.deletionTimestamp}')" ]; do
		sleep 1
		i=$((i + 1))
	done
	if kill -0 "$gate" 2>/dev/null; then
		rm -f "$hold"
		gone late
		if vgpuctl -j tenant final | grep -q "$uid"; then
			ok "pod late deleted while its Prepare was held, then released: Prepare made its tenant, which is gone (its final record is there)"
		else
			bad "pod late deleted while its Prepare was held, then released: no tenant was made (no final record)"
		fi
		clean "pod late deleted in its Prepare, which went on"
	else
		rm -f "$hold"
		bad "pod late: its held Prepare ended before the release (the test needs it held)"
		gone late
	fi
fi

# The kubelet gives a Prepare call 45 s: one held longer fails with
# DeadlineExceeded, the plugin's vgpuctl is stopped, and the kubelet tries
# again; released, the retry prepares the claim and the pod runs.
if stop_at_replace slow 2Gi 10; then
	i=0
	while [ $i -lt 180 ] && kill -0 "$gate" 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	rm -f "$hold"
	if ! kill -0 "$gate" 2>/dev/null &&
		event slow FailedPrepareDynamicResources 'code = DeadlineExceeded' 60; then
		sort -u /tmp/events.txt | sed 's/^/pod slow: /'
		ok "pod slow's Prepare held past the kubelet's timeout: DeadlineExceeded, and the held vgpuctl stopped (after $i s)"
	else
		bad "pod slow's Prepare held: no DeadlineExceeded event, or the held vgpuctl still waits after $i s"
		kubectl describe pod slow | sed -n '/^Events:/,$p'
	fi
	runs "pod slow (2Gi) runs once the kubelet tries again" slow &&
		is_tenant slow 2147483648
	kubectl delete pod slow --wait=false
	gone slow
	clean "pod slow deleted"
fi

# 4. The plugin's container killed (-9) while a Prepare is held (the
# kubelet starts it again: the DaemonSet's restartPolicy). The held
# vgpuctl-gate may outlive it (it runs in the node's namespaces; an
# orphan would run vgpuctl tenant replace once released). The plugin
# started again gets the kubelet's retry, which the gate holds too; then
# they go on, and the pod runs as one tenant.
if stop_at_replace k 3Gi 20; then
	vgpu-plugin-kill
	first=$gate
	i=0
	while [ $i -lt 300 ] && [ "$(cut -d' ' -f1 "$held")" = "$first" ]; do
		sleep 1
		i=$((i + 1))
	done
	if [ "$(cut -d' ' -f1 "$held")" = "$first" ]; then
		bad "the plugin killed in Prepare and started again: the kubelet did not retry within 300 s"
	else
		ok "the plugin killed in Prepare and started again: the kubelet's retry came after $i s"
	fi
	if kill -0 "$first" 2>/dev/null; then
		echo "the killed plugin's held vgpuctl-gate ($first) is still waiting"
	fi
	rm -f "$hold"
	runs "pod k (3Gi), whose Prepare the plugin died in, runs" k &&
		is_tenant k 3221225472
	claim=$(claim_of k)
	cuid=$(kubectl get resourceclaim "$claim" -o jsonpath='{.metadata.uid}')
	if [ -n "$cuid" ] && [ -s "/var/run/cdi/vgpu.io-claim_$cuid.json" ]; then
		ok "pod k's claim has its CDI spec"
	else
		bad "pod k's claim ($claim, '$cuid') has no CDI spec: $(ls -A /var/run/cdi)"
	fi
	kubectl delete pod k --wait=false
	gone k
	clean "pod k deleted after the plugin's death in its Prepare"
fi
[ "$fails" = 0 ]
