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

#endif
