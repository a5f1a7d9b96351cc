#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 78
# vm-boot: shared
# Who reads vgpuctl metrics --listen (issue #33; Documentation/metrics.md,
# "Who reads the port", and architecture.md, "Threat model"), with real
# tenants, users and cgroups: tenants pa and pb (pb with the admin label
# project=merger-x), a process of each holding VRAM. A tenant's user
# (nobody, in pa's cgroup) reads only pa over netlink; through the port it
# reads what the port's protection lets it: a Unix socket at 0600 or 0660
# with a group it is not in (connect: Permission denied), basic
# authentication on the loopback and over TLS (401 without or with wrong
# credentials, nothing of any tenant in the answer; everything the docs
# list with the right ones); the bare-port loopback default gives it every
# tenant, as documented. A malformed web configuration is one error line
# and exit 1 at start, nothing listening, no socket made.
# vm-tools: curl openssl
suite=metrics-access
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
ip link set lo up
vgpuctl gpu probe >/dev/null
mkdir -p $cg/pa $cg/pb $cg/outside
vgpuctl tenant add pa cgroup pa vram-max 1G >/dev/null
vgpuctl tenant add pb cgroup pb vram-max 2G label project=merger-x >/dev/null
# The monitor group (gid 600) and its member mon, who runs the TCP
# servers, as the docs advise; a socket group (scrape, gid 610) with one
# member, scraper; and nobody, a plain user, as the tenant's user.
echo 'vgpumon:x:600:mon' >> /etc/group
echo 'mon:x:601:600::/nonexistent:/bin/sh' >> /etc/passwd
echo 'scrape:x:610:scraper' >> /etc/group
echo 'scraper:x:602:65534::/nonexistent:/bin/sh' >> /etc/passwd
vgpuctl set monitor-group 600 >/dev/null
# (htpasswd -nbBC 10 prom secret, on the host)
hash='$2y$10$wWGrULrBHmVHE7OKWNF3xePPBMegFrvcwUfEBn3nDRsndI.0WuUDC'
mkdir -m 0755 /run/vgpu
sock=/run/vgpu/metrics.sock
url=http://127.0.0.1:9400/metrics

bg_hold pa /tmp/ha env LD_PRELOAD=/usr/lib/libvgpu.so vram-client alloc 64M , hold 600000 &&
	ha=$!
bg_hold pb /tmp/hb env LD_PRELOAD=/usr/lib/libvgpu.so vram-client alloc 32M , hold 600000 &&
	hb=$!

