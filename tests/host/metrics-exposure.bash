# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/metrics.sh: who can read vgpuctl metrics --listen
# (Documentation/metrics.md, "Who reads the port"), on the loopback and a
# Unix socket only: PORT and :PORT listen on 127.0.0.1, every address only
# when named; a Unix socket is 0600 unless told, its permissions decide who
# connects (checked as nobody when run as root), a stale one is replaced,
# a live one or a file is not; TLS from a web configuration file (a
# throwaway CA made with openssl): scraped with curl --cacert, plain HTTP
# to it gets nothing, a missing or foreign client certificate is refused
# when RequireAndVerifyClientCert, a stalled handshake is dropped at the
# 5 s deadline beside answered scrapes, and the 1,000 idle connections
# check again over TLS; basic authentication (htpasswd's bcrypt): 401
# without or with wrong credentials, 200 with the right ones, 503 past the
# checks waiting and a remembered scraper answered at once beside them;
# each malformed web configuration refused at start, one error line, exit
# 1, nothing served. Uses metrics.sh's V, S, tmp, flood, pids, hpid, port,
# pass, fail, oneline, kv, expect, stopped, scrape.

# start_server ERR ARGS...: vgpuctl metrics ARGS in the background, its
# stderr into ERR; sets hpid; waits (5 s at most) for its "serving" line.
start_server() {
	local err=$1
	shift
	# (emptied first: the background job's redirection may come after the
	# wait below has read the last server's "serving" line)
	: > "$err"
	"$V" metrics "$@" 2> "$err" &
	hpid=$!
	pids+=("$hpid")
	for _ in $(seq 50); do
		grep -q "^vgpuctl metrics: serving" "$err" && return 0
		kill -0 "$hpid" 2> /dev/null || break
		sleep 0.1
	done
	fail $S "server started: $*" "$(oneline "$err")"
	return 1
}
newport() { port=$((20000 + RANDOM % 20000)); }
# listening: the local addresses listening on $port.
listening() { ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort | tr '\n' ' '; }

# --- where it listens ---------------------------------------------------------------
expect "metrics: --web.config.file needs --listen" 2 "Error: --web.config.file needs --listen." \
	metrics --web.config.file /dev/null
expect "metrics: --socket-mode needs a Unix socket" 2 \
	"Error: --socket-mode and --socket-group need --listen unix:PATH." \
	metrics --listen 127.0.0.1:9 --socket-mode 0600
expect "metrics: bad --socket-mode" 2 'Error: invalid MODE "0999" for --socket-mode' \
	metrics --listen unix:/x --socket-mode 0999
for a in PORT :PORT; do
	newport
	start_server "$tmp/default.err" --listen "${a/PORT/$port}" || continue
	got=$(listening)
	if [ "$got" = "127.0.0.1:$port " ] &&
	   grep -q "serving /metrics on 127.0.0.1:$port, plain HTTP, no authentication" "$tmp/default.err"; then
		pass $S "listen: --listen $a listens on the loopback only, and says so"
	else
		fail $S "listen: --listen $a listens on the loopback only" "listening on '$got': $(oneline "$tmp/default.err")"
	fi
	scrape && pass $S "listen: --listen $a is scraped at 127.0.0.1" ||
		fail $S "listen: --listen $a is scraped at 127.0.0.1" "$(oneline "$tmp/default.err")"
	stopped "--listen $a" "$tmp/default.err"
done
newport
if start_server "$tmp/all.err" --listen "0.0.0.0:$port"; then
	got=$(listening)
	[ "$got" = "0.0.0.0:$port " ] && pass $S "listen: every address only when named (0.0.0.0:PORT)" ||
		fail $S "listen: every address only when named" "listening on '$got'"
	stopped "--listen 0.0.0.0:PORT" "$tmp/all.err"
fi

