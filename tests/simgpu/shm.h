/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simgpu: configuration and the state shared by every process on the host.
 * No CUDA or NVML types here: the driver, NVML and simgpu-stat all use it.
 */
#ifndef SIMGPU_SHM_H
#define SIMGPU_SHM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SG_MAX_GPUS	16
#define SG_MAX_PROCS	512
#define SG_MAX_CGROUPS	128
#define SG_MAX_WAITERS	1024
#define SG_CGROUP_LEN	256
#define SG_MAX_LIMITS	64
#define SG_MAX_EXPORTS	256
/* A process's kind, from $SIMGPU_PROC_KIND when it registers. */
#define SG_KIND_COMPUTE	0
#define SG_KIND_GRAPHICS	1
#define SG_KIND_MPS	2
#define SG_NO_LIMIT	(~0ULL)	/* a hard limit that is none */
#define SG_MAX_NVLINKS	18	/* links per GPU: NVML_NVLINK_MAX_LINKS */
#define SG_PCI_DEPTH	4	/* host bridge, then up to 3 PCIe switches */

#define SG_STATE_MAGIC	0x53494d47505531ULL	/* "SIMGPU1" */
#define SG_STATE_VERSION 9
#define SG_DEFAULT_STATE "/dev/shm/simgpu-state"
#define SG_DEFAULT_CONFIG "/etc/simgpu.conf"
#define SG_DEFAULT_PIDD "/dev/shm/simgpu-pidd.sock"

/* ---- configuration (config.c) ---- */
struct sg_gpu_config {
	char uuid[48];		/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
	char pci[32];		/* "0000:01:00.0" */
	unsigned int domain, bus, device, function;
	int numa;
	uint64_t vram;
	int sms;
	unsigned char nvlink[SG_MAX_GPUS];	/* NVLinks to each GPU (topo.c) */
	unsigned char path[SG_PCI_DEPTH];	/* host bridge, then switches */
	int path_len;
	int row_remap_failure;	/* 1: NVML reports a failed row remapping (nvmlhealth.c) */
};

struct sg_config {
	int ngpus;
	uint64_t kernel_ns;	/* duration of kernels other than simgpu_spin */
	uint64_t copy_bw;	/* bytes per second a copy or memset moves */
	uint64_t ctx_vram;	/* VRAM charged per context */
	uint64_t module_vram;	/* VRAM charged per loaded module (module.c) */
	int memory_limits;	/* 1: per-cgroup memory limits (NVML, memlimit.c) */
	int dmem;		/* 1: charge the kernel's dmem controller (dmem.c) */
	uint64_t vram;		/* default per GPU */
	int sms;		/* default per GPU */
	char name[96];
	int numa_cpus;		/* CPUs per NUMA node (CPU c is on node c / numa_cpus) */
	struct sg_gpu_config gpu[SG_MAX_GPUS];
};

/* Parse config text into cfg (which must hold defaults already). */
int simgpu_config_parse(struct sg_config *cfg, const char *text,
			const char *origin, char *err, size_t errlen);
/* Defaults, then the file ($SIMGPU_CONFIG or /etc/simgpu.conf), then env. */
int simgpu_config_load(struct sg_config *cfg, char *err, size_t errlen);
void simgpu_config_defaults(struct sg_config *cfg, int ngpus);
int simgpu_parse_size(const char *s, uint64_t *out);
int simgpu_uuid_parse(const char *s, unsigned char out[16]);

/* ---- topology (topo.c): NVLink pairs, PCI paths, NUMA ---- */
/* The levels of NVML's nvmlGpuTopologyLevel_t, with its values. */
enum sg_topo_level {
	SG_TOPO_INTERNAL = 0, SG_TOPO_SINGLE = 10, SG_TOPO_MULTIPLE = 20,
	SG_TOPO_HOSTBRIDGE = 30, SG_TOPO_NODE = 40, SG_TOPO_SYSTEM = 50,
};

int simgpu_topo_parse_nvlink(struct sg_config *cfg, int gpu, const char *val,
			     char *err, size_t errlen, const char *where);
