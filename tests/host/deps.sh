#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the pinned toolchain (suite "deps"):
# - tools/nvidia-deps unpacks NVIDIA's wheels pinned in tools/nvidia.lock
#   (from make deps' cache, offline) into a directory that is whole: the
#   headers, nvcc, the runtime and a copy of the lock; a second call
#   changes nothing, a stale copy (another lock) is replaced;
# - with the package index unreachable (a closed loopback port), or a
#   wheel whose sha256 is not the lock's, it fails with one line naming
#   what is missing and how to bring it (CUDA_INC=...), and leaves nothing
#   behind that a later make would take;
# - tools/go-check accepts the installed Go and refuses one older than
#   k8s/go.mod's go line, naming both versions.
# Every check prints "PASS: deps: what" or "FAIL: deps: what: detail".
suite=deps
. "$(dirname "$0")/lib.bash"

cache=build/deps/wheels
lock=tools/nvidia.lock

if [ ! -d "$cache" ] || [ -z "$(ls "$cache"/*.whl 2>/dev/null)" ]; then
	fail "the wheel cache" "$cache holds no wheel: run make deps first"
	exit 1
fi

# copy_cache NAME: a copy of the wheel cache in $tmp/w-NAME.
copy_cache() {
	mkdir -p "$tmp/w-$1"
	cp -l "$cache"/*.whl "$tmp/w-$1/" 2>/dev/null || cp "$cache"/*.whl "$tmp/w-$1/"
}
# offline NAME [CACHE]: tools/nvidia-deps into $tmp/NAME with the wheels
# of $tmp/w-NAME as the only index, and CACHE (default the same
# directory) as its wheel cache; its output in $tmp/out and $tmp/err.
offline() {
	[ -d "$tmp/w-$1" ] || copy_cache "$1"
	env VGPU_WHEELS="${2:-$tmp/w-$1}" PIP_NO_INDEX=1 PIP_FIND_LINKS="$tmp/w-$1" \
		tools/nvidia-deps "$tmp/$1" > "$tmp/out" 2> "$tmp/err"
}

# refused WHAT WANT DEST: the last call failed with exactly one line on
# stderr, a "deps:" line containing WANT and naming CUDA_INC=, and left
# neither DEST nor a half-unpacked DEST.tmp.* behind.
refused() {
	local what=$1 want=$2 dest=$3 rc=$4
	if [ "$rc" -eq 0 ]; then
		fail "$what" "succeeded: $(oneline "$tmp/out")"
	elif [ "$(wc -l < "$tmp/err")" -ne 1 ]; then
		fail "$what" "wanted one line on stderr, got: $(oneline "$tmp/err")"
	elif ! grep -q "^deps: .*$want.*CUDA_INC=DIR" "$tmp/err"; then
		fail "$what" "wanted '$want' and CUDA_INC=DIR in: $(oneline "$tmp/err")"
	elif [ -e "$dest" ] || ls -d "$dest".tmp.* > /dev/null 2>&1; then
		fail "$what" "left $(ls -d "$dest" "$dest".tmp.* 2>/dev/null | tr '\n' ' ')"
	else
		pass "$what: $(cat "$tmp/err")"
	fi
}

# --- a whole unpack, offline from the cache
if ! offline good; then
	fail "unpack from the cache" "$(oneline "$tmp/err")"
else
	missing=""
	for f in include/cuda.h include/cudaTypedefs.h include/cuda_runtime.h include/nvml.h \
		lib/libcudart.so.13 lib/libcudart_static.a nvvm/bin/cicc; do
		[ -s "$tmp/good/$f" ] || missing="$missing $f"
	done
	[ -x "$tmp/good/bin/nvcc" ] || missing="$missing bin/nvcc(executable)"
	if [ -n "$missing" ]; then
		fail "unpack from the cache" "missing:$missing"
	elif ! cmp -s "$lock" "$tmp/good/.lock"; then
		fail "unpack from the cache" "no copy of the lock in .lock"
	else
		pass "unpack from the cache: headers, nvcc, cicc, libcudart and the lock"
	fi
fi
if grep -q 'NVML_DEVICE_MEMORY_LIMIT_MAX' "$tmp/good/include/nvml.h" 2>/dev/null &&
   grep -q 'nvmlDeviceSetMemoryLimits_v1' "$tmp/good/include/nvml.h"; then
	pass "NVIDIA's nvml.h declares the per-cgroup memory limits (no hand copy needed)"
else
	fail "NVIDIA's nvml.h declares the per-cgroup memory limits" "not in $tmp/good/include/nvml.h"
fi
want=$(sed -n 's/^nvidia-cuda-runtime==\([0-9]*\)\.\([0-9]\).*/\1\2/p' "$lock")
got=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\)$/\1/p' "$tmp/good/include/cuda.h" 2>/dev/null)
if [ -n "$want" ] && [ "$((got / 1000))$((got % 1000 / 10))" = "$want" ]; then
	pass "cuda.h is the pinned release (CUDA_VERSION $got)"
