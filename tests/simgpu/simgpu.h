/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simgpu driver internals. cuda.h is included the way NVIDIA builds its own
 * driver (__CUDA_API_VERSION_INTERNAL): no macro renames our definitions,
 * and the legacy and per-thread-stream prototypes are all declared, so every
 * versioned name (cuMemAlloc, cuMemAlloc_v2, cuLaunchKernel_ptsz, ...) is
 * defined under its own name.
 */
#ifndef SIMGPU_H
#define SIMGPU_H

#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shm.h"

#if !defined(CUDA_VERSION) || CUDA_VERSION < 11080
#error "simgpu needs cuda.h from CUDA 11.8 or later"
#endif

#define SG_API __attribute__((visibility("default")))

#define SG_DRIVER_VERSION (CUDA_VERSION > 13000 ? CUDA_VERSION : 13000)
#define SG_GRANULARITY (2ULL << 20)
#define SG_PAGE 4096ULL
/* cuCtxGetLimit's defaults: stack per thread, printf FIFO, malloc heap */
#define SG_STACK 1024ULL
#define SG_FIFO (1ULL << 20)
#define SG_HEAP (8ULL << 20)
/* Peer contexts one context may enable: the Programming Guide's limit of
 * eight peer connections per device ("Peer-to-Peer Memory Access"). */
#define SG_PEERS 8
#define SG_ROUND(x, a) (((x) + (a) - 1) / (a) * (a))

enum sg_magic {
	SG_CTX_MAGIC = 0x43545831, SG_STREAM_MAGIC = 0x53545231,
	SG_EVENT_MAGIC = 0x45564e31, SG_MOD_MAGIC = 0x4d4f4431,
	SG_FUNC_MAGIC = 0x46554e31, SG_LIB_MAGIC = 0x4c494231,
	SG_POOL_MAGIC = 0x504f4f31, SG_ARRAY_MAGIC = 0x41525231,
	SG_GRAPH_MAGIC = 0x47524131, SG_NODE_MAGIC = 0x4e4f4431,
	SG_EXEC_MAGIC = 0x45584531, SG_VMM_MAGIC = 0x564d4d31,
};

struct CUctx_st {
	uint32_t magic;
	int dev;
	unsigned int flags;
	int primary;
	int alive;
	uint64_t id;
	uint64_t charged;
	uint64_t stack, fifo, heap;	/* cuCtxSetLimit's; 0: the default */
	struct CUstream_st *streams;	/* all streams, linked by next */
	struct CUstream_st *null_stream;
	struct CUgreenCtx_st *green;	/* the green context it stands for */
	/* cuCtxEnablePeerAccess's peers (peer.c), each with its id then. */
	struct CUctx_st *peer[SG_PEERS];
	uint64_t peer_id[SG_PEERS];
};

enum sg_op_kind {
	SG_OP_KERNEL, SG_OP_COPY, SG_OP_SET, SG_OP_RECORD, SG_OP_WAIT,
	SG_OP_HOST, SG_OP_POOL_FREE, SG_OP_UNCHARGE, SG_OP_STOP, SG_OP_WAIT_VALUE,
};

/* A kernel launch as a graph kernel node keeps it (graphkern.c):
 * simgpu knows no parameter sizes, so params and extra are the caller's
 * pointers, not copies of the values. */
struct sg_kparams {
	struct CUfunc_st *func;
	unsigned int grid[3], block[3], shmem;
	void **params, **extra;
	struct CUctx_st *ctx;
};

struct sg_op {
	struct sg_op *next;
	enum sg_op_kind kind;
	uint64_t ns;
	void *dst;
	const void *src;
	size_t n;		/* bytes (copy) or elements (set) per row */
	size_t rows;		/* 2D: rows of n, 0 or 1 for 1D */
	size_t dpitch, spitch;	/* 2D: bytes between rows */
	size_t slices;		/* 3D: slices of rows, 0 or 1 for 2D */
	size_t dslice, sslice;	/* 3D: bytes between slices */
	uint64_t val;		/* set, stream write or wait value */
	int elsize;		/* set: 1, 2, 4 or 8 bytes; wait value: 4 or 8 */
	unsigned int flags;	/* wait value: CU_STREAM_WAIT_VALUE_* */
	struct CUevent_st *ev;
	uint64_t seq;
	CUhostFn fn;
	void *arg;
	CUdeviceptr ptr;
	uint64_t ready_ns;	/* when the host queued it */
	struct sg_kparams kp;	/* kernel: the launch, for stream capture */
};

