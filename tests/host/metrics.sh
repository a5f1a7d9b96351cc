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
#   server against real sockets (it serves vgpu_up 0 without the module):
#   /metrics, 404, 405, 431, a client that sends nothing, SIGTERM; -o
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
unit prom ctl/prom.c ctl/httpd.c ctl/snap.c ctl/final.c ctl/nl.c ctl/parse.c ctl/parse_sched.c \
	ctl/parse_meta.c ctl/util.c ctl/print.c ctl/json.c
unit account ctl/acct_state.c ctl/acct_record.c ctl/snap.c ctl/final.c ctl/nl.c ctl/parse.c \
	ctl/parse_id.c ctl/json.c

# --- vgpuctl metrics and account without the module ----------------------------
S=metrics
V=build/asan/ctl/vgpuctl-metrics
mkdir -p build/asan/ctl
if ! "$CC" "${WARN[@]}" -O1 -g "${SAN[@]}" "${NL_CFLAGS[@]}" \
	-I"${NVML_INC:-build/deps/cuda/include}" ctl/*.c -o "$V" "${NL_LIBS[@]}" -ldl \
	2> "$tmp/cc.err"; then
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
port=$((20000 + RANDOM % 20000))
"$V" metrics --listen "127.0.0.1:$port" 2> "$tmp/httpd.err" &
hpid=$!
pids+=("$hpid")
for _ in $(seq 50); do
	curl -s -o /dev/null "http://127.0.0.1:$port/" && break
	sleep 0.1
done
# req WHAT WANT_STATUS_LINE PRINTF_REQUEST
req() {
	local got
	got=$(printf "$3" | timeout 10 python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=8)
s.sendall(sys.stdin.buffer.read())
print(s.makefile("rb").readline().decode().strip())' "$port" 2>&1)
	[ "$got" = "$2" ] && pass $S "HTTP: $1" || fail $S "HTTP: $1" "got '$got', want '$2'"
}
out=$(curl -s -D "$tmp/h" "http://127.0.0.1:$port/metrics")
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
# A client that connects and sends nothing: dropped after 5 s, then the
# next one is served.
# (it says when it is connected: python's start can take longer than the
# wait a fixed sleep would give it on a loaded host)
python3 -c '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(8)' "$port" "$tmp/silent" &
pids+=("$!")
for _ in $(seq 100); do [ -e "$tmp/silent" ] && break; sleep 0.1; done
sleep 0.2
t0=$(date +%s%N)
out=$(curl -s -m 15 "http://127.0.0.1:$port/metrics")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if grep -qx "vgpu_up 0" <<< "$out" && [ "$ms" -ge 3000 ] && [ "$ms" -le 9000 ]; then
	pass $S "HTTP: a silent client is dropped after the 5 s timeout, the next one served ($ms ms)"
else
	fail $S "HTTP: a silent client is dropped after the 5 s timeout" "$ms ms: $out"
fi
kill "$hpid"
wait "$hpid"
rc=$?
[ "$rc" -eq 0 ] && pass $S "HTTP: the server ends with status 0 on SIGTERM" ||
	fail $S "HTTP: the server ends with status 0 on SIGTERM" "status $rc: $(oneline "$tmp/httpd.err")"
grep -q "AddressSanitizer\|runtime error" "$tmp/httpd.err" &&
	fail $S "HTTP: no sanitizer report" "$(oneline "$tmp/httpd.err")" ||
	pass $S "HTTP: no sanitizer report"

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