# --- a Unix socket --------------------------------------------------------------------
# (its directory open to others, so that the permissions checked are the socket's)
chmod 711 "$tmp"
mkdir -m 755 "$tmp/run"
sock=$tmp/run/metrics.sock
# as_nobody CMD...: CMD as uid and gid 65534 (nobody, nogroup).
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
uscrape() { curl -s -m 5 --unix-socket "$sock" http://localhost/metrics | grep -qx "vgpu_up 0"; }
if start_server "$tmp/unix.err" --listen "unix:$sock"; then
	got=$(stat -c '%a %F' "$sock")
	[ "$got" = "600 socket" ] && pass $S "unix: the socket is created with mode 0600" ||
		fail $S "unix: the socket is created with mode 0600" "stat: $got"
	uscrape && pass $S "unix: GET /metrics is served over the socket" ||
		fail $S "unix: GET /metrics is served over the socket" "$(oneline "$tmp/unix.err")"
	if [ "$(id -u)" = 0 ]; then
		as_nobody curl -s -m 5 --unix-socket "$sock" http://localhost/metrics > "$tmp/nobody.out" 2>&1
		rc=$?
		[ "$rc" = 7 ] && ! grep -q vgpu_up "$tmp/nobody.out" &&
			pass $S "unix: another user cannot connect to the 0600 socket (curl status 7)" ||
			fail $S "unix: another user cannot connect to the 0600 socket" "curl status $rc: $(oneline "$tmp/nobody.out")"
	else
		echo "# unix: not root: the checks as another user are not run"
	fi
	"$V" metrics --listen "unix:$sock" > /dev/null 2> "$tmp/unix2.err" &
	p2=$!
	pids+=("$p2")
	for _ in $(seq 50); do kill -0 "$p2" 2> /dev/null || break; sleep 0.1; done
	if kill -0 "$p2" 2> /dev/null; then
		kill "$p2"
		wait "$p2"
		rc="still running"
	else
		wait "$p2"
		rc=$?
	fi
	if [ "$rc" = 1 ] && uscrape &&
	   grep -qF "Error: cannot listen on unix:$sock: a server is listening there." "$tmp/unix2.err"; then
		pass $S "unix: a second server on a live socket is refused, the first one still serves"
	else
		fail $S "unix: a second server on a live socket is refused" "exit $rc: $(oneline "$tmp/unix2.err")"
	fi
	kill -9 "$hpid"
	wait "$hpid" 2> /dev/null
	[ -S "$sock" ] && pass $S "unix: a server killed (SIGKILL) leaves its socket" ||
		fail $S "unix: a server killed (SIGKILL) leaves its socket" "no socket at $sock"
fi
if start_server "$tmp/unix3.err" --listen "unix:$sock" --socket-mode 0660 --socket-group 65534; then
	got=$(stat -c '%a %g' "$sock")
	[ "$got" = "660 65534" ] && uscrape &&
		pass $S "unix: the stale socket replaced, with --socket-mode 0660 --socket-group 65534" ||
		fail $S "unix: the stale socket replaced, with its mode and group" "stat: $got: $(oneline "$tmp/unix3.err")"
	if [ "$(id -u)" = 0 ]; then
		as_nobody curl -s -m 5 --unix-socket "$sock" http://localhost/metrics > "$tmp/nobody.out" 2>&1
		grep -qx "vgpu_up 0" "$tmp/nobody.out" &&
			pass $S "unix: a member of the socket's group connects to the 0660 socket" ||
			fail $S "unix: a member of the socket's group connects" "$(oneline "$tmp/nobody.out")"
	fi
	stopped "unix socket" "$tmp/unix3.err"
	[ ! -e "$sock" ] && pass $S "unix: the socket is removed at SIGTERM" ||
		fail $S "unix: the socket is removed at SIGTERM" "$(ls -l "$sock")"
fi
: > "$tmp/run/file"
expect "unix: a path that is not a socket is refused" 1 \
	"Error: cannot listen on unix:$tmp/run/file: it exists and is not a socket (not removed)." \
	metrics --listen "unix:$tmp/run/file"
[ -f "$tmp/run/file" ] && pass $S "unix: and it is left alone" || fail $S "unix: and it is left alone" "gone"

# --- TLS ----------------------------------------------------------------------------
# A throwaway CA, the server's certificate (for 127.0.0.1) and a client's;
# another CA and a client of its.
t=$tmp/tls
mkdir "$t"
# cert NAME CA [EXT]: NAME.key and NAME.crt signed by CA (self-signed when CA is "-").
cert() {
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=$1" \
		-keyout "$t/$1.key" -out "$t/$1.csr" 2> /dev/null || return 1
	if [ "$2" = - ]; then
		openssl x509 -req -in "$t/$1.csr" -signkey "$t/$1.key" -days 2 -out "$t/$1.crt" \
			-extfile <(printf 'basicConstraints=critical,CA:true\n') 2> /dev/null
	else
		openssl x509 -req -in "$t/$1.csr" -CA "$t/$2.crt" -CAkey "$t/$2.key" -CAcreateserial \
			-days 2 -out "$t/$1.crt" -extfile <(printf '%s\n' "${3:-basicConstraints=CA:false}") \
			2> /dev/null
	fi
}
if cert ca - && cert server ca "subjectAltName=IP:127.0.0.1" && cert client ca &&
   cert other-ca - && cert other other-ca; then
	pass $S "TLS: a throwaway CA and certificates made with openssl"
else
	fail $S "TLS: a throwaway CA and certificates made with openssl" "openssl failed"
fi
printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n' > "$t/tls.yml"
{ cat "$t/tls.yml"; printf '  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n'; } \
	> "$t/mtls.yml"
# tscrape CURL-ARGS...: a scrape over TLS gives vgpu_up 0.
tscrape() {
	curl -s -m 5 --cacert "$t/ca.crt" "$@" "https://127.0.0.1:$port/metrics" > "$tmp/tls.out" 2>&1
	grep -qx "vgpu_up 0" "$tmp/tls.out"
}
newport
if start_server "$tmp/tls.err" --listen "$port" --web.config.file "$t/tls.yml"; then
	grep -q "serving /metrics on 127.0.0.1:$port, TLS, no authentication" "$tmp/tls.err" &&
		pass $S "TLS: it says it serves TLS without authentication" ||
		fail $S "TLS: it says it serves TLS without authentication" "$(oneline "$tmp/tls.err")"
	tscrape && pass $S "TLS: scraped with curl --cacert" ||
		fail $S "TLS: scraped with curl --cacert" "$(oneline "$tmp/tls.out")"
	curl -s -m 5 "http://127.0.0.1:$port/metrics" > "$tmp/plain.out" 2>&1
	rc=$?
	[ "$rc" != 0 ] && ! grep -q vgpu_up "$tmp/plain.out" &&
		pass $S "TLS: plain HTTP to the TLS port gets nothing (curl status $rc)" ||
		fail $S "TLS: plain HTTP to the TLS port gets nothing" "curl status $rc: $(oneline "$tmp/plain.out")"
	tscrape && pass $S "TLS: and the next TLS scrape is answered" ||
		fail $S "TLS: and the next TLS scrape is answered" "$(oneline "$tmp/tls.out")"
	stopped "TLS" "$tmp/tls.err"
fi
newport
if start_server "$tmp/mtls.err" --listen "$port" --web.config.file "$t/mtls.yml"; then
	grep -q "serving /metrics on 127.0.0.1:$port, TLS with client certificates$" "$tmp/mtls.err" &&
		pass $S "mTLS: it says it requires client certificates" ||
		fail $S "mTLS: it says it requires client certificates" "$(oneline "$tmp/mtls.err")"
	tscrape && fail $S "mTLS: a client without a certificate is refused" "it was answered" ||
		pass $S "mTLS: a client without a certificate is refused"
	tscrape --cert "$t/other.crt" --key "$t/other.key" &&
		fail $S "mTLS: a certificate of another CA is refused" "it was answered" ||
		pass $S "mTLS: a certificate of another CA is refused"
	tscrape --cert "$t/client.crt" --key "$t/client.key" &&
		pass $S "mTLS: a client certificate of client_ca_file is answered" ||
		fail $S "mTLS: a client certificate of client_ca_file is answered" "$(oneline "$tmp/tls.out")"
	# A handshake that stops after part of its first record: the scrape
	# beside it answered at once, it dropped at the 5 s deadline.
	rm -f "$tmp/stall"
	"$flood" silent "$port" "$tmp/stall" 160303 > "$tmp/stall.out" &
	spid=$!
	pids+=("$spid")
	for _ in $(seq 100); do [ -e "$tmp/stall" ] && break; sleep 0.1; done
	t0=$(date +%s%N)
	tscrape --cert "$t/client.crt" --key "$t/client.key" && ok=yes || ok=no
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	[ "$ok" = yes ] && [ "$ms" -le 1000 ] &&
		pass $S "mTLS: a scrape beside a stalled handshake is answered at once ($ms ms)" ||
		fail $S "mTLS: a scrape beside a stalled handshake is answered at once" "$ok in $ms ms"
	wait "$spid"
	ms=$(kv closed_ms "$tmp/stall.out")
	[ "${ms:--1}" -ge 4500 ] && [ "$ms" -le 8000 ] &&
		pass $S "mTLS: the stalled handshake is dropped at the 5 s deadline ($ms ms)" ||
		fail $S "mTLS: the stalled handshake is dropped at the 5 s deadline" "after ${ms:-?} ms"
	# 1,000 silent connections and 20 TLS scrapes beside them (metrics.sh's check, over TLS).
	FLOOD_CAFILE=$t/ca.crt FLOOD_CERT=$t/client.crt FLOOD_KEY=$t/client.key \
		"$flood" idle "$port" 1000 20 20 > "$tmp/tidle.out" 2>&1
	ok=$(kv ok "$tmp/tidle.out") ms=$(kv max_ms "$tmp/tidle.out") n=$(kv closed "$tmp/tidle.out")
	[ "$(kv connected "$tmp/tidle.out")" = 1000 ] && [ "${ok:-0}" = 20 ] &&
	   [ "${ms:-99999}" -le 1500 ] && [ "${n:-0}" = 1000 ] &&
		pass $S "mTLS: 20 of 20 TLS scrapes beside 1000 silent connections answered, the slowest in $ms ms; the 1000 closed at their deadline" ||
		fail $S "mTLS: 20 TLS scrapes beside 1000 silent connections" "$(oneline "$tmp/tidle.out")"
	stopped "mTLS" "$tmp/mtls.err"
fi

# --- basic authentication -------------------------------------------------------------
# (cost 10: a check takes tens of ms, the 32 waiting checks a second or more)
hash=$(htpasswd -nbBC 10 prom s3cret | cut -d: -f2-)
printf 'basic_auth_users:\n  prom: %s\n  "other user": %s\n' "$hash" "$hash" > "$t/auth.yml"
# code WANT WHAT CURL-ARGS...: the status of GET /metrics (or the URL given last).
code() {
	local want=$1 what=$2 got
	shift 2
	got=$(curl -s -m 8 -o "$tmp/auth.out" -D "$tmp/auth.h" -w '%{http_code}' "$@" \
		"http://127.0.0.1:$port${path:-/metrics}")
	[ "$got" = "$want" ] && pass $S "basic auth: $what: $got" ||
		fail $S "basic auth: $what" "got $got, want $want: $(oneline "$tmp/auth.out")"
}
newport
if start_server "$tmp/auth.err" --listen "$port" --web.config.file "$t/auth.yml"; then
	grep -q "plain HTTP, basic authentication (2 users)" "$tmp/auth.err" &&
		pass $S "basic auth: it says it asks 2 users for a password" ||
		fail $S "basic auth: it says it asks 2 users for a password" "$(oneline "$tmp/auth.err")"
	code 401 "no credentials"
	grep -qi '^WWW-Authenticate: Basic realm="vgpu"' "$tmp/auth.h" &&
		pass $S "basic auth: the 401 asks for Basic credentials" ||
		fail $S "basic auth: the 401 asks for Basic credentials" "$(oneline "$tmp/auth.h")"
	code 401 "a wrong password" -u prom:wrong
	code 401 "an unknown user" -u nobody:s3cret
	code 401 "the password of another user's name" -u promx:s3cret
	code 200 "the right password" -u prom:s3cret
	grep -qx "vgpu_up 0" "$tmp/auth.out" && pass $S "basic auth: and the metrics with it" ||
		fail $S "basic auth: and the metrics with it" "$(oneline "$tmp/auth.out")"
	code 200 "a user name with a blank" -u "other user:s3cret"
	path=/other code 401 "another path without credentials"
	path=/other code 404 "another path with them" -u prom:s3cret
	# 60 wrong passwords at once: 32 wait for the checker, the others are
	# 503; the remembered scraper is answered at once beside them.
	rm -f "$tmp/checks"
	"$flood" checks "$port" 60 prom:wrong "$tmp/checks" > "$tmp/checks.out" 2>&1 &
	cpid=$!
	pids+=("$cpid")
	for _ in $(seq 100); do [ -e "$tmp/checks" ] && break; sleep 0.05; done
	t0=$(date +%s%N)
	code 200 "the right password while 60 wrong ones are checked" -u prom:s3cret
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait "$cpid"
	n401=$(kv s401 "$tmp/checks.out") n503=$(kv s503 "$tmp/checks.out")
	[ "$ms" -le 1000 ] && pass $S "basic auth: a remembered scraper waits for no check ($ms ms)" ||
		fail $S "basic auth: a remembered scraper waits for no check" "$ms ms, want <= 1000"
	[ "${n401:-0}" -ge 1 ] && [ "${n503:-0}" -ge 20 ] && [ $((n401 + n503)) = 60 ] &&
		pass $S "basic auth: 60 wrong passwords at once: $n401 checked (401), $n503 past the 32 waiting (503)" ||
		fail $S "basic auth: 60 wrong passwords at once" "$(oneline "$tmp/checks.out")"
	stopped "basic auth" "$tmp/auth.err"
fi
{ cat "$t/tls.yml"; printf 'basic_auth_users:\n  prom: %s\n' "$hash"; } > "$t/tls-auth.yml"
newport
if start_server "$tmp/ta.err" --listen "$port" --web.config.file "$t/tls-auth.yml"; then
	tscrape && fail $S "TLS and basic auth: no credentials, no metrics" "answered" ||
		pass $S "TLS and basic auth: no credentials, no metrics"
	tscrape -u prom:s3cret && pass $S "TLS and basic auth: the right credentials over TLS" ||
		fail $S "TLS and basic auth: the right credentials over TLS" "$(oneline "$tmp/tls.out")"
	stopped "TLS and basic auth" "$tmp/ta.err"
fi

# --- malformed web configurations: one error line, exit 1, nothing served -----------
# refused WHAT MESSAGE TEXT: a web configuration TEXT (printf's format) is
# refused at start with "Error: FILE:MESSAGE." alone on stderr (MESSAGE
# ending in "*": the start of the line).
refused() {
	local rc want="Error: $t/bad.yml:$2."
	# shellcheck disable=SC2059 # TEXT is a format
	printf "$3" > "$t/bad.yml"
	newport
	timeout 10 "$V" metrics --listen "$port" --web.config.file "$t/bad.yml" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		fail $S "web config: $1" "exit $rc, want 1: $(oneline "$tmp/err")"
	elif [ "$(wc -l < "$tmp/err")" != 1 ] || { [ "${2%\*}" = "$2" ] && [ "$(cat "$tmp/err")" != "$want" ]; } ||
	     [[ "$(cat "$tmp/err")" != "Error: $t/bad.yml:${2%\*}"* ]]; then
		fail $S "web config: $1" "want '$want', got: $(oneline "$tmp/err")"
	else
		pass $S "web config: $1: refused at start"
	fi
}
tls='tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n'
refused "an unknown key" "1: foo: unknown key" 'foo: 1\n'
refused "an unknown key of tls_server_config" "4: tls_server_config.cert_fil: unknown key" \
	"${tls}  cert_fil: x\n"
refused "a missing cert_file" \
	"2: tls_server_config.cert_file: cannot read $t/none.crt: No such file or directory" \
	'tls_server_config:\n  cert_file: none.crt\n  key_file: server.key\n'
refused "tls_server_config without key_file" "1: tls_server_config.key_file is missing" \
	'tls_server_config:\n  cert_file: server.crt\n'
refused "a key that does not match the certificate" \
	"3: tls_server_config.key_file: $t/client.key does not match cert_file $t/server.crt" \
	'tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n'
refused "a key file that is a certificate" \
	"3: tls_server_config.key_file: $t/ca.crt: no unencrypted PEM private key (*" \
	'tls_server_config:\n  cert_file: server.crt\n  key_file: ca.crt\n'
refused "a bad bcrypt hash" \
	"2: basic_auth_users.prom: not a bcrypt hash (\$2y\$, \$2b\$ or \$2a\$, a cost of 04-31, 53 characters of ./A-Za-z0-9: htpasswd -nBC 10 USER)" \
	'basic_auth_users:\n  prom: $2y$10$short\n'
refused "an MD5 htpasswd hash" \
	"2: basic_auth_users.prom: not a bcrypt hash (\$2y\$, \$2b\$ or \$2a\$, a cost of 04-31, 53 characters of ./A-Za-z0-9: htpasswd -nBC 10 USER)" \
	"basic_auth_users:\n  prom: $(htpasswd -nbm prom x | cut -d: -f2-)\n"
refused "an empty basic_auth_users" \
	"1: basic_auth_users is empty (leave it out to serve without authentication)" 'basic_auth_users:\n'
refused "RequireAnyClientCert" \
	"4: tls_server_config.client_auth_type: RequireAnyClientCert is not supported (it accepts any certificate: use RequireAndVerifyClientCert)" \
	"${tls}  client_auth_type: RequireAnyClientCert\n"
refused "RequireAndVerifyClientCert without client_ca_file" \
	"1: tls_server_config.client_auth_type RequireAndVerifyClientCert needs client_ca_file" \
	"${tls}  client_auth_type: RequireAndVerifyClientCert\n"
refused "min_version TLS10" "4: tls_server_config.min_version: TLS10 is not supported (TLS12 or TLS13)" \
	"${tls}  min_version: TLS10\n"
refused "cipher_suites" "4: tls_server_config.cipher_suites: not supported by vgpuctl" \
	"${tls}  cipher_suites:\n    - TLS_AES_128_GCM_SHA256\n"
refused "http_server_config" "1: http_server_config: not supported by vgpuctl" \
	'http_server_config:\n  http2: false\n'
openssl ec -in "$t/server.key" -aes128 -passout pass:x -out "$t/enc.key" 2> /dev/null
refused "an encrypted key (no passphrase is asked)" \
	"3: tls_server_config.key_file: $t/enc.key: no unencrypted PEM private key (*" \
	'tls_server_config:\n  cert_file: server.crt\n  key_file: enc.key\n'
refused "a tab in the indentation" "2: a tab in the indentation (YAML indents with spaces)" \
	'tls_server_config:\n\tcert_file: server.crt\n'
refused "a duplicate key" "4: a duplicate key" "${tls}  cert_file: server.crt\n"
refused "an anchor" "2: flow mappings, anchors, aliases, tags and block scalars are not supported" \
	'tls_server_config:\n  cert_file: &c server.crt\n'
refused "a quote not closed" "2: a quoted scalar not closed on its line" \
	'tls_server_config:\n  cert_file: "server.crt\n'
refused "a file that sets nothing" "1: neither tls_server_config nor basic_auth_users: the file changes nothing" \
	'# nothing\n'
expect "web config: a missing file" 1 \
	"Error: cannot read the web configuration $t/none.yml: No such file or directory." \
	metrics --listen 127.0.0.1:9 --web.config.file "$t/none.yml"
# (a refused configuration opened no socket: the last port is free)
[ -z "$(listening)" ] && pass $S "web config: a refused configuration listens on nothing" ||
	fail $S "web config: a refused configuration listens on nothing" "$(listening)"
