/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stand-in daemon's state (standind.c runs it): the GPU inventory,
 * the tenants and the connections. One thread, so no locks; the only
 * memory shared with others is each device connection's two pages, which
 * the processes write as they would the module's.
 */
#ifndef STANDIND_H
#define STANDIND_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "../../../uapi/vgpu.h"
#include "../../../uapi/vgpu_dev.h"
#include "standin.h"

#define STANDIN_TENANTS 64
#define STANDIN_CONNS 256
#define STANDIN_NAME 64
#define STANDIN_PATH 256

struct standin_gpu {
	int present;
	char uuid[VGPU_UUID_LEN + 1];
	char pci[32];
	uint64_t vram;
	int32_t numa;
};

struct standin_tenant {
	int present;
	uint32_t id;
	char name[STANDIN_NAME];
	char cgroup[STANDIN_PATH];
	uint64_t vram_max;	/* UINT64_MAX: none */
	uint64_t gpus;		/* allowed GPU indexes */
	int revoked[VGPU_DEV_GPUS];	/* the grant is taken (ctl) */
	unsigned int flip_ms[VGPU_DEV_GPUS];	/* flip every so often (0: no) */
	struct timespec flip_at[VGPU_DEV_GPUS];
	uint32_t grants[VGPU_DEV_GPUS];
	uint64_t failures[VGPU_DEV_GPUS];	/* charges refused */
};

struct standin_conn {
	int fd;			/* -1: a free slot */
	int kind;		/* 0 until the hello */
	pid_t pid;		/* the peer's, when it connected */
	/* STANDIN_DEV */
	int registered;
	uint32_t tenant;	/* its id; 0 outside every tenant */
	struct vgpu_dev_page *page;
	struct vgpu_dev_gate *gate;
	uint64_t charged[VGPU_DEV_GPUS];	/* what the process was charged */
	int waiting;		/* a VGPU_IOC_WAIT is owed an answer */
	struct standin_ioc wait;
	struct timespec wait_t0;
};

/* What a wrong stand-in looks like, for the tests' negative runs. */
enum { STANDIN_BREAK_NONE, STANDIN_BREAK_CHARGE, STANDIN_BREAK_VIEW };

struct standin {
	struct standin_gpu gpu[VGPU_DEV_GPUS];
	struct standin_tenant tenant[STANDIN_TENANTS];
	struct standin_conn conn[STANDIN_CONNS];
	uint32_t next_id;
	int brk;
};

/* acct.c: tenants, charges, views and grants */
struct standin_tenant *standin_tenant_by_name(struct standin *s, const char *name);
struct standin_tenant *standin_tenant_by_id(struct standin *s, uint32_t id);
uint32_t standin_tenant_of(struct standin *s, pid_t pid);
int standin_register(struct standin *s, struct standin_conn *c);
void standin_unregister(struct standin *s, struct standin_conn *c);
int standin_ioctl(struct standin *s, struct standin_conn *c, struct standin_ioc *m);
uint64_t standin_tenant_used(struct standin *s, uint32_t tenant, int gpu);
uint64_t standin_tenant_charged(struct standin *s, uint32_t tenant, int gpu);
void standin_set_grant(struct standin *s, struct standin_tenant *t, int gpu, int granted);
int standin_gpu_mask_ok(const struct standin_tenant *t, int gpu);
struct standin_tenant *standin_tenant_new(struct standin *s, const char *name, const char *cgroup,
					  int *err);
int standin_gpu_add(struct standin *s, int i, uint64_t vram, const char *uuid, const char *pci,
		    int32_t numa);

/* nl.c: the generic netlink family */
void standin_nl_packet(struct standin *s, struct standin_conn *c, const void *buf, size_t len);

/* ctl.c: the tests' controls */
void standin_ctl_line(struct standin *s, struct standin_conn *c, char *line);
int standin_flip_due(struct standin *s, int *timeout_ms);

/* standind.c: one control line to a daemon, its answer in @ans (0: "ok") */
int standin_ctl_ask(const char *path, const char *line, char *ans, size_t size);

/* probe.c: vgpu-standin probe SOCKET, NVML's GPUs added by control lines */
int standin_probe(const char *path);

#endif
