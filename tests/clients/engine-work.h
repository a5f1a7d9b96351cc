/* SPDX-License-Identifier: GPL-2.0 */
/* engine-client's commands work, waitvalue and errors (engine-work.c). */
#ifndef ENGINE_WORK_H
#define ENGINE_WORK_H

#include <cuda.h>
#include <stdint.h>

/* A stream of device dev's primary context, which is left not current. */
CUresult engine_dev_stream(int dev, CUcontext *ctx, CUstream *s);
CUresult engine_work(const char *kind, uint64_t bytes, uint64_t count);
CUresult engine_waitvalue(uint64_t ns, uint64_t count);
CUresult engine_errors(void);
/* The word at p (device memory) is want: CUDA_SUCCESS, else
 * CUDA_ERROR_ILLEGAL_ADDRESS or the copy's error. */
CUresult engine_check_word(CUdeviceptr p, uint32_t want);
/* engine-more.c: the kinds of work engine_work does not know (exits 2
 * on an unknown one), and their errors (the mismatches counted). */
CUresult engine_more(const char *kind, CUcontext c, CUstream s, uint64_t bytes, uint64_t count);
int engine_errors_more(CUcontext c, CUstream s);

#endif
