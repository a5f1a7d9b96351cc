// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA_VISIBLE_DEVICES (CUDA Programming Guide, "CUDA Environment
 * Variables"): a comma-separated sequence of GPU indices or UUIDs; only
 * those GPUs are visible, enumerated in the order of the sequence, and an
 * invalid entry hides itself and every entry after it. simgpu's driver
 * numbers its devices so (CUDA ordinals), while the shared state, the
 * configuration and NVML keep the GPUs' own indices: simgpu_phys() maps.
 * Entries: an index below gpus, or a UUID ("GPU-..." in full, any case, or
 * a prefix of exactly one GPU's UUID); a repeated GPU is invalid; MIG
 * identifiers are not modelled (invalid). Unset: every GPU.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "simgpu.h"

int simgpu_vis[SG_MAX_GPUS];
int simgpu_nvis;

/* The GPU one entry names, or -1. */
static int entry_gpu(const struct sg_config *cfg, const char *e, size_t len)
{
	int found = -1;

	if (!len)
		return -1;
	if (isdigit((unsigned char)e[0])) {
		long v = 0;

		for (size_t i = 0; i < len; i++) {
			if (!isdigit((unsigned char)e[i]) || v > SG_MAX_GPUS)
				return -1;
			v = v * 10 + (e[i] - '0');
		}
		return v < cfg->ngpus ? (int)v : -1;
	}
	if (len < 5 || strncmp(e, "GPU-", 4))
		return -1;
	for (int i = 0; i < cfg->ngpus; i++) {
		if (strncasecmp(cfg->gpu[i].uuid, e, len))
			continue;
		if (found >= 0)
			return -1;	/* an ambiguous prefix */
		found = i;
	}
	return found;
}

int simgpu_visible_parse(const struct sg_config *cfg, const char *cvd, int *vis)
{
	int n = 0;

	if (!cvd) {
		for (n = 0; n < cfg->ngpus; n++)
			vis[n] = n;
		return n;
	}
	while (n < cfg->ngpus) {
		size_t len = strcspn(cvd, ",");
		const char *e = cvd;
		int g;

		while (len && isspace((unsigned char)*e)) {
			e++;
			len--;
		}
		while (len && isspace((unsigned char)e[len - 1]))
			len--;
		g = entry_gpu(cfg, e, len);
		for (int i = 0; g >= 0 && i < n; i++)
			if (vis[i] == g)
				g = -1;
		if (g < 0)
			break;
		vis[n++] = g;
		cvd += strcspn(cvd, ",");
		if (!*cvd++)
			break;
	}
	return n;
}

void simgpu_visible_load(void)
{
	simgpu_nvis = simgpu_visible_parse(&simgpu_cfg, getenv("CUDA_VISIBLE_DEVICES"),
					   simgpu_vis);
}