# as USER CGROUP CMDLINE: the shell command line CMDLINE as USER inside CGROUP.
as() {
	sh -c "echo \$\$ > $cg/$2/cgroup.procs && exec su -s /bin/sh $1 -c \"\$0\"" "$3"
}
# fetch USER CGROUP OUT CURL-ARGS...: curl as USER inside CGROUP; the
# answer (status line, header, body) in OUT, curl's trace in OUT.err.
# Prints the HTTP status and curl's exit status: "200 0"; "000 7": no
# connection.
fetch() {
	local u=$1 d=$2 out=$3
	shift 3
	rm -f "$out" "$out.err"
	as "$u" "$d" "curl -sS -v -m 15 -i -o $out -w '%{http_code} ' $* 2>$out.err; echo \$?"
}
# start USER ERR ARGS...: vgpuctl metrics ARGS as USER (in cgroup outside)
# in the background, its stderr in ERR; sets srv; waits (10 s at most)
# for its "serving" line. A server that does not say it is a FAIL.
start() {
	local u=$1 err=$2 i
	shift 2
	# (its stderr opened here, by root, and made first, for the grep below;
	# no function between: $! is the shell that becomes su, then vgpuctl)
	: > "$err"
	sh -c "echo \$\$ > $cg/outside/cgroup.procs && exec su -s /bin/sh $u -c \"\$0\"" \
		"exec vgpuctl metrics $*" 2> "$err" &
	srv=$!
	for i in $(seq 100); do
		grep -q '^vgpuctl metrics: serving' "$err" && return 0
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	fail "vgpuctl metrics $* starts" "$(tr '\n' ' ' < "$err")"
	return 1
}
stop() {
	kill $srv
	wait $srv
	check_eq "$1: the server stops on SIGTERM with status 0" 0 "$?"
}
# everything WHAT FILE: FILE holds every tenant with its id, cgroup and
# label, each one's VRAM used, and the host's process count (the monitor
# group's), as metrics.md lists them.
everything() {
	if grep -q '^vgpu_tenant_info{tenant="pa",id="[0-9]*",cgroup="/pa",priority="normal"} 1$' "$2" &&
	   grep -q '^vgpu_tenant_info{tenant="pb",id="[0-9]*",cgroup="/pb",priority="normal",label_project="merger-x"} 1$' "$2"; then
		pass "$1: every tenant, its id, cgroup and admin label"
	else
		fail "$1: every tenant, its id, cgroup and admin label" \
			"$(grep -E '^(vgpu_tenant_info|HTTP/)' "$2" | tr '\n' ' ') $(tail -n 2 "$2.err" 2>/dev/null | tr '\n' ' ')"
	fi
	check_eq "$1: each tenant's VRAM used" "67108864 33554432" \
		"$(awk '$1 == "vgpu_tenant_vram_used_bytes{tenant=\"pa\",gpu=\"0\"}" { a = $2 }
			$1 == "vgpu_tenant_vram_used_bytes{tenant=\"pb\",gpu=\"0\"}" { b = $2 }
			END { print a " " b }' "$2")"
	check_eq "$1: the host's count of registered processes" 2 \
		"$(awk '$1 == "vgpu_registered_processes" { print $2 }' "$2")"
}
# nothing FILE WHAT: no tenant, label or metric in FILE (a refused answer).
nothing() {
	if grep -qE 'merger-x|\<p[ab]\>|vgpu_' "$1"; then
		fail "$2" "$(grep -m 3 -E 'merger-x|\<p[ab]\>|vgpu_' "$1" | tr '\n' ' ')"
	else
		pass "$2"
	fi
}

# --- the module: a tenant's user reads its own tenant only -------------------------
out=$(as nobody pa 'vgpuctl -j tenant show' | tr -d ' \n')
case $out in
'[{"name":"pa"'*pb*) fail "netlink: nobody in pa lists only pa" "$out" ;;
'[{"name":"pa"'*) pass "netlink: nobody in pa lists only pa" ;;
*) fail "netlink: nobody in pa lists only pa" "$out" ;;
esac
as nobody pa 'vgpuctl metrics' > /tmp/own.prom 2>&1
if grep -q '^vgpu_tenant_info{tenant="pa"' /tmp/own.prom &&
   ! grep -qE 'merger-x|tenant="pb"|^vgpu_registered_processes' /tmp/own.prom; then
	pass "netlink: vgpuctl metrics as nobody in pa: pa alone, no label of pb, no host count"
else
	fail "netlink: vgpuctl metrics as nobody in pa: pa alone" \
		"$(grep -E 'tenant_info|registered|Error' /tmp/own.prom | tr '\n' ' ')"
fi

