// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu configuration: defaults, then a small key = value file
 * ($SIMGPU_CONFIG, default /etc/simgpu.conf), then the environment
 * (SIMGPU_GPUS, SIMGPU_VRAM, SIMGPU_SMS, SIMGPU_CTX_VRAM, SIMGPU_MODULE_VRAM,
 * SIMGPU_KERNEL_NS, SIMGPU_MEMORY_LIMITS, SIMGPU_DMEM).
 * Pure logic: no shared state, no CUDA types.
 */
#include <ctype.h>
#include <errno.h>
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

int simgpu_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': mul = 1ULL << 10; end++; break;
	case 'M': mul = 1ULL << 20; end++; break;
	case 'G': mul = 1ULL << 30; end++; break;
	case 'T': mul = 1ULL << 40; end++; break;
	default: break;
	}
	if (mul > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (mul > 1 && (*end == 'b' || *end == 'B'))
		end++;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "GPU-" then 8-4-4-4-12 hex digits. */
int simgpu_uuid_parse(const char *s, unsigned char out[16])
{
	static const int groups[] = { 8, 4, 4, 4, 12 };
	int i, g, n = 0;

	if (strncmp(s, "GPU-", 4))
		return -1;
	s += 4;
	for (g = 0; g < 5; g++) {
		for (i = 0; i < groups[g]; i += 2) {
			int hi = hexval((unsigned char)s[0]);
			int lo = hi < 0 ? -1 : hexval((unsigned char)s[1]);

			if (lo < 0)
				return -1;
			out[n++] = (unsigned char)(hi << 4 | lo);
			s += 2;
		}
		if (g < 4 && *s++ != '-')
			return -1;
	}
	return *s ? -1 : 0;
}

static int parse_pci(const char *s, struct sg_gpu_config *g)
{
	unsigned int dom, bus, dev, fn;
	char tail;

	/*
	 * A domain of up to 8 hex digits, as NVML's busId has room for:
	 * hosts with VMD or Hyper-V have domains above 0xffff, which NVML
	 * writes "00010000:01:00.0" and sysfs "10000:01:00.0".
	 */
	if (strcspn(s, ":") > 8 ||
	    sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 ||
	    bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	g->domain = dom;
	g->bus = bus;
	g->device = dev;
	g->function = fn;
	snprintf(g->pci, sizeof(g->pci), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static uint64_t fnv(const char *s, uint64_t h)
{
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void default_gpu(struct sg_gpu_config *g, int i)
{
	char key[32];
	uint64_t a, b;

	memset(g, 0, sizeof(*g));
	snprintf(key, sizeof(key), "simgpu-gpu-%d", i);
	a = fnv(key, 0xcbf29ce484222325ULL);
	b = fnv(key, a ^ 0x9e3779b97f4a7c15ULL);
	snprintf(g->uuid, sizeof(g->uuid),
		 "GPU-%08x-%04x-%04x-%04x-%04x%08x",
		 (unsigned int)(a >> 32), (unsigned int)(a >> 16) & 0xffff,
		 ((unsigned int)a & 0x0fff) | 0x4000,
		 ((unsigned int)(b >> 48) & 0x3fff) | 0x8000,
		 (unsigned int)(b >> 32) & 0xffff, (unsigned int)b);
	snprintf(key, sizeof(key), "0000:%02x:00.0", (i + 1) & 0xff);
	parse_pci(key, g);
	g->numa = i % 2;
	g->path[0] = (unsigned char)i;	/* a host bridge of its own */
	g->path_len = 1;
}

void simgpu_config_defaults(struct sg_config *cfg, int ngpus)
{
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->ngpus = ngpus;
	cfg->kernel_ns = 10000;
	cfg->copy_bw = 16ULL << 30;
	cfg->ctx_vram = 0;
	cfg->module_vram = 0;
	cfg->memory_limits = 1;
	cfg->vram = 16ULL << 30;
	cfg->sms = 132;
	cfg->numa_cpus = 8;
	snprintf(cfg->name, sizeof(cfg->name), "NVIDIA H100 (simgpu)");
	for (i = 0; i < SG_MAX_GPUS; i++)
		default_gpu(&cfg->gpu[i], i);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int set_key(struct sg_config *cfg, const char *key, const char *val,
		   char *err, size_t errlen, const char *where)
{
	long n;
	uint64_t sz;

	if (!strncmp(key, "gpu", 3) && isdigit((unsigned char)key[3])) {
		char *dot;
		long i = strtol(key + 3, &dot, 10);
		struct sg_gpu_config *g;
		unsigned char raw[16];

		if (*dot != '.')
			return fail(err, errlen, "%s: unknown key '%s'", where, key);
		if (i < 0 || i >= SG_MAX_GPUS)
			return fail(err, errlen, "%s: GPU index %ld out of range 0..%d",
				    where, i, SG_MAX_GPUS - 1);
		g = &cfg->gpu[i];
		key = dot + 1;
		if (!strcmp(key, "uuid")) {
			if (simgpu_uuid_parse(val, raw) ||
			    strlen(val) >= sizeof(g->uuid))
				return fail(err, errlen,
					    "%s: bad uuid '%s' (want GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
					    where, val);
			snprintf(g->uuid, sizeof(g->uuid), "%s", val);
		} else if (!strcmp(key, "pci") || !strcmp(key, "pci_bus_id")) {
			if (parse_pci(val, g))
				return fail(err, errlen,
					    "%s: bad pci bus id '%s' (want [DDDD]DDDD:BB:DD.F)",
					    where, val);
		} else if (!strcmp(key, "numa")) {
			if (parse_int(val, -1, 1023, &n))
				return fail(err, errlen, "%s: bad numa node '%s'", where, val);
			g->numa = (int)n;
		} else if (!strcmp(key, "nvlink")) {
			return simgpu_topo_parse_nvlink(cfg, (int)i, val, err, errlen, where);
		} else if (!strcmp(key, "pci_path")) {
			if (simgpu_topo_parse_path(g, val))
				return fail(err, errlen,
					    "%s: bad pci_path '%s' (want HOSTBRIDGE[/SWITCH...], 0..255, at most %d parts)",
					    where, val, SG_PCI_DEPTH);
		} else if (!strcmp(key, "vram")) {
			if (simgpu_parse_size(val, &sz) || !sz)
				return fail(err, errlen, "%s: bad vram size '%s'", where, val);
			g->vram = sz;
		} else if (!strcmp(key, "sms")) {
			if (parse_int(val, 1, 4096, &n))
				return fail(err, errlen, "%s: bad sms count '%s'", where, val);
			g->sms = (int)n;
		} else if (!strcmp(key, "row_remap_failure")) {
			if (strcmp(val, "on") && strcmp(val, "off"))
				return fail(err, errlen, "%s: bad row_remap_failure '%s' (on or off)",
					    where, val);
			g->row_remap_failure = !strcmp(val, "on");
		} else {
			return fail(err, errlen, "%s: unknown key 'gpu%ld.%s'", where, i, key);
		}
		return 0;
	}
	if (!strcmp(key, "gpus")) {
		if (parse_int(val, 0, SG_MAX_GPUS, &n))
			return fail(err, errlen, "%s: bad gpus count '%s' (0..%d)",
				    where, val, SG_MAX_GPUS);
		cfg->ngpus = (int)n;
	} else if (!strcmp(key, "vram")) {
		if (simgpu_parse_size(val, &sz) || !sz)
			return fail(err, errlen, "%s: bad vram size '%s'", where, val);
		cfg->vram = sz;
	} else if (!strcmp(key, "sms")) {
		if (parse_int(val, 1, 4096, &n))
			return fail(err, errlen, "%s: bad sms count '%s'", where, val);
		cfg->sms = (int)n;
	} else if (!strcmp(key, "numa_cpus")) {
		if (parse_int(val, 1, 65536, &n))
			return fail(err, errlen, "%s: bad numa_cpus '%s' (1..65536)", where, val);
		cfg->numa_cpus = (int)n;
	} else if (!strcmp(key, "kernel_ns")) {
		if (simgpu_parse_size(val, &sz))
			return fail(err, errlen, "%s: bad kernel_ns '%s'", where, val);
		cfg->kernel_ns = sz;
	} else if (!strcmp(key, "copy_bw")) {
		if (simgpu_parse_size(val, &sz) || !sz)
			return fail(err, errlen, "%s: bad copy_bw '%s' (bytes per second, > 0)",
				    where, val);
		cfg->copy_bw = sz;
	} else if (!strcmp(key, "ctx_vram")) {
		if (simgpu_parse_size(val, &sz))
			return fail(err, errlen, "%s: bad ctx_vram '%s'", where, val);
		cfg->ctx_vram = sz;
	} else if (!strcmp(key, "module_vram")) {
		if (simgpu_parse_size(val, &sz))
			return fail(err, errlen, "%s: bad module_vram '%s'", where, val);
		cfg->module_vram = sz;
	} else if (!strcmp(key, "memory_limits")) {
		if (!strcmp(val, "on"))
			cfg->memory_limits = 1;
		else if (!strcmp(val, "off"))
			cfg->memory_limits = 0;
		else
			return fail(err, errlen, "%s: bad memory_limits '%s' (on or off)", where, val);
	} else if (!strcmp(key, "dmem")) {
		if (!strcmp(val, "on"))
			cfg->dmem = 1;
		else if (!strcmp(val, "off"))
			cfg->dmem = 0;
		else
			return fail(err, errlen, "%s: bad dmem '%s' (on or off)", where, val);
	} else if (!strcmp(key, "name")) {
		if (!*val || strlen(val) >= sizeof(cfg->name))
			return fail(err, errlen, "%s: bad name", where);
		snprintf(cfg->name, sizeof(cfg->name), "%s", val);
	} else {
		return fail(err, errlen, "%s: unknown key '%s'", where, key);
	}
	return 0;
}

int simgpu_config_parse(struct sg_config *cfg, const char *text,
			const char *origin, char *err, size_t errlen)
{
	char line[512], where[320];
	int lineno = 0;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char *s, *eq, *hash;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", origin, lineno);
		if (len >= sizeof(line))
			return fail(err, errlen, "%s: line too long", where);
		memcpy(line, text, len);
		line[len] = 0;
		text += len + (nl ? 1 : 0);
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq)
			return fail(err, errlen, "%s: expected 'key = value', got '%s'",
				    where, s);
		*eq = 0;
		if (set_key(cfg, trim(s), trim(eq + 1), err, errlen, where))
			return -1;
	}
	return 0;
}

static int finish(struct sg_config *cfg, char *err, size_t errlen)
{
	int i, j;

	for (i = 0; i < cfg->ngpus; i++) {
		struct sg_gpu_config *g = &cfg->gpu[i];

		if (!g->vram)
			g->vram = cfg->vram;
		if (!g->sms)
			g->sms = cfg->sms;
		for (j = 0; j < i; j++) {
			if (!strcasecmp(g->uuid, cfg->gpu[j].uuid))
				return fail(err, errlen, "gpu%d and gpu%d have the same uuid %s",
					    j, i, g->uuid);
			if (!strcmp(g->pci, cfg->gpu[j].pci))
				return fail(err, errlen, "gpu%d and gpu%d have the same pci bus id %s",
					    j, i, g->pci);
		}
	}
	return simgpu_topo_check(cfg, err, errlen);
}

static int env_override(struct sg_config *cfg, const char *var,
			const char *key, char *err, size_t errlen)
{
	const char *v = getenv(var);

	if (!v)
		return 0;
	return set_key(cfg, key, v, err, errlen, var);
}

int simgpu_config_load(struct sg_config *cfg, char *err, size_t errlen)
{
	const char *path = getenv("SIMGPU_CONFIG");
	int must = path && *path;
	FILE *f;

	simgpu_config_defaults(cfg, 2);
	if (!must)
		path = SG_DEFAULT_CONFIG;
	f = fopen(path, "r");
	if (!f && must)
		return fail(err, errlen, "SIMGPU_CONFIG=%s: %s", path, strerror(errno));
	if (f) {
		char *buf = malloc(65536);
		size_t n;
		int rc;

		if (!buf) {
			fclose(f);
			return fail(err, errlen, "out of memory");
		}
		n = fread(buf, 1, 65535, f);
		buf[n] = 0;
		fclose(f);
		if (n == 65535) {
			free(buf);
			return fail(err, errlen, "%s: file too large", path);
		}
		rc = simgpu_config_parse(cfg, buf, path, err, errlen);
		free(buf);
		if (rc)
			return rc;
	}
	if (env_override(cfg, "SIMGPU_GPUS", "gpus", err, errlen) ||
	    env_override(cfg, "SIMGPU_VRAM", "vram", err, errlen) ||
	    env_override(cfg, "SIMGPU_SMS", "sms", err, errlen) ||
	    env_override(cfg, "SIMGPU_CTX_VRAM", "ctx_vram", err, errlen) ||
	    env_override(cfg, "SIMGPU_MODULE_VRAM", "module_vram", err, errlen) ||
	    env_override(cfg, "SIMGPU_KERNEL_NS", "kernel_ns", err, errlen) ||
	    env_override(cfg, "SIMGPU_COPY_BW", "copy_bw", err, errlen) ||
	    env_override(cfg, "SIMGPU_MEMORY_LIMITS", "memory_limits", err, errlen) ||
	    env_override(cfg, "SIMGPU_DMEM", "dmem", err, errlen))
		return -1;
	/* The environment's VRAM and SM counts win over per-GPU file keys. */
	if (getenv("SIMGPU_VRAM") || getenv("SIMGPU_SMS")) {
		for (int i = 0; i < SG_MAX_GPUS; i++) {
			if (getenv("SIMGPU_VRAM"))
				cfg->gpu[i].vram = 0;
			if (getenv("SIMGPU_SMS"))
				cfg->gpu[i].sms = 0;
		}
	}
	return finish(cfg, err, errlen);
}
