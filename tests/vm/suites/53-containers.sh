#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 42
# vm-boot: shared
# Containers as tenants (Documentation/containers.md): the CDI spec of
# "vgpuctl cdi generate", merged into OCI bundles as an engine does
# (tests/tools/cdi-apply), run by Debian's crun and runc on a busybox
# rootfs; the OCI hooks make the tenant, libvgpu is preloaded through the
# spec's mounts, simgpu clients in the containers are held to it, and the
# tenant goes with the container or the pod. The systemd form of
# cgroupsPath (no systemd here) is tested by a hook run on a crafted
# state and a cgroup made as the runtime would.
# vm-tools: crun runc cdi-apply podman conmon
suite=containers
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
uid=0f1e2d3c-aaaa-bbbb-cccc-123456789abc
pod="default/web@0f1e2d3c"

# show NAME: the tenant in JSON on one line, or nothing
show() { vgpuctl -j tenant show "$1" 2>/dev/null | tr -d ' \n'; }
# usage NAME: the tenant's vram_current on GPU 0
usage() { show "$1" | sed -n 's/.*{"gpu":0,[^}]*"vram_current":\([0-9]*\).*/\1/p'; }
# gone WHAT NAME: the tenant NAME does not exist
gone() { check_fails "$1" "unknown tenant" vgpuctl tenant show "$2"; }
# gone_soon WHAT NAME: NAME is gone within 30 s (the module looks for
# ephemeral tenants whose cgroup was removed once a second; a loaded run
# takes longer to get there)
gone_soon() {
	for i in $(seq 1 300); do
		vgpuctl tenant show "$2" > /dev/null 2>&1 || break
		sleep 0.1
	done
	gone "$1" "$2"
}
# has WHAT NAME TEXT: tenant NAME's JSON contains TEXT
has() {
	case $(show "$2") in
	*"$3"*) pass "$1" ;;
	*) fail "$1" "want $3 in: $(show "$2")" ;;
	esac
}
# wait_for FILE TEXT: up to 60 s for TEXT in FILE
wait_for() {
	for i in $(seq 1 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# bundle DIR FLAVOUR CGROUPS_PATH ANNOTATIONS CMD: an OCI bundle running
# "sh -c CMD" on a busybox rootfs, /usr from this VM (simgpu, the clients,
# vgpuctl), /dev/shm from this VM (simgpu's device state, where a real GPU
# has /dev/nvidia*), /mark bound to DIR/mark, with vgpu.io/tenant=FLAVOUR
# applied; crun writes what hooks say on stderr to DIR/hook.err.
# The environment tries what a tenant might to raise its limits.
bundle() {
	mkdir -p "$1/mark" "$1/rootfs/bin" "$1/rootfs/usr" "$1/rootfs/etc" "$1/rootfs/proc" \
		"$1/rootfs/dev" "$1/rootfs/tmp" "$1/rootfs/mark"
	cp /bin/busybox "$1/rootfs/bin/busybox"
	ln -sf busybox "$1/rootfs/bin/sh"
	ln -sf usr/lib "$1/rootfs/lib"
	ln -sf usr/lib64 "$1/rootfs/lib64"
	cat > "$1/base.json" <<EOF
{
 "ociVersion": "1.0.2",
 "process": {
  "user": { "uid": 0, "gid": 0 }, "cwd": "/", "noNewPrivileges": true,
  "args": [ "/bin/sh", "-c", "$5" ],
  "env": [ "PATH=/usr/sbin:/usr/bin:/bin", "CUDA_DEVICE_MEMORY_LIMIT=64g",
	   "VGPU_VRAM_MAX=64G", "LD_PRELOAD=" ],
  "capabilities": { "bounding": [ "CAP_KILL" ], "effective": [ "CAP_KILL" ],
		    "permitted": [ "CAP_KILL" ] }
 },
 "root": { "path": "rootfs" },
 "hostname": "ctr",
 "mounts": [
  { "destination": "/proc", "type": "proc", "source": "proc" },
  { "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "mode=755" ] },
  { "destination": "/tmp", "type": "tmpfs", "source": "tmpfs" },
  { "destination": "/usr", "type": "bind", "source": "/usr", "options": [ "rbind", "ro" ] },
  { "destination": "/dev/shm", "type": "bind", "source": "/dev/shm", "options": [ "bind" ] },
  { "destination": "/mark", "type": "bind", "source": "$1/mark", "options": [ "bind" ] }
 ],
 "linux": {
  "cgroupsPath": "$3",
  "namespaces": [ { "type": "pid" }, { "type": "mount" }, { "type": "ipc" }, { "type": "uts" } ]
 },
 "annotations": { "run.oci.hooks.stderr": "$1/hook.err", $4 }
}
EOF
	cdi-apply /etc/cdi/vgpu.json "vgpu.io/tenant=$2" < "$1/base.json" > "$1/config.json"
}

# --- the spec
check_out "gpu probe registers simgpu's GPUs" "gpu 1" vgpuctl gpu probe
mkdir -p /etc/vgpu/conf.d /etc/cdi /usr/lib/vgpu
# The spec mounts libvgpu here; /usr is bound read-only from this VM.
: > /usr/lib/vgpu/libvgpu.so
echo /usr/lib/vgpu/libvgpu.so > /etc/vgpu/ld.so.preload
printf 'flavour small vram-max 1G \\\n\tpriority high # 1 GiB\n' > /etc/vgpu/vgpu.conf
echo 'flavour pod vram-max 1G weight 200' > /etc/vgpu/conf.d/10-pod.conf
check "cdi generate writes the spec" vgpuctl cdi generate output /etc/cdi/vgpu.json \
	libvgpu /usr/lib/libvgpu.so preload /etc/vgpu/ld.so.preload
check_out "the spec has a device per flavour" '"name": "pod"' cat /etc/cdi/vgpu.json

vgpuctl -j monitor > /tmp/mon.json 2>&1 &
mon=$!
monitor_ready $mon
# mon_has EVENT: the monitor printed EVENT (spaces taken out)
mon_has() { tr -d ' ' < /tmp/mon.json | grep -qF -- "$1"; }

# --- crun, cgroupfs form: the tenant, its limit, the environment
bundle /tmp/c1 small /ctr/c1 '"x": "y"' \
	"vgpuctl tenant set ctr-c1 vram-max 64G; vram-client alloc 768M , alloc 512M , hold 60000"
crun run --no-pivot -b /tmp/c1 c1 > /tmp/c1.out 2>&1 &
c1=$!
if wait_for /tmp/c1.out '^holding'; then
	pass "crun starts the container with vgpu.io/tenant=small"
else
	fail "crun starts the container with vgpu.io/tenant=small" "$(head -c 600 /tmp/c1.out)"
fi
has "the hook made tenant ctr-c1 on the container's cgroup" ctr-c1 '"cgroup":"/ctr/c1"'
has "with the flavour's quotas" ctr-c1 '"vram_max":1073741824'
# simgpu's own record of the driver limit of the cgroup on GPU 0 (62-backstop)
check_eq "and its backstop, as for tenant add: the driver holds 1G for its cgroup" \
	"soft 0 hard $((1024 * M))" \
	"$(simgpu-stat | awk '$1 == "limit" && $2 == "/ctr/c1" && $4 == 0 { print "soft " $6 " hard " $8 }')"
check_eq "the client's 768M are charged to it" $((768 * M)) "$(usage ctr-c1)"
check_out "its limit holds whatever the environment says" "alloc 512M CUDA_ERROR_OUT_OF_MEMORY" \
	cat /tmp/c1.out
check_out "root in the container cannot raise it" "needs CAP_NET_ADMIN" cat /tmp/c1.out
crun kill c1 KILL
wait $c1
gone "when the container stops its tenant is gone" ctr-c1
check_eq "and so is its cgroup" no "$([ -d $cg/ctr/c1 ] && echo yes || echo no)"

# --- runc, cgroupfs form
bundle /tmp/r1 small /ctr/r1 '"x": "y"' "vram-client alloc 768M , alloc 512M"
# (the client exits 1: one allocation failed)
runc run --no-pivot -b /tmp/r1 r1 > /tmp/r1.out 2>&1
check_out "runc runs a container whose client gets 768M" "alloc 768M ok" cat /tmp/r1.out
check_out "and is held to 1G" "alloc 512M CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/r1.out
gone "and its tenant is gone after it" ctr-r1

# --- a bad quota in the spec, a missing cgroup: no container, no tenant
bundle /tmp/bad small /ctr/bad '"x": "y"' "touch /mark/ran"
sed -i 's/"1G"/"8X"/' /tmp/bad/config.json
check_fails "a hook with a bad quota stops crun" "error executing hook" \
	crun run --no-pivot -b /tmp/bad bad
check_out "with its one-line reason" 'Error: invalid SIZE "8X" for vram-max.' cat /tmp/bad/hook.err
check_eq "the container's program never ran" no "$([ -e /tmp/bad/mark/ran ] && echo yes || echo no)"
gone "and no tenant was left" ctr-bad
crun delete -f bad >/dev/null 2>&1
echo '{"ociVersion":"1.0.2","id":"miss","status":"created","bundle":"/tmp/miss"}' > /tmp/miss.state
mkdir -p /tmp/miss
echo '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"/ctr/missing"}}' > /tmp/miss/config.json
check_fails "a missing cgroup is refused" "cgroup /sys/fs/cgroup/ctr/missing does not exist" \
	sh -c 'vgpuctl hook create-runtime vram-max 1G < /tmp/miss.state'
gone "and leaves no tenant" ctr-miss

# --- systemd form: slice:prefix:name, the cgroup made as crun makes it
scope=$cg/machine.slice/machine-vgpu.slice/ctrpfx-s1.scope
mkdir -p $scope/container /tmp/s1
/tmp/in_cg machine.slice/machine-vgpu.slice/ctrpfx-s1.scope/container sleep 60 &
s1=$!
await_cgroup $s1 machine.slice/machine-vgpu.slice/ctrpfx-s1.scope/container
echo "{\"ociVersion\":\"1.0.2\",\"id\":\"s1\",\"status\":\"created\",\"pid\":$s1,\"bundle\":\"/tmp/s1\"}" \
	> /tmp/s1.state
echo '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"machine-vgpu.slice:ctrpfx:s1"}}' \
	> /tmp/s1/config.json
check "the hook takes a systemd-form cgroupsPath" \
	sh -c 'vgpuctl hook create-runtime vram-max 1G < /tmp/s1.state'
has "and puts the tenant on the scope, the slices expanded" ctr-s1 \
	'"cgroup":"/machine.slice/machine-vgpu.slice/ctrpfx-s1.scope"'
/tmp/in_cg machine.slice sleep 60 &
other=$!
await_cgroup $other machine.slice
sed "s/\"pid\":$s1/\"pid\":$other/; s/\"s1\"/\"s2\"/" /tmp/s1.state > /tmp/s2.state
check_fails "a process outside cgroupsPath's cgroup is refused" "not in /machine.slice/machine-vgpu.slice" \
	sh -c 'vgpuctl hook create-runtime < /tmp/s2.state'
kill $s1 $other
wait $s1 $other 2>/dev/null
check "poststop deletes the plain container's tenant" sh -c 'vgpuctl hook poststop < /tmp/s1.state'
gone "it is gone" ctr-s1

# --- a pod: two containers in sibling cgroups share one tenant
ann="\"io.kubernetes.cri.sandbox-namespace\": \"default\", \"io.kubernetes.cri.sandbox-name\": \"web\", \"io.kubernetes.cri.sandbox-uid\": \"$uid\""
bundle /tmp/pa pod "/kubepods/pod$uid/ca" "$ann, \"io.kubernetes.cri.container-name\": \"a\"" \
	"vram-client alloc 600M , hold 60000"
bundle /tmp/pb pod "/kubepods/pod$uid/cb" "$ann, \"io.kubernetes.cri.container-name\": \"b\"" \
	"vram-client alloc 300M , alloc 600M"
crun run --no-pivot -b /tmp/pa pa > /tmp/pa.out 2>&1 &
pa=$!
wait_for /tmp/pa.out '^holding' || fail "pod container a starts" "$(head -c 600 /tmp/pa.out)"
has "the pod's tenant is on the pod's cgroup" "$pod" "\"cgroup\":\"/kubepods/pod$uid\""
has "labelled with the pod's namespace, name and UID" "$pod" \
	"\"labels\":{\"namespace\":\"default\",\"pod\":\"web\",\"pod-uid\":\"$uid\"}"
crun run --no-pivot -b /tmp/pb pb > /tmp/pb.out 2>&1
check_out "the second container joins it: 300M fit" "alloc 300M ok" cat /tmp/pb.out
check_out "600M more do not (one 1G limit for the pod)" "alloc 600M CUDA_ERROR_OUT_OF_MEMORY" \
	cat /tmp/pb.out
check_eq "one tenant for the pod" 1 "$(vgpuctl tenant show | grep -c "^tenant $pod ")"
crun kill pa KILL
wait $pa
has "the pod's tenant stays while the pod's cgroup does" "$pod" '"cgroup_removed":false'
rmdir $cg/kubepods/pod$uid
gone_soon "removing the pod's cgroup removes its tenant" "$pod"

# --- CRI-O's annotations name the pod too (a hook run on a crafted state)
uid2=11112222-3333-4444-5555-666677778888
mkdir -p $cg/kubepods/pod$uid2/cx /tmp/cx
/tmp/in_cg kubepods/pod$uid2/cx sleep 60 &
cx=$!
await_cgroup $cx kubepods/pod$uid2/cx
echo "{\"ociVersion\":\"1.0.2\",\"id\":\"cx\",\"status\":\"created\",\"pid\":$cx,\"bundle\":\"/tmp/cx\"}" \
	> /tmp/cx.state
echo "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/kubepods/pod$uid2/cx\"},
 \"annotations\":{\"io.kubernetes.pod.namespace\":\"ns2\",\"io.kubernetes.pod.name\":\"db\",
 \"io.kubernetes.pod.uid\":\"$uid2\",\"io.kubernetes.container.name\":\"x\"}}" > /tmp/cx/config.json
check "the hook takes CRI-O's io.kubernetes.pod.* annotations" \
	sh -c 'vgpuctl hook create-runtime vram-max 1G < /tmp/cx.state'
has "and makes the pod's tenant on the pod's cgroup" "ns2/db@11112222" \
	"\"cgroup\":\"/kubepods/pod$uid2\""
check "poststop leaves a pod's tenant alone" sh -c 'vgpuctl hook poststop < /tmp/cx.state'
has "it is still there" "ns2/db@11112222" '"cgroup_removed":false'
kill $cx
wait $cx 2>/dev/null
rmdir $cg/kubepods/pod$uid2/cx $cg/kubepods/pod$uid2
gone_soon "and goes with the pod's cgroup" "ns2/db@11112222"

# --- podman 4.3: --device vgpu.io/tenant=small from the spec in /etc/cdi
# (vfs storage, cgroupfs, no network; the rootfs a directory; no_pivot_root
# as crun's --no-pivot above: the VM's root is an initramfs)
mkdir -p /etc/containers /var/lib/containers /run/containers /var/tmp
printf '[storage]\ndriver = "vfs"\nrunroot = "/run/containers/storage"\ngraphroot = "/var/lib/containers/storage"\n' \
	> /etc/containers/storage.conf
printf '[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\nruntime = "crun"\nno_pivot_root = true\nconmon_path = ["/usr/bin/conmon"]\n' \
	> /etc/containers/containers.conf
echo '{"default":[{"type":"insecureAcceptAnything"}]}' > /etc/containers/policy.json
bundle /tmp/p1 small /unused '"x": "y"' true
podman run -d --name p1 --network none --device vgpu.io/tenant=small \
	-v /usr:/usr:ro -v /dev/shm:/dev/shm -v /tmp/p1/mark:/mark -e VGPU_VRAM_MAX=64G \
	--rootfs /tmp/p1/rootfs /bin/sh -c \
	'vram-client alloc 768M , alloc 512M , hold 60000 > /mark/out 2>&1' > /tmp/p1.out 2>&1
id=$(podman inspect -f '{{.Id}}' p1 2>/dev/null)
pt="ctr-$(echo "$id" | cut -c1-59)"
if wait_for /tmp/p1/mark/out '^holding'; then
	pass "podman run --device vgpu.io/tenant=small starts the container"
else
	fail "podman run --device vgpu.io/tenant=small starts the container" \
		"$(head -c 600 /tmp/p1.out) $(head -c 300 /tmp/p1/mark/out)"
fi
has "the hook made its tenant on podman's cgroup for it" "$pt" "\"cgroup\":\"/libpod_parent/libpod-$id\""
has "with the flavour's quotas" "$pt" '"vram_max":1073741824'
check_eq "the client's 768M are charged to it" $((768 * M)) "$(usage "$pt")"
check_out "and its limit holds" "alloc 512M CUDA_ERROR_OUT_OF_MEMORY" cat /tmp/p1/mark/out
check "podman rm -f stops it" podman rm -f -t 0 p1
gone_soon "and its tenant is gone" "$pt"

# until the monitor has printed the last event
await "the monitor prints $pt's tenant-del" 300 \
	mon_has "\"event\":\"tenant-del\",\"tenant\":{\"name\":\"$pt\""
kill $mon
wait $mon 2>/dev/null
m=$(tr -d ' ' < /tmp/mon.json)
for ev in '"event":"tenant-new","tenant":{"name":"ctr-r1"' \
	  '"event":"tenant-del","tenant":{"name":"ctr-c1"' \
	  "\"event\":\"tenant-del\",\"tenant\":{\"name\":\"$pod\"" \
	  "\"event\":\"tenant-del\",\"tenant\":{\"name\":\"$pt\""; do
	case $m in *"$ev"*) pass "monitor shows $ev" ;; *) fail "monitor shows $ev" "$(tail -c 800 /tmp/mon.json)" ;; esac
done
suite_end
