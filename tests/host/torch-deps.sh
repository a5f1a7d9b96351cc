#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of PyTorch's pinned venv and VM disk (suite "torch-deps"):
# - tools/torch-deps --image, with both built (make check runs it first), prints the
#   disk's path and nothing else, and rebuilds nothing (a second run costs
#   nothing);
# - the venv holds every wheel of tools/torch.lock at its pinned version;
# - the disk holds the venv, python3.11, its standard library with its
#   .pyc files (their sources' times kept, so the VM compiles nothing) and
#   the system libraries torch needs;
# - with the package index unreachable (a closed loopback port) and an
#   empty cache, it fails with one last line saying so, exit 1, and leaves
#   no venv or disk behind that a later run would take.
# Every check prints "PASS: torch-deps: what" or "FAIL: torch-deps: what: detail".
suite=torch-deps
. "$(dirname "$0")/lib.bash"

PATH=$PATH:/usr/sbin:/sbin

if ! img=$(tools/torch-deps --image 2> "$tmp/err"); then
	fail "the disk is built" "tools/torch-deps failed (make check runs it first): $(tail -n 1 "$tmp/err")"
	exit 1
fi
# Again: with both built, nothing is rebuilt (no message, the same file);
# not timed, as another run may hold the cache's lock for a moment.
ino=$(stat -c %i "$img" 2>/dev/null)
img2=$(tools/torch-deps --image 2> "$tmp/err")
if [ -s "$img" ] && [ "$img2" = "$img" ] && [ "$(echo "$img" | wc -l)" = 1 ] &&
	[ ! -s "$tmp/err" ] && [ "$(stat -c %i "$img" 2>/dev/null)" = "$ino" ]; then
	pass "--image prints the built disk's path alone and rebuilds nothing"
else
	fail "--image prints the built disk's path alone and rebuilds nothing" \
		"'$img2' (was '$img', inode $ino now $(stat -c %i "$img" 2>/dev/null)), stderr: $(head -c 300 "$tmp/err")"
fi

# The venv: the directory beside the disk with the .done mark.
venv=$(ls -d "$(dirname "$img")"/venv-* 2>/dev/null | while read -r d; do
	[ -e "$d/.done" ] && echo "$d"; done | head -n 1)
want=$(sed -n 's/^\([A-Za-z0-9_.-]*\)==\([^ ]*\) .*/\1 \2/p' tools/torch.lock | sort -f)
have=$("$venv/bin/python" - <<'EOF' 2>&1
import importlib.metadata as m
for d in m.distributions():
    print(d.metadata["Name"], d.version)
EOF
)
missing=$(echo "$want" | while read -r n v; do
	grep -qix "$n $v" <<< "$have" || echo "$n==$v"; done | tr '\n' ' ')
if [ -n "$venv" ] && [ -z "$missing" ]; then
	pass "the venv holds the lock's $(echo "$want" | wc -l) wheels at their pinned versions"
else
	fail "the venv holds the lock's wheels at their pinned versions" "venv '$venv', missing: $missing"
fi

# What the disk holds (debugfs reads it without mounting).
for f in /usr/bin/python3.11 /usr/lib/python3.11/os.py \
	/usr/lib/python3.11/lib-dynload /usr/lib/x86_64-linux-gnu/libstdc++.so.6 \
	/venv/pyvenv.cfg /venv/lib/python3.11/site-packages/torch/__init__.py \
	/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so; do
	if grep -q '^Inode:' <<< "$(debugfs -R "stat $f" "$img" 2>/dev/null)"; then
		pass "the disk holds $f"
	else
		fail "the disk holds $f" "not in $img"
	fi
done
pyc=$(cd /usr/lib/python3.11/__pycache__ && ls os.cpython-311.pyc 2>/dev/null)
m1=$(debugfs -R "stat /usr/lib/python3.11/os.py" "$img" 2>/dev/null | sed -n 's/^ *mtime: \(0x[0-9a-f]*\).*/\1/p')
m2=$(printf '0x%x' "$(stat -c %Y /usr/lib/python3.11/os.py)")
if [ -n "$pyc" ] && [ "$m1" = "$m2" ]; then
	pass "the standard library's times are kept ($m1), so its .pyc files hold"
else
	fail "the standard library's times are kept" "disk $m1, host $m2"
fi

# An unreachable index and nothing cached: one line, exit 1, nothing left.
env -u PIP_FIND_LINKS -u PIP_NO_INDEX VGPU_CACHE="$tmp/cache" \
	PIP_INDEX_URL=http://127.0.0.1:9/simple tools/torch-deps --image > "$tmp/out" 2> "$tmp/err"
rc=$?
left=$(ls -d "$tmp"/cache/torch/venv-* "$tmp"/cache/torch/*.img* "$tmp"/cache/torch/stage.* 2>/dev/null)
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ -z "$left" ] &&
	grep -q '^torch-deps: could not install torch (the package index could not be reached)' <<< "$(tail -n 1 "$tmp/err")"; then
	pass "an unreachable index: exit 1, saying so, nothing left"
else
	fail "an unreachable index: exit 1, saying so, nothing left" \
		"exit $rc, stdout '$(head -c 200 "$tmp/out")', left '$left', stderr: $(tail -n 1 "$tmp/err")"
fi

[ "$failures" -eq 0 ]
