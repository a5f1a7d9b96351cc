#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tests/k8s/run tests/k8s/scenarios/sharing.sh: issue 30's first scenario.
# Two pods claiming 8Gi + 30 % and 6Gi + 70 % of the node's 16 GiB GPU
# both run on it; a third claiming 8Gi stays Pending, and kubectl
# describe says why. Each running pod is a vgpu tenant whose vram-max
# is its claim, and a CUDA client in it sees the claim as the GPU's memory
# and gets CUDA_ERROR_OUT_OF_MEMORY past it. Deleting a pod removes its
# tenant, which leaves its final usage record, and the Pending pod runs.
# The plugin's container killed (-9) and started again by the kubelet
# loses nothing and leaves nothing.
set -eu
scenario=sharing
# shellcheck source=tests/k8s/node/scenario-lib.sh
. "$VGPU_K8S_LIB"

{ claim_pod a 8Gi 30; claim_pod b 6Gi 70; } | kubectl apply -f -
runs "pods a (8Gi, 30 %) and b (6Gi, 70 %) run on the 16 GiB GPU" a b || true
kubectl get resourceclaims -o wide
# Each pod is a vgpu tenant holding its claim: vram-max is the memory
# (the tenants' JSON names the pod's UID among its labels).
vgpuctl tenant list
is_tenant a 8589934592
is_tenant b 6442450944
# The backstop: the plugin made the tenant through vgpuctl, which also set
# the claim as the driver's memory limit on the pod's cgroup (simgpu's
# NVML, standing for NVIDIA's; simgpu-stat's "limit CGROUP gpu G soft S
# hard H"), so that a process in the pod that escapes libvgpu is held too
# (simgpu knows a container's process by its host cgroup: 61-pidns).
lim=$(simgpu-stat | awk -v pod="pod$(pod_uid a)" \
	'$1 == "limit" && $4 == 0 && index($2, pod) { print $8 }')
if [ "$lim" = 8589934592 ]; then
	ok "pod a's cgroup has the driver's limit of its claim (8589934592), the backstop"
else
	bad "pod a's cgroup has the driver's limit '$lim', want 8589934592"
	simgpu-stat | grep '^limit' || true
fi
# shellcheck disable=SC2016 # expanded in the pod
kubectl exec a -- sh -c 'echo "VGPU_CLAIM=$VGPU_CLAIM"; ls -l /dev/vgpu /usr/lib/vgpu/libvgpu.so; cat /etc/ld.so.preload' ||
	bad "pod a has not the claim's CDI edits"

# Inside each pod, the driver the claim brought (simgpu, as NVIDIA's
# container toolkit mounts it) under libvgpu: cuMemGetInfo's total is the
# claim, and allocations end at it in CUDA_ERROR_OUT_OF_MEMORY.
for p in a:8589934592:7G b:6442450944:5G; do
	name=${p%%:*} want=${p#*:}
	want=${want%%:*} fits=${p##*:}
	out=$(kubectl exec "$name" -- vram-client info , alloc "$fits" , alloc 2G 2>&1) || true
	echo "$out" | sed "s/^/pod $name: /"
	if echo "$out" | grep -q "^info free [0-9]* total $want ok\$" &&
		echo "$out" | grep -q "^alloc $fits ok\$" &&
		echo "$out" | grep -q "^alloc 2G CUDA_ERROR_OUT_OF_MEMORY\$"; then
		ok "in pod $name, cuMemGetInfo's total is the claim ($want) and $fits + 2G is CUDA_ERROR_OUT_OF_MEMORY"
	else
		bad "in pod $name, the claim ($want) is not the CUDA client's limit"
	fi
done

claim_pod c 8Gi 10 | kubectl apply -f -
unschedulable c "pod c (8Gi)"

# Deleting pod a: its tenant goes with its cgroup, leaving its final usage
# record (the tenants' records keep their labels, the pod's UID among
# them), and pod c then gets a's room and runs.
uid=$(kubectl get pod a -o jsonpath='{.metadata.uid}')
kubectl delete pod a --wait=true --timeout=120s
i=0
while [ $i -lt 60 ] && vgpuctl -j tenant list | grep -q "$uid"; do
	sleep 1
	i=$((i + 1))
done
if vgpuctl -j tenant list | grep -q "$uid"; then
	bad "pod a deleted, its tenant is still there"
else
	ok "pod a deleted: its tenant is gone (after ${i} s)"
fi
if vgpuctl -j tenant final | grep -q "$uid"; then
	ok "pod a's tenant left its final usage record"
else
	bad "pod a's tenant left no final usage record"
	vgpuctl tenant final show
fi
runs "pod c (8Gi) runs once pod a is gone" c && is_tenant c 8589934592

# The plugin's container killed (-9; vgpu-plugin-kill on the node): the
# kubelet starts it again (vgpu-plugin-wait), and it loses nothing (the
# pods' tenants stay, a new pod's claim is prepared) and leaves nothing
# behind (every pod deleted, no tenant and no claim's CDI spec is left).
if vgpu-plugin-kill && s=$(vgpu-plugin-wait 180); then
	ok "the plugin's container killed (-9): the kubelet started it again (after $s s)"
else
	bad "the plugin's container killed (-9): not started again"
	kubectl -n vgpu-system describe pods
fi
claim_pod d 2Gi 10 | kubectl apply -f -
runs "after the plugin's restart, a new pod (2Gi) runs" d && is_tenant d 2147483648
is_tenant b 6442450944
is_tenant c 8589934592
kubectl delete pod b c d --wait=true --timeout=180s
clean "every pod deleted"
[ "$fails" = 0 ]
