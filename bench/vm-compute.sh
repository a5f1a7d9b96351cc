#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compute benchmark (bench/run): the scenarios of the compute suite
# (tests/vm/suites/80-compute.sh, copied to /extra), whose checks print
# their figures, then compute-max at the default 100 ms period, which the
# suite does not check (each period's stop and start costs about 2 ms of
# device time under emulation). bench/run turns the lines into a table.
# vm-debug: off
. /extra/80-compute.sh
cap 100000
killall -9 simgpu-client 2>/dev/null
