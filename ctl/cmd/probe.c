// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl gpu probe: declare the host's GPUs, as NVML lists them, to
 * vgpu.ko. NVML (libnvidia-ml.so.1) is opened at run time, so vgpuctl has
 * no link-time dependency on NVIDIA's driver; nvml.h gives the types and
 * the versioned names of the functions (nvmlDeviceGetPciInfo is
 * nvmlDeviceGetPciInfo_v3, ...), and every function is looked up with
 * dlsym. Beside the GPUs themselves, probe reads their NVLink peers and
 * whether NVML reports a failed row remapping, and sets both in
 * the module (gpu-set; Documentation/gpus.md).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <netlink/genl/genl.h>
#include <nvml.h>

#include "../enforce/backstop.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../vgpuctl.h"

#define NVML_LIB	"libnvidia-ml.so.1"

/* The name nvml.h maps a function to ("nvmlInit" -> "nvmlInit_v2"). */
#define NAME_OF(f)	NAME_STR(f)
#define NAME_STR(f)	#f

struct nvml {
	void *lib;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*count)(unsigned int *);
	nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*numa)(nvmlDevice_t, unsigned int *);	/* may be NULL */
	/* Topology and health, all optional. */
	nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned int, nvmlEnableState_t *);
	nvmlReturn_t (*link_pci)(nvmlDevice_t, unsigned int, nvmlPciInfo_t *);
	nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned int *, unsigned int *,
				      unsigned int *, unsigned int *);
};

/* A GPU as NVML describes it, or as the inventory holds it. */
struct probed {
	uint32_t index;
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	char pci[VGPU_PCI_LEN_MAX + 1];
	uint64_t vram;
	int32_t numa;		/* -1: none */
	bool present;		/* inventory: the slot is taken */
	bool has_links;		/* NVML answered the NVLink queries */
	unsigned int npeers;	/* PCI bus ids at the far end of active links */
	char peers[NVML_NVLINK_MAX_LINKS][VGPU_PCI_LEN_MAX + 1];
	uint64_t nvlink;	/* the peers as inventory indexes (after plan) */
	const char *fault;	/* NVML's error state needing a reset, or NULL */
};

static const char *nvml_strerror(const struct nvml *n, nvmlReturn_t rc)
{
	static char buf[32];
	const char *s = n->error_string ? n->error_string(rc) : NULL;

	if (s && *s)
		return s;
	snprintf(buf, sizeof(buf), "NVML error %d", (int)rc);
	return buf;
}

/* Look up @name in NVML; reports its absence unless @optional. */
static void *sym(struct nvml *n, const char *name, bool optional, int *ret)
{
	void *p = dlsym(n->lib, name);

	if (!p && !optional && !*ret)
		*ret = vgpuctl_error("NVML (%s) lacks %s: the NVIDIA driver is too old", NVML_LIB,
				  name);
	return p;
}

static int nvml_open(struct nvml *n)
{
	nvmlReturn_t rc;
	int ret = 0;

	memset(n, 0, sizeof(*n));
	n->lib = dlopen(NVML_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!n->lib)
		return vgpuctl_error("NVML (%s) not found: no NVIDIA driver on this host", NVML_LIB);
	n->init = sym(n, NAME_OF(nvmlInit), false, &ret);
	n->shutdown = sym(n, "nvmlShutdown", false, &ret);
	n->error_string = sym(n, "nvmlErrorString", true, &ret);
	n->count = sym(n, NAME_OF(nvmlDeviceGetCount), false, &ret);
	n->handle = sym(n, NAME_OF(nvmlDeviceGetHandleByIndex), false, &ret);
	n->uuid = sym(n, "nvmlDeviceGetUUID", false, &ret);
	n->pci = sym(n, NAME_OF(nvmlDeviceGetPciInfo), false, &ret);
	n->memory = sym(n, "nvmlDeviceGetMemoryInfo", false, &ret);
	n->numa = sym(n, "nvmlDeviceGetNumaNodeId", true, &ret);
	n->link_state = sym(n, "nvmlDeviceGetNvLinkState", true, &ret);
	n->link_pci = sym(n, NAME_OF(nvmlDeviceGetNvLinkRemotePciInfo), true, &ret);
	n->remapped_rows = sym(n, "nvmlDeviceGetRemappedRows", true, &ret);
	if (!ret) {
		rc = n->init();
		if (rc != NVML_SUCCESS)
			ret = vgpuctl_error("%s: %s", NAME_OF(nvmlInit), nvml_strerror(n, rc));
	}
	if (ret) {
		dlclose(n->lib);
		n->lib = NULL;
	}
	return ret;
}

static void nvml_close(struct nvml *n)
{
	if (!n->lib)
		return;
	n->shutdown();
	dlclose(n->lib);
	n->lib = NULL;
}

