#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of vgpuctl metrics and account (no kernel module needed), run
# from the repo root:
# - tests/unit/test_prom.c (the exposition, label escaping, the HTTP
#   request judge) and tests/unit/test_account.c (the state file, the
#   records of a cycle), normally and under ASan/UBSan: suites "prom",
#   "prom-asan", "account", "account-asan";
# - with an ASan/UBSan vgpuctl, suite "metrics": usage errors; the HTTP
#   server against real sockets (it serves vgpu_up 0 without the module,
#   tests/tools/http-flood is the clients, loopback only): /metrics, 404,
#   405, 400, 431, a NUL byte answered at once, a client that sends
#   nothing, 1000 of them beside 20 scrapes, the caps per peer address and
#   in total, the descriptor limit raised, accept() out of descriptors and
#   failing with each error (tests/tools/accept-fault.c), SIGTERM; who
#   reads it (tests/host/metrics-exposure.bash: the loopback by default, a
#   Unix socket's permissions, TLS and client certificates, basic
#   authentication, malformed web configurations refused at start); -o
#   replaces its file; account settles a STATE.next a crash left (all the
#   records written: kept; part: cut back; none: dropped) and refuses a
#   damaged state, a second collector on the same state.
# Every check prints "PASS: suite: what" or "FAIL: suite: what: detail".
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1

failures=0
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

pass() { echo "PASS: $1: $2"; }
fail() { echo "FAIL: $1: $2: $3"; failures=$((failures + 1)); }
oneline() { head -c 400 "$1" | tr '\n' '|'; }

CC=${CC:-cc}
WARN=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror)
# shellcheck disable=SC2054 # one -fsanitize= argument
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# (jansson: the whole of vgpuctl, its OCI hooks included, is built below)
read -r -a NL_CFLAGS <<< "$(pkg-config --cflags libnl-genl-3.0 libcap jansson)"
read -r -a NL_LIBS <<< "$(pkg-config --libs libnl-genl-3.0 libcap jansson)"
# (vgpuctl: TLS and bcrypt for metrics --listen)
read -r -a SSL_LIBS <<< "$(pkg-config --libs openssl libxcrypt) -pthread"

# --- unit tests -------------------------------------------------------------
# unit NAME SOURCES...: build tests/unit/test_NAME.c with SOURCES twice
# (normal, ASan) and relay its lines.
unit() {
	local name=$1 mode out rc
	shift
	mkdir -p build/unit build/asan
	for mode in "$name" "$name-asan"; do
		if [ "$mode" = "$name" ]; then
			flags=(-O2 -g) out=build/unit/test_$name
		else
			flags=(-O1 -g "${SAN[@]}") out=build/asan/test_$name
		fi
		if ! "$CC" "${WARN[@]}" "${flags[@]}" "${NL_CFLAGS[@]}" "tests/unit/test_$name.c" "$@" \
			-o "$out" "${NL_LIBS[@]}" 2> "$tmp/cc.err"; then
			fail "$mode" "test_$name builds" "$(oneline "$tmp/cc.err")"
			continue
		fi
		"$out" > "$tmp/unit.out" 2> "$tmp/unit.err"
		rc=$?
		sed "s/^\(PASS\|FAIL\): $name: /\1: $mode: /" "$tmp/unit.out"
		failures=$((failures + $(grep -c '^FAIL: ' "$tmp/unit.out")))
		if ! grep -q '^PASS: ' "$tmp/unit.out"; then
			fail "$mode" "test_$name ran checks" "none ran: $(oneline "$tmp/unit.err")"
		elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL: ' "$tmp/unit.out"; then
			fail "$mode" "test_$name exits cleanly" "status $rc: $(oneline "$tmp/unit.err")"
		elif [ -s "$tmp/unit.err" ]; then
			fail "$mode" "test_$name writes nothing on stderr" "$(oneline "$tmp/unit.err")"
		else
			pass "$mode" "test_$name exits with status $rc and no sanitizer report"
		fi
	done
}
# srcs NAME: a list of ctl/sources.mk (UNIT_NAME: what test_NAME links), as paths.
srcs() { make -s --no-print-directory -C ctl -f sources.mk "list-$1"; }
# shellcheck disable=SC2046
unit prom $(srcs UNIT_prom)
# shellcheck disable=SC2046
unit account $(srcs UNIT_account)