struct CUstream_st {
	uint32_t magic;
	struct CUctx_st *ctx;
	unsigned int flags;
	int prio;
	int kind;		/* 0 created, 1 legacy NULL stream, 2 per-thread */
	uint64_t id;
	struct sg_op *head, *tail;
	uint64_t submitted, completed;
	uint64_t clock_ns;	/* device time its last operation ended */
	uint64_t run_end;	/* device end of the kernel running now, or 0 */
	int started, destroyed;
	/* Stream capture (capture.c): the capture it belongs to, its
	 * operations captured so far and how many of them are joined. */
	struct sg_capture *cap;
	uint64_t cap_ops, cap_joined;
	pthread_cond_t cv;
	struct CUstream_st *next;
};

struct CUevent_st {
	uint32_t magic;
	unsigned int flags;
	uint64_t recorded, done;
	uint64_t t_ns;
	int destroyed;
	/* Last recorded in capture cap_id (0: outside any), on stream
	 * cap_src after its first cap_mark captured operations. */
	uint64_t cap_id, cap_mark;
	struct CUstream_st *cap_src;
};

/* The legacy launches' parameter space (legacylaunch.c), bytes. */
#define SG_PARAM_SPACE 4096

struct CUfunc_st {
	uint32_t magic;
	int spin;
	/* Set by cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSet*
	 * for cuLaunch, cuLaunchGrid(Async) (legacylaunch.c). */
	unsigned int bx, by, bz, shmem, psize;
	unsigned char param[SG_PARAM_SPACE];
	struct CUmod_st *mod;
	struct CUfunc_st *next;
	char name[256];
	/* cuKernelSetAttribute's values (kernel.c), under mod->lk; bit a
	 * of kset: attribute a was set. */
	int kattr[32];
	unsigned int kset;
};

struct sg_global {
	struct sg_global *next;
	void *mem;
	char name[128];
};

struct CUmod_st {
	uint32_t magic;
	struct CUctx_st *ctx;
	int lazy;		/* CUDA_MODULE_LOADING is not EAGER */
	uint64_t charged;	/* its code and data in VRAM, once loaded */
	struct CUmod_st *all;	/* every module, linked (module.c) */
	struct CUfunc_st *funcs;
	struct sg_global *globals;
	struct CUlib_st *lib;	/* the library it is, or NULL (module.c) */
	struct sg_libload *loads; /* a library's code, per context (module.c) */
	pthread_mutex_t lk;
};

/* A library's code loaded into one context (libload.c): charge it once
 * per context (0 or CUDA_ERROR_OUT_OF_MEMORY), give back ctx's (NULL:
 * every context's). */
struct sg_libload {
	struct CUctx_st *ctx;
	int dev;
	uint64_t bytes;
	struct sg_libload *next;
};
CUresult simgpu_lib_charge(struct CUmod_st *m, struct CUctx_st *ctx);
void simgpu_lib_uncharge(struct CUmod_st *m, struct CUctx_st *ctx);

struct CUlib_st {
	uint32_t magic;
	struct CUmod_st *mod;
};

struct sg_chunk;

struct CUmemPoolHandle_st {
	uint32_t magic;
	int dev;		/* < 0: host memory (HOST, HOST_NUMA) */
	int is_default;
	uint64_t threshold;
	uint64_t reserved, reserved_high, used, used_high;
	struct sg_chunk *chunks;	/* what it reserves (pool.c) */
	CUmemPoolProps props;
};