/* The NUMA node of the PCI device @pci from sysfs, or -1. */
static int32_t sysfs_numa(const char *pci)
{
	char path[96];
	FILE *f;
	int node;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node", pci);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1 || node < 0 || node > VGPU_LIST_NODE_MAX)
		node = -1;
	fclose(f);
	return node;
}

#define NVML_CALL(n, i, what, call) do {					\
	nvmlReturn_t rc_ = (call);						\
	if (rc_ != NVML_SUCCESS)						\
		return vgpuctl_error("%s of NVML GPU %u: %s", what, i,		\
				     nvml_strerror(n, rc_));			\
} while (0)

/*
 * The PCI bus ids at the far end of @dev's active NVLinks, into @g. A GPU
 * without NVLink answers NVML_ERROR_NOT_SUPPORTED (no links); other errors
 * of a link skip it. A far end that is no GPU (an NVSwitch) is dropped when
 * the ids are matched (peer_masks()).
 */
static void nvml_links(struct nvml *n, nvmlDevice_t dev, struct probed *g)
{
	nvmlEnableState_t active;
	nvmlPciInfo_t pci;
	unsigned int l;

	if (!n->link_state || !n->link_pci)
		return;
	g->has_links = true;
	for (l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		if (n->link_state(dev, l, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED)
			continue;
		memset(&pci, 0, sizeof(pci));
		if (n->link_pci(dev, l, &pci) != NVML_SUCCESS)
			continue;
		pci.busId[sizeof(pci.busId) - 1] = '\0';
		if (!vgpuctl_busid_norm(pci.busId, g->peers[g->npeers], sizeof(g->peers[0])))
			g->npeers++;
	}
}

/*
 * A fault of @dev that makes it unfit for new work, or NULL: a row
 * remapping that failed (NVML: "failureOccurred will be set if a row
 * remapping ever failed in the past", the RMA condition of NVIDIA's memory
 * error management). A pending remapping is no fault: new work may run.
 */
static const char *nvml_fault(struct nvml *n, nvmlDevice_t dev)
{
	unsigned int corr, unc, pending, failed;

	if (n->remapped_rows &&
	    n->remapped_rows(dev, &corr, &unc, &pending, &failed) == NVML_SUCCESS && failed)
		return "NVML: a row remapping failed (nvmlDeviceGetRemappedRows)";
	return NULL;
}

/* Describe NVML's GPU @i in @g. Returns 0 or VGPU_EXIT_ERR. */
static int nvml_gpu(struct nvml *n, unsigned int i, struct probed *g)
{
	nvmlDevice_t dev;
	nvmlPciInfo_t pci;
	nvmlMemory_t mem;
	unsigned int node;

	memset(g, 0, sizeof(*g));
	g->index = i;
	NVML_CALL(n, i, NAME_OF(nvmlDeviceGetHandleByIndex), n->handle(i, &dev));
	NVML_CALL(n, i, "nvmlDeviceGetUUID", n->uuid(dev, g->uuid, sizeof(g->uuid)));
	if (vgpuctl_parse_uuid(g->uuid))
		return vgpuctl_error("NVML GPU %u has a UUID vgpu does not take: \"%s\"", i, g->uuid);
	memset(&pci, 0, sizeof(pci));
	NVML_CALL(n, i, NAME_OF(nvmlDeviceGetPciInfo), n->pci(dev, &pci));
	pci.busId[sizeof(pci.busId) - 1] = '\0';
	if (vgpuctl_busid_norm(pci.busId, g->pci, sizeof(g->pci)))
		return vgpuctl_error("NVML GPU %u has a PCI bus id vgpu does not take: \"%s\"",
				     i, pci.busId);
	memset(&mem, 0, sizeof(mem));
	NVML_CALL(n, i, "nvmlDeviceGetMemoryInfo", n->memory(dev, &mem));
	if (!mem.total)
		return vgpuctl_error("NVML GPU %u reports no memory", i);
	g->vram = mem.total;
	if (n->numa && n->numa(dev, &node) == NVML_SUCCESS && node <= VGPU_LIST_NODE_MAX)
		g->numa = (int32_t)node;
	else
		g->numa = sysfs_numa(g->pci);
	nvml_links(n, dev, g);
	g->fault = nvml_fault(n, dev);
	return 0;
}

/* The GPUs NVML lists, into @gpus (VGPU_GPU_MAX). Returns 0 or an exit status. */
static int nvml_list(struct probed *gpus, unsigned int *count)
{
	struct nvml n;
	unsigned int i;
	nvmlReturn_t rc;
	int ret;

	ret = nvml_open(&n);
	if (ret)
		return ret;
	rc = n.count(count);
	if (rc != NVML_SUCCESS)
		ret = vgpuctl_error("%s: %s", NAME_OF(nvmlDeviceGetCount), nvml_strerror(&n, rc));
	else if (*count > VGPU_GPU_MAX)
		ret = vgpuctl_error("NVML lists %u GPUs; vgpu has %d slots", *count, VGPU_GPU_MAX);
	for (i = 0; !ret && i < *count; i++)
		ret = nvml_gpu(&n, i, &gpus[i]);
	nvml_close(&n);
	return ret;
}

/*
 * Read the inventory into @inv (VGPU_GPU_MAX slots) through the backstop's
 * reader (backstop_read.c), which retries a dump the module interrupted.
 * Returns 0 or -errno.
 */
static int inventory(struct vgpu_nl *nl, struct probed *inv)
{
	static struct vgpu_bs_gpu bs[VGPU_GPU_MAX];
	int err = vgpuctl_bs_inventory(nl, bs);
	uint32_t i;

	memset(inv, 0, VGPU_GPU_MAX * sizeof(*inv));
	if (err)
		return err;
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		if (!bs[i].present)
			continue;
		inv[i].present = true;
		inv[i].index = i;
		snprintf(inv[i].uuid, sizeof(inv[i].uuid), "%s", bs[i].uuid);
		snprintf(inv[i].pci, sizeof(inv[i].pci), "%s", bs[i].pci);
	}
	return 0;
}

