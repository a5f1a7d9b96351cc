// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl gpu: add, del, set (NVLink peers, health), show the GPU
 * inventory of vgpu.ko (probe is in probe.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../enforce/backstop.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_gpu() - usage of the gpu object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_gpu(FILE *f)
{
	fputs("Usage: vgpuctl gpu add INDEX vram SIZE [uuid UUID] [pci BUSID] [numa NODE]\n"
	      "       vgpuctl gpu del INDEX\n"
	      "       vgpuctl gpu set INDEX [nvlink { LIST | none }]\n"
	      "                             [state { healthy | unhealthy | draining } [reason TEXT]]\n"
	      "       vgpuctl gpu { show | list } [INDEX]\n"
	      "       vgpuctl gpu probe [--dry-run]\n"
	      "       vgpuctl gpu help\n"
	      "INDEX := 0-63\n"
	      "SIZE  := NUMBER[.FRACTION][B|K|Ki|KiB|KB|M|...|T|Ti|TiB|TB] (powers of 1024)\n"
	      "UUID  := GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\n"
	      "BUSID := [DDDD]DDDD:BB:DD.F\n"
	      "NODE  := NUMA node number, or -1 for none\n"
	      "LIST  := GPU indexes (\"1,3\"): the GPUs this one has an NVLink to; the\n"
	      "         module keeps links symmetric\n"
	      "TEXT  := 1-127 printable characters: why the GPU is not healthy\n"
	      "probe adds the GPUs that NVML (libnvidia-ml.so.1) lists, at their NVML\n"
	      "index, skipping those already present; --dry-run only shows them.\n"
	      "A GPU that is not healthy gets no new tenant (gpus auto skips it, a gpus\n"
	      "list adding it is refused); its tenants stay and see a tenant-change event.\n"
	      "probe also sets each GPU's NVLink peers from NVML and marks unhealthy a\n"
	      "GPU whose NVML reports a failed row remapping (nvmlDeviceGetRemappedRows).\n"
	      "show says what holds tenants below libvgpu on each GPU: backstop driver\n"
	      "(NVML per-cgroup limits), dmem (the dmem cgroup controller) or none.\n", f);
}

/* nvlink (when any), state and its reason. */
static void print_state(struct nlattr **tb)
{
	struct nlattr *st = tb[VGPU_A_GPU_STATE];
	const char *name = st ? vgpuctl_gpu_state_name(nla_get_u32(st)) : NULL;
	uint64_t nvlink = tb[VGPU_A_GPU_NVLINK] ? nla_get_u64(tb[VGPU_A_GPU_NVLINK]) : 0;

	vgpuctl_print_mask("nvlink", "nvlink", nvlink, nvlink);
	if (st && !name)	/* a state this vgpuctl does not know */
		vgpuctl_print_u64("state", "state", true, nla_get_u32(st));
	else
		vgpuctl_print_str("state", "state", name);
	vgpuctl_print_str("reason", "reason", tb[VGPU_A_GPU_STATE_REASON] ?
			  nla_get_string(tb[VGPU_A_GPU_STATE_REASON]) : NULL);
}

/** vgpuctl_gpu_print() - print one GPU (show and monitor). */
void vgpuctl_gpu_print(struct nlattr **tb)
{
	int32_t numa = tb[VGPU_A_GPU_NUMA] ? (int32_t)nla_get_u32(tb[VGPU_A_GPU_NUMA]) : -1;

	vgpuctl_print_u64("index", "gpu", tb[VGPU_A_GPU_INDEX],
			  tb[VGPU_A_GPU_INDEX] ? nla_get_u32(tb[VGPU_A_GPU_INDEX]) : 0);
	vgpuctl_print_str("uuid", "uuid",
			  tb[VGPU_A_GPU_UUID] ? nla_get_string(tb[VGPU_A_GPU_UUID]) : NULL);
	vgpuctl_print_str("pci", "pci",
			  tb[VGPU_A_GPU_PCI] ? nla_get_string(tb[VGPU_A_GPU_PCI]) : NULL);
	vgpuctl_print_size("vram", "vram", tb[VGPU_A_GPU_VRAM],
			   tb[VGPU_A_GPU_VRAM] ? nla_get_u64(tb[VGPU_A_GPU_VRAM]) : 0);
	vgpuctl_print_s64("numa", "numa", numa >= 0, numa);
	print_state(tb);
}

static int gpu_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_GPU_MAX + 1];

	(void)arg;
	if (vgpuctl_gpu_parse(nlh, tb))
		return -EPROTO;
	vgpuctl_print_obj_open(NULL);
	vgpuctl_gpu_print(tb);
	vgpuctl_backstop_print_gpu(tb);
	vgpuctl_print_obj_close();
	return 0;
}