int simgpu_topo_parse_path(struct sg_gpu_config *g, const char *val);
int simgpu_topo_check(const struct sg_config *cfg, char *err, size_t errlen);
enum sg_topo_level simgpu_topo_level(const struct sg_config *cfg, int a, int b);
int simgpu_topo_nlinks(const struct sg_config *cfg, int a);
int simgpu_topo_link_peer(const struct sg_config *cfg, int a, int link);
int simgpu_topo_peer_ok(const struct sg_config *cfg, int a, int b);

/* ---- shared state (state.c) ---- */
struct sg_gpu_shared {
	uint64_t total;		/* bytes */
	uint64_t used;		/* bytes charged by live processes */
	int32_t owner_pid;	/* engine holder, 0 when idle */
	int32_t owner_proc;	/* its slot in procs[] */
	uint64_t owner_token;	/* identifies the holding kernel */
	uint64_t owner_since;	/* CLOCK_MONOTONIC ns */
	uint64_t owner_until;	/* when the holding kernel ends */
	uint64_t free_since;	/* device time the last kernel ended */
	uint64_t max_idle_ns;	/* longest wait between two kernels */
	uint64_t busy_ns;	/* total engine time consumed */
	uint64_t kernels;
	uint32_t gen;		/* futex word: bumped when the engine frees */
	uint32_t pad;
};

struct sg_proc_shared {
	int32_t pid;
	int32_t alive;
	uint64_t starttime;	/* /proc/PID/stat field 22: guards pid reuse */
	int32_t cgroup;		/* index in cgroups[] */
	int32_t kind;		/* SG_KIND_*: which NVML process list (nvmlproc.c) */
	char comm[20];
	int32_t ctxs[SG_MAX_GPUS];
	uint64_t bytes[SG_MAX_GPUS];
	uint64_t busy_ns[SG_MAX_GPUS];
	uint64_t kernels[SG_MAX_GPUS];
	uint64_t shared[SG_MAX_GPUS];	/* part of bytes[] in exports[]: its
					 * GPU memory is counted there */
	uint64_t seq;		/* registration order: oldest dead goes first */
};

struct sg_cgroup_shared {
	char path[SG_CGROUP_LEN];
	uint64_t busy_ns[SG_MAX_GPUS];
	uint64_t kernels[SG_MAX_GPUS];
};

/* A per-cgroup memory limit set through NVML (memlimit.c). */
struct sg_limit_shared {
	char path[SG_CGROUP_LEN];	/* cgroup v2 path ("/a/b"); "" when free */
	uint64_t ino;			/* its directory's inode when set; 0: unchecked */
	uint64_t view_dev, view_ino;	/* SG_CGROUP_MOUNT's, as the setter saw it */
	uint64_t soft[SG_MAX_GPUS];	/* bytes; 0: none */
	uint64_t hard[SG_MAX_GPUS];	/* bytes; SG_NO_LIMIT: none */
};

/*
 * A VMM allocation exported as a file descriptor (vmmshare.c): its memory
 * is counted in the GPU's used bytes here, not through a process, because
 * it outlives its creator while an importer or an open descriptor holds it.
 */
struct sg_export_shared {
	uint64_t fdev, ino;	/* the backing memfd's identity; ino 0: free */
	uint64_t size;
	int32_t gpu;
	int32_t pad;
	uint64_t holders[SG_MAX_PROCS / 64];	/* slots holding CUDA references */
	uint64_t by_fd[SG_MAX_PROCS / 64];	/* of those, holding only a descriptor */
};

struct sg_waiter {
	int32_t pid;		/* 0: free slot */
	int32_t gpu;
	uint64_t seq;
};

struct sg_state {
	uint64_t magic;
	uint32_t version;
	uint32_t size;
	pthread_mutex_t lock;	/* robust, process-shared */
	int32_t ngpus;
	int32_t pad;
	uint64_t seq;
	uint64_t last_scan;	/* ns of the last liveness scan */
	uint64_t reclaimed;	/* dead processes cleaned up */
	struct sg_gpu_shared gpus[SG_MAX_GPUS];
	struct sg_proc_shared procs[SG_MAX_PROCS];
	struct sg_cgroup_shared cgroups[SG_MAX_CGROUPS];
	struct sg_waiter waiters[SG_MAX_WAITERS];
	struct sg_limit_shared limits[SG_MAX_LIMITS];
	uint64_t last_export_scan;	/* ns of the last look for closed descriptors */
	struct sg_export_shared exports[SG_MAX_EXPORTS];
};