/* The slot of @inv holding a GPU with @g's UUID, or -1. */
static int find_uuid(const struct probed *inv, const struct probed *g)
{
	int i;

	for (i = 0; i < VGPU_GPU_MAX; i++)
		if (inv[i].present && !strcasecmp(inv[i].uuid, g->uuid))
			return i;
	return -1;
}

/* Check that NVML's GPUs fit the inventory; set @slot[i] to the slot a
 * GPU is already in, or -1 when it is to be added. */
static int plan(const struct probed *gpus, unsigned int count,
		const struct probed *inv, int *slot)
{
	unsigned int i;
	int j;

	for (i = 0; i < count; i++) {
		const struct probed *g = &gpus[i];

		slot[i] = find_uuid(inv, g);
		if (slot[i] >= 0)
			continue;
		if (inv[g->index].present)
			return vgpuctl_error("GPU slot %u already holds %s, not NVML GPU %u (%s); free it with \"vgpuctl gpu del %u\"",
					     g->index, inv[g->index].uuid[0] ? inv[g->index].uuid :
					     "a GPU without UUID", g->index, g->uuid, g->index);
		for (j = 0; j < VGPU_GPU_MAX; j++)
			if (inv[j].present && !strcasecmp(inv[j].pci, g->pci))
				return vgpuctl_error("PCI bus id %s of NVML GPU %u (%s) is already that of GPU slot %d",
						     g->pci, g->index, g->uuid, j);
	}
	return 0;
}

/*
 * Each GPU's NVLink peers as a mask of inventory indexes: NVML GPU j is at
 * @slot[j] when already present, else at its NVML index.
 */
static void peer_masks(struct probed *gpus, unsigned int count, const int *slot)
{
	unsigned int i, j, p;

	for (i = 0; i < count; i++)
		for (p = 0; p < gpus[i].npeers; p++)
			for (j = 0; j < count; j++)
				if (j != i && !strcasecmp(gpus[i].peers[p], gpus[j].pci))
					gpus[i].nvlink |= 1ULL << (slot[j] >= 0 ? (unsigned int)slot[j] :
								   gpus[j].index);
}

/* Sets the NVLink peers and, on a fault, the state of GPU @g at @index. */
static int set_topology(struct vgpu_nl *nl, const struct probed *g, uint32_t index)
{
	uint32_t unhealthy = VGPU_GPU_STATE_UNHEALTHY;

	if (!g->has_links && !g->fault)
		return 0;
	return vgpuctl_gpu_set_send(nl, index, g->has_links ? &g->nvlink : NULL,
				    g->fault ? &unhealthy : NULL, g->fault);
}

static int add(struct vgpu_nl *nl, const struct probed *g)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_GPU_ADD, false);

	if (msg && (nla_put_u32(msg, VGPU_A_GPU_INDEX, g->index) < 0 ||
		    nla_put_u64(msg, VGPU_A_GPU_VRAM, g->vram) < 0 ||
		    nla_put_string(msg, VGPU_A_GPU_UUID, g->uuid) < 0 ||
		    nla_put_string(msg, VGPU_A_GPU_PCI, g->pci) < 0 ||
		    (g->numa >= 0 && nla_put_s32(msg, VGPU_A_GPU_NUMA, g->numa) < 0)))
		return vgpuctl_put_failed(msg);
	return vgpuctl_send(nl, msg, NULL, NULL);
}