static int put_index(struct nl_msg *msg, const void *arg)
{
	return nla_put_u32(msg, VGPU_A_GPU_INDEX, *(const uint32_t *)arg);
}

static int gpu_show(int argc, char **argv)
{
	uint32_t index = 0;

	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for gpu show", argv[1]);
	if (argc > 0 && vgpuctl_parse_index(argv[0], &index))
		return vgpuctl_usage_error("invalid INDEX \"%s\" for gpu show (0-63)", argv[0]);
	if (argc > 0)
		return vgpuctl_show(VGPU_CMD_GPU_GET, false, put_index, &index, gpu_show_one);
	return vgpuctl_show(VGPU_CMD_GPU_GET, true, NULL, NULL, gpu_show_one);
}

/**
 * vgpuctl_gpu_add_send() - gpu-add of @g, then the backstop on it
 * @g: parsed by vgpuctl_gpu_add_parse()
 *
 * Return: the exit status.
 */
int vgpuctl_gpu_add_send(const struct vgpuctl_gpu_add *g)
{
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	msg = vgpuctl_nl_msg(&nl, VGPU_CMD_GPU_ADD, false);
	if (msg && (nla_put_u32(msg, VGPU_A_GPU_INDEX, g->index) < 0 ||
		    nla_put_u64(msg, VGPU_A_GPU_VRAM, g->vram) < 0 ||
		    (g->uuid && nla_put_string(msg, VGPU_A_GPU_UUID, g->uuid) < 0) ||
		    (g->pci && nla_put_string(msg, VGPU_A_GPU_PCI, g->pci) < 0) ||
		    (g->has_numa && nla_put_s32(msg, VGPU_A_GPU_NUMA, g->numa) < 0))) {
		vgpuctl_nl_close(&nl);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	if (!ret) {
		char done[32];

		snprintf(done, sizeof(done), "gpu %u added", g->index);
		ret = vgpuctl_backstop_gpu(&nl, g->index, done);
	}
	vgpuctl_nl_close(&nl);
	return ret;
}

static int gpu_add(int argc, char **argv)
{
	struct vgpuctl_gpu_add g;
	int ret = vgpuctl_gpu_add_parse(&g, argc, argv);

	return ret ? ret : vgpuctl_gpu_add_send(&g);
}

/* gpu del, then every tenant's backstop on it cleared (backstop.c). */
static int gpu_del(int argc, char **argv)
{
	struct vgpuctl_bs_del *del;
	struct vgpu_nl nl;
	struct nl_msg *msg;
	uint32_t index;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing INDEX for gpu del");
	if (vgpuctl_parse_index(argv[0], &index))
		return vgpuctl_usage_error("invalid INDEX \"%s\" for gpu del (0-63)", argv[0]);
	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for gpu del", argv[1]);
	ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	del = vgpuctl_backstop_prepare_gpu_del(&nl, index);	/* NULL: unread */
	msg = vgpuctl_nl_msg(&nl, VGPU_CMD_GPU_DEL, false);
	if (msg && nla_put_u32(msg, VGPU_A_GPU_INDEX, index) < 0) {
		vgpuctl_nl_close(&nl);
		vgpuctl_backstop_del_free(del);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	vgpuctl_nl_close(&nl);
	if (!ret)
		ret = vgpuctl_backstop_gpu_deleted(index, del);
	vgpuctl_backstop_del_free(del);
	return ret;
}

/* Parsed "gpu set" words. */
struct gpu_set {
	uint32_t index, state;
	uint64_t nvlink;
	bool has_nvlink, has_state;
	const char *reason;
};

/* One KEY VALUE of gpu set into @g. Returns 0 or VGPU_EXIT_USAGE. */
static int gpu_set_key(struct gpu_set *g, const char *key, const char *val)
{
	if (strcmp(key, "nvlink") && strcmp(key, "state") && strcmp(key, "reason"))
		return vgpuctl_usage_error("unknown key \"%s\" for gpu set", key);
	if (!val)
		return vgpuctl_usage_error("missing value for %s", key);
	if ((!strcmp(key, "nvlink") && g->has_nvlink) || (!strcmp(key, "state") && g->has_state) ||
	    (!strcmp(key, "reason") && g->reason))
		return vgpuctl_usage_error("duplicate key \"%s\" for gpu set", key);
	if (!strcmp(key, "nvlink")) {
		g->has_nvlink = true;
		if (strcmp(val, "none") && vgpuctl_parse_gpus(val, &g->nvlink))
			return vgpuctl_usage_error("invalid LIST \"%s\" for nvlink", val);
	} else if (!strcmp(key, "state")) {
		g->has_state = true;
		if (vgpuctl_parse_gpu_state(val, &g->state))
			return vgpuctl_usage_error("invalid STATE \"%s\" for state (healthy, unhealthy or draining)",
						   val);
	} else {
		if (vgpuctl_parse_reason(val))
			return vgpuctl_usage_error("invalid TEXT for reason (1-127 printable characters)");
		g->reason = val;
	}
	return 0;
}

/* Parse the words after "gpu set". Returns 0 or VGPU_EXIT_USAGE. */
static int gpu_set_parse(struct gpu_set *g, int argc, char **argv)
{
	int ret;

	memset(g, 0, sizeof(*g));
	if (argc < 1)
		return vgpuctl_usage_error("missing INDEX for gpu set");
	if (vgpuctl_parse_index(argv[0], &g->index))
		return vgpuctl_usage_error("invalid INDEX \"%s\" for gpu set (0-63)", argv[0]);
	if (argc < 2)
		return vgpuctl_usage_error("missing KEY for gpu set (nvlink or state)");
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		ret = gpu_set_key(g, argv[0], argc > 1 ? argv[1] : NULL);
		if (ret)
			return ret;
	}
	if (g->reason && !g->has_state)
		return vgpuctl_usage_error("reason goes with state");
	if (g->reason && g->state == VGPU_GPU_STATE_HEALTHY)
		return vgpuctl_usage_error("a healthy GPU has no reason");
	return 0;
}

static int gpu_set(int argc, char **argv)
{
	struct vgpu_nl nl;
	struct gpu_set g;
	int ret = gpu_set_parse(&g, argc, argv);

	if (!ret)
		ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	ret = vgpuctl_gpu_set_send(&nl, g.index, g.has_nvlink ? &g.nvlink : NULL,
				   g.has_state ? &g.state : NULL, g.reason);
	vgpuctl_nl_close(&nl);
	return ret;
}

/**
 * vgpuctl_cmd_gpu() - dispatch "vgpuctl gpu COMMAND ..."
 * @argc: arguments after "gpu"
 * @argv: argv[0] is the command; none means show
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_gpu(int argc, char **argv)
{
	const char *cmd = argc > 0 ? argv[0] : "show";

	if (vgpuctl_is_help(argc, argv) || vgpuctl_is_help(argc - 1, argv + 1)) {
		vgpuctl_usage_gpu(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0)
		argc--, argv++;
	if (!strcmp(cmd, "add"))
		return gpu_add(argc, argv);
	if (!strcmp(cmd, "del") || !strcmp(cmd, "delete"))
		return gpu_del(argc, argv);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "list"))
		return gpu_show(argc, argv);
	if (!strcmp(cmd, "set"))
		return gpu_set(argc, argv);
	if (!strcmp(cmd, "probe"))
		return vgpuctl_gpu_probe(argc, argv);
	return vgpuctl_usage_error("unknown command \"%s\" for gpu; try \"vgpuctl gpu help\"", cmd);
}
