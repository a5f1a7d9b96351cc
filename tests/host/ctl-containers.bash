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
	fi
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
