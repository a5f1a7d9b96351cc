# SPDX-License-Identifier: GPL-2.0
#
# tests/realgpu/run's procaddr step: judges simgpu-client's look-ups.
#   awk -v drv=DRIVER_VERSION -f procaddr.awk HOOKS ASKS ANSWERS
# HOOKS: "symbol base" per hooked CUDA symbol (hookcheck list); ASKS:
# "base version suffix" per (base, version) of cudaTypedefs.h, suffix the
# _ptsz/_ptds form there or "-"; ANSWERS: simgpu-client's lines,
#   lookup BASE VERSION FLAGS -> SYMBOL status S in LIBRARY
#   lookup BASE VERSION FLAGS -> CUDA_ERROR_... status S
# A hooked base must answer, at flags 0 a wrapper of that base without a
# per-thread suffix and at flags 2 its _pt* form where the header has one,
# in libvgpu; every hooked symbol must be answered by some look-up; the
# unhooked bases asked must stay outside libvgpu. A version newer than the
# driver may be CUDA_ERROR_NOT_FOUND (counted, not judged). Prints "bad"
# lines and one "summary" line of shell assignments.
FILENAME == ARGV[1] { hooked[$1] = $2; hb[$2] = 1; next }
FILENAME == ARGV[2] { pt[$1 " " $2] = $3; next }
$1 != "lookup" { next }
{
	base = $2; ver = $3 + 0; flags = $4; ans = $6; st = $8; lib = $10
	if (!(base in hb)) {
		if (ans ~ /^CUDA_ERROR/ || lib ~ /^libvgpu/) {
			passthru++
			print "bad unhooked " $0
		}
		next
	}
	asked++
	if (ans ~ /^CUDA_ERROR/) {
		if (drv > 0 && ver > drv) {
			newer++
			newbase[base] = 1
		} else {
			missing++
			print "bad not-found " $0
		}
		next
	}
	why = ""
	if (lib !~ /^libvgpu/)
		why = "outside libvgpu"
	else if (!(ans in hooked) || hooked[ans] != base)
		why = "not a wrapper of " base
	else if (st != 0)
		why = "status " st
	else if (flags == 2 && pt[base " " $3] != "-" && ans !~ (pt[base " " $3] "$"))
		why = "want the " pt[base " " $3] " form"
	else if (flags == 0 && ans ~ /_pt[sd][sz]$/)
		why = "a per-thread form at flags 0"
	if (why != "") {
		bad++
		print "bad " why ": " $0
	} else
		got[ans] = 1
}
END {
	for (s in hooked)
		if (!(s in got) && !(hooked[s] in newbase))
			unc = unc (unc == "" ? "" : " ") s
	printf "summary asked=%d bad=%d newer=%d missing=%d passthru=%d uncovered=\"%s\"\n",
	       asked, bad, newer, missing, passthru, unc
}