/*
 * One line: "added gpu 0 uuid ... pci ... vram 16GiB numa 0 [nvlink 2]"
 * (or "would add"), or "gpu 1 already present", each followed by "state
 * unhealthy reason ..." when NVML reports a fault; JSON: the GPU, its state
 * and its status.
 */
static void report(const struct probed *g, int slot, const char *status)
{
	bool json = vgpuctl_print_json();
	FILE *f = vgpuctl_print_file();

	vgpuctl_print_obj_open(NULL);
	if (!json && slot < 0)
		fprintf(f, "%s ", strcmp(status, "added") ? "would add" : "added");
	vgpuctl_print_u64("index", "gpu", true, slot >= 0 ? (uint32_t)slot : g->index);
	if (json || slot < 0) {
		vgpuctl_print_str("uuid", "uuid", g->uuid);
		vgpuctl_print_str("pci", "pci", g->pci);
		vgpuctl_print_size("vram", "vram", true, g->vram);
		vgpuctl_print_s64("numa", "numa", g->numa >= 0, g->numa);
		vgpuctl_print_mask("nvlink", "nvlink", g->nvlink, g->nvlink);
	}
	if (!json && slot >= 0 && (uint32_t)slot != g->index)
		fprintf(f, " already present (NVML GPU %u)", g->index);
	else if (!json && slot >= 0)
		fputs(" already present", f);
	if (json || g->fault)
		vgpuctl_print_str("state", "state", g->fault ? "unhealthy" : "healthy");
	vgpuctl_print_str("reason", "reason", g->fault);
	if (json)
		vgpuctl_print_str("status", NULL, status);
	vgpuctl_print_obj_close();
}

/* Every tenant's backstop on GPU @index, just added; the exit status. */
static int backstop(struct vgpu_nl *nl, uint32_t index)
{
	char done[32];

	snprintf(done, sizeof(done), "gpu %u added", index);
	return vgpuctl_backstop_gpu(nl, index, done);
}

static void usage_probe(FILE *f)
{
	fputs("Usage: vgpuctl gpu probe [--dry-run]\n", f);
}

/**
 * vgpuctl_gpu_probe() - "vgpuctl gpu probe [--dry-run]"
 * @argc: arguments after "probe"
 * @argv: "--dry-run" or nothing
 *
 * Lists the GPUs with NVML and adds each to the inventory, at its NVML
 * index, unless a GPU of the same UUID is there. Checks every GPU before
 * adding any.
 *
 * Return: the exit status.
 */
int vgpuctl_gpu_probe(int argc, char **argv)
{
	static struct probed gpus[VGPU_GPU_MAX], inv[VGPU_GPU_MAX];
	int slot[VGPU_GPU_MAX], ret, err, bs_ret = 0;
	bool dry = false, opened = false;
	unsigned int count = 0, i;
	struct vgpu_nl nl;

	if (vgpuctl_is_help(argc, argv)) {
		usage_probe(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0 && (!strcmp(argv[0], "--dry-run") || !strcmp(argv[0], "-n")))
		dry = true, argc--, argv++;
	if (argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" for gpu probe", argv[0]);
	if (!dry) {
		ret = vgpuctl_need_admin();
		if (ret)
			return ret;
	}
	ret = nvml_list(gpus, &count);
	if (ret)
		return ret;

	/* A dry run without the module shows what a fresh load would get. */
	memset(inv, 0, sizeof(inv));
	err = vgpuctl_nl_open(&nl);
	if (err && !(dry && err == -ENOENT)) {
		vgpuctl_nl_perror(&nl, err);
		return VGPU_EXIT_ERR;
	}
	opened = !err;
	if (opened) {
		err = inventory(&nl, inv);
		if (err) {
			vgpuctl_nl_perror(&nl, err);
			vgpuctl_nl_close(&nl);
			return VGPU_EXIT_ERR;
		}
	}
	ret = plan(gpus, count, inv, slot);
	if (ret) {
		if (opened)
			vgpuctl_nl_close(&nl);
		return ret;
	}
	peer_masks(gpus, count, slot);
	vgpuctl_print_list_open();
	for (i = 0; !ret && i < count; i++) {
		if (slot[i] >= 0) {
			report(&gpus[i], slot[i], "present");
			continue;
		}
		if (!dry)
			ret = add(&nl, &gpus[i]);
		if (!ret)
			report(&gpus[i], -1, dry ? "new" : "added");
		fflush(stdout);
		if (!ret && !dry)
			bs_ret |= backstop(&nl, gpus[i].index);
	}
	vgpuctl_print_list_close(true);
	/* Peers exist once every GPU is in: links are set after the adds. */
	for (i = 0; !ret && !dry && i < count; i++)
		ret = set_topology(&nl, &gpus[i], slot[i] >= 0 ? (uint32_t)slot[i] : gpus[i].index);
	if (opened)
		vgpuctl_nl_close(&nl);
	return ret ? ret : bs_ret;
}