struct CUarray_st {
	uint32_t magic;
	int dev;
	uint64_t charged;
	CUDA_ARRAY3D_DESCRIPTOR desc;
	void *data;
	int levels;		/* >0: a mipmapped array */
};

/* link.c, graphkern.c: the current names, which cuda.h declares only
 * outside __CUDA_API_VERSION_INTERNAL (as macros for the plain names). */
CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *o, void **v, CUlinkState *out);
CUresult cuLinkAddData_v2(CUlinkState l, CUjitInputType t, void *d, size_t n, const char *name,
			  unsigned int no, CUjit_option *o, void **v);
CUresult cuLinkAddFile_v2(CUlinkState l, CUjitInputType t, const char *path, unsigned int no,
			  CUjit_option *o, void **v);
#if CUDA_VERSION >= 12000
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p);
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n,
					   const CUDA_KERNEL_NODE_PARAMS *p);
#endif

/* ---- globals (init.c) ---- */
extern struct sg_config simgpu_cfg;
/* SIMGPU_SELFCALL=plt: some entry points call sibling exports through the
 * dynamic linker (selfcall.c). */
int simgpu_selfcall(void);
extern int simgpu_ready;		/* cuInit succeeded */
extern pid_t simgpu_pid;
extern int simgpu_slot;			/* this process in simgpu_shm->procs */
extern volatile int simgpu_exiting;
extern pthread_mutex_t simgpu_lk;	/* guards process-local objects */
extern pthread_cond_t simgpu_cv;	/* broadcast on any completion */

/*
 * gate.c: the gate every exported driver entry point passes, first thing
 * (SG_GATE()), so that cuCheckpointProcessLock can block further calls
 * and wait for those in progress; it is left when the function returns.
 */
struct sg_gate_tok { int outer; };
struct sg_gate_tok simgpu_gate_enter(void);
void simgpu_gate_leave(struct sg_gate_tok *t);
#define SG_GATE() \
	struct sg_gate_tok sg_gate_tok_ __attribute__((cleanup(simgpu_gate_leave), unused)) = \
		simgpu_gate_enter()
/* The calling thread never blocks at the gate (the control thread). */
void simgpu_gate_inside(void);
/* Close the gate and wait for calls inside to leave: 0, or -1 after
 * timeout_ms (0: none), the gate open again. */
int simgpu_gate_lock(unsigned int timeout_ms);
void simgpu_gate_unlock(void);

#define SG_INIT_CHECK() \
	do { if (!simgpu_ready) return CUDA_ERROR_NOT_INITIALIZED; } while (0)

/* ---- visible.c: CUDA_VISIBLE_DEVICES; CUDA ordinal -> GPU index ---- */
extern int simgpu_vis[SG_MAX_GPUS];
extern int simgpu_nvis;			/* the device count */
int simgpu_visible_parse(const struct sg_config *cfg, const char *cvd, int *vis);
void simgpu_visible_load(void);
static inline int simgpu_phys(int dev)
{
	return simgpu_vis[dev];
}

/* ---- device.c ---- */
CUresult simgpu_check_dev(CUdevice dev);

/* ---- ctx.c ---- */
struct CUctx_st *simgpu_ctx_current(void);
CUresult simgpu_ctx_get(struct CUctx_st **out);	/* current, or error */
CUresult simgpu_ctx_sync(struct CUctx_st *ctx);
int simgpu_ctx_valid(struct CUctx_st *ctx);
/* Start a context (charges SIMGPU_CTX_VRAM) / stop it (frees what is
 * bound to it); greenctx.c's contexts use them too. */
CUresult simgpu_ctx_start(struct CUctx_st *c, int dev, unsigned int flags, int prim);
void simgpu_ctx_stop(struct CUctx_st *c);
/* cuDevicePrimaryCtxRetain/Release for simgpu's own use (internal calls
 * must not go through the exported, interposable symbols). */
CUresult simgpu_primary_retain(CUcontext *pctx, CUdevice dev);
CUresult simgpu_primary_release(CUdevice dev);
CUresult simgpu_primary_handle(CUcontext *pctx, CUdevice dev);

