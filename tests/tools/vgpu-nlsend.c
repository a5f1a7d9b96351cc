// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-nlsend: send one raw request of the vgpu generic netlink family and
 * print what comes back, for the kernel tests.
 *
 *   vgpu-nlsend [-d] CMD [TYPE:ATTR=VALUE ...]
 *
 * CMD is a command number or name (gpu-add, tenant-new, ...). TYPE is one
 * of u32 u64 s32 str flag bin; ATTR is an attribute number; bin takes hex
 * digits. "nest:ATTR" opens a nest (NLA_F_NESTED) that the attributes up
 * to the next "end" go in. -d sets NLM_F_DUMP. Exactly the attributes
 * given are sent, in order, whatever the family's policy says.
 *
 * Output (stdout): "errno=N msg=<extack message>" and exit 1 when the
 * kernel refuses; else "ok" and one line per reply message listing its
 * attributes as ATTR=VALUE (pad attributes left out), exit 0. The
 * attributes of a nest are listed as ATTR.SUB=VALUE, once per nest: a
 * tenant's usage nests (16) give "16.1=0 16.2=4096 ... 16.1=1 16.2=0 ...".
 * Exit 2 on a bad command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "../../uapi/vgpu.h"
#include "../../ctl/lib/nl.h"

static const char *const cmd_names[] = {
	[VGPU_CMD_GPU_ADD] = "gpu-add",
	[VGPU_CMD_GPU_DEL] = "gpu-del",
	[VGPU_CMD_GPU_GET] = "gpu-get",
	[VGPU_CMD_TENANT_NEW] = "tenant-new",
	[VGPU_CMD_TENANT_DEL] = "tenant-del",
	[VGPU_CMD_TENANT_SET] = "tenant-set",
	[VGPU_CMD_TENANT_GET] = "tenant-get",
	[VGPU_CMD_GPU_ADD_NTF] = "gpu-add-ntf",
	[VGPU_CMD_GPU_DEL_NTF] = "gpu-del-ntf",
	[VGPU_CMD_TENANT_NEW_NTF] = "tenant-new-ntf",
	[VGPU_CMD_TENANT_DEL_NTF] = "tenant-del-ntf",
	[VGPU_CMD_TENANT_CHANGE_NTF] = "tenant-change-ntf",
	[VGPU_CMD_PROC_REGISTER] = "proc-register",
	[VGPU_CMD_PROC_GET] = "proc-get",
	[VGPU_CMD_HOST_GET] = "host-get",
	[VGPU_CMD_HOST_SET] = "host-set",
	[VGPU_CMD_PROC_DEL] = "proc-del",
	[VGPU_CMD_TENANT_FINAL_GET] = "tenant-final-get",
	[VGPU_CMD_TENANT_FINAL_DEL] = "tenant-final-del",
	[VGPU_CMD_GPU_SET] = "gpu-set",
	[VGPU_CMD_GPU_CHANGE_NTF] = "gpu-change-ntf",
	[VGPU_CMD_TENANT_SUSPEND] = "tenant-suspend",
	[VGPU_CMD_TENANT_RESUME] = "tenant-resume",
	[VGPU_CMD_TENANT_SETTLE] = "tenant-settle",
	[VGPU_CMD_PROC_SET] = "proc-set",
};

/* T_NEST2: a nest of the set's second nested set (a tenant's labels). */
enum atype { T_NONE, T_U32, T_U64, T_S32, T_STR, T_FLAG, T_PAD, T_NEST, T_NEST2 };

/* An attribute set: the types of its attributes, and of a nest's. */
struct aset {
	const enum atype *types;
	int max;
	const struct aset *nested;	/* the set of its T_NEST attribute */
	const struct aset *nested2;	/* the set of its T_NEST2 attribute */
};

/* Attribute types of the replies, to print them readably. */
static const enum atype gpu_types[VGPU_A_GPU_MAX + 1] = {
	[VGPU_A_GPU_INDEX] = T_U32,
	[VGPU_A_GPU_UUID] = T_STR,
	[VGPU_A_GPU_PCI] = T_STR,
	[VGPU_A_GPU_VRAM] = T_U64,
	[VGPU_A_GPU_NUMA] = T_S32,
	[VGPU_A_GPU_PAD] = T_PAD,
};