else
	fail "cuda.h is the pinned release" "CUDA_VERSION '$got', lock pins $want"
fi
touch -d '2001-01-01' "$tmp/good/include/cuda.h"
if offline good && [ ! -s "$tmp/out" ] && [ "$(stat -c %Y "$tmp/good/include/cuda.h")" = \
	"$(date -d 2001-01-01 +%s)" ]; then
	pass "a second call with the same lock changes nothing"
else
	fail "a second call with the same lock changes nothing" "$(oneline "$tmp/out")"
fi
echo "an older lock" > "$tmp/good/.lock"
if offline good && cmp -s "$lock" "$tmp/good/.lock" && [ -s "$tmp/good/include/cuda.h" ] &&
   [ "$(stat -c %Y "$tmp/good/include/cuda.h")" != "$(date -d 2001-01-01 +%s)" ]; then
	pass "a copy from another lock is replaced"
else
	fail "a copy from another lock is replaced" "$(oneline "$tmp/err")"
fi
# nvcc builds a CUDA program with a kernel: cicc, ptxas, fatbinary and the
# static runtime all came.
printf '__global__ void k(int *p) { p[threadIdx.x] = 1; }\nint main() { k<<<1, 1>>>(0); return 0; }\n' \
	> "$tmp/k.cu"
if "$tmp/good/bin/nvcc" -o "$tmp/k" "$tmp/k.cu" > "$tmp/nvcc.log" 2>&1 && [ -x "$tmp/k" ]; then
	pass "the pinned nvcc compiles a kernel (.cu) and links the static runtime"
else
	fail "the pinned nvcc compiles a kernel (.cu)" "$(oneline "$tmp/nvcc.log")"
fi

# --- the index unreachable: a closed port on the loopback
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$tmp/empty"
env VGPU_WHEELS="$tmp/empty" PIP_FIND_LINKS= PIP_INDEX_URL="http://127.0.0.1:$port/simple" \
	tools/nvidia-deps "$tmp/down" > "$tmp/out" 2> "$tmp/err"
refused "the index unreachable: one line naming it and how to bring your own headers" \
	"could not be reached: http://127.0.0.1:$port/simple" "$tmp/down" $?

# --- a wheel that is not the one the lock pins
copy_cache bad
victim=$(ls "$tmp/w-bad"/nvidia_cuda_runtime-*.whl)
rm -f "$victim"
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").writestr("nvidia/cu13/include/cuda.h", "/* not from NVIDIA */\n")' \
	"$victim"
offline bad "$tmp/cache-bad"
refused "a wheel whose sha256 is not the lock's is refused" \
	"refused nvidia-cuda-runtime==.*sha256" "$tmp/bad" $?

# --- Go: the version k8s/go.mod names
want=$(sed -n 's/^go \([0-9.]*\)$/\1/p' k8s/go.mod)
if out=$(tools/go-check 2>&1); then
	pass "go-check: the installed $(go env GOVERSION) meets k8s/go.mod's go $want"
else
	fail "go-check: the installed Go" "$out"
fi
mkdir -p "$tmp/oldgo"
printf '#!/bin/sh\n[ "$1 $2" = "env GOVERSION" ] && echo go1.19.8\n' > "$tmp/oldgo/go"
chmod +x "$tmp/oldgo/go"
if out=$(PATH="$tmp/oldgo:$PATH" tools/go-check 2>&1); then
	fail "go-check: an older Go is refused" "accepted go1.19.8"
elif [ "$out" = "deps: go 1.19.8 is older than the $want k8s/go.mod needs" ]; then
	pass "go-check: an older Go is refused, naming both versions"
else
	fail "go-check: an older Go is refused, naming both versions" "$out"
fi
# No go on the PATH: a stub answering as the shell does for a missing command.
mkdir -p "$tmp/nogo"
printf '#!/bin/sh\nexit 127\n' > "$tmp/nogo/go"
chmod +x "$tmp/nogo/go"
what="go-check: no Go at all is one line naming the version needed"
if out=$(PATH="$tmp/nogo:/usr/bin:/bin" tools/go-check 2>&1); then
	fail "$what" "accepted"
elif [ "$out" = "deps: go not found: vgpu needs Go $want or newer (k8s/go.mod)" ]; then
	pass "$what"
else
	fail "$what" "$out"
fi

[ "$failures" -eq 0 ]
