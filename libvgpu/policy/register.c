// SPDX-License-Identifier: GPL-2.0
/*
 * Registration with vgpu.ko, done once per process on first CUDA (cuInit,
 * init.c, or any hooked entry point) or NVML use, never at load time: open
 * /dev/vgpu, map its page, resolve the "vgpu" generic netlink family and
 * send proc-register with the descriptor. The socket and the descriptor
 * are kept for the life of the process (the registration ends when the
 * socket is released, at exit or exec). Without the module, everything
 * passes through, said once. A forked child drops the inherited state and
 * registers itself on its next CUDA call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../state/devmap.h"
#include "devview.h"
#include "../state/gatedev.h"
#include "../logic/gpureq.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../access/netlink.h"
#include "placement.h"
#include "register.h"
#include "../state/state.h"
#include "../access/nest.h"

struct vgpu_proc libvgpu_proc = {
	.nlfd = -1,
	.devfd = -1,
	.nl_lk = PTHREAD_MUTEX_INITIALIZER,
};

static pthread_mutex_t vgpu_reg_lk = PTHREAD_MUTEX_INITIALIZER;
static int vgpu_pass_said;
static int vgpu_cuda_env_done;	/* under vgpu_reg_lk */

static int dev_ioctl(void *ctx, unsigned long req, void *arg)
{
	return ioctl(*(int *)ctx, req, arg) < 0 ? -errno : 0;
}

static void pass(const char *why, int err)
{
	if (!vgpu_pass_said) {
		vgpu_pass_said = 1;
		libvgpu_log(VGPU_LOG_WARN, "%s (%s): passing CUDA and NVML through "
			    "without vgpu limits", why, strerror(err));
	}
}