static const enum atype tenant_types[VGPU_A_TENANT_MAX + 1] = {
	[VGPU_A_TENANT_NAME] = T_STR,
	[VGPU_A_TENANT_ID] = T_U32,
	[VGPU_A_TENANT_CGROUP] = T_STR,
	[VGPU_A_TENANT_CGROUP_ID] = T_U64,
	[VGPU_A_TENANT_VRAM_MAX] = T_U64,
	[VGPU_A_TENANT_VRAM_MIN] = T_U64,
	[VGPU_A_TENANT_GPUS] = T_U64,
	[VGPU_A_TENANT_WEIGHT] = T_U32,
	[VGPU_A_TENANT_COMPUTE_MAX] = T_U32,
	[VGPU_A_TENANT_PRIORITY] = T_U32,
	[VGPU_A_TENANT_CPUS] = T_STR,
	[VGPU_A_TENANT_MEMS] = T_STR,
	[VGPU_A_TENANT_CLEAR] = T_U32,
	[VGPU_A_TENANT_CGROUP_REMOVED] = T_FLAG,
	[VGPU_A_TENANT_PAD] = T_PAD,
	[VGPU_A_TENANT_USAGE] = T_NEST,
	[VGPU_A_TENANT_PLACEMENT] = T_U32,
	[VGPU_A_TENANT_EXCLUSIVE] = T_U32,
	[VGPU_A_TENANT_CPUS_EFFECTIVE] = T_STR,
	[VGPU_A_TENANT_MEMS_EFFECTIVE] = T_STR,
	[VGPU_A_TENANT_FORCE] = T_FLAG,
	[VGPU_A_TENANT_LABEL] = T_NEST2,
	[VGPU_A_TENANT_EPHEMERAL] = T_FLAG,
	[VGPU_A_TENANT_CREATED] = T_U64,
	[VGPU_A_TENANT_DELETED] = T_U64,
	[VGPU_A_TENANT_DEL_REASON] = T_U32,
	[VGPU_A_TENANT_FINAL_SEQ] = T_U64,
	[VGPU_A_TENANT_STATE] = T_U32,
	[VGPU_A_TENANT_HOST_BYTES] = T_U64,
	[VGPU_A_TENANT_SUSPENDED_NS] = T_U64,
	[VGPU_A_TENANT_RESUME_WAIT] = T_FLAG,
	[VGPU_A_TENANT_STATE_REASON] = T_STR,
	[VGPU_A_TENANT_PREEMPTIBLE] = T_U32,
	[VGPU_A_TENANT_VRAM_WAIT] = T_U32,
};

static const enum atype label_types[VGPU_A_LABEL_MAX + 1] = {
	[VGPU_A_LABEL_KEY] = T_STR,
	[VGPU_A_LABEL_VALUE] = T_STR,
};

static const enum atype usage_types[VGPU_A_USAGE_MAX + 1] = {
	[VGPU_A_USAGE_GPU] = T_U32,
	[VGPU_A_USAGE_VRAM_CURRENT] = T_U64,
	[VGPU_A_USAGE_VRAM_PEAK] = T_U64,
	[VGPU_A_USAGE_VRAM_FAILURES] = T_U64,
	[VGPU_A_USAGE_VRAM_BUDGET] = T_U64,
	[VGPU_A_USAGE_VRAM_BYTE_SECONDS] = T_U64,
	[VGPU_A_USAGE_PAD] = T_PAD,
	[VGPU_A_USAGE_GPU_TIME_NS] = T_U64,
	[VGPU_A_USAGE_THROTTLED_NS] = T_U64,
	[VGPU_A_USAGE_GRANTS] = T_U64,
	[VGPU_A_USAGE_VRAM_OVERDRAFTS] = T_U64,
	[VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS] = T_U64,
};

