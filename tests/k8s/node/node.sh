#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the VM (tests/k8s/run): brings up a single-node Kubernetes beside
# vgpu.ko and simgpu, then runs the scenarios, /tests/k8s-node/scenarios/*,
# in turn with kubectl configured, and exits with status 0 if all passed.
# The cluster runs on the node as plain processes (no systemd): etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, containerd and
# the kubelet, their logs in /var/log/k8s; vgpu's DRA kubelet plugin runs
# as a user deploys it, from k8s/deploy/'s rbac.yaml and daemonset.yaml
# (patched where this node differs from a Debian install, below), its logs
# in /var/log/pods. The end of each log is printed when the node does not
# come up.
set -eu
n=/tests/k8s-node
logs=/var/log/k8s
export KUBECONFIG=/etc/kubernetes/admin.kubeconfig
node=vgpu-vm
# The plugin's vgpuctl command (daemonset.yaml's --vgpuctl): in the
# node's namespaces as shipped, but vgpuctl-gate, the node's vgpuctl where
# a scenario may hold the command that makes a pod's tenant
# (/run/vgpuctl.hold) to act in the middle of a Prepare. It runs in the
# node's namespaces, so it is a program of the node's (nsenter -t 1 -m:
# the node's file system).
plugin_vgpuctl="nsenter -t 1 -m -n -C -- /usr/bin/vgpuctl-gate"
t0=$(cut -d' ' -f1 /proc/uptime)

say() { echo "k8s-node: [$(cut -d' ' -f1 /proc/uptime) s] $*"; }
dump_logs() {
	for f in "$logs"/*.log /var/log/pods/vgpu-system_*/*/*.log; do
		[ -e "$f" ] || continue
		echo "---- $f (last ${1:-15} lines)"
		tail -n "${1:-15}" "$f"
	done
	echo "---- the plugin's pod"
	kubectl -n vgpu-system describe pods 2>&1 | tail -n "${1:-15}"
}
fail() {
	say "FAIL: $*"
	dump_logs
	exit 1
}
# wait_for SECONDS WHAT COMMAND...: polls COMMAND each second.
wait_for() {
	lim=$1 what=$2
	shift 2
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt "$lim" ] || fail "gave up waiting for $what ($lim tries)"
		sleep 1
	done
	say "$what"
}
start() {
	name=$1
	shift
	"$@" >"$logs/$name.log" 2>&1 &
}

# plugin_deploy: deploys the plugin as k8s/deploy/ says (Documentation/
# kubernetes.md, "Install"): rbac.yaml, deviceclass.yaml and daemonset.yaml
# applied, the node labelled vgpu.io/gpu=true once it has registered.
# The DaemonSet is patched only where this node differs from a Debian
# install, each change checked to have applied (a changed manifest fails
# here) and the difference printed:
#  - --host-libvgpu: libvgpu is /usr/lib/libvgpu.so here (tests/vm/lib.sh),
#    not the package's /usr/lib/x86_64-linux-gnu/vgpu/libvgpu.so;
#  - --driver-cdi-device, commented out in the manifest, is on: this node's
#    driver reaches pods through /etc/cdi/simgpu.json's devices, as NVIDIA's
#    does through its container toolkit's CDI spec;
#  - --vgpuctl is $plugin_vgpuctl (above).
plugin_deploy() {
	ds=/etc/kubernetes/daemonset.yaml
	sed -e "s|^\( *\)- --host-libvgpu=.*|\1- --host-libvgpu=/usr/lib/libvgpu.so|" \
		-e "s|^\( *\)# - --driver-cdi-device=|\1- --driver-cdi-device=|" \
		-e "s|^\( *\)- --vgpuctl=.*|\1- --vgpuctl=$plugin_vgpuctl|" \
		"$n/daemonset.yaml" >"$ds"
	for a in --host-libvgpu=/usr/lib/libvgpu.so "--driver-cdi-device=nvidia.com/gpu={uuid}" \
		"--vgpuctl=$plugin_vgpuctl"; do
		awk -v a="- $a" '{ sub(/^ +/, "") } $0 == a { f = 1 } END { exit !f }' "$ds" ||
			fail "daemonset.yaml: no argument $a after the node's patch"
	done
	diff -u "$n/daemonset.yaml" "$ds" |
		sed -n 's/^-  */k8s-node: daemonset.yaml as shipped: /p; s/^+  */k8s-node: daemonset.yaml patched:    /p'
	kubectl apply -f "$n/rbac.yaml" -f "$n/deviceclass.yaml" -f "$ds" >"$logs/kubectl-apply.log" 2>&1 ||
		fail "kubectl apply rbac.yaml deviceclass.yaml daemonset.yaml: $(cat "$logs/kubectl-apply.log")"
	wait_for 300 "node $node registered" kubectl get node "$node"
	kubectl label node "$node" vgpu.io/gpu=true >/dev/null || fail "kubectl label node $node vgpu.io/gpu=true"
}

