/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel the clients launch, simgpu_spin(u64 ns), as PTX: simgpu takes
 * any image (its simgpu_spin runs ns of device time), and NVIDIA's driver
 * JIT-compiles this one, which spins for ns on the GPU's global timer, so
 * that the same clients run on a real GPU (tests/realgpu/run).
 */
#ifndef SPIN_PTX_H
#define SPIN_PTX_H

static const char cu_spin_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry simgpu_spin(.param .u64 ns)\n{\n"
	"\t.reg .pred %p;\n\t.reg .u64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [ns];\n\tmov.u64 %rd2, %globaltimer;\n"
	"\tadd.u64 %rd1, %rd1, %rd2;\nSPIN:\n\tmov.u64 %rd3, %globaltimer;\n"
	"\tsetp.lt.u64 %p, %rd3, %rd1;\n\t@%p bra SPIN;\n\tret;\n}\n";

#endif