extern struct sg_state *simgpu_shm;

/* Map the state file ($SIMGPU_STATE or the default); 0 or -errno. */
int simgpu_state_open(void);
/* Publish this config's GPU sizes into the shared state. */
void simgpu_state_configure(const struct sg_config *cfg);
/* Lock (recovering from dead owners) and reclaim dead processes. */
void simgpu_state_lock(void);
void simgpu_state_unlock(void);
/* Reclaim the entries of dead processes now (lock held). */
void simgpu_state_reclaim(int force);
/* Register the calling process, known by its host pid (lock held);
 * returns its slot or -1. */
int simgpu_state_register(pid_t pid, const char *cgroup);
/* Drop everything pid holds (lock held). */
void simgpu_state_release_pid(pid_t pid);
/* Zero all accounting and forget dead processes (lock held). */
void simgpu_state_reset(void);
/* Free GPU gpu's engine, charging its holder for the time held, up to the
 * kernel's end (lock held). */
void simgpu_engine_drop(int gpu, uint64_t now, int completed);
int simgpu_pid_alive(pid_t pid, uint64_t starttime);
/* ---- exported VMM allocations (vmmshare.c; lock held for all) ---- */
/* Publish the allocation backed by memfd (fdev, ino) that process slot
 * created, its bytes already charged to it: the entry's index, or -1. */
int simgpu_export_add(uint64_t fdev, uint64_t ino, int gpu, uint64_t size, int slot);
/* The entry of an exported memfd, or -1. */
int simgpu_export_find(uint64_t fdev, uint64_t ino);
/* Process slot holds (1) or no longer holds (0) CUDA references to it;
 * while this process (slot is its own) has a descriptor of it open, the
 * memory stays attributed to it until a scan finds the descriptor closed. */
void simgpu_export_hold(int idx, int slot, int on);
/* Drop every hold of a dead process slot. */
void simgpu_export_release_slot(int slot);
/* Free the entries that no reference and no open descriptor keep, and
 * end the holds of processes whose only reference was a descriptor they
 * closed. */
void simgpu_export_scan(int force);

/* ---- host pids (hostpid.c) ---- */
/* True in the initial pid namespace, where the recorded pids are ours. */
int simgpu_pidns_initial(void);
/* This process's pid in the initial namespace (from simgpu-pidd when in
 * another); -1 when it cannot be learnt. In a cgroup namespace of its
 * own, its cgroup as the host sees it goes to cg (from simgpu-pidd; ""
 * when not in one, or unknown: /proc/self/cgroup is then the answer). */
pid_t simgpu_host_pid(char *cg, size_t len);
const char *simgpu_pidd_path(void);
uint64_t simgpu_pid_starttime(pid_t pid);

/* ---- checkpoint control sockets (ckptpath.c) ---- */
/* The path of process pid's control socket; 0 or -1 (too long). */
int simgpu_ckpt_path(pid_t pid, char *out, size_t len);
/* Remove a dead process's socket. */
void simgpu_ckpt_unlink(pid_t pid);

/* ---- per-cgroup memory limits (memlimit.c; lock held for all) ---- */
/* The cgroup v2 path of a cgroup directory under /sys/fs/cgroup; 0 or -1. */
int simgpu_limit_path(const char *dir, char *out, size_t len);
/* Set (0) or, soft 0 and hard SG_NO_LIMIT, clear the limits of path on
 * GPU gpu; -1 when the table is full. */
int simgpu_limit_set(const char *path, int gpu, uint64_t soft, uint64_t hard);
void simgpu_limit_get(const char *path, int gpu, uint64_t *soft, uint64_t *hard);
/* Bytes that live processes of path and the cgroups below it hold on gpu. */
uint64_t simgpu_limit_used(const char *path, int gpu);
/* Whether process slot may take bytes more on gpu under the hard limit of
 * its cgroup (the nearest cgroup at or above it with one on gpu). */
int simgpu_limit_allows(int slot, int gpu, uint64_t bytes);
uint64_t simgpu_now_ns(void);
void simgpu_futex_wait(uint32_t *addr, uint32_t val, uint64_t ns);
void simgpu_futex_wake(uint32_t *addr);

#endif