/* ---- engine.c ---- */
uint64_t simgpu_kernel_begin(int dev, uint64_t ns, uint64_t ready_ns, uint64_t *token);
void simgpu_kernel_finish(int dev, uint64_t token, uint64_t end);
void simgpu_sleep_until(uint64_t deadline);
CUresult simgpu_charge(int dev, uint64_t bytes);
void simgpu_uncharge(int dev, uint64_t bytes);
void simgpu_ctx_count(int dev, int delta);

/* ---- stream.c ---- */
CUresult simgpu_stream_resolve(CUstream h, int ptds, struct CUstream_st **out);
CUresult simgpu_stream_submit(struct CUstream_st *s, struct sg_op *op);
struct sg_op *simgpu_op_new(enum sg_op_kind kind);
CUresult simgpu_stream_sync(struct CUstream_st *s);
extern unsigned int simgpu_sync_waiters;
void simgpu_stream_destroy_all(struct CUctx_st *ctx);
/* Wait until all the work queued on the process's streams has run. */
void simgpu_stream_drain(void);
/* A new stream of ctx (cuStreamCreateWithPriority's checks done). */
CUresult simgpu_stream_create(struct CUctx_st *ctx, CUstream *ph, unsigned int flags, int prio);

/* ---- capture.c ---- */
extern int simgpu_captures;		/* live captures in the process */
/* An operation for stream s while captures are live: 1 when capture
 * took it (and freed it; *rc says how), 0 when it is to run. */
int simgpu_capture_op(struct CUstream_st *s, struct sg_op *op, CUresult *rc);
/* cuMemAllocAsync on s: 1 when s captures (an allocation node). */
int simgpu_capture_alloc(struct CUstream_st *s, size_t size, CUdeviceptr *dptr, CUresult *rc);
/* A potentially unsafe call by this thread: 0, or the error it fails
 * with (the captures that prohibit it are invalidated). */
CUresult simgpu_capture_unsafe(void);
/* Synchronising or querying s (a stream), ctx (all its streams) or an
 * event: 0, or the error (the capture concerned is invalidated). */
CUresult simgpu_capture_sync_stream(struct CUstream_st *s);
CUresult simgpu_capture_sync_ctx(struct CUctx_st *ctx);
CUresult simgpu_capture_sync_event(struct CUevent_st *ev);

/* ---- mem.c: a registry of every range this process handed out ---- */
enum sg_mem_kind {
	SG_MEM_DEVICE, SG_MEM_MANAGED, SG_MEM_HOST, SG_MEM_POOL,
	SG_MEM_VA, SG_MEM_GRAPH, SG_MEM_GLOBAL,
};

struct sg_range {
	uintptr_t base;
	size_t size;		/* bytes asked for */
	size_t mapsize;		/* bytes mapped */
	enum sg_mem_kind kind;
	int dev;
	int in_use;		/* pool memory: handed out (always, while listed) */
	uint64_t charged;
	struct CUctx_st *ctx;
	struct CUmemPoolHandle_st *pool;
	uint64_t id;		/* CU_POINTER_ATTRIBUTE_BUFFER_ID (simgpu_range_add) */
};

void *simgpu_map(size_t size, size_t align, int low32);
void simgpu_unmap(void *p, size_t size);
struct sg_range *simgpu_range_add(const struct sg_range *r);
struct sg_range *simgpu_range_find(uintptr_t p, int exact);	/* simgpu_lk held */
void simgpu_range_del(struct sg_range *r);			/* simgpu_lk held */
CUresult simgpu_dev_ptr(CUdeviceptr p, size_t n);
CUresult simgpu_mem_alloc(CUdeviceptr *out, size_t size, enum sg_mem_kind kind,
			  int low32);
CUresult simgpu_mem_free(CUdeviceptr p);
void simgpu_mem_release_ctx(struct CUctx_st *ctx);
/* fn on every range, simgpu_lk held; stops at fn's first non-zero. */
int simgpu_range_each(int (*fn)(const struct sg_range *r, void *arg), void *arg);
/* vmm.c: fn on each mapping's backing memfd and its size, likewise. */
int simgpu_vmm_each_mapped(int (*fn)(int fd, size_t size, void *arg), void *arg);
int simgpu_vmm_mapping(uintptr_t va, uintptr_t *base, size_t *size, int *dev,
		       unsigned long long *htypes);

