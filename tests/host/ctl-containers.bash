# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/host/ctl.sh (not a suite of its own): the errors of
# "vgpuctl hook" and "vgpuctl cdi generate" that need no module, and the
# spec cdi generate writes (Documentation/containers.md). Uses ctl.sh's
# expect_error, expect_help, run, pass, fail, $tmp and $cgmnt.
# shellcheck disable=SC2154

# container_checks SUITE VGPUCTL
container_checks() {
	local s=$1 v=$2 d=$tmp/containers st
	mkdir -p "$d/b"
	st=$d/state.json
	echo "{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"created\",\"bundle\":\"$d/b\"}" > "$st"

	expect_help "$s" "$v" hook help
	expect_help "$s" "$v" cdi help
	expect_error "$s" 2 'Error: missing COMMAND for hook; try "vgpuctl hook help".' "$v" hook
	expect_error "$s" 2 'Error: unknown command "frob" for hook; try "vgpuctl hook help".' "$v" hook frob
	# Quotas are checked before anything is read from the runtime.
	expect_error "$s" 2 'Error: invalid SIZE "8X" for vram-max.' "$v" hook create-runtime vram-max 8X
	expect_error "$s" 2 'Error: "cgroup" is not a quota: the tenant of hook create-runtime gets its container'"'"'s cgroup.' \
		"$v" hook create-runtime cgroup /x
	expect_error "$s" 2 'Error: unknown quota "label" for hook create-runtime.' \
		"$v" hook create-runtime label a=b
	expect_error "$s" 2 'Error: unknown quota "ephemeral" for hook create-runtime.' \
		"$v" hook create-runtime ephemeral
	expect_error "$s" 2 'Error: missing value for weight.' "$v" hook create-runtime weight
	expect_error "$s" 1 "" "$v" hook create-runtime weight 5 < /dev/null
	echo '{"ociVersion":"1.0.2","id":"x","status":"created","bundle":"/nonexistent"}' > "$d/nob.json"
	expect_error "$s" 1 'Error: cannot open /nonexistent/config.json: No such file or directory.' \
		"$v" hook create-runtime weight 5 < "$d/nob.json"
	echo '{"linux":{"cgroupsPath":"a:b"}}' > "$d/b/config.json"
	expect_error "$s" 1 'Error: linux.cgroupsPath "a:b" is neither a cgroup path nor slice:prefix:name.' \
		"$v" hook create-runtime weight 5 < "$st"
	echo '{"linux":{"cgroupsPath":"/vgpu-test-none/c"}}' > "$d/b/config.json"
	expect_error "$s" 1 "Error: the container's cgroup ${cgmnt%/}/vgpu-test-none/c does not exist (linux.cgroupsPath \"/vgpu-test-none/c\")." \
		"$v" hook create-runtime weight 5 < "$st"
	echo '{"linux":{"cgroupsPath":"/"},"annotations":{"io.kubernetes.pod.name":"a"}}' > "$d/b/config.json"
	expect_error "$s" 1 "Error: $d/b/config.json has only some of the pod annotations io.kubernetes.pod.namespace, io.kubernetes.pod.name and io.kubernetes.pod.uid." \
		"$v" hook create-runtime weight 5 < "$st"
	pod_identity_checks "$s" "$v" "$d" "$st"

	expect_error "$s" 2 'Error: missing COMMAND for cdi; try "vgpuctl cdi help".' "$v" cdi
	expect_error "$s" 2 'Error: unknown key "frob" for cdi generate.' "$v" cdi generate frob 1
	expect_error "$s" 2 'Error: libvgpu path "rel" is not absolute.' "$v" cdi generate libvgpu rel
	: > "$d/lib.so"
	echo /usr/lib/vgpu/libvgpu.so > "$d/preload"
	echo /usr/lib/other.so > "$d/preload2"
	local gen=(cdi generate config "$d/c.conf" libvgpu "$d/lib.so" preload "$d/preload")
	printf 'flavour small vram-max 1G\n' > "$d/c.conf"
	chmod 0644 "$d/c.conf"
	expect_error "$s" 1 "Error: preload $d/preload2 does not name /usr/lib/vgpu/libvgpu.so on its first line." \
		"$v" cdi generate config "$d/c.conf" libvgpu "$d/lib.so" preload "$d/preload2"
	if [ "$(id -u)" -ne 0 ]; then
		# A configuration file not root's is refused whole.
		expect_error "$s" 1 "Error: $d/c.conf is owned by uid $(id -u), not root: vgpu reads limits only from root's files." \
			"$v" "${gen[@]}"
		return
	fi
	chmod 0664 "$d/c.conf"
	expect_error "$s" 1 "Error: $d/c.conf is writable by its group or by others (mode 0664): vgpu reads limits only from files root alone can change." \
		"$v" "${gen[@]}"
	chmod 0644 "$d/c.conf"
	printf 'flavour small vram-max 1G\nflavour bad! weight 1\n' > "$d/c.conf"
	expect_error "$s" 2 "Error: $d/c.conf:2: invalid flavour name \"bad!\" (1-63 letters, digits, '_', '-' or '.', starting and ending with a letter or digit)." \
		"$v" "${gen[@]}"
	printf 'flavour small vram-max 1G\nflavour big vram-max 8X\n' > "$d/c.conf"
	expect_error "$s" 2 "Error: $d/c.conf:2: invalid SIZE \"8X\" for vram-max." "$v" "${gen[@]}"
	printf 'flavour small vram-max 1G\n\nflavour small weight 2\n' > "$d/c.conf"
	expect_error "$s" 2 "Error: $d/c.conf:3: flavour \"small\" is already declared at $d/c.conf:1." \
		"$v" "${gen[@]}"
	printf 'gadget x\n' > "$d/c.conf"
	expect_error "$s" 2 "Error: $d/c.conf:1: unknown object \"gadget\" (gpu, host, tenant or flavour)." \
		"$v" "${gen[@]}"
	printf 'flavour small vram-max 1G cgroup /x\n' > "$d/c.conf"
	expect_error "$s" 2 "Error: $d/c.conf:1: \"cgroup\" is not a quota: the tenant of flavour small gets its container's cgroup." \
		"$v" "${gen[@]}"

	# The spec: a continued line and a comment, one device with its hook.
	printf 'flavour small vram-max 1G \\\n  weight 5 # a comment\n' > "$d/c.conf"
	run "$v" "${gen[@]}" vgpuctl /bin/true output "$d/vgpu.json"
	if [ "$rc" -ne 0 ] || [ -s "$tmp/out" ] || [ -s "$tmp/err" ]; then
		fail "$s" "cdi generate writes the spec to output FILE" "exit $rc: $(oneline "$tmp/err")"
	else
		container_spec_checks "$s" "$d"
		container_schema_checks "$s" "$d"
	fi
}

