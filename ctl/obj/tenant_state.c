// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's suspension state (Documentation/suspend.md) as vgpuctl reads
 * it from a tenant reply or event: the state, the bytes its suspended
 * processes hold in host memory, the time suspended, whether a resume
 * waits for room, and the agent's reason. Printed by tenant show and
 * monitor; tenant suspend and resume end with vgpuctl_tstate_result()'s
 * line.
 */
#include <stdio.h>
#include <string.h>

#include <netlink/attr.h>

#include "tenant_state.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_gen.h"

/**
 * vgpuctl_tstate_read() - the suspension attributes of a tenant reply
 * @tb: its attributes (vgpuctl_tenant_parse())
 * @s: filled; absent attributes read as 0, "" and false
 */
void vgpuctl_tstate_read(struct nlattr **tb, struct vgpuctl_tstate *s)
{
	memset(s, 0, sizeof(*s));
	s->has_state = tb[VGPU_A_TENANT_STATE];
	if (s->has_state)
		s->state = nla_get_u32(tb[VGPU_A_TENANT_STATE]);
	if (tb[VGPU_A_TENANT_HOST_BYTES])
		s->host_bytes = nla_get_u64(tb[VGPU_A_TENANT_HOST_BYTES]);
	if (tb[VGPU_A_TENANT_SUSPENDED_NS])
		s->suspended_ns = nla_get_u64(tb[VGPU_A_TENANT_SUSPENDED_NS]);
	s->resume_wait = tb[VGPU_A_TENANT_RESUME_WAIT];
	if (tb[VGPU_A_TENANT_STATE_REASON])
		snprintf(s->reason, sizeof(s->reason), "%s",
			 nla_get_string(tb[VGPU_A_TENANT_STATE_REASON]));
}

/**
 * vgpuctl_tstate_name() - the spec's name of a tenant state
 * @state: enum vgpu_tenant_state
 *
 * Return: "running", ..., or "unknown" for a state this vgpuctl does not know.
 */
const char *vgpuctl_tstate_name(uint32_t state)
{
	const char *n = vgpuctl_enum_name(vgpu_tenant_state_names, VGPU_TENANT_STATE_COUNT, state);

	return n ? n : "unknown";
}

/** vgpuctl_tstate_is_suspended() - whether @state is any but running. */
bool vgpuctl_tstate_is_suspended(uint32_t state)
{
	return state != VGPU_TENANT_STATE_RUNNING;
}

/**
 * vgpuctl_tstate_print() - the suspension members of a tenant object
 * @s: what vgpuctl_tstate_read() found
 *
 * JSON: state (null from a module without suspension), host_bytes,
 * suspended_ns, resume_wait and state_reason (null when none). Plain: the
 * words only where there is something to say: a state other than
 * running, bytes in host memory, time suspended, resume-wait, a reason.
 */
void vgpuctl_tstate_print(const struct vgpuctl_tstate *s)
{
	bool json = vgpuctl_print_json();

	if (json || (s->has_state && s->state != VGPU_TENANT_STATE_RUNNING)) {
		if (s->has_state && !vgpuctl_enum_name(vgpu_tenant_state_names,
						       VGPU_TENANT_STATE_COUNT, s->state))
			vgpuctl_print_u64("state", "state", true, s->state);
		else
			vgpuctl_print_str("state", "state",
					  s->has_state ? vgpuctl_tstate_name(s->state) : NULL);
	}
	vgpuctl_print_size("host_bytes", "host-bytes", s->has_state && (json || s->host_bytes),
			   s->host_bytes);
	vgpuctl_print_ns("suspended_ns", "suspended", s->has_state && (json || s->suspended_ns),
			 s->suspended_ns);
	vgpuctl_print_flag("resume_wait", "resume-wait", s->resume_wait);
	vgpuctl_print_str("state_reason", "state-reason", s->reason[0] ? s->reason : NULL);
}

/**
 * vgpuctl_tstate_bytes() - bytes for a person: "12.0 GiB", "512.0 MiB", "100 B"
 * @b: the bytes
 * @out: the text
 * @len: its size
 */
void vgpuctl_tstate_bytes(uint64_t b, char *out, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int u = -1;

	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (u < 0)
		snprintf(out, len, "%llu B", (unsigned long long)b);
	else
		snprintf(out, len, "%.1f %s", v, unit[u]);
}

/**
 * vgpuctl_tstate_result() - the line that ends tenant suspend or resume
 * @buf: out: the line, without a newline
 * @len: its size
 * @e: what was asked and how long it took
 * @s: the tenant's state at the end
 *
 * "tenant a suspended: 2 processes, 12.0 GiB in host memory, 3.1 s",
 * followed by "; left running: REASON" when the agent left some running;
 * "tenant a resumed after 1.2 s" (and "; REASON"); for a suspension that
 * ended with the tenant running, "tenant a was not suspended: REASON".
 *
 * Return: 0 when the tenant is where it was asked to go, 1 when not (the
 * line is then an error).
 */
int vgpuctl_tstate_result(char *buf, size_t len, const struct vgpuctl_tstate_end *e,
			  const struct vgpuctl_tstate *s)
{
	double secs = (double)e->elapsed_ns / 1e9;
	char host[32];
	int n;

	if (e->resume && s->state == VGPU_TENANT_STATE_RUNNING) {
		n = snprintf(buf, len, "tenant %s resumed after %.1f s", e->name, secs);
	} else if (!e->resume && s->state == VGPU_TENANT_STATE_SUSPENDED) {
		vgpuctl_tstate_bytes(s->host_bytes, host, sizeof(host));
		n = snprintf(buf, len, "tenant %s suspended: %u process%s, %s in host memory, %.1f s",
			     e->name, e->procs, e->procs == 1 ? "" : "es", host, secs);
		if (s->reason[0] && n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, "; left running: %s", s->reason);
		return 0;
	} else if (!e->resume && s->state == VGPU_TENANT_STATE_RUNNING) {
		snprintf(buf, len, "tenant %s was not suspended: %s", e->name,
			 s->reason[0] ? s->reason : "no process was checkpointed");
		return 1;
	} else {
		snprintf(buf, len, "tenant %s is %s", e->name, vgpuctl_tstate_name(s->state));
		return 1;
	}
	if (s->reason[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; %s", s->reason);
	return 0;
}
