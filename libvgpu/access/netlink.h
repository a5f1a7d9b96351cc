/* SPDX-License-Identifier: GPL-2.0 */
/* Raw generic netlink to vgpu.ko: family look-up, proc-register, proc-get. */
#ifndef VGPU_NETLINK_H
#define VGPU_NETLINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../../uapi/vgpu.h"

struct vgpu_reg_gpu {
	uint32_t index;
	char uuid[VGPU_UUID_LEN + 1];
	uint64_t vram;		/* capacity */
	uint64_t vram_max;	/* the tenant's limit; UINT64_MAX when unlimited */
	int denied;
};

struct vgpu_reg {
	uint32_t pid;
	/* The pid in the initial pid namespace, the one NVML reports (0 from
	 * a module that predates it: then pid is used). */
	uint32_t host_pid;
	int in_tenant;
	char tenant[VGPU_NAME_LEN_MAX + 1];
	uint32_t tenant_id;
	uint32_t policy;	/* enum vgpu_default_policy */
	int ngpu;
	struct vgpu_reg_gpu gpu[VGPU_GPU_MAX];
	/* GPUs the module chose for the process (gpus-auto); has_gpus 0
	 * when it asked for none. */
	int has_gpus;
	uint64_t gpus;
	/* The effective placement (node and CPU lists, "0-1,3"); absent
	 * (has_ 0) when unrestricted. */
	int has_mems, has_cpus;
	char mems[VGPU_LIST_LEN_MAX + 1];
	char cpus[VGPU_LIST_LEN_MAX + 1];
};

/* A NETLINK_GENERIC socket (SOCK_CLOEXEC); -errno on failure. */
int libvgpu_nl_open(void);
/* The family id of "vgpu"; -ENOENT when the module is not loaded. */
int libvgpu_nl_family(int fd, uint16_t *family);
/* proc-register with the /dev/vgpu descriptor devfd. */
/* proc-register; gpus_auto: GPUs to have the module choose, 0 for none. */
int libvgpu_nl_register(int fd, uint16_t family, int devfd, uint32_t gpus_auto,
			struct vgpu_reg *out);
/* A registered process: its pid in the caller's pid namespace and in the
 * initial one (host; equal to pid from a module without host-pid). */
struct vgpu_nl_pid {
	uint32_t pid, host;
};
/* proc-get dump: the processes registered under tenant_id that the
 * caller's pid namespace can see; their count, or -errno. */
int libvgpu_nl_tenant_pids(int fd, uint16_t family, uint32_t tenant_id,
			   struct vgpu_nl_pid *pids, int max);
/* Parse one proc-register reply payload (attributes after the genl header). */
int libvgpu_nl_parse_reg(const void *attrs, size_t len, struct vgpu_reg *out);

#endif
