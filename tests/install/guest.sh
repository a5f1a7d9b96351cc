#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test inside the Debian 12 image (tests/install/run copies it
# to the test disk as /srv/vgputest/run; the image's vgpu-install-test
# unit runs it once systemd is up). It installs the built packages, lets
# DKMS build vgpu.ko for the image's kernel, drives vgpu.service and
# vgpuctl -b, then removes and purges the packages. One line per check,
# "PASS: install: what" or "FAIL: install: what: detail"; the last line is
# "install-guest: done".
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive
dir=/srv/vgputest
tmp=$(mktemp -d)
rel=$(uname -r)

pass() { echo "PASS: install: $1"; }
fail() { echo "FAIL: install: $1: $2"; }
oneline() { tail -c 600 "$1" | tr '\n' '|'; }
# check WHAT CMD...: PASS when CMD succeeds; its output is in $tmp/out.
check() {
	local what=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then pass "$what"; else fail "$what" "$(oneline "$tmp/out")"; fi
}
# timed WHAT CMD...: check, with the seconds it took in WHAT.
timed() {
	local what=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@" > "$tmp/out" 2>&1
	rc=$?
	what="$what ($(($(date +%s) - t0)) s)"
	if [ "$rc" -eq 0 ]; then pass "$what"; else fail "$what" "status $rc: $(oneline "$tmp/out")"; fi
}
loaded() { [ -e /sys/module/vgpu ]; }
not() { ! "$@"; }

echo "install-guest: kernel $rel, $(nproc) CPUs"
debs=("$dir"/debs/vgpu-dkms_*.deb "$dir"/debs/vgpuctl_*.deb "$dir"/debs/libvgpu_*.deb)
# The image has every dependency and no network: nothing is downloaded.
timed "apt-get installs vgpu-dkms, vgpuctl and libvgpu offline (DKMS builds vgpu.ko)" \
	apt-get install -y --no-install-recommends "${debs[@]}"
if ! dpkg -s vgpu-dkms vgpuctl libvgpu > /dev/null 2>&1; then
	# Nothing after this means anything without the packages.
	echo "install-guest: done"
	exit 1
fi
check "dkms status: vgpu is installed for the image's kernel $rel" \
	sh -c "dkms status vgpu | grep -E '^vgpu/[^,]+, $rel, [^:]+: installed'"
check "vgpu.ko is in /lib/modules/$rel/updates/dkms" \
	sh -c "ls /lib/modules/$rel/updates/dkms/vgpu.ko*"
check "modinfo finds vgpu for $rel" modinfo -k "$rel" vgpu
# shellcheck disable=SC2016 # expanded by sh -c
check "vgpu.service is enabled" sh -c 'test "$(systemctl is-enabled vgpu)" = enabled'
check "installing does not start the service or load the module" \
	sh -c '! systemctl is-active -q vgpu && ! test -e /sys/module/vgpu'
check "libvgpu.so is installed privately" test -f /usr/lib/x86_64-linux-gnu/vgpu/libvgpu.so
check "the example configuration is /etc/vgpu/vgpu.conf" test -f /etc/vgpu/vgpu.conf
check "the man page is installed" test -f /usr/share/man/man8/vgpuctl.8.gz

timed "systemctl start vgpu" systemctl start vgpu
check "the service is active" systemctl is-active -q vgpu
check "starting the service loaded the module" loaded
check "/dev/vgpu exists" test -c /dev/vgpu
check "vgpuctl -j show answers with a JSON object" \
	sh -c 'vgpuctl -j show | grep -q "^{.*}$"'
# shellcheck disable=SC2016 # expanded by sh -c
check "vgpuctl -j tenant show: no tenant yet" sh -c 'test "$(vgpuctl -j tenant show)" = "[]"'

# A file of commands through the service, as the unit's comment shows.
mkdir -p /sys/fs/cgroup/team-a /sys/fs/cgroup/team-b /etc/systemd/system/vgpu.service.d
cat > /etc/vgpu/commands <<'EOF'
# The GPUs and tenants of this test host.
gpu add 0 vram 8G
tenant replace team-a cgroup /sys/fs/cgroup/team-a vram-max 2G weight 70 \
	label owner=research