# pod_identity_checks SUITE VGPUCTL DIR STATE: which pod annotations the
# hook trusts (Documentation/containers.md, "Pod identity"). containerd
# writes its io.kubernetes.cri.sandbox-* over anything else; CRI-O copies
# the pod's own annotations into config.json and writes kubelet's
# io.kubernetes.pod.* labels over them. So each runtime's config.json may
# also carry the other family, set by the pod: the two must agree. A
# config.json the hook accepts goes on to its cgroup, which does not exist.
pod_identity_checks() {
	local s=$1 v=$2 d=$3 st=$4 uid=0f1e2d3c-aaaa-bbbb-cccc-123456789abc cfg cri crio
	cfg=$d/b/config.json
	cri="\"io.kubernetes.cri.sandbox-namespace\":\"team-a\",\"io.kubernetes.cri.sandbox-name\":\"train\",\"io.kubernetes.cri.sandbox-uid\":\"$uid\""
	crio="\"io.kubernetes.pod.namespace\":\"team-a\",\"io.kubernetes.pod.name\":\"train\",\"io.kubernetes.pod.uid\":\"$uid\""
	pod_config() {
		echo "{\"linux\":{\"cgroupsPath\":\"/vgpu-test-none/pod$uid/c\"},\"annotations\":{$1}}" > "$cfg"
	}
	local gone="Error: the container's cgroup ${cgmnt%/}/vgpu-test-none/pod$uid/c does not exist (linux.cgroupsPath \"/vgpu-test-none/pod$uid/c\")."
	local why="(containerd sets io.kubernetes.cri.sandbox-*, CRI-O io.kubernetes.pod.*: the other was copied from the pod's own annotations)."

	# Each family alone, and both agreeing, name the pod.
	pod_config "$cri"
	expect_error "$s" 1 "$gone" "$v" hook create-runtime weight 5 < "$st"
	pod_config "$crio"
	expect_error "$s" 1 "$gone" "$v" hook create-runtime weight 5 < "$st"
	pod_config "$cri,$crio,\"io.kubernetes.cri-o.ContainerType\":\"container\""
	expect_error "$s" 1 "$gone" "$v" hook create-runtime weight 5 < "$st"

	# CRI-O's config.json with a pod that annotated itself as another
	# namespace's (its own UID, so its cgroup matches): refused.
	pod_config "$crio,\"io.kubernetes.cri.sandbox-namespace\":\"billing\",\"io.kubernetes.cri.sandbox-name\":\"other\",\"io.kubernetes.cri.sandbox-uid\":\"$uid\""
	expect_error "$s" 1 "Error: $cfg: the pod annotations disagree: io.kubernetes.cri.sandbox-namespace is \"billing\" but io.kubernetes.pod.namespace is \"team-a\" $why" \
		"$v" hook create-runtime weight 5 < "$st"
	# One forged key is enough to be refused.
	pod_config "$crio,\"io.kubernetes.cri.sandbox-name\":\"other\""
	expect_error "$s" 1 "Error: $cfg: the pod annotations disagree: io.kubernetes.cri.sandbox-name is \"other\" but io.kubernetes.pod.name is \"train\" $why" \
		"$v" hook create-runtime weight 5 < "$st"
	# containerd's config.json with a pass-through io.kubernetes.pod.*.
	pod_config "$cri,\"io.kubernetes.pod.uid\":\"11112222-3333-4444-5555-666677778888\""
	expect_error "$s" 1 "Error: $cfg: the pod annotations disagree: io.kubernetes.cri.sandbox-uid is \"$uid\" but io.kubernetes.pod.uid is \"11112222-3333-4444-5555-666677778888\" $why" \
		"$v" hook create-runtime weight 5 < "$st"
	# Neither family whole: refused, whatever the union.
	pod_config "\"io.kubernetes.cri.sandbox-namespace\":\"team-a\",\"io.kubernetes.pod.name\":\"train\",\"io.kubernetes.pod.uid\":\"$uid\""
	expect_error "$s" 1 "Error: $cfg has only some of the pod annotations io.kubernetes.pod.namespace, io.kubernetes.pod.name and io.kubernetes.pod.uid." \
		"$v" hook create-runtime weight 5 < "$st"

	# Values Kubernetes never gives: '/' or '@' would make one pod's
	# tenant name NAMESPACE/NAME@UID8 read as another's.
	pod_config "${crio/\"team-a\"/\"kube-system\/x\"}"
	expect_error "$s" 1 "Error: $cfg: io.kubernetes.pod.namespace \"kube-system/x\" is not a Kubernetes namespace (a DNS-1123 label: 1-63 lowercase letters, digits and '-')." \
		"$v" hook create-runtime weight 5 < "$st"
	pod_config "${crio/\"train\"/\"a@b\"}"
	expect_error "$s" 1 "Error: $cfg: io.kubernetes.pod.name \"a@b\" is not a Kubernetes pod name (a DNS-1123 subdomain: 1-253 lowercase letters, digits, '-' and '.')." \
		"$v" hook create-runtime weight 5 < "$st"
	# '_' stands for '-' in a systemd pod slice: two UIDs would share one.
	pod_config "${crio//$uid/${uid//-/_}}"
	expect_error "$s" 1 "Error: $cfg: io.kubernetes.pod.uid \"${uid//-/_}\" is not a pod UID (1-64 letters, digits and '-')." \
		"$v" hook create-runtime weight 5 < "$st"
	local nl='"team\na"'
	pod_config "${cri/\"team-a\"/$nl}"
	expect_error "$s" 1 "Error: $cfg: io.kubernetes.cri.sandbox-namespace \"team?a\" is not a Kubernetes namespace (a DNS-1123 label: 1-63 lowercase letters, digits and '-')." \
		"$v" hook create-runtime weight 5 < "$st"
}

