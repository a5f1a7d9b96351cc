// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu topology: NVLink pairs, PCI paths and NUMA nodes of the configured
 * GPUs, and what follows from them (NVML's topology level of a pair, peer
 * access). Pure logic on a struct sg_config, shared by the driver (P2P
 * queries) and NVML (topology and NVLink queries).
 *
 * A GPU's PCI path is its host bridge (root complex), then the PCIe
 * switches below it, from the root down: "0/1" is switch 1 under host
 * bridge 0. Two GPUs below the same last switch are NVML_TOPOLOGY_SINGLE
 * apart, below one shared switch further up NVML_TOPOLOGY_MULTIPLE, under
 * one host bridge NVML_TOPOLOGY_HOSTBRIDGE, on one NUMA node
 * NVML_TOPOLOGY_NODE, else NVML_TOPOLOGY_SYSTEM.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shm.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* One number of a list: digits only, within [min, max]; *s moves past it. */
static int number(const char **s, long min, long max, long *out)
{
	char *end;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (!isdigit((unsigned char)**s))
		return -1;
	*out = strtol(*s, &end, 10);
	if (*out < min || *out > max)
		return -1;
	*s = end;
	while (isspace((unsigned char)**s))
		(*s)++;
	return 0;
}

/*
 * "PEER[:LINKS][, ...]" (LINKS default 1) or "none": the NVLinks between
 * GPU gpu and each PEER, set on both ends (a link is symmetric). "none"
 * drops every link of GPU gpu.
 */
int simgpu_topo_parse_nvlink(struct sg_config *cfg, int gpu, const char *val,
			     char *err, size_t errlen, const char *where)
{
	unsigned char links[SG_MAX_GPUS];
	const char *s = val;
	long peer, n;

	if (!strcmp(val, "none")) {
		for (int i = 0; i < SG_MAX_GPUS; i++)
			cfg->gpu[i].nvlink[gpu] = cfg->gpu[gpu].nvlink[i] = 0;
		return 0;
	}
	memcpy(links, cfg->gpu[gpu].nvlink, sizeof(links));
	do {
		if (number(&s, 0, SG_MAX_GPUS - 1, &peer))
			return fail(err, errlen,
				    "%s: bad nvlink '%s' (want PEER[:LINKS][,...] with PEER 0..%d, or none)",
				    where, val, SG_MAX_GPUS - 1);
		n = 1;
		if (*s == ':' && (s++, number(&s, 1, SG_MAX_NVLINKS, &n)))
			return fail(err, errlen, "%s: bad nvlink count in '%s' (1..%d)",
				    where, val, SG_MAX_NVLINKS);
		if (peer == gpu)
			return fail(err, errlen, "%s: gpu%d cannot have an nvlink to itself",
				    where, gpu);
		links[peer] = (unsigned char)n;
	} while (*s == ',' && *s++);
	if (*s)
		return fail(err, errlen, "%s: bad nvlink '%s' (want PEER[:LINKS][,...])",
			    where, val);
	for (int i = 0; i < SG_MAX_GPUS; i++) {
		cfg->gpu[gpu].nvlink[i] = links[i];
		cfg->gpu[i].nvlink[gpu] = links[i];
	}
	return 0;
}

/* "HOSTBRIDGE[/SWITCH...]", each 0..255, at most SG_PCI_DEPTH parts. */
int simgpu_topo_parse_path(struct sg_gpu_config *g, const char *val)
{
	unsigned char path[SG_PCI_DEPTH];
	const char *s = val;
	int len = 0;
	long v;

	do {
		if (len == SG_PCI_DEPTH || number(&s, 0, 255, &v))
			return -1;
		path[len++] = (unsigned char)v;
	} while (*s == '/' && *s++);
	if (*s)
		return -1;
	memcpy(g->path, path, sizeof(path));
	g->path_len = len;
	return 0;
}

int simgpu_topo_nlinks(const struct sg_config *cfg, int a)
{
	int n = 0;

	for (int i = 0; i < cfg->ngpus; i++)
		n += cfg->gpu[a].nvlink[i];
	return n;
}

/* Whole-configuration checks, once every key is read. */
int simgpu_topo_check(const struct sg_config *cfg, char *err, size_t errlen)
{
	for (int i = 0; i < cfg->ngpus; i++) {
		const struct sg_gpu_config *g = &cfg->gpu[i];

		for (int j = cfg->ngpus; j < SG_MAX_GPUS; j++)
			if (g->nvlink[j])
				return fail(err, errlen,
					    "gpu%d.nvlink names gpu%d, but there are %d GPUs",
					    i, j, cfg->ngpus);
		if (simgpu_topo_nlinks(cfg, i) > SG_MAX_NVLINKS)
			return fail(err, errlen, "gpu%d has %d nvlinks, more than %d",
				    i, simgpu_topo_nlinks(cfg, i), SG_MAX_NVLINKS);
		for (int j = 0; j < i; j++)
			if (g->path[0] == cfg->gpu[j].path[0] && g->numa != cfg->gpu[j].numa)
				return fail(err, errlen,
					    "gpu%d and gpu%d share host bridge %d but not their numa node (%d, %d)",
					    j, i, g->path[0], cfg->gpu[j].numa, g->numa);
	}
	return 0;
}

enum sg_topo_level simgpu_topo_level(const struct sg_config *cfg, int a, int b)
{
	const struct sg_gpu_config *x = &cfg->gpu[a], *y = &cfg->gpu[b];
	int common = 0;

	if (a == b)
		return SG_TOPO_INTERNAL;
	while (common < x->path_len && common < y->path_len &&
	       x->path[common] == y->path[common])
		common++;
	if (common >= 2)
		return common == x->path_len && common == y->path_len ?
			SG_TOPO_SINGLE : SG_TOPO_MULTIPLE;
	if (common == 1)
		return SG_TOPO_HOSTBRIDGE;
	if (x->numa >= 0 && x->numa == y->numa)
		return SG_TOPO_NODE;
	return SG_TOPO_SYSTEM;
}

/* Links are numbered from 0, peer by peer in GPU order. */
int simgpu_topo_link_peer(const struct sg_config *cfg, int a, int link)
{
	for (int i = 0; i < cfg->ngpus; i++) {
		if (link < cfg->gpu[a].nvlink[i])
			return i;
		link -= cfg->gpu[a].nvlink[i];
	}
	return -1;
}

/*
 * Peer access: over NVLink, or over PCIe below a shared PCIe switch
 * (simgpu's simplification: no P2P through a host bridge or between
 * sockets). Never a GPU with itself.
 */
int simgpu_topo_peer_ok(const struct sg_config *cfg, int a, int b)
{
	if (a == b)
		return 0;
	return cfg->gpu[a].nvlink[b] || simgpu_topo_level(cfg, a, b) <= SG_TOPO_MULTIPLE;
}
