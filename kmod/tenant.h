/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the tenant table.
 * Everything here but allocation is called with vgpu_lock held.
 */
#ifndef _VGPU_TENANT_H
#define _VGPU_TENANT_H

#include <linux/list.h>
#include <linux/types.h>

#include "acct.h"
#include "label.h"
#include "placement.h"
#include "quota.h"

struct cgroup;
struct cgroup_namespace;
struct netlink_callback;
struct netlink_ext_ack;
struct nlattr;
struct sk_buff;
struct task_struct;
struct vgpu_place_change;

/* Most tenants the table holds. */
#define VGPU_TENANT_MAX		4096

/**
 * struct vgpu_tenant - a tenant: a cgroup v2 subtree and its quotas
 * @id: number given by the module, unique among live tenants, not reused
 *	until the id space wraps
 * @name: unique name, see vgpu_name_valid()
 * @cgrp: the tenant's cgroup; the tenant holds a reference
 * @cgroup_id: cgroup_id(@cgrp), key of the membership hash
 * @hnode: link in the membership hash
 * @quota: quotas
 * @bucket: VRAM accounting of the tenant's processes (vgpu_acct_lock)
 * @place: placement in force (placement.c)
 * @pending: placement prepared by a request being handled, or NULL
 * @labels: admin-set labels (label.c)
 * @ephemeral: deleted by the module once its cgroup is removed and none
 *	of its processes is registered (tenant_del.c); set at creation only
 * @created: ktime_get_real_ns() at creation
 * @state: where it stands with suspension (enum vgpu_tenant_state;
 *	tenant_state.c)
 * @resume_wait: a resume waits for room for its parked bytes
 * @susp_since: ktime_get_ns() when the current suspension began
 * @susp_ns: time spent suspended or resuming before it
 * @state_reason: what the agent said when it last settled a suspension
 *	or a resume, "" when nothing
 * @preempted: suspended to free VRAM for another tenant's charge
 *	(preempt.c): it resumes by itself once it fits again
 */
struct vgpu_tenant {
	u32 id;
	char name[VGPU_NAME_LEN_MAX + 1];
	struct cgroup *cgrp;
	u64 cgroup_id;
	struct hlist_node hnode;
	struct vgpu_quota_set quota;
	struct vgpu_bucket bucket;
	struct vgpu_place place;
	struct vgpu_place_change *pending;
	struct vgpu_labels labels;
	bool ephemeral;
	u64 created;
	u32 state;
	bool resume_wait;
	u64 susp_since;
	u64 susp_ns;
	char state_reason[VGPU_REASON_LEN_MAX + 1];
	bool preempted;
};

struct vgpu_tenant *vgpu_tenant_alloc(const char *name);
void vgpu_tenant_free(struct vgpu_tenant *t);
void vgpu_tenant_set_cgroup(struct vgpu_tenant *t, struct cgroup *cgrp);
int vgpu_tenant_insert(struct vgpu_tenant *t);
void vgpu_tenant_remove(struct vgpu_tenant *t);
void vgpu_tenant_destroy_all(void);
unsigned int vgpu_tenant_count(void);
struct vgpu_tenant *vgpu_tenant_find(const char *name);
struct vgpu_tenant *vgpu_tenant_find_cgroup(u64 cgroup_id);
struct vgpu_tenant *vgpu_tenant_of_task(struct task_struct *task);
struct vgpu_tenant *vgpu_tenant_next(unsigned long *id);
bool vgpu_tenant_cgroup_removed(const struct vgpu_tenant *t);
u64 vgpu_tenant_reserved(u32 index, const struct vgpu_tenant *skip, bool all);
int vgpu_tenant_check_quota(const struct vgpu_quota_set *q, const struct vgpu_tenant *self,
			    struct nlattr **attrs, struct netlink_ext_ack *extack);
bool vgpu_tenant_names_gpu(u32 index);

/**
 * vgpu_tenant_suspended_ns() - time a tenant has spent suspended
 * @t: tenant
 * @now: ktime_get_ns()
 *
 * Context: vgpu_lock held.
 * Return: ns, the current suspension (and resume) included.
 */
static inline u64 vgpu_tenant_suspended_ns(const struct vgpu_tenant *t, u64 now)
{
	if (t->state == VGPU_TENANT_STATE_SUSPENDED || t->state == VGPU_TENANT_STATE_RESUMING)
		return t->susp_ns + (now - t->susp_since);
	return t->susp_ns;
}

/* tenant_msg.c */
struct vgpu_final;
size_t vgpu_tenant_msg_size(const struct vgpu_tenant *t);
int vgpu_tenant_fill(struct sk_buff *skb, struct vgpu_tenant *t,
		     struct cgroup_namespace *ns, u32 portid, u32 seq, int flags,
		     u8 cmd, struct netlink_callback *cb);
void vgpu_tenant_notify(struct vgpu_tenant *t, u8 cmd);
void vgpu_tenant_notify_id(u32 id);
size_t vgpu_final_msg_size(const struct vgpu_final *f);
int vgpu_final_fill(struct sk_buff *skb, const struct vgpu_final *f, u32 portid, u32 seq,
		    int flags, u8 cmd);
void vgpu_final_notify(const struct vgpu_final *f);

/* tenant_state.c */
struct pid;
int vgpu_tenant_suspend(struct vgpu_tenant *t, struct netlink_ext_ack *extack);
bool vgpu_tenant_suspending(void);
int vgpu_tenant_resume(struct vgpu_tenant *t, struct netlink_ext_ack *extack);
int vgpu_tenant_settle(struct vgpu_tenant *t, u32 from, const char *reason,
		       struct netlink_ext_ack *extack);
int vgpu_tenant_proc_set(struct pid *pid, bool suspended, struct netlink_ext_ack *extack);
void vgpu_tenant_state_stop(void);

/* tenant_del.c */
int vgpu_tenant_delete(struct vgpu_tenant *t, bool force, u32 reason);
void vgpu_ephemeral_added(void);
void vgpu_ephemeral_stop(void);

#endif /* _VGPU_TENANT_H */
