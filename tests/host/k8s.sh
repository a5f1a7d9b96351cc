#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the DRA kubelet plugin, k8s/ (suite "k8s"):
# - the modules are those go.sum names (go mod verify), and nothing edits
#   go.mod or go.sum (GOFLAGS=-mod=readonly);
# - the sources are gofmt'd, go vet finds nothing, the plugin builds;
# - every Go test (go test -json, read by tests/tools/go-test-lines) is
#   one line, "PASS: k8s: PKG: TestName (SECONDS s)" or a FAIL with the
#   failed subtests and output; a package that does not build is a FAIL;
# - a claim's CDI spec validates against the CDI JSON schema of Debian
#   12's CDI library (tests/tools/cdi-schema-check, as in ctl-containers);
# - the line reader itself turns a Go build failure into a FAIL (a broken
#   module of its own in a temporary directory).
# Every check prints "PASS: k8s: what" or "FAIL: k8s: what: detail".
# Modules come through the Go module proxy on a first run (GOPROXY; see
# Documentation/testing.md for the time it takes), then from Go's cache.
suite=k8s
. "$(dirname "$0")/lib.bash"
cd "$top/k8s" || exit 1
oneline() { head -c "${2:-600}" "$1" | tr '\n' '|'; }
# -trimpath as make k8s builds: the packages make compiled are reused.
export GOFLAGS="-mod=readonly -trimpath" GOTOOLCHAIN=local

if ! command -v go > /dev/null; then
	fail "go" "no go on the PATH: install Go $(sed -n 's/^go //p' go.mod) or newer (make deps says how)"
	exit 1
fi

# step WHAT CMD...: one check, its output as the detail when it fails.
step() {
	local what=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then
		pass "$what"
	else
		fail "$what" "$(oneline "$tmp/out")"
	fi
}

step "go.sum verifies the modules (go mod verify)" go mod verify
unformatted=$(gofmt -l . 2>&1)
if [ -z "$unformatted" ]; then
	pass "gofmt: every file formatted"
else
	fail "gofmt" "not formatted: $(echo "$unformatted" | tr '\n' ' ')"
fi
step "go vet ./... finds nothing" go vet ./...
step "go vet finds nothing in the VM test (-tags vmtest, k8s/vmtest/run)" go vet -tags vmtest ./internal/driver
step "the plugin builds (go build ./...)" go build -o "$tmp/plugin" ./cmd/vgpu-kubelet-plugin

mkdir -p "$tmp/cdi"
VGPU_K8S_CDI_OUT=$tmp/cdi go test -count=1 -json ./... 2> "$tmp/stderr" |
	"$top/tests/tools/go-test-lines" k8s || failures=$((failures + 1))
[ ! -s "$tmp/stderr" ] || echo "# go test: $(oneline "$tmp/stderr")"

# The claim's CDI spec (TestCDISpec wrote a copy) against the CDI JSON
# schema, as vgpuctl cdi generate's is (tests/host/ctl-containers.bash).
CDI_SRC=${CDI_SRC:-/usr/share/gocode/src/github.com/container-orchestrated-devices/container-device-interface}
spec=$tmp/cdi/vgpu.io-claim_u1.json
if [ ! -r "$CDI_SRC/schema/schema.json" ] || ! python3 -c 'import jsonschema' 2> /dev/null; then
	fail "a claim's CDI spec validates against the CDI schema" "no CDI schema at $CDI_SRC or no python3 jsonschema: run make deps"
elif [ ! -s "$spec" ]; then
	fail "a claim's CDI spec validates against the CDI schema" "TestCDISpec wrote no spec"
elif python3 "$top/tests/tools/cdi-schema-check" "$CDI_SRC" "$spec" > "$tmp/out" 2>&1; then
	pass "a claim's CDI spec validates against the CDI schema (cdiVersion 0.5.0)"
else
	fail "a claim's CDI spec validates against the CDI schema" "$(oneline "$tmp/out")"
fi

# The node's Kubernetes versions (tools/k8s.lock): the newest release,
# whose staging modules the driver builds against, then the one before.
lock=$top/tools/k8s.lock
read -r _ kv1 sv1 < <(grep -m 1 '^kubernetes ' "$lock")
read -r _ kv2 _ < <(grep '^kubernetes ' "$lock" | sed -n 2p)
api=$(sed -n 's/^[[:space:]]*k8s.io\/api \(v[^ ]*\).*/\1/p' go.mod)
m1=${kv1#v1.} m2=${kv2#v1.}
if [ "$api" = "$sv1" ] && [ "${m2%%.*}" -eq $((${m1%%.*} - 1)) ] 2> /dev/null; then
	pass "tools/k8s.lock pins Kubernetes $kv1 (the driver's k8s.io/api $api) and $kv2, the release before"
else
	fail "tools/k8s.lock pins the driver's release and the one before" "lock: $kv1 ($sv1), $kv2; k8s/go.mod's k8s.io/api: $api"
fi
# A version the lock does not pin is refused before anything is built.
if VGPU_K8S_VERSION=1.35 VGPU_CACHE=$tmp/cache "$top/tools/k8s-deps" > "$tmp/out" 2>&1; then
	fail "tools/k8s-deps refuses VGPU_K8S_VERSION=1.35" "it succeeded: $(oneline "$tmp/out")"
elif grep -q "VGPU_K8S_VERSION is 1.35: tools/k8s.lock pins $kv1, $kv2" "$tmp/out" && [ ! -e "$tmp/cache/k8s" ]; then
	pass "tools/k8s-deps refuses VGPU_K8S_VERSION=1.35, naming the pinned $kv1 and $kv2, and makes nothing"
else
	fail "tools/k8s-deps refuses VGPU_K8S_VERSION=1.35, naming the pinned versions" "$(oneline "$tmp/out")"
fi

# The reader's own check: a module that does not compile is a FAIL line.
mkdir -p "$tmp/broken"
printf 'module broken\n\ngo 1.21\n' > "$tmp/broken/go.mod"
printf 'package broken\n\nfunc F() int { return "x" }\n' > "$tmp/broken/b.go"
printf 'package broken\n\nimport "testing"\n\nfunc TestF(t *testing.T) { F() }\n' > "$tmp/broken/b_test.go"
(cd "$tmp/broken" && go test -json ./... 2>&1) | "$top/tests/tools/go-test-lines" selftest > "$tmp/self"
if [ "${PIPESTATUS[1]}" -ne 0 ] && grep -q '^FAIL: selftest: .*build' "$tmp/self" &&
	! grep -q '^PASS' "$tmp/self"; then
	pass "a Go build failure is a FAIL line"
else
	fail "a Go build failure is a FAIL line" "$(oneline "$tmp/self")"
fi
[ "$failures" -eq 0 ]