static const enum atype proc_types[VGPU_A_PROC_MAX + 1] = {
	[VGPU_A_PROC_PID] = T_U32,
	[VGPU_A_PROC_TENANT] = T_STR,
	[VGPU_A_PROC_TENANT_ID] = T_U32,
	[VGPU_A_PROC_FD] = T_U32,
	[VGPU_A_PROC_DEFAULT_POLICY] = T_U32,
	[VGPU_A_PROC_GPU] = T_NEST,
	[VGPU_A_PROC_PAD] = T_PAD,
	[VGPU_A_PROC_MEMS] = T_STR,
	[VGPU_A_PROC_CPUS] = T_STR,
	[VGPU_A_PROC_SUSPENDED] = T_FLAG,
};

static const enum atype proc_gpu_types[VGPU_A_PROC_GPU_MAX + 1] = {
	[VGPU_A_PROC_GPU_INDEX] = T_U32,
	[VGPU_A_PROC_GPU_UUID] = T_STR,
	[VGPU_A_PROC_GPU_VRAM] = T_U64,
	[VGPU_A_PROC_GPU_VRAM_MAX] = T_U64,
	[VGPU_A_PROC_GPU_DENIED] = T_FLAG,
	[VGPU_A_PROC_GPU_VRAM_USED] = T_U64,
	[VGPU_A_PROC_GPU_VRAM_BUDGET] = T_U64,
	[VGPU_A_PROC_GPU_PAD] = T_PAD,
	[VGPU_A_PROC_GPU_VRAM_PARKED] = T_U64,
};

static const enum atype host_types[VGPU_A_HOST_MAX + 1] = {
	[VGPU_A_HOST_DEFAULT_POLICY] = T_U32,
	[VGPU_A_HOST_PROCS] = T_U32,
	[VGPU_A_HOST_PAD] = T_PAD,
	[VGPU_A_HOST_INSTANCE_ID] = T_U64,
	[VGPU_A_HOST_LOADED] = T_U64,
	[VGPU_A_HOST_MONITOR_GID] = T_U32,
	[VGPU_A_HOST_FINALS] = T_U32,
	[VGPU_A_HOST_FINALS_DROPPED] = T_U64,
};

static const struct aset gpu_set = { gpu_types, VGPU_A_GPU_MAX, NULL, NULL };
static const struct aset usage_set = { usage_types, VGPU_A_USAGE_MAX, NULL, NULL };
static const struct aset label_set = { label_types, VGPU_A_LABEL_MAX, NULL, NULL };
static const struct aset tenant_set = {
	tenant_types, VGPU_A_TENANT_MAX, &usage_set, &label_set
};
static const struct aset proc_gpu_set = { proc_gpu_types, VGPU_A_PROC_GPU_MAX, NULL, NULL };
static const struct aset proc_set = { proc_types, VGPU_A_PROC_MAX, &proc_gpu_set, NULL };
static const struct aset host_set = { host_types, VGPU_A_HOST_MAX, NULL, NULL };

static int usage(const char *why, const char *arg)
{
	if (why)
		fprintf(stderr, "Error: %s \"%s\".\n", why, arg);
	fputs("Usage: vgpu-nlsend [-d] CMD [TYPE:ATTR=VALUE ...]\n"
	      "CMD  := number | gpu-add | gpu-del | gpu-get | tenant-new | tenant-del |\n"
	      "        tenant-set | tenant-get | proc-register | proc-get | host-get |\n"
	      "        host-set | ...-ntf\n"
	      "TYPE := u32 | u64 | s32 | str | flag | bin (VALUE in hex digits)\n"
	      "nest:ATTR TYPE:ATTR=VALUE ... end  sends a nest\n", stderr);
	return 2;
}