# --- vgpuctl metrics and account without the module ----------------------------
S=metrics
V=build/asan/ctl/vgpuctl-metrics
mkdir -p build/asan/ctl
# (with tests/tools/accept-fault.c: accept4() fails on demand)
# shellcheck disable=SC2046
if ! "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" "${NL_CFLAGS[@]}" \
	-I"${NVML_INC:-build/deps/cuda/include}" $(srcs VGPUCTL_SRCS) tests/tools/accept-fault.c \
	-Wl,--wrap=accept4 -o "$V" "${NL_LIBS[@]}" "${SSL_LIBS[@]}" -ldl 2> "$tmp/cc.err"; then
	fail $S "vgpuctl builds with ASan and UBSan" "$(oneline "$tmp/cc.err")"
	exit 1
fi
pass $S "vgpuctl builds with ASan and UBSan"

# expect WHAT STATUS MESSAGE ARGS...: vgpuctl ARGS exits STATUS with
# MESSAGE (a fixed string) on stderr.
expect() {
	local what=$1 want=$2 msg=$3 rc
	shift 3
	"$V" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail $S "$what" "exit $rc, want $want: $(oneline "$tmp/err")"
	elif ! grep -qF -- "$msg" "$tmp/err"; then
		fail $S "$what" "want '$msg' on stderr, got: $(oneline "$tmp/err")"
	else
		pass $S "$what"
	fi
}
expect "metrics: unknown argument" 2 'Error: unexpected argument "x" for metrics.' metrics x
expect "metrics: -i needs -o" 2 "Error: -i needs -o FILE." metrics -i 5
expect "metrics: bad SECONDS" 2 'Error: invalid SECONDS "0" for -i' metrics -o "$tmp/f" -i 0
expect "metrics: -o and --listen" 2 "Error: -o and --listen exclude each other." \
	metrics -o "$tmp/f" --listen :9
expect "metrics: bad --listen" 2 'Error: invalid ADDR:PORT "localhost" for --listen' \
	metrics --listen localhost
expect "metrics: port out of range" 2 'Error: invalid ADDR:PORT "127.0.0.1:70000"' \
	metrics --listen 127.0.0.1:70000
expect "metrics without the module: vgpu_up 0 and the reason" 1 \
	"Error: the vgpu kernel module is not loaded" metrics
grep -qx "vgpu_up 0" "$tmp/out" && pass $S "metrics without the module prints vgpu_up 0" ||
	fail $S "metrics without the module prints vgpu_up 0" "$(oneline "$tmp/out")"
expect "metrics -o without the module still writes its file" 1 "not loaded" \
	metrics -o "$tmp/vgpu.prom"
grep -qx "vgpu_up 0" "$tmp/vgpu.prom" && [ -z "$(find "$tmp" -name '.vgpu.prom.*')" ] &&
	pass $S "-o replaced the file and left no temporary one" ||
	fail $S "-o replaced the file and left no temporary one" "$(ls -a "$tmp" | tr '\n' ' ')"
expect "metrics -o into a missing directory" 1 "Error: cannot write $tmp/no/x.prom" \
	metrics -o "$tmp/no/x.prom"
expect "account needs -o" 2 "Error: account needs -o FILE." account
expect "account: unknown argument" 2 'Error: unexpected argument "-x" for account.' account -o f -x
expect "account: duplicate --no-ack" 2 'Error: duplicate option "--no-ack"' account --no-ack --no-ack

