/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The checkpoint channel between a caller of cuCheckpointProcess*
 * (ckptapi.c) and the process it names (ckptsrv.c, the thread serving
 * the process's control socket, ckptpath.c), and the work done in that
 * process (checkpoint.c). One request and one reply per connection.
 */
#ifndef SIMGPU_CKPT_H
#define SIMGPU_CKPT_H

#include <stdint.h>

#include "simgpu.h"

#define SG_CKPT_MAGIC 0x53474b50u	/* "SGKP" */

enum sg_ckpt_op {
	SG_CKPT_STATE = 1, SG_CKPT_TID, SG_CKPT_LOCK, SG_CKPT_CHECKPOINT,
	SG_CKPT_RESTORE, SG_CKPT_UNLOCK,
};

struct sg_ckpt_pair {
	unsigned char old_uuid[16], new_uuid[16];
};

struct sg_ckpt_req {
	uint32_t magic;
	uint32_t op;
	uint32_t timeout_ms;		/* lock */
	uint32_t npairs;		/* restore: GPU remapping */
	struct sg_ckpt_pair pairs[SG_MAX_GPUS];
};

struct sg_ckpt_rep {
	int32_t result;			/* CUresult */
	int32_t state;			/* CUprocessState after the request */
	int32_t tid;			/* SG_CKPT_TID */
	int32_t pad;
};

/* ckptsrv.c: serve this process's control socket (cuInit); stop (exit). */
void simgpu_ckpt_serve(void);
void simgpu_ckpt_stop(void);

/* checkpoint.c, with the gate locked: move every device allocation's
 * bytes into host memory and give the GPUs' memory back, or fail and
 * change nothing; and the way back, onto the GPUs the pairs name. */
CUresult simgpu_ckpt_save(void);
CUresult simgpu_ckpt_load(const struct sg_ckpt_pair *pairs, unsigned int npairs);

#endif