/* Whole-string integer in base 10 or 0x hex, within [min, max]. */
static int parse_int(const char *s, long long min, unsigned long long max,
		     unsigned long long *out)
{
	char *end;

	if (!*s)
		return -1;
	errno = 0;
	if (s[0] == '-') {
		long long v = strtoll(s, &end, 0);

		if (errno || *end || v < min)
			return -1;
		*out = (unsigned long long)v;
		return 0;
	}
	*out = strtoull(s, &end, 0);
	if (errno || *end || *out > max)
		return -1;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Nests opened by "nest:ATTR" and not yet closed by "end". */
static struct nlattr *nests[8];
static int nnests;

/* Add one TYPE:ATTR=VALUE argument to @msg. Returns 0 or -1. */
static int put_arg(struct nl_msg *msg, const char *arg)
{
	const char *colon = strchr(arg, ':'), *eq, *val;
	unsigned long long attr, v;
	char type[8], num[16];
	size_t tlen;

	if (!strcmp(arg, "end")) {
		if (!nnests)
			return -1;
		return nla_nest_end(msg, nests[--nnests]) < 0 ? -1 : 0;
	}
	if (!colon)
		return -1;
	tlen = (size_t)(colon - arg);
	if (!tlen || tlen >= sizeof(type))
		return -1;
	memcpy(type, arg, tlen);
	type[tlen] = '\0';
	eq = strchr(colon + 1, '=');
	val = eq ? eq + 1 : NULL;
	if (!eq)
		eq = colon + 1 + strlen(colon + 1);
	if ((size_t)(eq - colon - 1) >= sizeof(num))
		return -1;
	memcpy(num, colon + 1, (size_t)(eq - colon - 1));
	num[eq - colon - 1] = '\0';
	if (parse_int(num, 0, 0x7fff, &attr) || attr == 0)
		return -1;

	if (!strcmp(type, "flag"))
		return val && *val ? -1 : nla_put_flag(msg, (int)attr);
	if (!strcmp(type, "nest")) {
		if (val || nnests == (int)(sizeof(nests) / sizeof(nests[0])))
			return -1;
		nests[nnests] = nla_nest_start(msg, (int)attr | NLA_F_NESTED);
		return nests[nnests++] ? 0 : -1;
	}
	if (!val)
		return -1;
	if (!strcmp(type, "u32")) {
		if (parse_int(val, 0, UINT32_MAX, &v) || val[0] == '-')
			return -1;
		return nla_put_u32(msg, (int)attr, (uint32_t)v);
	}
	if (!strcmp(type, "u64")) {
		if (parse_int(val, 0, UINT64_MAX, &v) || val[0] == '-')
			return -1;
		return nla_put_u64(msg, (int)attr, v);
	}
	if (!strcmp(type, "s32")) {
		if (parse_int(val, INT32_MIN, INT32_MAX, &v))
			return -1;
		return nla_put_s32(msg, (int)attr, (int32_t)(long long)v);
	}
	if (!strcmp(type, "str"))
		return nla_put_string(msg, (int)attr, val);
	if (!strcmp(type, "bin")) {
		size_t n = strlen(val), i;
		unsigned char buf[VGPU_NL_MSG_SIZE / 2];
		int hi, lo;

		if (n % 2 || n / 2 > sizeof(buf))
			return -1;
		for (i = 0; i < n / 2; i++) {
			hi = hexval(val[2 * i]);
			lo = hexval(val[2 * i + 1]);
			if (hi < 0 || lo < 0)
				return -1;
			buf[i] = (unsigned char)(hi * 16 + lo);
		}
		return nla_put(msg, (int)attr, (int)(n / 2), buf);
	}
	return -1;
}

/* Reply lines are kept until the outcome is known: "ok" comes first. */
static FILE *out;

static void print_hex(const unsigned char *p, int len)
{
	int i;

	for (i = 0; i < len; i++)
		fprintf(out, "%02x", p[i]);
}

static void print_str(const char *s, int len)
{
	int i;

	for (i = 0; i < len && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || c == '\\')
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
}

/* Whether @len bytes at @head are whole attributes, nothing left over. */
static bool attrs_ok(struct nlattr *head, int len)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, head, len, rem)
		;
	return rem == 0;
}