# --- a Unix socket at its default mode: root alone ---------------------------------
if start root /tmp/u.err --listen unix:$sock; then
	check_eq "unix: the socket is 0600 root's" "600 root root" "$(stat -c '%a %U %G' $sock)"
	curl -sS -m 15 --unix-socket $sock http://localhost/metrics > /tmp/root.prom 2>&1
	everything "unix 0600: root reads" /tmp/root.prom
	got=$(fetch nobody pa /tmp/nb --unix-socket $sock http://localhost/metrics)
	if [ "$got" = "000 7" ] && grep -q 'Permission denied' /tmp/nb.err && [ ! -s /tmp/nb ]; then
		pass "unix 0600: nobody in pa cannot connect (Permission denied)"
	else
		fail "unix 0600: nobody in pa cannot connect" "$got: $(tail -n 3 /tmp/nb.err | tr '\n' ' ')"
	fi
	stop "unix 0600"
fi
# --- the same with --socket-mode 0660 --socket-group scrape -----------------------
if start root /tmp/u.err --listen unix:$sock --socket-mode 0660 --socket-group scrape; then
	check_eq "unix: --socket-mode 0660 --socket-group scrape" "660 root scrape" \
		"$(stat -c '%a %U %G' $sock)"
	got=$(fetch scraper pa /tmp/sc --unix-socket $sock http://localhost/metrics)
	check_eq "unix 0660: a member of scrape (in pa's cgroup) is answered" "200 0" "$got"
	everything "unix 0660: a member of scrape reads" /tmp/sc
	got=$(fetch nobody pa /tmp/nb --unix-socket $sock http://localhost/metrics)
	if [ "$got" = "000 7" ] && grep -q 'Permission denied' /tmp/nb.err && [ ! -s /tmp/nb ]; then
		pass "unix 0660: nobody in pa still cannot connect (Permission denied)"
	else
		fail "unix 0660: nobody in pa still cannot connect" "$got: $(tail -n 3 /tmp/nb.err | tr '\n' ' ')"
	fi
	stop "unix 0660"
	[ ! -e $sock ] && pass "unix: the socket is gone after the server" ||
		fail "unix: the socket is gone after the server" "$(ls -l $sock)"
fi

# --- the loopback default: every local user reads every tenant (documented) -------
if start mon /tmp/t.err --listen 9400; then
	check_out "loopback: a bare port is 127.0.0.1, plain HTTP, no authentication, and says so" \
		"serving /metrics on 127.0.0.1:9400, plain HTTP, no authentication" cat /tmp/t.err
	got=$(fetch nobody pa /tmp/nb $url)
	check_eq "loopback: nobody in pa is answered" "200 0" "$got"
	everything "loopback without authentication: nobody in pa reads" /tmp/nb
	stop "loopback"
fi

# --- basic authentication on the loopback -----------------------------------------
printf 'basic_auth_users:\n  prom: %s\n' "$hash" > /run/vgpu/auth.yml
chgrp vgpumon /run/vgpu/auth.yml && chmod 0640 /run/vgpu/auth.yml
if start mon /tmp/t.err --listen 9400 --web.config.file /run/vgpu/auth.yml; then
	check_out "basic auth: the server says so" \
		"serving /metrics on 127.0.0.1:9400, plain HTTP, basic authentication (1 user)" cat /tmp/t.err
	check_eq "basic auth: nobody in pa without credentials: 401" "401 0" "$(fetch nobody pa /tmp/nb $url)"
	nothing /tmp/nb "basic auth: the 401 without credentials holds no tenant, label or metric"
	check_eq "basic auth: nobody in pa with a wrong password: 401" "401 0" \
		"$(fetch nobody pa /tmp/nb -u prom:wrong $url)"
	nothing /tmp/nb "basic auth: the 401 with a wrong password holds no tenant, label or metric"
	check_eq "basic auth: nobody in pa with the right credentials: 200" "200 0" \
		"$(fetch nobody pa /tmp/nb -u prom:secret $url)"
	everything "basic auth: with the right credentials, nobody in pa reads" /tmp/nb
	stop "basic auth"
fi

# --- TLS and basic authentication --------------------------------------------------
# A self-signed certificate for 127.0.0.1, made here (openssl wants a
# configuration file for req: an empty one).
t=/run/vgpu
printf '[req]\ndistinguished_name = dn\n[dn]\n' > /tmp/openssl.cnf
if openssl req -config /tmp/openssl.cnf -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	-nodes -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 2 \
	-keyout $t/server.key -out $t/server.crt > /tmp/openssl.out 2>&1; then
	pass "TLS: a self-signed certificate made with openssl"
else
	fail "TLS: a self-signed certificate made with openssl" "$(tail -n 3 /tmp/openssl.out | tr '\n' ' ')"
fi
chgrp vgpumon $t/server.key && chmod 0640 $t/server.key
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prom: %s\n' \
	"$hash" > $t/tls.yml
chgrp vgpumon $t/tls.yml && chmod 0640 $t/tls.yml
if start mon /tmp/t.err --listen 9401 --web.config.file $t/tls.yml; then
	check_out "TLS: the server says so" \
		"serving /metrics on 127.0.0.1:9401, TLS, basic authentication (1 user)" cat /tmp/t.err
	turl="--cacert $t/server.crt https://127.0.0.1:9401/metrics"
	check_eq "TLS: nobody in pa without credentials: 401" "401 0" "$(fetch nobody pa /tmp/nb $turl)"
	nothing /tmp/nb "TLS: the 401 holds no tenant, label or metric"
	check_eq "TLS: nobody in pa with the right credentials: 200" "200 0" \
		"$(fetch nobody pa /tmp/nb -u prom:secret $turl)"
	everything "TLS: with the right credentials, nobody in pa reads" /tmp/nb
	got=$(fetch nobody pa /tmp/nb -u prom:secret http://127.0.0.1:9401/metrics)
	case $got in
	"000 "[1-9]*) [ -s /tmp/nb ] && fail "TLS: plain HTTP to the TLS port gets nothing" "$(head -c 200 /tmp/nb)" ||
		pass "TLS: plain HTTP to the TLS port gets nothing (curl: $got)" ;;
	*) fail "TLS: plain HTTP to the TLS port gets nothing" "$got: $(head -c 200 /tmp/nb)" ;;
	esac
	stop "TLS"
fi

# --- a malformed web configuration: one error line, exit 1, nothing served ---------
# refused WHAT LINE CONFIG ADDR: vgpuctl metrics --listen ADDR with the
# web configuration CONFIG (printf's format) exits 1 by itself within
# 10 s with the error line LINE alone on stderr, nothing on stdout; while
# it runs and after, nothing answers at ADDR (a TCP port: 127.0.0.1:PORT,
# plain and TLS; a Unix socket: no file).
refused() {
	local what=$1 want=$2 addr=$4 p rc i served=""
	# shellcheck disable=SC2059 # CONFIG is a format
	printf "$3" > $t/bad.yml
	vgpuctl metrics --listen "$addr" --web.config.file $t/bad.yml > /tmp/bad.out 2> /tmp/bad.err &
	p=$!
	for i in $(seq 100); do
		kill -0 $p 2>/dev/null || break
		case $addr in
		unix:*) [ -e "${addr#unix:}" ] && served="a socket at ${addr#unix:}" ;;
		*) curl -s -m 2 -o /dev/null "http://127.0.0.1:${addr##*:}/metrics" && served="plain HTTP" ;;
		esac
		sleep 0.1
	done
	if kill -0 $p 2>/dev/null; then
		kill $p
		wait $p
		fail "web config: $what: exits by itself" "still running after 10 s${served:+, serving $served}"
		return
	fi
	wait $p
	rc=$?
	check_eq "web config: $what: exit 1, one error line naming the problem" "1 $want" \
		"$rc $(cat /tmp/bad.err /tmp/bad.out)"
	case $addr in
	unix:*) [ -e "${addr#unix:}" ] && served="${served:-a socket at ${addr#unix:}}" ;;
	*) for u in http https; do
		got=$(curl -s -k -m 5 -o /dev/null -w '%{http_code}' "$u://127.0.0.1:${addr##*:}/metrics"; echo " $?")
		[ "$got" = "000 7" ] || served="${served:-$u: $got}"
	   done ;;
	esac
	[ -z "$served" ] && pass "web config: $what: nothing listens, during or after" ||
		fail "web config: $what: nothing listens, during or after" "$served"
}
refused "an unknown key" "Error: $t/bad.yml:1: foo: unknown key." \
	"foo: 1\nbasic_auth_users:\n  prom: $hash\n" 127.0.0.1:9402
refused "a key file that does not exist" \
	"Error: $t/bad.yml:3: tls_server_config.key_file: cannot read $t/none.key: No such file or directory." \
	"tls_server_config:\n  cert_file: server.crt\n  key_file: none.key\nbasic_auth_users:\n  prom: $hash\n" \
	127.0.0.1:9402
refused "an unknown key, on a Unix socket" "Error: $t/bad.yml:4: tls_server_config.cert_fil: unknown key." \
	"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  cert_fil: x\n" unix:$sock

kill $ha $hb 2>/dev/null
wait $ha $hb 2>/dev/null
suite_end
