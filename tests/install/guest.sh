#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install test inside the Debian 12 image (tests/install/run copies it
# to the test disk as /srv/vgputest/run; the image's vgpu-install-test
# unit runs it once systemd is up). It installs the built packages, lets
# DKMS build vgpu.ko for the image's kernel, drives vgpu.service with
# /etc/vgpu/vgpu.conf (vgpuctl apply at start and on reload) and runs
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
check "vgpu.service runs /usr/sbin/vgpuctl apply at start and on reload" \
	sh -c 'systemctl cat vgpu | grep -qx "ExecStart=/usr/sbin/vgpuctl apply" &&
	       systemctl cat vgpu | grep -qx "ExecReload=/usr/sbin/vgpuctl apply"'

timed "systemctl start vgpu" systemctl start vgpu
check "the service is active" systemctl is-active -q vgpu
check "starting the service loaded the module" loaded
check "/dev/vgpu exists" test -c /dev/vgpu
check "vgpuctl -j show answers with a JSON object" \
	sh -c 'vgpuctl -j show | grep -q "^{.*}$"'
# shellcheck disable=SC2016 # expanded by sh -c
check "vgpuctl -j tenant show: no tenant yet" sh -c 'test "$(vgpuctl -j tenant show)" = "[]"'

# The configuration: /etc/vgpu/vgpu.conf, applied by the service at start
# and on reload (vgpuctl apply). The image has no GPU: it is declared.
conf=/etc/vgpu/vgpu.conf
mkdir -p /sys/fs/cgroup/team-a /sys/fs/cgroup/team-b /sys/fs/cgroup/team-c
check "systemctl stop vgpu (before writing the configuration)" systemctl stop vgpu
{
	printf '# The GPUs and tenants of this test host.\n'
	printf 'gpu 0 vram 8G\n'
	printf 'host default allow\n'
	printf 'tenant team-a cgroup /sys/fs/cgroup/team-a vram-max 2G weight 70 \\\n'
	printf '\tlabel owner=research\n'
	printf 'tenant team-b cgroup team-b vram-max 1G weight 30   # relative to /sys/fs/cgroup\n'
	printf 'tenant team-c cgroup team-c vram-max 512M priority high label owner=ops\n'
} > "$conf"
# tenants: the module's tenants as JSON on one line.
tenants() { vgpuctl -j tenant show | tr -d '\n'; }
# quotas NAME: a tenant's JSON less its usage (its counters grow).
quotas() { vgpuctl -j tenant show "$1" | tr -d '\n' | sed 's/,\{0,1\}"usage":\[[^]]*\]//g'; }
# names: the tenants the module holds, sorted, on one line.
names() { tenants | grep -o '"name":"[^"]*"' | sed 's/"name":"\(.*\)"/\1/' | sort | tr '\n' ' '; }
# has WHAT OUTFILE STRING...: PASS when OUTFILE holds every STRING.
has() {
	local what=$1 file=$2 want
	shift 2
	for want in "$@"; do
		if ! grep -qF -- "$want" "$file"; then
			fail "$what" "no $want in: $(oneline "$file")"
			return
		fi
	done
	pass "$what"
}

timed "systemctl start vgpu applies $conf under the unit's hardening" systemctl start vgpu
check "the service is active after applying" systemctl is-active -q vgpu
names > "$tmp/names"
if [ "$(cat "$tmp/names")" = "team-a team-b team-c " ]
then pass "vgpuctl -j tenant show has exactly the file's tenants"
else fail "vgpuctl -j tenant show has exactly the file's tenants" "$(oneline "$tmp/names")"; fi
quotas team-a > "$tmp/a"
quotas team-b > "$tmp/b"
quotas team-c > "$tmp/c"
has "team-a has its quotas and label" "$tmp/a" '"vram_max":2147483648' '"weight":70' \
	'"labels":{"owner":"research"}' '"cgroup":"/team-a"'
has "team-b has its quotas" "$tmp/b" '"vram_max":1073741824' '"weight":30' '"cgroup":"/team-b"'
has "team-c has its quotas and label" "$tmp/c" '"vram_max":536870912' '"priority":"high"' \
	'"labels":{"owner":"ops"}'
check "vgpuctl gpu show lists the declared GPU 0 (8G)" \
	sh -c 'vgpuctl -j gpu show 0 | tr -d "\n" | grep -q "\"vram\":8589934592"'
check "journalctl -u vgpu shows what apply changed" \
	sh -c 'journalctl -u vgpu --no-pager | grep -q "tenant add team-a"'
check "applying again changes nothing" \
	sh -c 'vgpuctl apply | grep -q "^# nothing to change"'

# An edit of one tenant's quota: systemctl reload changes only that one.
sed -i 's/weight 30/weight 40/' "$conf"
check "systemctl reload vgpu after editing team-b's weight" systemctl reload vgpu
quotas team-b > "$tmp/b2"
has "team-b's weight changed" "$tmp/b2" '"weight":40' '"vram_max":1073741824'
quotas team-a > "$tmp/a2"
quotas team-c > "$tmp/c2"
if cmp -s "$tmp/a" "$tmp/a2" && cmp -s "$tmp/c" "$tmp/c2"
then pass "the other tenants are as they were"
else fail "the other tenants are as they were" "$(oneline "$tmp/a2") $(oneline "$tmp/c2")"; fi
check "journalctl -u vgpu shows the reload's one change" \
	sh -c 'journalctl -u vgpu --no-pager | grep -q "tenant set team-b weight 40"'

# A bad edit: an unknown quota on line 6 (team-b's). The reload fails,
# nothing changes (not even the good edit on line 4), and the journal
# names the line.
tenants | sed 's/,\{0,1\}"usage":\[[^]]*\]//g' > "$tmp/before"
sed -i 's/weight 70/weight 60/; s/weight 40/weight 40 frobnicate 3/' "$conf"
check "the unknown quota is on line 6" sh -c "sed -n 6p $conf | grep -q frobnicate"
if systemctl reload vgpu > "$tmp/out" 2>&1
then fail "systemctl reload vgpu fails on a bad line" "it succeeded"
else pass "systemctl reload vgpu fails on a bad line"; fi
tenants | sed 's/,\{0,1\}"usage":\[[^]]*\]//g' > "$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"
then pass "the failed reload changed nothing"
else fail "the failed reload changed nothing" "$(oneline "$tmp/after")"; fi
sleep 1
journalctl -u vgpu --no-pager > "$tmp/journal" 2>&1
has "journalctl -u vgpu names vgpu.conf:6 and says nothing was changed" "$tmp/journal" \
	"Error: $conf:6: unknown key \"frobnicate\"" "apply: nothing was changed"
check "the service stays active after a failed reload" systemctl is-active -q vgpu
sed -i 's/ frobnicate 3//; s/weight 60/weight 70/' "$conf"
check "systemctl reload vgpu after the fix" systemctl reload vgpu

# A file of plain vgpuctl commands (vgpuctl -b): a bad line stops the batch
# there, names FILE:LINE, and the line after it does not run.
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