/* The attributes of @head (@len bytes) in @set as [PREFIX.]ATTR=VALUE. */
static void print_attrs(struct nlattr *head, int len, const struct aset *set,
			const char *prefix, int *n)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, head, len, rem) {
		int type = nla_type(a), alen = nla_len(a);
		enum atype t = type <= set->max ? set->types[type] : T_NONE;
		const unsigned char *d = nla_data(a);
		char sub[16];

		if (t == T_PAD)
			continue;
		if (t == T_NEST && set->nested && attrs_ok(nla_data(a), alen)) {
			snprintf(sub, sizeof(sub), "%d.", type);
			print_attrs(nla_data(a), alen, set->nested, sub, n);
			continue;
		}
		if (t == T_NEST2 && set->nested2 && attrs_ok(nla_data(a), alen)) {
			snprintf(sub, sizeof(sub), "%d.", type);
			print_attrs(nla_data(a), alen, set->nested2, sub, n);
			continue;
		}
		fprintf(out, "%s%s%d=", (*n)++ ? " " : "", prefix, type);
		if (t == T_U32 && alen == 4)
			fprintf(out, "%u", nla_get_u32(a));
		else if (t == T_S32 && alen == 4)
			fprintf(out, "%d", (int32_t)nla_get_u32(a));
		else if (t == T_U64 && alen == 8)
			fprintf(out, "%llu", (unsigned long long)nla_get_u64(a));
		else if (t == T_STR && alen > 0 && d[alen - 1] == '\0')
			print_str((const char *)d, alen);
		else if (t == T_FLAG && alen == 0)
			fputc('1', out);
		else
			print_hex(d, alen);
	}
}

/* One reply message: its attributes as ATTR=VALUE on a line. */
static int print_reply(struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	const struct aset *set;
	int n = 0;

	(void)arg;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return 0;
	switch (g->cmd) {
	case VGPU_CMD_GPU_GET:
	case VGPU_CMD_GPU_ADD:
	case VGPU_CMD_GPU_DEL:
	case VGPU_CMD_GPU_ADD_NTF:
	case VGPU_CMD_GPU_DEL_NTF:
		set = &gpu_set;
		break;
	case VGPU_CMD_PROC_REGISTER:
	case VGPU_CMD_PROC_GET:
		set = &proc_set;
		break;
	case VGPU_CMD_HOST_GET:
	case VGPU_CMD_HOST_SET:
		set = &host_set;
		break;
	default:
		set = &tenant_set;
		break;
	}
	print_attrs(genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), set, "", &n);
	fputc('\n', out);
	return 0;
}

static int parse_cmd(const char *s)
{
	unsigned long long v;
	size_t i;

	for (i = 0; i < sizeof(cmd_names) / sizeof(cmd_names[0]); i++)
		if (cmd_names[i] && !strcmp(s, cmd_names[i]))
			return (int)i;
	if (!parse_int(s, 0, 255, &v) && s[0] != '-')
		return (int)v;
	return -1;
}

int main(int argc, char **argv)
{
	struct vgpu_nl nl;
	struct nl_msg *msg;
	bool dump = false;
	char *replies = NULL;
	size_t rlen = 0;
	int cmd, i, err;

	if (argc > 1 && !strcmp(argv[1], "-d")) {
		dump = true;
		argc--, argv++;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(NULL, NULL);
	cmd = parse_cmd(argv[1]);
	if (cmd < 0)
		return usage("unknown command", argv[1]);

	/* Build first (family id filled in later) so bad arguments send nothing. */
	memset(&nl, 0, sizeof(nl));
	msg = vgpuctl_nl_msg(&nl, (uint8_t)cmd, dump);
	if (!msg) {
		fprintf(stderr, "Error: out of memory.\n");
		return 1;
	}
	for (i = 2; i < argc; i++) {
		if (put_arg(msg, argv[i])) {
			nlmsg_free(msg);
			return usage("bad attribute", argv[i]);
		}
	}
	if (nnests) {
		nlmsg_free(msg);
		return usage("nest without end after", argv[argc - 1]);
	}
	err = vgpuctl_nl_open(&nl);
	if (err) {
		vgpuctl_nl_perror(&nl, err);
		nlmsg_free(msg);
		return 1;
	}
	nlmsg_hdr(msg)->nlmsg_type = (uint16_t)nl.family;
	out = open_memstream(&replies, &rlen);
	if (!out) {
		fprintf(stderr, "Error: out of memory.\n");
		nlmsg_free(msg);
		vgpuctl_nl_close(&nl);
		return 1;
	}
	err = vgpuctl_nl_request(&nl, msg, print_reply, NULL);
	fclose(out);
	vgpuctl_nl_close(&nl);
	if (err) {
		printf("errno=%d msg=%s\n", nl.error, nl.msg);
		free(replies);
		return 1;
	}
	printf("ok\n%s", replies);
	free(replies);
	return 0;
}
