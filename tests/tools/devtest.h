/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu-devtest's parts: the driver and its process steps (vgpu-devtest.c),
 * the /dev/vgpu side (devtest-dev.c) and the netlink side (devtest-nl.c).
 * Every step returns 0 or -errno and prints "WORD key=value ..." lines.
 */
#ifndef VGPU_DEVTEST_H
#define VGPU_DEVTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../../uapi/vgpu.h"
#include "../../uapi/vgpu_dev.h"

/* ---- helpers (vgpu-devtest.c) ---- */

/* The name of errno value @e ("ENOMEM"), or "E<number>". */
const char *devtest_errname(int e);
/* CLOCK_MONOTONIC in microseconds. */
double devtest_now_us(void);

/* ---- /dev/vgpu (devtest-dev.c) ---- */

/* The open /dev/vgpu, or -1. */
extern int devtest_dev_fd;
/* Its mapped page, or NULL. */
extern struct vgpu_dev_page *devtest_page;

/* Forgets the device (fd, page and gate) without closing or unmapping it. */
void devtest_dev_forget(void);
/* open: open /dev/vgpu (O_CLOEXEC) and map its page, unless open already. */
int devtest_step_open(void);
/* close-dev: unmap the gate and the page, close /dev/vgpu. */
int devtest_step_close_dev(void);
/* open-many N: open N more files (kept), print how many opened and why not. */
int devtest_step_open_many(unsigned long n);
/* charge GPU BYTES: VGPU_IOC_CHARGE. */
int devtest_step_charge(uint32_t gpu, uint64_t bytes);
/* release GPU BYTES: VGPU_IOC_RELEASE. */
int devtest_step_release(uint32_t gpu, uint64_t bytes);
/* meminfo GPU: VGPU_IOC_MEMINFO. */
int devtest_step_meminfo(uint32_t gpu);
/* alloc GPU BYTES: libvgpu's fast path (CAS on avail, CHARGE when short). */
int devtest_step_alloc(uint32_t gpu, uint64_t bytes);
/* free GPU BYTES: back to avail, release the surplus over twice the keep. */
int devtest_step_free(uint32_t gpu, uint64_t bytes);
/* page [GPU]: print the page (all non-empty slots, or GPU's; -1: all). */
int devtest_step_page(int gpu);
/* poke GPU FIELD VALUE: a raw write into the page; -EINVAL when refused. */
int devtest_step_poke(uint64_t gpu, const char *field, uint64_t value);
/* mmap-check: the mappings the module must refuse are refused. */
int devtest_step_mmap_check(void);
/* placement: VGPU_IOC_PLACEMENT. */
int devtest_step_placement(void);
/* wait-placement SECONDS: wait for placement_seq to move, then placement. */
int devtest_step_wait_placement(long secs);
/* gate [GPU]: map the gate if not yet and print it (-1: every busy GPU). */
int devtest_step_gate(int gpu);
/* gate-check: the gate cannot be written. */
int devtest_step_gate_check(void);
/* wait GPU [DRAIN_NS]: VGPU_IOC_WAIT. */
int devtest_step_wait(uint32_t gpu, uint64_t drain_ns);
/* run GPU MS GAP_US: launch like libvgpu's gate for MS ms. */
int devtest_step_run(uint32_t gpu, uint64_t ms, uint64_t gap_us);
/* dofork-check: madvise(MADV_DOFORK) is refused on the page and the gate. */
int devtest_step_dofork_check(void);
/* waiters GPU N SECS: N threads each wait for a grant (EINTR: again) for SECS s. */
int devtest_step_waiters(uint32_t gpu, unsigned long n, uint64_t secs);
/* fork-hold SECONDS: a child keeps every fd, tries a CHARGE, sleeps. */
int devtest_step_fork_hold(long secs);

/* ---- netlink (devtest-nl.c) ---- */

/* The kernel's extended ack message for the last request, or empty. */
extern char devtest_errmsg[256];

/* What host-get reports. */
struct vgpu_host_info {
	uint32_t policy, procs;
};

/* Opens the netlink socket if needed and resolves the vgpu family. */
int devtest_nl_family(void);
/* Forgets the netlink socket (and family) without closing it. */
void devtest_nl_forget(void);
/* host-get into @h. */
int devtest_host_get(struct vgpu_host_info *h);
/* register-fd FD: proc-register naming @fd; @quiet prints nothing. */
int devtest_step_register_fd(int fd, bool quiet);
/* gpus-auto N: the following proc-registers ask for N GPUs (0: none). */
void devtest_set_gpus_auto(uint32_t n);
/* register: open /dev/vgpu if needed, proc-register with its fd. */
int devtest_step_register(bool quiet);
/* procs: proc-get dump. */
int devtest_step_procs(void);
/* usage / usage-of TENANT: tenant-get dump (@tenant NULL: every tenant). */
int devtest_step_usage(const char *tenant);
/* host: host-get, printed. */
int devtest_step_host(void);
/* host-set allow|deny. */
int devtest_step_host_set(const char *policy);
/* gpu-readd INDEX VRAM: gpu-del then gpu-add, back to back. */
int devtest_step_gpu_readd(uint32_t index, uint64_t vram);
/* A tenant-get or proc-get dump, replies dropped (hammer-read). */
int devtest_dump_quiet(uint8_t cmd);
/* close-socket: close the netlink socket. */
int devtest_step_close_socket(void);

/* devtest-bench.c */
int devtest_step_bench_register(long n);
int devtest_step_parallel(long n);

/* devtest-contend.c */
/* bench-charge GPU BYTES N: time N rounds of CHARGE BYTES, RELEASE all. */
int devtest_step_bench_charge(uint32_t gpu, uint64_t bytes, long n);
/* hammer GPU BYTES REGS ROUNDS: REGS registrations charging in turn. */
int devtest_step_hammer(uint32_t gpu, uint64_t bytes, long regs, long rounds);
/* hammer-read GPU WHAT REGS ROUNDS: REGS registrations reading in turn. */
int devtest_step_hammer_read(uint32_t gpu, const char *what, long regs, long rounds);

#endif /* VGPU_DEVTEST_H */
