// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel launches pass the compute gate (gate.h) before the driver sees
 * them: cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and
 * their per-thread-stream (_ptsz) forms, the deprecated cuLaunch,
 * cuLaunchGrid, cuLaunchGridAsync and cuLaunchCooperativeKernelMultiDevice;
 * cuGraphLaunch(_ptsz) in graph.c.
 *
 * Each wrapper is two tail calls: while the tenant holds the GPU, the
 * inlined fast path (a few loads, one relaxed increment) and a jump to
 * the driver with the caller's arguments untouched; otherwise a jump to
 * the wrapper's slow twin, which resolves the driver, registers on first
 * use, finds the GPU, drains and waits (libvgpu_launch_slow), then calls the
 * driver, and after the thread's every M-th launch marks its streams
 * (vgpu_launch_done: the queue bound, queue.h). Unregistered processes,
 * GPUs outside the inventory and a module without a gate page pass
 * through the slow twin ungated and unmarked.
 *
 * A library's kernel (a CUkernel launched as a CUfunction) not yet
 * measured in a known context leaves the fast path: its first use there
 * loads its code, measured and charged before the launch (lazyload.c).
 *
 * The stream of a launch, for the marks: hStream (config->hStream for
 * cuLaunchKernelEx); 0 in a _ptsz form is the thread's per-thread stream,
 * named CU_STREAM_PER_THREAD so that the event goes where the launch went.
 */
#include "engine.h"
#include "../access/nest.h"

#define KERNEL_PARAMS								\
	(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,		\
	 unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,	\
	 unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,	\
	 void **kernelParams, void **extra)
#define KERNEL_ARGS								\
	(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,	\
	 sharedMemBytes, hStream, kernelParams, extra)
#define COOP_PARAMS								\
	(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,		\
	 unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,	\
	 unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,	\
	 void **kernelParams)
#define COOP_ARGS								\
	(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,	\
	 sharedMemBytes, hStream, kernelParams)
#define EX_PARAMS (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
#define EX_ARGS (config, f, kernelParams, extra)

#define EX_ST(c) ((void *)((c) ? (c)->hStream : NULL))
#define EX_ST_PT(c) ((void *)((c) && (c)->hStream ? (c)->hStream : CU_STREAM_PER_THREAD))

ENGINE_F(cuLaunchKernel, KERNEL_PARAMS, KERNEL_ARGS, ST(hStream), f)
ENGINE_F(cuLaunchKernel_ptsz, KERNEL_PARAMS, KERNEL_ARGS, ST_PT(hStream), f)
ENGINE_F(cuLaunchKernelEx, EX_PARAMS, EX_ARGS, EX_ST(config), f)
ENGINE_F(cuLaunchKernelEx_ptsz, EX_PARAMS, EX_ARGS, EX_ST_PT(config), f)
ENGINE_F(cuLaunchCooperativeKernel, COOP_PARAMS, COOP_ARGS, ST(hStream), f)
ENGINE_F(cuLaunchCooperativeKernel_ptsz, COOP_PARAMS, COOP_ARGS, ST_PT(hStream), f)

/* The deprecated launches. cuLaunch and cuLaunchGrid run on the current
 * context's NULL stream, cuLaunchGridAsync on hStream; their block shape
 * and parameters are the function's state, set by calls the gate need
 * not see (cuFuncSetBlockShape, cuParamSet*). */
ENGINE_F(cuLaunch, (CUfunction f), (f), ST(NULL), f)
ENGINE_F(cuLaunchGrid, (CUfunction f, int grid_width, int grid_height),
       (f, grid_width, grid_height), ST(NULL), f)
ENGINE_F(cuLaunchGridAsync, (CUfunction f, int grid_width, int grid_height, CUstream hStream),
       (f, grid_width, grid_height, hStream), ST(hStream), f)

/* Rounds of gates before a multi-device launch goes with one closed. */
#define COOP_ROUNDS 16

/* Whether every GPU in gpu[0..n) (outside 0..VGPU_DEV_GPUS-1: ungated,
 * or not known) is still granted. */
static int coop_granted(const int *gpu, unsigned int n)
{
	const struct vgpu_dev_gate *gp = __atomic_load_n(&libvgpu_gate.gate, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; gp && i < n; i++)
		if (gpu[i] >= 0 && gpu[i] < VGPU_DEV_GPUS &&
		    !__atomic_load_n(&gp->gpu[gpu[i]].granted, __ATOMIC_RELAXED))
			return 0;
	return 1;
}

/*
 * One kernel per device, each on its entry's stream: every entry's GPU
 * passes its own gate before the driver sees the launch, one after the
 * other (a closed gate waits there; the gates passed counted their
 * launch). A gate passed earlier may close while a later one waits (its
 * holder looked idle): the entries then pass again, until all are open at
 * once or COOP_ROUNDS rounds have passed (then the launch goes, one
 * kernel over a share). A gate that passed with a mark due leaves it in
 * the thread's state, where the next entry's slow path would take it for
 * its own fast path's and not wait: it is set aside until every entry has
 * passed, then the driver's answer goes to vgpu_launch_done for the last
 * mark due (the queue bound's mark covers the thread's last launches
 * whatever their GPU).
 */
VGPU_EXPORT CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *launchParamsList,
							  unsigned int numDevices,
							  unsigned int flags)
{
	VGPU_PASS_NESTED(cuLaunchCooperativeKernelMultiDevice, (launchParamsList, numDevices, flags));
	vgpu_pfn_cuLaunchCooperativeKernelMultiDevice real =
		REAL(cuLaunchCooperativeKernelMultiDevice);
	int gpu[VGPU_DEV_GPUS], mark = 0;
	/* More entries than GPUs: the driver refuses it; pass them once. */
	unsigned int n = launchParamsList ? numDevices : 0;
	int rounds = n <= VGPU_DEV_GPUS ? COOP_ROUNDS : 1;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	for (int r = 0; r < rounds; r++) {
		for (unsigned int i = 0; i < n; i++) {
			void *st = launchParamsList[i].hStream;

			vgpu_launch_gate(st);
			if (libvgpu_gate_tls.mark) {
				mark = libvgpu_gate_tls.mark;
				libvgpu_gate_tls.mark = 0;
			}
			if (i < VGPU_DEV_GPUS)	/* the thread's cache holds st now */
				gpu[i] = vgpu_gate_gpu(&libvgpu_gate, st);
		}
		if (rounds == 1 || coop_granted(gpu, n))
			break;
	}
	libvgpu_gate_tls.mark = mark;
	return vgpu_launch_done(real(launchParamsList, numDevices, flags));
}