# The CDI schema and versions of Debian 12's CDI library (tools/deps).
CDI_SRC=${CDI_SRC:-/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface}

# container_schema_checks SUITE DIR: DIR/vgpu.json validates against the
# CDI JSON schema with a cdiVersion podman 4.3 accepts; the same validator
# refuses the spec broken four ways.
container_schema_checks() {
	local s=$1 d=$2 chk=tests/tools/cdi-schema-check what broken want
	what="cdi generate: the spec validates against the CDI JSON schema, cdiVersion one podman 4.3 accepts"
	if [ ! -r "$CDI_SRC/schema/schema.json" ] || ! python3 -c 'import jsonschema' 2> /dev/null; then
		fail "$s" "$what" "no CDI schema at $CDI_SRC or no python3 jsonschema: run make deps"
		return
	fi
	if python3 "$chk" "$CDI_SRC" "$d/vgpu.json" > "$tmp/out" 2>&1; then
		pass "$s" "$what"
	else
		fail "$s" "$what" "$(oneline "$tmp/out")"
	fi
	# Each line: how the spec is broken (python on the spec s) | the refusal.
	while IFS='|' read -r broken want; do
		python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(s, open(sys.argv[3], "w"))' "$d/vgpu.json" "$broken" "$d/broken.json"
		what="the CDI schema check refuses the spec with $broken"
		if python3 "$chk" "$CDI_SRC" "$d/broken.json" > "$tmp/out" 2>&1; then
			fail "$s" "$what" "accepted"
		elif [ "$(cat "$tmp/out")" != "$want" ]; then
			fail "$s" "$what" "$(oneline "$tmp/out")"
		else
			pass "$s" "$what"
		fi
	done <<'SPECS'
del s["devices"][0]["name"]|schema: 'name' is a required property at /devices/0
s["cdiVersion"] = "0.6.0"|cdiVersion '0.6.0' is not one of 0.1.0, 0.2.0, 0.3.0, 0.4.0, 0.5.0
del s["containerEdits"]["mounts"][1]["containerPath"]|schema: 'containerPath' is a required property at /containerEdits/mounts/1
s["devices"][0]["containerEdits"]["hooks"][0]["timeout"] = "10"|schema: '10' is not of type 'integer' at /devices/0/containerEdits/hooks/0/timeout
SPECS
}

