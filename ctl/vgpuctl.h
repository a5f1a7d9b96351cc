/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the command files of vgpuctl (cmd/: gpu.c, probe.c, tenant.c,
 * proc.c, host.c, monitor.c, top.c, metrics.c, account.c, ...) share with
 * main.c and lib/util.c, and vgpuctl's layering.
 *
 * Layering: a file calls only files on its own line's right or on lower
 * lines; nothing calls up (tests/host/layers.sh checks it against the
 * objects). The folders hold the lines in order, each folder's together,
 * so a folder's files call only their own folder's and those below:
 *
 * Top to bottom:
 * cmd/: the verbs, one file each (or a verb's parts)
 *   main.c batch.c             the command line, -b FILE's lines
 *   apply.c apply_diff.c apply_load.c  apply: the files against the module
 *   hook.c                     the OCI hooks
 *   cdi.c                      cdi generate
 *   agent.c                    the agent: suspension's checkpoints
 *   metrics.c account.c        the exporter; the usage records' writer
 *   monitor.c top.c proc.c     monitor, top, ps
 *   tenant.c tenant_final.c    the tenant verbs; final records shown, acked
 *   gpu.c probe.c host.c       the gpu and host verbs, and the gpu add,
 *                              gpu set and host set that apply sends too
 * ops/: one change on the host, shared by the verbs
 *   agent.c agent_proc.c       the agent's work: a tenant's phase, one
 *                              process checkpointed or restored
 *   hook_tenant.c tenant_replace.c  a container's tenant made or dropped; a
 *                              tenant added or set to exactly a conf
 *   tenant_suspend.c           tenant suspend and resume: the request, the
 *                              wait for the agent
 *   tenant_send.c              one tenant mutation and what follows on the
 *                              host (placement, backstop)
 * enforce/: what holds a tenant below libvgpu, and the cgroup's cpuset
 *   backstop_show.c backstop.c placement.c  the backstop in force (gpu and
 *                              tenant show); its limits set, backstop sync;
 *                              a tenant's CPUs and nodes written to its cgroup
 *   backstop_read.c backstop_nvml.c dmem.c cpuset.c  what the backstop
 *                              reads of the module; NVML's and dmem's
 *                              limits; cpuset files
 *   ckpt_plan.c ckpt.c memroom.c  a process's checkpoint steps; NVIDIA's
 *                              checkpoint API; the room in a tenant
 *                              cgroup's memory
 * out/: metrics --listen's server, the usage records, Prometheus
 *   httpd_loop.c httpd_table.c httpd_conn.c httpd_listen.c  the server's
 *                              loop, connections, the listening socket
 *   httpd_tls.c webconf.c webconf_yaml.c httpd_auth.c httpd.c  TLS, the web
 *                              configuration file, basic auth, requests
 *   acct_record.c acct_state.c prom.c  usage records and their state; the
 *                              Prometheus text
 * conf/: the configuration files
 *   flavour.c conf.c           flavours; the files' reader
 * oci/: what a runtime hands a hook
 *   oci.c oci_pod.c oci_str.c cgpath.c  the runtime's state, config.json,
 *                              the pod; a container's cgroup
 * obj/: what vgpuctl holds of the module's objects
 *   tenant_conf.c              a tenant's quotas and labels (struct
 *                              tenant_conf): parsed, compared, put
 *   tenant_procs.c             a tenant's state and processes, read (tenant
 *                              suspend, the agent)
 *   gpu_msg.c tenant_print.c   gpu add's words; gpu and tenant replies:
 *                              parsed, printed
 *   snap.c final.c             a snapshot of the module; final records
 *   tenant_state.c             a tenant's suspension state: parsed, printed
 * lib/: the libraries (lib/spec_gen.h, spec_policy.h: generated)
 *   util.c                     error lines, the admin check, the handle,
 *                              show requests
 *   print.c json.c             the one print path, plain and JSON
 *   parse.c parse_id.c parse_cgroup.c parse_sched.c parse_meta.c  the
 *                              parsers and formatters of words
 *   nl.c file.c                generic netlink; atomic and synced files
 *
 * A function's address handed down is not a call: util.c's show requests
 * call back the verbs' reply printers, batch.c main.c's runner of a line
 * and httpd.c metrics.c's exposition, through pointers they are given.
 */
#ifndef VGPU_CTL_VGPUCTL_H
#define VGPU_CTL_VGPUCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/attr.h>

#include "../uapi/vgpu.h"
#include "lib/nl.h"

#ifndef VGPU_CTL_VERSION
#define VGPU_CTL_VERSION	"0.1"
#endif

/* Exit statuses. */
enum {
	VGPU_EXIT_OK = 0,
	VGPU_EXIT_ERR = 1,	/* the kernel or the system refused */
	VGPU_EXIT_USAGE = 2,	/* bad command line: nothing was sent */
};

/* Command entry points: argv[0] is the command (or absent). */
int vgpuctl_cmd_gpu(int argc, char **argv);
int vgpuctl_cmd_tenant(int argc, char **argv);
int vgpuctl_cmd_monitor(int argc, char **argv);
int vgpuctl_cmd_ps(int argc, char **argv);
int vgpuctl_cmd_show(int argc, char **argv);
int vgpuctl_cmd_set(int argc, char **argv);
int vgpuctl_cmd_host(int argc, char **argv);
int vgpuctl_cmd_top(int argc, char **argv);
int vgpuctl_cmd_metrics(int argc, char **argv);
int vgpuctl_cmd_account(int argc, char **argv);
int vgpuctl_cmd_hook(int argc, char **argv);
int vgpuctl_cmd_cdi(int argc, char **argv);
int vgpuctl_gpu_probe(int argc, char **argv);	/* "gpu probe", probe.c */
int vgpuctl_cmd_apply(int argc, char **argv);	/* apply.c */
int vgpuctl_cmd_agent(int argc, char **argv);	/* agent.c */