/* ---- graphmem.c: the per-device reserve of graph memory ---- */
/* A graph allocation of bytes on dev: the reserve grows (charged) if the
 * graph memory in use would exceed it. */
CUresult simgpu_graphmem_take(int dev, uint64_t bytes);
/* cuGraphUpload: the reserve grows to hold bytes more than in use. */
CUresult simgpu_graphmem_reserve(int dev, uint64_t bytes);
/* A graph allocation freed: its memory stays reserved. */
void simgpu_graphmem_put(int dev, uint64_t bytes);

/* ---- pool.c ---- */
void simgpu_pool_free_op(CUdeviceptr p);
void simgpu_pool_trim_all(void);
CUresult simgpu_pool_alloc(struct CUmemPoolHandle_st *pool, size_t size,
			   CUdeviceptr *out);

/* ---- copybatch.c: a batch copy's pointer operand of n bytes ---- */
CUresult simgpu_batch_operand(CUdeviceptr p, size_t n);
#if CUDA_VERSION >= 12080
/* copybatch3d.c: one 3D batch op, checked, then queued on stream h. */
CUresult simgpu_copy3d_op(const CUDA_MEMCPY3D_BATCH_OP *op, CUstream h, int ptds);
#endif

/* ---- array.c: a plain array's contents, element size and extent ---- */
CUresult simgpu_array_data(struct CUarray_st *a, unsigned char **data, size_t *elsize);
void simgpu_array_extent(const struct CUarray_st *a, size_t *w, size_t *h, size_t *z);

/* ---- module.c ---- */
void simgpu_module_release_ctx(struct CUctx_st *ctx);
/* A kernel launch on stream h (its checks, then queued). */
CUresult simgpu_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		       unsigned int bx, unsigned int by, unsigned int bz,
		       CUstream h, void **params, void **extra, int ptds);
/* A copy's or memset's bytes moved (copy.c), and its device time. */
void simgpu_move(const struct sg_op *op);
uint64_t simgpu_op_copy_ns(const struct sg_op *op);
/* Queue a copy or set op on stream h; sync: and wait for it (copy.c). */
CUresult simgpu_copy_issue(CUstream h, int ptds, int sync, struct sg_op *op);
/* cuMemcpyAsync's copy of n bytes (copy.c). */
CUresult simgpu_memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h, int ptds);
/* memops.c: a wait value op, blocking its stream until it holds. */
void simgpu_wait_value(const struct sg_op *op);
/* Device time of a copy or memset of bytes (copy_bw). */
uint64_t simgpu_copy_ns(uint64_t bytes);
/* Hold dev's engine for ns from ready_ns on (queued behind other work);
 * returns the device end. */
uint64_t simgpu_engine_run(int dev, uint64_t ns, uint64_t ready_ns);
uint64_t simgpu_kernel_ns(struct CUfunc_st *f, void **params, void **extra);
CUresult simgpu_func_check(CUfunction f);

/* entry.c: cuGetProcAddress's answers under SIMGPU_PROCADDR=distinct */
int sg_entry_build(void *const *fns, size_t n);	/* once, all functions */
void *sg_entry_point(void *fn);			/* fn's stub, or fn */
void *simgpu_procaddr_miss_stub(const char *symbol);	/* procmiss.c */
CUresult simgpu_mem_alloc_newer(CUdeviceptr *dptr, size_t bytesize);	/* mem.c */

/* pause.c: wait inside fn while $SIMGPU_PAUSE_IN names it (a test's hold). */
void simgpu_pause_point(const char *fn);
/* dmem.c: the kernel's dmem controller, with dmem = on. */
CUresult simgpu_dmem_charge(int dev, uint64_t bytes);
void simgpu_dmem_uncharge(int dev, uint64_t bytes);

#endif