# --- the HTTP server --------------------------------------------------------------
# Its caps (ctl/out/httpd.h), for the checks of what happens when it is full.
hdef() { sed -n "s/^#define $1[[:space:]]*\([0-9]*\).*/\1/p" ctl/out/httpd.h; }
peer_max=$(hdef VGPU_HTTPD_PEER_MAX) fd_spare=$(hdef VGPU_HTTPD_FD_SPARE)
flood=tests/tools/http-flood
# serve ERR [CMD...]: vgpuctl metrics --listen 127.0.0.1:PORT on a new
# port, started through CMD (prlimit, env), its stderr into ERR; sets port
# and hpid, and waits (no connection made) until it listens.
serve() {
	local err=$1
	shift
	port=$((20000 + RANDOM % 20000))
	"$@" "$V" metrics --listen "127.0.0.1:$port" 2> "$err" &
	hpid=$!
	pids+=("$hpid")
	for _ in $(seq 50); do
		[ -n "$(ss -Hltn "sport = :$port")" ] && break
		sleep 0.1
	done
}
# stopped WHAT ERR: SIGTERM ends the server with status 0, no sanitizer report.
stopped() {
	local rc
	kill "$hpid" 2> /dev/null
	wait "$hpid"
	rc=$?
	[ "$rc" -eq 0 ] && pass $S "HTTP: $1: the server ends with status 0 on SIGTERM" ||
		fail $S "HTTP: $1: the server ends with status 0 on SIGTERM" "status $rc: $(oneline "$2")"
	grep -q "AddressSanitizer\|runtime error" "$2" &&
		fail $S "HTTP: $1: no sanitizer report" "$(oneline "$2")" ||
		pass $S "HTTP: $1: no sanitizer report"
}
# nfds: the server's open descriptors.
nfds() { local f=("/proc/$hpid/fd/"*); echo "${#f[@]}"; }
# kv KEY FILE: the value of KEY=VALUE in FILE (http-flood's output).
kv() { sed -n "s/^$1=//p" "$2"; }
# scrape: GET /metrics within 5 s gives vgpu_up 0 (no module here).
scrape() { grep -qx "vgpu_up 0" <<< "$(curl -s -m 5 "http://127.0.0.1:$port/metrics")"; }

serve "$tmp/httpd.err"
# req WHAT WANT_STATUS_LINE PRINTF_REQUEST [MAX_MS]: the answer's status
# line, and with MAX_MS, that it came within MAX_MS of the request's send.
req() {
	local out got ms
	out=$(printf "$3" | timeout 10 python3 -c '
import socket, sys, time
req = sys.stdin.buffer.read()
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=8)
t0 = time.monotonic()
s.sendall(req)
print(s.makefile("rb").readline().decode().strip())
print(int((time.monotonic() - t0) * 1000))' "$port" 2>&1)
	got=$(head -n 1 <<< "$out") ms=$(sed -n 2p <<< "$out")
	if [ "$got" != "$2" ]; then
		fail $S "HTTP: $1" "got '$got', want '$2' (${ms:-?} ms)"
	elif [ -n "${4:-}" ] && [ "${ms:-99999}" -gt "$4" ]; then
		fail $S "HTTP: $1" "answered in ${ms:-?} ms, want at most $4"
	else
		pass $S "HTTP: $1${4:+ ($ms ms)}"
	fi
}
out=$(curl -s -m 5 -D "$tmp/h" "http://127.0.0.1:$port/metrics")
if grep -qx "vgpu_up 0" <<< "$out" &&
   grep -qi '^Content-Type: text/plain; version=0.0.4' "$tmp/h"; then
	pass $S "HTTP: GET /metrics answers the exposition as text/plain; version=0.0.4"
else
	fail $S "HTTP: GET /metrics answers the exposition" "$(oneline "$tmp/h") $out"
fi
req "another path is 404" "HTTP/1.1 404 Not Found" 'GET /metric HTTP/1.1\r\n\r\n'
req "POST is 405" "HTTP/1.1 405 Method Not Allowed" 'POST /metrics HTTP/1.1\r\n\r\n'
req "a malformed request is 400" "HTTP/1.1 400 Bad Request" 'hello\r\n\r\n'
req "a request over 8 KiB is 431" "HTTP/1.1 431 Request Header Fields Too Large" \
	"GET /metrics HTTP/1.1\r\nX: $(head -c 9000 /dev/zero | tr '\0' a)\r\n\r\n"
# A NUL byte is 400 at once, not a request that waits out the 5 s deadline
# for an end of header that a search stopping at the NUL never finds.
req "a request with a NUL byte in a header is 400 at once" "HTTP/1.1 400 Bad Request" \
	'GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n' 1000
req "a request with a NUL byte, its header unfinished, is 400 at once" \
	"HTTP/1.1 400 Bad Request" 'GET /metrics\0' 1000

# A client that connects and sends nothing: the next one is served at once,
# and it is dropped after the 5 s deadline.
# (it says when it is connected: python's start can take longer than the
# wait a fixed sleep would give it on a loaded host)
"$flood" silent "$port" "$tmp/silent" > "$tmp/silent.out" &
spid=$!
pids+=("$spid")
for _ in $(seq 100); do [ -e "$tmp/silent" ] && break; sleep 0.1; done
t0=$(date +%s%N)
out=$(curl -s -m 15 "http://127.0.0.1:$port/metrics")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if grep -qx "vgpu_up 0" <<< "$out" && [ "$ms" -le 1000 ]; then
	pass $S "HTTP: a scrape beside a silent client is answered at once ($ms ms)"
else
	fail $S "HTTP: a scrape beside a silent client is answered at once" "$ms ms, want <= 1000: $out"
fi
wait "$spid"
ms=$(kv closed_ms "$tmp/silent.out")
[ "${ms:--1}" -ge 4500 ] && [ "$ms" -le 8000 ] &&
	pass $S "HTTP: the silent client is dropped at the 5 s deadline ($ms ms)" ||
	fail $S "HTTP: the silent client is dropped at the 5 s deadline" "after ${ms:-?} ms, want 4500-8000"

# 1,000 silent connections (20 peer addresses, within the caps) and 20
# scrapes beside them: every scrape answered, far within the deadline, and
# the silent ones closed at theirs.
"$flood" idle "$port" 1000 20 20 > "$tmp/idle.out" 2>&1
if [ "$(kv connected "$tmp/idle.out")" = 1000 ]; then
	pass $S "HTTP: 1000 silent connections open at once"
else
	fail $S "HTTP: 1000 silent connections open at once" "$(oneline "$tmp/idle.out")"
fi
ok=$(kv ok "$tmp/idle.out") ms=$(kv max_ms "$tmp/idle.out")
[ "${ok:-0}" = 20 ] && [ "${ms:-99999}" -le 1500 ] &&
	pass $S "HTTP: 20 of 20 scrapes beside them answered, the slowest in $ms ms" ||
	fail $S "HTTP: 20 scrapes beside 1000 silent connections" \
		"${ok:-0} of 20 answered, the slowest in ${ms:-?} ms (want 20, <= 1500 ms)"
n=$(kv closed "$tmp/idle.out") early=$(kv early "$tmp/idle.out")
lo=$(kv close_min_ms "$tmp/idle.out") hi=$(kv close_max_ms "$tmp/idle.out")
[ "${n:-0}" = 1000 ] && [ "$early" = 0 ] && [ "$lo" -ge 4500 ] && [ "$hi" -le 9000 ] &&
	pass $S "HTTP: the 1000 closed at their 5 s deadline ($lo-$hi ms after their connect)" ||
	fail $S "HTTP: the 1000 closed at their 5 s deadline" \
		"${n:-0} closed, $early early, $lo-$hi ms (want 1000, 0, 4500-9000)"

# One peer address past its cap: its oldest connections are dropped for
# the new ones, and a scrape from it is still answered (dropping one more).
"$flood" cap "$port" $((peer_max + 36)) "$peer_max" 127.0.0.30 127.0.0.30 > "$tmp/cap.out" 2>&1
if [ "$(kv closed "$tmp/cap.out")" = 36 ] && [ "$(kv oldest "$tmp/cap.out")" = yes ]; then
	pass $S "HTTP: $((peer_max + 36)) connections from one address: its 36 oldest dropped at once"
else
	fail $S "HTTP: $((peer_max + 36)) connections from one address: its 36 oldest dropped" \
		"$(oneline "$tmp/cap.out")"
fi
[ "$(kv scrape "$tmp/cap.out")" = 200 ] && [ "$(kv closed_after "$tmp/cap.out")" = 37 ] &&
	pass $S "HTTP: a scrape from that address, at its cap of $peer_max, answered in $(kv scrape_ms "$tmp/cap.out") ms, its oldest dropped" ||
	fail $S "HTTP: a scrape from an address at its cap" "$(oneline "$tmp/cap.out")"
stopped "1000 silent clients" "$tmp/httpd.err"

# The soft RLIMIT_NOFILE raised to the hard one; past the total cap (that
# limit less the spare descriptors), the oldest connections are dropped.
serve "$tmp/httpd2.err" prlimit --nofile=128:256
soft=$(awk '/^Max open files/ { print $4 }' "/proc/$hpid/limits")
fds=$(nfds)
[ "$soft" = 256 ] && pass $S "HTTP: the soft limit of descriptors raised to the hard one (128 to 256)" ||
	fail $S "HTTP: the soft limit of descriptors raised to the hard one" "soft ${soft:-?}, want 256"
total=$((256 - fd_spare))
addrs=$(seq -f "127.0.0.%g" 40 49)
# shellcheck disable=SC2086 # one address an argument
"$flood" cap "$port" $((total + 26)) "$total" 127.0.0.1 $addrs > "$tmp/total.out" 2>&1
if [ "$(kv closed "$tmp/total.out")" = 26 ] && [ "$(kv oldest "$tmp/total.out")" = yes ] &&
   [ "$(kv scrape "$tmp/total.out")" = 200 ] && [ "$(kv closed_after "$tmp/total.out")" = 27 ]; then
	pass $S "HTTP: $((total + 26)) connections past the total cap of $total: the 26 oldest dropped, a scrape answered"
else
	fail $S "HTTP: past the total cap of $total" "$(oneline "$tmp/total.out")"
fi

# accept() out of descriptors (the limit lowered under 40 held connections):
# the server drops its oldest connection, goes on, and serves again once
# the limit is back.
# (the connections of the check above closed first)
for _ in $(seq 100); do [ "$(nfds)" -le "$fds" ] && break; sleep 0.05; done
# (the held ones take the lowest free descriptors, from $low on)
low=0
while [ -e "/proc/$hpid/fd/$low" ]; do low=$((low + 1)); done
base=$(nfds)
"$flood" hold "$port" 40 127.0.0.50 "$tmp/held" 4 > "$tmp/hold.out" 2>&1 &
fpid=$!
pids+=("$fpid")
for _ in $(seq 100); do
	[ -e "$tmp/held" ] && [ "$(nfds)" -ge $((base + 40)) ] && break
	sleep 0.05
done
prlimit --pid "$hpid" --nofile=$((low + 4)):256
scrape && ok=yes || ok=no
prlimit --pid "$hpid" --nofile=256:256
if [ "$ok" = yes ] && grep -q "accept: Too many open files; the oldest connection dropped" "$tmp/httpd2.err"; then
	pass $S "HTTP: accept() out of descriptors (EMFILE): the oldest connection dropped, the scrape answered"
else
	fail $S "HTTP: accept() out of descriptors (EMFILE)" "scrape answered: $ok: $(oneline "$tmp/httpd2.err")"
fi
scrape && pass $S "HTTP: the limit back, the next scrape answered" ||
	fail $S "HTTP: the limit back, the next scrape answered" "$(oneline "$tmp/httpd2.err")"
wait "$fpid"
stopped "past its caps" "$tmp/httpd2.err"

# Every accept() error is survived: the resource ones pause accepting
# briefly, the others are retried (tests/tools/accept-fault.c injects them).
faults=ENOBUFS,ENOMEM,EPROTO,ENFILE,EMFILE,EPERM,ECONNABORTED,EINVAL
serve "$tmp/httpd3.err" env VGPU_ACCEPT_FAULTS=$faults
t0=$(date +%s%N)
scrape && ok=yes || ok=no
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
n=$(grep -c "^accept-fault: " "$tmp/httpd3.err")
[ "$ok" = yes ] && [ "$n" = 8 ] && [ "$ms" -le 3000 ] &&
	pass $S "HTTP: a scrape answered after accept() failed with $faults ($ms ms)" ||
	fail $S "HTTP: the server survives every accept() error" \
		"answered: $ok in $ms ms, $n of 8 faults: $(oneline "$tmp/httpd3.err")"
scrape && pass $S "HTTP: and the next scrape too" ||
	fail $S "HTTP: and the next scrape too" "$(oneline "$tmp/httpd3.err")"
stopped "accept() errors" "$tmp/httpd3.err"

# --- who reads the port: where it listens, a Unix socket, TLS, basic auth --------
# shellcheck source=tests/host/metrics-exposure.bash
. tests/host/metrics-exposure.bash

# --- account: a crash's STATE.next is settled before anything else ---------------
st=$tmp/acct.state out=$tmp/usage.jsonl
printf 'vgpu-account-state 1\ninstance 00000000000000aa\ncycle 1\nfinal-seq 0\n' > "$st"
# next_state OFFSET LEN: a STATE.next of cycle 2 whose records are at OFFSET, LEN bytes.
next_state() {
	printf 'vgpu-account-state 1\ninstance 00000000000000aa\ncycle 2\nfinal-seq 0\npending %s %s %s %s\n' \
		"$1" "$2" "$(stat -c %d "$out")" "$(stat -c %i "$out")" > "$st.next"
}
printf 'record-1\n' > "$out"
printf 'record-2\n' >> "$out"
next_state 9 9
expect "account settles a crash after the records were written" 1 "not loaded" account -o "$out" -s "$st"
grep -q "^cycle 2$" "$st" && [ ! -e "$st.next" ] && [ "$(wc -l < "$out")" = 2 ] &&
	pass $S "account: all the records there: STATE.next becomes the state" ||
	fail $S "account: all the records there: STATE.next becomes the state" "$(oneline "$st")"
printf 'vgpu-account-state 1\ninstance 00000000000000aa\ncycle 1\nfinal-seq 0\n' > "$st"
printf 'record-1\nrecord-2\nrec' > "$out"
next_state 9 20
expect "account settles a crash in the middle of the records" 1 "not loaded" account -o "$out" -s "$st"
[ "$(cat "$out")" = "record-1" ] && grep -q "^cycle 1$" "$st" && [ ! -e "$st.next" ] &&
	pass $S "account: part of the records there: cut back, the old state stays" ||
	fail $S "account: part of the records there: cut back" "$(oneline "$out") / $(oneline "$st")"
next_state 9 20
expect "account settles a crash before the records" 1 "not loaded" account -o "$out" -s "$st"
[ "$(cat "$out")" = "record-1" ] && grep -q "^cycle 1$" "$st" && [ ! -e "$st.next" ] &&
	pass $S "account: no record there: the old state stays" ||
	fail $S "account: no record there: the old state stays" "$(oneline "$out") / $(oneline "$st")"
printf 'vgpu-account-state 1\ncycle one\n' > "$st"
expect "account refuses a damaged state, naming the line" 1 \
	"Error: the state $st is damaged (line 2 is not valid: \"cycle one\"); nothing was recorded." \
	account -o "$out" -s "$st"
exec {lk}> "$st.lock"
flock "$lk"
expect "account refuses a second collector on the same state" 1 \
	"Error: another vgpuctl account uses the state $st." account -o "$out" -s "$st"
exec {lk}>&-

[ "$failures" -eq 0 ]