/* The words of gpu add, parsed (gpu_msg.c; gpu.c and apply's gpu lines). */
struct vgpuctl_gpu_add {
	uint32_t index;
	uint64_t vram;
	const char *uuid, *pci;	/* NULL: not given */
	bool has_numa;
	int32_t numa;
};
int vgpuctl_gpu_add_parse(struct vgpuctl_gpu_add *g, int argc, char **argv);
int vgpuctl_gpu_add_send(const struct vgpuctl_gpu_add *g);
struct vgpu_nl;
int vgpuctl_gpu_set_send(struct vgpu_nl *nl, uint32_t index, const uint64_t *nvlink,
			 const uint32_t *state, const char *reason);
int vgpuctl_host_parse_group(const char *s, uint32_t *gid);	/* host.c */
/* Host-wide settings of a host-set; has_*: given. */
struct vgpuctl_host_conf {
	bool has_policy, has_gid, has_gpu_policy;
	uint32_t policy, gid, gpu_policy;
};
int vgpuctl_host_set(const struct vgpuctl_host_conf *h);

/* Usage texts, also printed by "help". */
void vgpuctl_usage_gpu(FILE *f);
void vgpuctl_usage_tenant(FILE *f);
void vgpuctl_usage_monitor(FILE *f);
void vgpuctl_usage_ps(FILE *f);
void vgpuctl_usage_host(FILE *f);
void vgpuctl_usage_apply(FILE *f);
void vgpuctl_usage_top(FILE *f);
void vgpuctl_usage_metrics(FILE *f);
void vgpuctl_usage_account(FILE *f);
void vgpuctl_usage_hook(FILE *f);
void vgpuctl_usage_cdi(FILE *f);
void vgpuctl_usage_agent(FILE *f);

/* util.c */
int vgpuctl_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int vgpuctl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vgpuctl_error_where(const char *file, unsigned int line);
bool vgpuctl_is_help(int argc, char **argv);
int vgpuctl_stop_signals(int *sfd);
int vgpuctl_need_admin(void);
bool vgpuctl_has_admin(void);
int vgpuctl_open(struct vgpu_nl *nl);
int vgpuctl_send(struct vgpu_nl *nl, struct nl_msg *msg,
		 vgpu_nl_reply_fn fn, void *arg);
int vgpuctl_put_failed(struct nl_msg *msg);
int vgpuctl_admin_u32(uint8_t cmd, int attr, uint32_t val);
typedef int (*vgpu_put_fn)(struct nl_msg *msg, const void *arg);
int vgpuctl_show(uint8_t cmd, bool dump, vgpu_put_fn put, const void *parg,
		 vgpu_nl_reply_fn fn);

/* A get request for vgpuctl_show_run(). */
struct vgpu_show_req {
	uint8_t cmd;		/* VGPU_CMD_*_GET */
	bool dump;		/* NLM_F_DUMP */
	bool single;		/* JSON: one object, not an array */
	vgpu_put_fn put;	/* adds the request's attributes, or NULL */
	const void *parg;	/* argument of put */
	vgpu_nl_reply_fn fn;	/* takes one reply */
	void *arg;		/* fn's argument */
	/* Called after each try, ok when it succeeded (prints what fn kept). */
	void (*done)(bool ok);
};
int vgpuctl_show_run(const struct vgpu_show_req *r);

/* Reply parsing and printing, shared by show and monitor. */
int vgpuctl_gpu_parse(struct nlmsghdr *nlh, struct nlattr **tb);
void vgpuctl_gpu_print(struct nlattr **tb);
int vgpuctl_tenant_parse(struct nlmsghdr *nlh, struct nlattr **tb);
void vgpuctl_tenant_print(struct nlmsghdr *nlh, struct nlattr **tb, bool usage_lines);
int vgpuctl_tenant_next_usage(struct nlmsghdr *nlh, struct nlattr **pos, struct nlattr **utb);
struct vgpuctl_usage;
void vgpuctl_usage_print(const struct vgpuctl_usage *u);
void vgpuctl_print_reason(bool has, uint32_t reason);
int vgpuctl_tenant_final(int argc, char **argv);	/* tenant_final.c */

/* tenant_conf.c: the QUOTA VALUE words of tenant add, for flavours and hooks. */
struct tenant_conf;
int vgpuctl_quotas_parse(const char *cmd, int argc, char **argv, struct tenant_conf **out);

/* placement.c: the quotas that decide a tenant's CPUs and nodes. */
#define VGPU_PLACEMENT_QUOTAS	(VGPU_QUOTA_CPUS | VGPU_QUOTA_MEMS | VGPU_QUOTA_PLACEMENT | \
				 VGPU_QUOTA_EXCLUSIVE | VGPU_QUOTA_GPUS)
struct vgpuctl_placement_before;
int vgpuctl_placement_prepare(struct vgpu_nl *nl, const char *name, uint32_t seen,
			      struct vgpuctl_placement_before **out);
int vgpuctl_placement_sync(struct vgpu_nl *nl, const char *name, bool added, uint32_t seen,
			   const struct vgpuctl_placement_before *before);

#endif /* VGPU_CTL_VGPUCTL_H */