static void undo(void)
{
	libvgpu_gate_reset();
	if (libvgpu_proc.gate)
		munmap((void *)libvgpu_proc.gate, sizeof(*libvgpu_proc.gate));
	if (libvgpu_proc.page)
		munmap(libvgpu_proc.page, sizeof(*libvgpu_proc.page));
	if (libvgpu_proc.nlfd >= 0)
		close(libvgpu_proc.nlfd);
	if (libvgpu_proc.devfd >= 0)
		close(libvgpu_proc.devfd);
	libvgpu_proc.page = NULL;
	libvgpu_proc.gate = NULL;
	libvgpu_proc.nlfd = libvgpu_proc.devfd = -1;
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * The read-only gate page (launch.c): a module without one (older) or a
 * page of another version leaves launches ungated.
 */
static void map_gate(struct vgpu_proc *p)
{
	void *m = mmap(NULL, sizeof(*p->gate), PROT_READ, MAP_SHARED, p->devfd,
		       VGPU_DEV_GATE_OFFSET);

	if (m == MAP_FAILED) {
		libvgpu_log(VGPU_LOG_INFO, "no compute gate page (%s): launches are not "
			    "gated", strerror(errno));
		return;
	}
	p->gate = m;
	if (p->gate->version != VGPU_DEV_PAGE_VERSION) {
		libvgpu_log(VGPU_LOG_WARN, "unknown compute gate page version %u: launches "
			    "are not gated", p->gate->version);
		munmap(m, sizeof(*p->gate));
		p->gate = NULL;
		return;
	}
	libvgpu_gate_start(p->page, p->gate);
}

/* Open /dev/vgpu and map its page; 0, or -1 (said why, nothing left). */
static int dev_open(struct vgpu_proc *p)
{
	void *m;

	p->devfd = open(VGPU_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (p->devfd < 0) {
		pass("cannot open " VGPU_DEV_PATH ", vgpu.ko is not loaded?", errno);
		return -1;
	}
	m = mmap(NULL, sizeof(*p->page), PROT_READ | PROT_WRITE, MAP_SHARED, p->devfd, 0);
	if (m == MAP_FAILED) {
		pass("cannot map " VGPU_DEV_PATH, errno);
		goto err_close;
	}
	p->page = m;
	if (p->page->version != VGPU_DEV_PAGE_VERSION) {
		pass("unknown " VGPU_DEV_PATH " page version", EPROTO);
		goto err_unmap;
	}
	return 0;

err_unmap:
	munmap(p->page, sizeof(*p->page));
	p->page = NULL;
err_close:
	close(p->devfd);
	p->devfd = -1;
	return -1;
}

/* The generic netlink socket and the family; 0, or -1 (said why). */
static int nl_open(struct vgpu_proc *p)
{
	int rc = libvgpu_nl_open();

	if (rc < 0) {
		pass("cannot open a generic netlink socket", -rc);
		return -1;
	}
	p->nlfd = rc;
	rc = libvgpu_nl_family(p->nlfd, &p->family);
	if (rc) {
		pass("no \"" VGPU_FAMILY_NAME "\" generic netlink family", -rc);
		close(p->nlfd);
		p->nlfd = -1;
		return -1;
	}
	return 0;
}

/*
 * The GPUs VGPU_GPUS asks for (0 for none), or -1 after saying why when
 * the value is malformed: then the process gets no device rather than
 * every GPU of its tenant, which it did not ask for.
 */
static int gpus_wanted(uint32_t *n)
{
	const char *v = getenv("VGPU_GPUS");

	if (!libvgpu_gpureq_parse(v, n))
		return 0;
	libvgpu_log(VGPU_LOG_ERROR, "VGPU_GPUS=\"%s\" is not auto:N with N from 1 to %d: "
		    "CUDA reports no device", v, VGPU_GPU_MAX);
	return -1;
}

/* Says why the module refused a VGPU_GPUS request (errno rc). */
static void gpus_refused(uint32_t n, int rc)
{
	const char *why = strerror(rc);

	if (rc == ENOSPC)
		why = "more GPUs than the tenant has healthy and allowed, or too few "
		      "with room for its vram-min";
	else if (rc == EPERM)
		why = "the process is outside every vgpu tenant";
	libvgpu_log(VGPU_LOG_ERROR, "VGPU_GPUS=auto:%u refused: %s: CUDA reports no device",
		    n, why);
}

/* proc-register; *seq gets the page's placement_seq read before it (a
 * change after it is then noticed). Returns the state it leads to. */
static int send_register(struct vgpu_proc *p, uint32_t *seq)
{
	uint32_t want;
	int rc;

	if (gpus_wanted(&want))
		return VGPU_ST_DENIED;
	*seq = __atomic_load_n(&p->page->placement_seq, __ATOMIC_ACQUIRE);
	rc = libvgpu_nl_register(p->nlfd, p->family, p->devfd, want, &p->reg);
	/* Asked for GPUs and not given them: no device, not all of them. */
	if (rc && want) {
		gpus_refused(want, -rc);
		return VGPU_ST_DENIED;
	}
	if (rc) {
		libvgpu_log(VGPU_LOG_ERROR, "proc-register failed: %s", strerror(-rc));
		pass("not registered with vgpu.ko", -rc);
		return VGPU_ST_PASS;
	}
	for (int i = 0; i < VGPU_GPU_MAX; i++)
		p->slot[i] = -1;
	for (int i = 0; i < p->reg.ngpu; i++)
		p->slot[p->reg.gpu[i].index] = i;
	libvgpu_devview_build(&p->reg, want > 0);
	if (!p->reg.in_tenant && p->reg.policy == VGPU_DEFAULT_POLICY_DENY) {
		libvgpu_log(VGPU_LOG_ERROR, "pid %u is outside every vgpu tenant and the "
			    "host default is deny: CUDA reports no device", p->reg.pid);
		return VGPU_ST_DENIED;
	}
	return VGPU_ST_ACTIVE;
}

static void charger_start(struct vgpu_proc *p)
{
	p->charger.page = p->page;
	p->charger.ioctl = dev_ioctl;
	p->charger.ctx = &p->devfd;
	memset(p->charger.keep, 0, sizeof(p->charger.keep));
}

static void log_registered(const struct vgpu_proc *p, const struct timespec *t0)
{
	libvgpu_log(VGPU_LOG_INFO, "registered pid %u: tenant %s (id %u), %d GPUs, "
		    "host default %s, in %.3f ms", p->reg.pid,
		    p->reg.in_tenant ? p->reg.tenant : "(none)", p->reg.tenant_id,
		    p->reg.ngpu, p->reg.policy == VGPU_DEFAULT_POLICY_DENY ? "deny" : "allow",
		    ms_since(t0));
	if (p->reg.has_gpus)
		libvgpu_log(VGPU_LOG_INFO, "GPUs chosen for this process (VGPU_GPUS): mask %#llx",
			    (unsigned long long)p->reg.gpus);
	for (int i = 0; i < p->reg.ngpu; i++) {
		const struct vgpu_reg_gpu *g = &p->reg.gpu[i];

		if (g->vram_max == UINT64_MAX)
			libvgpu_log(VGPU_LOG_DEBUG, "gpu %u %s: %llu bytes, unlimited%s",
				    g->index, g->uuid, (unsigned long long)g->vram,
				    g->denied ? ", denied" : "");
		else
			libvgpu_log(VGPU_LOG_DEBUG, "gpu %u %s: %llu bytes, vram-max %llu%s",
				    g->index, g->uuid, (unsigned long long)g->vram,
				    (unsigned long long)g->vram_max, g->denied ? ", denied" : "");
	}
}

/* Returns the state: ACTIVE with everything set up, else nothing left
 * open (the socket, the descriptor and the page are released). */
static int do_register(void)
{
	struct vgpu_proc *p = &libvgpu_proc;
	struct timespec t0;
	uint32_t seq;
	int st = VGPU_ST_PASS;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	libvgpu_log(VGPU_LOG_DEBUG, "registering with vgpu.ko");
	if (dev_open(p))
		return st;
	if (nl_open(p))
		goto out_dev;
	st = send_register(p, &seq);
	if (st != VGPU_ST_ACTIVE)
		goto out_nl;
	map_gate(p);
	libvgpu_placement_start(seq, &p->reg);
	charger_start(p);
	log_registered(p, &t0);
	return st;

out_nl:
	close(p->nlfd);
	p->nlfd = -1;
out_dev:
	munmap(p->page, sizeof(*p->page));
	p->page = NULL;
	close(p->devfd);
	p->devfd = -1;
	return st;
}

int libvgpu_ensure(void)
{
	int st = __atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE);

	if (__builtin_expect(st != VGPU_ST_UNSET, 1))
		return st;
	pthread_mutex_lock(&vgpu_reg_lk);
	st = libvgpu_proc.state;
	if (st == VGPU_ST_UNSET) {
		st = do_register();
		__atomic_store_n(&libvgpu_proc.state, st, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vgpu_reg_lk);
	return st;
}

const struct vgpu_reg_gpu *libvgpu_reg_gpu(int gpu)
{
	if (gpu < 0 || gpu >= VGPU_GPU_MAX || libvgpu_proc.slot[gpu] < 0)
		return NULL;
	return &libvgpu_proc.reg.gpu[libvgpu_proc.slot[gpu]];
}

/*
 * In a forked child (init.c), which shares the parent's socket,
 * descriptor and pages: it must not charge on the parent's page nor keep
 * the parent's registration alive. Close and unmap its copies, and
 * register anew on the next CUDA or NVML call (with its own
 * CUDA_VISIBLE_DEVICES decision). The other units forget what was
 * charged under the parent's registration (init.c calls them).
 */
void libvgpu_register_reset(void)
{
	if (libvgpu_proc.state == VGPU_ST_ACTIVE)
		undo();
	libvgpu_proc.state = VGPU_ST_UNSET;
	vgpu_cuda_env_done = 0;
	pthread_mutex_init(&vgpu_reg_lk, NULL);
	pthread_mutex_init(&libvgpu_proc.nl_lk, NULL);
}

void libvgpu_register_cuda_env(void)
{
	/* Once, under the registration's lock (a forked child's reset
	 * clears it), before the driver reads it (devview.c). */
	pthread_mutex_lock(&vgpu_reg_lk);
	if (!vgpu_cuda_env_done) {
		libvgpu_devview_cuda_env();
		vgpu_cuda_env_done = 1;
	}
	pthread_mutex_unlock(&vgpu_reg_lk);
}