# The node's file system, network and cgroups.
mkdir -p /var /etc/kubernetes /etc/cni/net.d /opt/cni/bin "$logs" /usr/share/vgpu
[ -e /var/run ] || ln -s /run /var/run
mkdir -p /var/lib
mount -t tmpfs -o size=75% tmpfs /var/lib
mkdir -p /var/lib/etcd /var/lib/kubelet /var/lib/containerd
cp "$n"/etc/* /etc/kubernetes/
cp "$n/10-vgpu.conflist" /etc/cni/net.d/
cp "$n/cni-dummy" /opt/cni/bin/
# What a scenario does to the plugin: kill it, wait until it is back.
cp "$n/vgpu-plugin-kill" "$n/vgpu-plugin-wait" "$n/vgpuctl-gate" /usr/bin/
chmod 0755 /usr/bin/vgpu-plugin-kill /usr/bin/vgpu-plugin-wait /usr/bin/vgpuctl-gate
printf '127.0.0.1 localhost\n10.0.0.1 %s\n' "$node" >/etc/hosts
: >/etc/resolv.conf
[ -s /etc/machine-id ] || echo 5e1ec7ed5e1ec7ed5e1ec7ed5e1ec7ed >/etc/machine-id
hostname "$node"
ip link set lo up
ip link add vgpu0 type dummy || fail "no dummy network interface (dummy.ko)"
ip addr add 10.0.0.1/24 dev vgpu0
ip link set vgpu0 up
ip route add default dev vgpu0
# The kubernetes Service's ClusterIP, where a pod's in-cluster client (the
# plugin's) finds the API server: with no kube-proxy here, an address of
# the node, and the API server listens on the Service's port, 443.
ip addr add 10.96.0.1/32 dev vgpu0
for c in cpu cpuset io memory pids hugetlb; do
	echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
done
# libvgpu as the driver's CDI specs name it (/usr/lib/vgpu/libvgpu.so in
# a container).
echo /usr/lib/vgpu/libvgpu.so >/usr/share/vgpu/ld.so.preload

# One simulated 16 GiB GPU, simgpu's (standing for NVIDIA's driver) and
# vgpu.ko's by the same UUID.
uuid=GPU-00000000-0000-4000-8000-000000000000
printf 'gpus = 1\nvram = 16G\ngpu0.uuid = %s\ngpu0.pci = 0000:3b:00.0\ngpu0.numa = 0\n' \
	"$uuid" >/etc/simgpu.conf
vgpuctl gpu add 0 vram 16G uuid "$uuid" pci 0000:3b:00.0 numa 0 || fail "vgpuctl gpu add"
# The driver in pods, as NVIDIA's container toolkit brings it: a CDI device
# per GPU named by its UUID (nvidia-ctk cdi generate's nvidia.com/gpu
# devices), which the plugin adds to each claim (--driver-cdi-device). Its
# edits mount the driver's libraries and, standing for /dev/nvidia*,
# simgpu's configuration, its shared state and simgpu-pidd's socket (NVML
# names processes by their host pids, as NVIDIA's does).
start simgpu-pidd simgpu-pidd
wait_for 30 "simgpu-pidd" test -S /dev/shm/simgpu-pidd.sock
simgpu-stat >/dev/null 2>&1 || true
[ -e /dev/shm/simgpu-state ] || fail "simgpu made no shared state (/dev/shm/simgpu-state)"
mkdir -p /etc/cdi
ro='"options": ["ro", "nosuid", "nodev", "bind"]'
rw='"options": ["rw", "nosuid", "nodev", "bind"]'
cat >/etc/cdi/simgpu.json <<EOF
{"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
 "devices": [{"name": "$uuid", "containerEdits": {"env": ["SIMGPU_CDI_DEVICE=$uuid"]}}],
 "containerEdits": {"mounts": [
  {"hostPath": "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "containerPath": "/usr/lib/x86_64-linux-gnu/libcuda.so.1", $ro},
  {"hostPath": "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "containerPath": "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", $ro},
  {"hostPath": "/etc/simgpu.conf", "containerPath": "/etc/simgpu.conf", $ro},
  {"hostPath": "/dev/shm/simgpu-state", "containerPath": "/dev/shm/simgpu-state", $rw},
  {"hostPath": "/dev/shm/simgpu-pidd.sock", "containerPath": "/dev/shm/simgpu-pidd.sock", $rw}]}}
EOF

# The components' settings that differ from their defaults cut what the
# idle cluster costs under emulation (Documentation/kubernetes.md, "The
# scenarios, and make check"): etcd's raft ticks every 500 ms (one member:
# no peer to hear a heartbeat); no priority and fairness in the API server
# (no tenant to be fair to) and no endpoint reconciler (the plugin finds
# the API server at the Service's address, the node's; no kube-proxy);
# only the controllers the scenarios use (node-lifecycle lifts the node's
# not-ready taint, without which the DaemonSet makes no pod).
start etcd etcd --data-dir /var/lib/etcd --name "$node" \
	--listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
	--listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
	--initial-cluster "$node=http://127.0.0.1:2380" --unsafe-no-fsync \
	--heartbeat-interval 500 --election-timeout 5000
start containerd containerd --config "$n/containerd.toml"
k=/etc/kubernetes
start kube-apiserver kube-apiserver --etcd-servers http://127.0.0.1:2379 \
	--advertise-address 10.0.0.1 --secure-port 443 \
	--tls-cert-file $k/apiserver.crt --tls-private-key-file $k/apiserver.key \
	--client-ca-file $k/ca.crt --token-auth-file $k/tokens.csv \
	--authorization-mode Node,RBAC --allow-privileged=true \
	--service-account-issuer https://kubernetes.default.svc \
	--service-account-key-file $k/sa.pub --service-account-signing-key-file $k/sa.key \
	--service-cluster-ip-range 10.96.0.0/24 \
	--kubelet-preferred-address-types InternalIP \
	--enable-priority-and-fairness=false --endpoint-reconciler-type none
wait_for 60 "containerd's socket" test -S /run/containerd/containerd.sock
ctr -n k8s.io images import --local --platform linux/amd64 --snapshotter native "$n/images.tar" \
	>"$logs/ctr-import.log" 2>&1 || fail "ctr images import"
say "images imported: $(ctr -n k8s.io images ls -q | tr '\n' ' ')"
wait_for 400 "the API server ready" kubectl get --raw /readyz
start kube-controller-manager kube-controller-manager --kubeconfig $k/admin.kubeconfig \
	--leader-elect=false --root-ca-file $k/ca.crt \
	--controllers daemonset-controller,garbage-collector-controller,node-lifecycle-controller,resourceclaim-controller,root-ca-certificate-publisher-controller,serviceaccount-controller \
	--service-account-private-key-file $k/sa.key --use-service-account-credentials=false
start kube-scheduler kube-scheduler --kubeconfig $k/admin.kubeconfig --leader-elect=false
start kubelet kubelet --config "$n/kubelet.yaml" --kubeconfig $k/kubelet.kubeconfig \
	--hostname-override "$node" --node-ip 10.0.0.1 --root-dir /var/lib/kubelet
plugin_deploy
wait_for 300 "node $node Ready" sh -c \
	"kubectl get node $node -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -qx True"
wait_for 120 "the default service account" kubectl get serviceaccount default
# The plugin's ResourceSlice, or a plugin that exits before it publishes
# one (its container restarted: the node fails at once, with its log).
wait_for 150 "the plugin's ResourceSlice, or its exit" sh -c "kubectl get resourceslices -o name | grep -q . ||
	kubectl -n vgpu-system get pods -o jsonpath='{..restartCount}' | grep -q '[1-9]'"
kubectl get resourceslices -o name | grep -q . ||
	fail "the plugin's container exited before it published its ResourceSlice"
say "node up in $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s:" \
	"kubelet $(kubectl get node "$node" -o jsonpath='{.status.nodeInfo.kubeletVersion}')," \
	"API server $(kubectl get --raw /version | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')"
kubectl get resourceslices -o wide

cd /extra 2>/dev/null || cd /root
# The scenarios in turn. Between two, what the first left in the default
# namespace is deleted and its pods' tenants are waited for, so that the
# next finds the GPU whole (a scenario should leave nothing; if it does,
# its own checks say so before this runs).
# What scenarios share (scenario-lib.sh).
export VGPU_K8S_LIB="$n/scenario-lib.sh"
rc=0
first=1
for s in "$n"/scenarios/*; do
	if [ "$first" = 0 ]; then
		kubectl delete pods,resourceclaimtemplates,resourceclaims --all --wait=true \
			--timeout=120s >/dev/null 2>&1 || say "could not delete what the last scenario left"
		i=0
		while [ $i -lt 60 ] && vgpuctl -j tenant list | grep -q '"ephemeral": *true'; do
			sleep 1
			i=$((i + 1))
		done
	fi
	first=0
	src=0
	sh "$s" || src=$?
	say "scenario ${s##*/} exited $src"
	[ "$src" = 0 ] || rc=1
done
# A permission rbac.yaml lacks shows only in the plugin's log (the API
# server's 403, "forbidden", and the plugin tries again): a bug there.
if grep -h forbidden /var/log/pods/vgpu-system_*/*/*.log; then
	say "FAIL: the API server refused the plugin something (above): rbac.yaml lacks it"
	rc=1
fi
# A failed scenario: what the components said last (VGPU_K8S_LOG_LINES on
# the host: how many lines of each).
[ "$rc" = 0 ] || dump_logs "$(cat "$n/log-lines" 2>/dev/null || echo 15)"
exit "$rc"