tenant replace team-b cgroup team-b vram-max 1G weight 30   # relative to /sys/fs/cgroup
EOF
printf '[Service]\nExecStart=/usr/sbin/vgpuctl -b /etc/vgpu/commands\n' \
	> /etc/systemd/system/vgpu.service.d/commands.conf
systemctl daemon-reload
check "systemctl restart vgpu runs vgpuctl -b FILE under the unit's hardening" \
	systemctl restart vgpu
vgpuctl -j tenant show > "$tmp/tenants" 2>&1
for want in '"name":"team-a"' '"name":"team-b"' '"owner":"research"' '"vram_max":2147483648' \
	    '"vram_max":1073741824' '"weight":70'; do
	if grep -qF "$want" "$tmp/tenants"; then pass "tenant show after the batch has $want"
	else fail "tenant show after the batch has $want" "$(oneline "$tmp/tenants")"; fi
done
check "vgpuctl gpu show lists GPU 0" sh -c 'vgpuctl -j gpu show | grep -q "\"index\":0"'

# A bad line stops the batch there, names FILE:LINE, and the line after it
# does not run.
printf 'tenant set team-a weight 50\n\ntenant set team-a weight 0\ntenant set team-b weight 10\n' \
	> "$tmp/bad"
vgpuctl -b "$tmp/bad" > /dev/null 2> "$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "Error: $tmp/bad:3: the command failed (exit status 2)." "$tmp/err"
then pass "a bad batch line fails with status 2 naming FILE:3"
else fail "a bad batch line fails with status 2 naming FILE:3" "status $rc: $(oneline "$tmp/err")"; fi
vgpuctl -j tenant show > "$tmp/tenants" 2>&1
if grep -qF '"weight":50' "$tmp/tenants" && ! grep -qF '"weight":10' "$tmp/tenants"
then pass "the lines before the bad one ran, the one after did not"
else fail "the lines before the bad one ran, the one after did not" "$(oneline "$tmp/tenants")"; fi

check "systemctl stop vgpu" systemctl stop vgpu
check "stopping the service leaves the module loaded" loaded
check "and the tenants" sh -c 'vgpuctl tenant show | grep -q team-a'

# The module in use: removing vgpu-dkms is refused and says why.
# shellcheck disable=SC2217 # sleep only holds /dev/vgpu open
sleep 600 < /dev/vgpu &
holder=$!
sleep 1
apt-get remove -y vgpu-dkms > "$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "cannot unload vgpu.ko: it is in use" "$tmp/out" && loaded
then pass "removing vgpu-dkms while /dev/vgpu is open fails and says why"
else fail "removing vgpu-dkms while /dev/vgpu is open fails and says why" "status $rc: $(oneline "$tmp/out")"; fi
kill "$holder"
wait "$holder" 2> /dev/null

rm -rf /etc/systemd/system/vgpu.service.d
timed "apt-get remove vgpu-dkms vgpuctl libvgpu" apt-get remove -y vgpu-dkms vgpuctl libvgpu
check "removing unloaded the module" not loaded
check "no vgpu.ko is left under /lib/modules/$rel" \
	sh -c "! find /lib/modules/$rel -name 'vgpu.ko*' | grep -q ."
check "no DKMS tree or source is left" sh -c '! test -e /var/lib/dkms/vgpu && ! ls -d /usr/src/vgpu-* 2>/dev/null'
check "vgpuctl and libvgpu are gone" \
	sh -c '! test -e /usr/sbin/vgpuctl && ! test -e /usr/lib/x86_64-linux-gnu/vgpu'
check "the unit is gone" sh -c '! systemctl cat vgpu > /dev/null 2>&1'
check "removing keeps the configuration (a conffile)" test -f /etc/vgpu/vgpu.conf
check "apt-get purge vgpuctl" apt-get purge -y vgpuctl vgpu-dkms libvgpu
check "purging removes /etc/vgpu/vgpu.conf" test ! -e /etc/vgpu/vgpu.conf
check "nothing of vgpu stays in dpkg's database" sh -c '! dpkg -l "vgpu*" "libvgpu*" 2>/dev/null | grep -q "^[ir]"'

rm -rf "$tmp"
echo "install-guest: done"
