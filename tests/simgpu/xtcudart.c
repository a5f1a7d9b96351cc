// SPDX-License-Identifier: GPL-2.0
/*
 * The slots of the runtime's tables that simgpu models, each after the
 * driver API function it stands for (Documentation/simgpu.md, "Private
 * export tables"). Names and signatures follow ZLUDA's
 * dark_api/src/lib.rs; behaviour is simgpu's own. Only the slots CUDA
 * 13.5's runtime was seen to call are here; every other is a trap.
 * (13.5 loads its fatbins with cuLibraryLoadData, not through the
 * CUDART_INTERFACE module slots 1, 6 and 8.)
 */
#include "simgpu.h"
#include "exporttab.h"

/* CUDART_INTERFACE[2]: the handle of the device's primary context,
 * neither retained nor started: what cuDevicePrimaryCtxRetain later
 * answers (ZLUDA's test cudart_interface_fn2_creates_inactive_primary_ctx
 * saw cuDevicePrimaryCtxGetState report it inactive after the call). The
 * runtime asks it of every device at start. */
static CUresult sg_xt_primary(CUcontext *pctx, CUdevice dev)
{
	SG_XT_LOG("CUDART_INTERFACE[2] primary context of device %d", (int)dev);
	SG_INIT_CHECK();
	return simgpu_primary_handle(pctx, dev);
}

/* CUDART_INTERFACE[12]: loads the PTX compilers in NVIDIA's driver;
 * simgpu compiles nothing. */
static CUresult sg_xt_compilers(void)
{
	SG_XT_LOG("CUDART_INTERFACE[12] load compilers");
	return CUDA_SUCCESS;
}

/* TOOLS_RUNTIME_CALLBACK_HOOKS[2] and [6]: buffers the runtime shares with
 * tools (profilers' callbacks). No tool is attached: zeroed buffers of
 * the sizes ZLUDA answers (counted in 32-bit words), with room to spare. */
static uint64_t sg_xt_hookbuf1[1024], sg_xt_hookbuf2[14];

static void sg_xt_hooks2(void **p, size_t *size)
{
	SG_XT_LOG("TOOLS_RUNTIME_CALLBACK_HOOKS[2]");
	*p = sg_xt_hookbuf1;
	*size = 1024;
}

static void sg_xt_hooks6(void **p, size_t *size)
{
	SG_XT_LOG("TOOLS_RUNTIME_CALLBACK_HOOKS[6]");
	*p = sg_xt_hookbuf2;
	*size = 14;
}

/* CONTEXT_CHECKS[2]: flags of a context ZLUDA always saw 0. */
static CUresult sg_xt_ctx_check(CUcontext ctx, uint32_t *r1, const void **r2)
{
	SG_XT_LOG("CONTEXT_CHECKS[2] ctx %p", (void *)ctx);
	(void)r2;
	if (r1)
		*r1 = 0;
	return CUDA_SUCCESS;
}

/* CONTEXT_CHECKS[3]: ZLUDA always saw 0. */
static uint32_t sg_xt_check3(void)
{
	SG_XT_LOG("CONTEXT_CHECKS[3]");
	return 0;
}

/*
 * TOOLS_TLS[2] and TOOLS_CONTEXT[4], which cuBLASLt 13.4 (its CUDA 13.0
 * runtime) calls at each launch, seen disassembled: TOOLS_TLS[2](&x),
 * then TOOLS_CONTEXT[4](x, &key) and key looked up in an ordered map of
 * 64-bit keys (its kernels loaded per context). Modelled as the calling
 * thread's current context and that context's unique id (cuCtxGetId's):
 * with them cublasSgemm and cublasLtMatmul find their kernels; with
 * TOOLS_TLS[2] failing, its caller skips the lookup and cuBLASLt answers
 * "Failed to query heuristics" (CUBLAS_STATUS_NOT_SUPPORTED).
 */
static CUresult sg_xt_tls_ctx(CUcontext *out)
{
	SG_XT_LOG("TOOLS_TLS[2] current context");
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	*out = simgpu_ctx_current();
	return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

static CUresult sg_xt_tools_ctx_id(CUcontext ctx, unsigned long long *id)
{
	SG_XT_LOG("TOOLS_CONTEXT[4] ctx %p", (void *)ctx);
	if (!id)
		return CUDA_ERROR_INVALID_VALUE;
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	*id = ctx->id;
	return CUDA_SUCCESS;
}

#define F(fn) ((void *)(fn))
void *const sg_xt_tls_slots[4] = { [2] = F(sg_xt_tls_ctx) };
void *const sg_xt_tctx_slots[95] = { [4] = F(sg_xt_tools_ctx_id) };
void *const sg_xt_cudart_slots[13] = {
	[2] = F(sg_xt_primary), [12] = F(sg_xt_compilers),
};
void *const sg_xt_hooks_slots[7] = { [2] = F(sg_xt_hooks2), [6] = F(sg_xt_hooks6) };
void *const sg_xt_cls_slots[4] = {
	[0] = F(sg_xt_cls_put), [1] = F(sg_xt_cls_delete), [2] = F(sg_xt_cls_get),
};
void *const sg_xt_integrity_slots[3] = { [1] = F(sg_xt_integrity) };
void *const sg_xt_checks_slots[4] = { [2] = F(sg_xt_ctx_check), [3] = F(sg_xt_check3) };