# container_spec_checks SUITE DIR: DIR/vgpu.json is the spec of flavour
# small (vram-max 1G weight 5), vgpuctl /bin/true, DIR/lib.so, DIR/preload.
container_spec_checks() {
	local s=$1 d=$2 got
	got=$(python3 - "$d" <<'EOF'
import json, sys
d = sys.argv[1]
spec = json.load(open(d + "/vgpu.json"))
hook = lambda n, a: {"hookName": n, "path": "/bin/true", "args": ["vgpuctl", "hook"] + a, "timeout": 10}
mount = lambda h, c: {"hostPath": h, "containerPath": c, "options": ["ro", "nosuid", "nodev", "bind"]}
want = {
    "cdiVersion": "0.5.0", "kind": "vgpu.io/tenant",
    "devices": [{"name": "small", "containerEdits": {"hooks": [
        hook("createRuntime", ["create-runtime", "vram-max", "1G", "weight", "5"])]}}],
    "containerEdits": {
        "deviceNodes": [{"path": "/dev/vgpu"}],
        "mounts": [mount(d + "/lib.so", "/usr/lib/vgpu/libvgpu.so"),
                   mount(d + "/preload", "/etc/ld.so.preload")],
        "hooks": [hook("poststop", ["poststop"])]},
}
print("same" if spec == want else json.dumps(spec))
EOF
)
	if [ "$got" = same ]; then
		pass "$s" "cdi generate: the spec has the flavour's hook, /dev/vgpu, the mounts and poststop"
	else
		fail "$s" "cdi generate: the spec has the flavour's hook, /dev/vgpu, the mounts and poststop" "$got"
	fi
}
