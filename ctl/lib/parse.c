// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsers and formatters of vgpuctl's arguments (see parse.h):
 * numbers, sizes, percentages, enum names and lists. Identifiers (UUIDs,
 * PCI ids, names) are in parse_id.c, cgroup paths in parse_cgroup.c.
 */
#include <stdio.h>
#include <string.h>

#include "../../uapi/vgpu.h"
#include "parse.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Parse a run of decimal digits at *sp into *out, advancing *sp. Fails on
 * no digit or on overflow of a u64.
 */
static int parse_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (!is_digit(*s))
		return -1;
	for (; is_digit(*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return 0;
}

/**
 * vgpuctl_parse_u32() - parse a decimal integer within [min, max]
 * @s: the text
 * @min: smallest value accepted
 * @max: largest value accepted
 * @out: where the value goes
 *
 * Return: 0, or -1 when @s is not a plain decimal number in range.
 */
int vgpuctl_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_digits(&s, &v) || *s || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/** vgpuctl_parse_weight() - a compute weight, as the spec's weight check. */
int vgpuctl_parse_weight(const char *s, uint32_t *out)
{
	return vgpuctl_parse_u32(s, VGPU_CHECK_TENANT_WEIGHT_MIN,
				 VGPU_CHECK_TENANT_WEIGHT_MAX, out);
}

/** vgpuctl_parse_index() - a GPU index, as the spec's index check (0 to 63). */
int vgpuctl_parse_index(const char *s, uint32_t *out)
{
	return vgpuctl_parse_u32(s, 0, VGPU_CHECK_GPU_INDEX_MAX, out);
}

/** vgpuctl_parse_gpu_count() - a number of GPUs for gpus auto, as the spec's check (1-64). */
int vgpuctl_parse_gpu_count(const char *s, uint32_t *out)
{
	return vgpuctl_parse_u32(s, VGPU_CHECK_TENANT_GPUS_AUTO_MIN,
				 VGPU_CHECK_TENANT_GPUS_AUTO_MAX, out);
}

/** vgpuctl_parse_numa() - a NUMA node, 0 to VGPU_LIST_NODE_MAX, or -1 for none. */
int vgpuctl_parse_numa(const char *s, int32_t *out)
{
	uint32_t v;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	if (vgpuctl_parse_u32(s, 0, VGPU_LIST_NODE_MAX, &v))
		return -1;
	*out = (int32_t)v;
	return 0;
}

struct size_suffix {
	const char *name;
	unsigned int shift;
};

static const struct size_suffix size_suffixes[] = {
	{ "", 0 }, { "B", 0 },
	{ "K", 10 }, { "Ki", 10 }, { "KiB", 10 }, { "KB", 10 },
	{ "M", 20 }, { "Mi", 20 }, { "MiB", 20 }, { "MB", 20 },
	{ "G", 30 }, { "Gi", 30 }, { "GiB", 30 }, { "GB", 30 },
	{ "T", 40 }, { "Ti", 40 }, { "TiB", 40 }, { "TB", 40 },
};

/* Most fractional digits of a SIZE: 10^18 still leaves room to double. */
#define SIZE_FRAC_DIGITS_MAX	18

/**
 * vgpuctl_parse_size() - parse a byte count with an optional binary suffix
 * @s: "8G", "1.5GiB", "512MiB", "4096", ...
 * @out: the number of bytes
 *
 * Every suffix (K, M, G, T with or without i/iB/B, and B) is a power of 1024.
 * A fraction is allowed and the result is rounded down to a whole byte.
 *
 * Return: 0, or -1 on a malformed or overflowing size.
 */
int vgpuctl_parse_size(const char *s, uint64_t *out)
{
	uint64_t ip, frac = 0, den = 1, fbytes = 0;
	unsigned int shift = 0, ndig = 0, i;
	bool found = false;

	if (parse_digits(&s, &ip))
		return -1;
	if (*s == '.') {
		s++;
		if (!is_digit(*s))
			return -1;
		for (; is_digit(*s); s++) {
			if (++ndig > SIZE_FRAC_DIGITS_MAX)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
			den *= 10;
		}
	}
	for (i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		if (!strcmp(s, size_suffixes[i].name)) {
			shift = size_suffixes[i].shift;
			found = true;
			break;
		}
	}
	if (!found)
		return -1;
	if (shift && ip > (UINT64_MAX >> shift))
		return -1;
	/* floor(frac / den * 2^shift), one bit at a time, exactly. */
	for (i = 0; i < shift; i++) {
		frac *= 2;
		fbytes *= 2;
		if (frac >= den) {
			frac -= den;
			fbytes++;
		}
	}
	ip <<= shift;
	if (ip > UINT64_MAX - fbytes)
		return -1;
	*out = ip + fbytes;
	return 0;
}

/**
 * vgpuctl_parse_pct() - parse a percentage into basis points
 * @s: "37.5%", "37.5", "100", "0.01%"
 * @bp: hundredths of a percent, 0 to VGPU_BP_MAX
 *
 * Return: 0, or -1 when malformed, above 100 or with more than 2 decimals.
 */
int vgpuctl_parse_pct(const char *s, uint32_t *bp)
{
	uint64_t ip, v;
	unsigned int ndig = 0, frac = 0;

	if (parse_digits(&s, &ip) || ip > 100)
		return -1;
	if (*s == '.') {
		s++;
		if (!is_digit(*s))
			return -1;
		for (; is_digit(*s); s++) {
			if (++ndig > 2)
				return -1;
			frac = frac * 10 + (unsigned int)(*s - '0');
		}
		if (ndig == 1)
			frac *= 10;
	}
	if (*s == '%')
		s++;
	if (*s)
		return -1;
	v = ip * 100 + frac;
	if (v > VGPU_BP_MAX)
		return -1;
	*bp = (uint32_t)v;
	return 0;
}

/** vgpuctl_parse_priority() - "low", "normal" or "high" into enum vgpu_priority. */
int vgpuctl_parse_priority(const char *s, uint32_t *out)
{
	return vgpuctl_parse_enum(vgpu_priority_names, VGPU_PRIORITY_COUNT, s, out);
}

/** vgpuctl_priority_name() - name of a priority, or NULL if unknown. */
const char *vgpuctl_priority_name(uint32_t prio)
{
	return vgpuctl_enum_name(vgpu_priority_names, VGPU_PRIORITY_COUNT, prio);
}

/** vgpuctl_parse_policy() - "allow" or "deny" into enum vgpu_default_policy. */
int vgpuctl_parse_policy(const char *s, uint32_t *out)
{
	return vgpuctl_parse_enum(vgpu_default_policy_names, VGPU_DEFAULT_POLICY_COUNT,
				  s, out);
}

/** vgpuctl_policy_name() - name of a default policy, or NULL if unknown. */
const char *vgpuctl_policy_name(uint32_t policy)
{
	return vgpuctl_enum_name(vgpu_default_policy_names, VGPU_DEFAULT_POLICY_COUNT,
				 policy);
}

/**
 * vgpuctl_parse_list() - parse a cpulist ("0-3,8") into a bitmap
 * @s: comma separated numbers and ascending ranges, no spaces
 * @max: largest number allowed
 * @bits: bitmap of @words 64-bit words, cleared first; must hold @max
 * @words: size of @bits
 *
 * Return: 0, or -1 when malformed, empty, descending or above @max.
 */
int vgpuctl_parse_list(const char *s, unsigned int max, uint64_t *bits, size_t words)
{
	uint64_t tmp[VGPU_LIST_WORDS];
	uint64_t a, b, i;

	if ((uint64_t)max >= (uint64_t)words * 64 || words > VGPU_LIST_WORDS)
		return -1;
	memset(tmp, 0, sizeof(tmp));
	for (;;) {
		if (parse_digits(&s, &a))
			return -1;
		b = a;
		if (*s == '-') {
			s++;
			if (parse_digits(&s, &b))
				return -1;
		}
		if (a > b || b > max)
			return -1;
		for (i = a; i <= b; i++)
			tmp[i / 64] |= 1ULL << (i % 64);
		if (!*s)
			break;
		if (*s != ',')
			return -1;
		s++;
	}
	memcpy(bits, tmp, words * sizeof(*bits));
	return 0;
}

static bool test_bit(const uint64_t *bits, size_t i)
{
	return bits[i / 64] & (1ULL << (i % 64));
}

/**
 * vgpuctl_format_list() - print a bitmap in canonical cpulist form
 * @bits: the bitmap
 * @words: its size in 64-bit words
 * @out: buffer; receives "" for an empty bitmap
 * @outlen: its size
 *
 * Return: 0, or -1 when @out is too small.
 */
int vgpuctl_format_list(const uint64_t *bits, size_t words, char *out, size_t outlen)
{
	size_t n = words * 64, i = 0, pos = 0;
	int len;

	if (!outlen)
		return -1;
	out[0] = '\0';
	while (i < n) {
		size_t j;

		if (!test_bit(bits, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < n && test_bit(bits, j + 1); j++)
			;
		if (j == i)
			len = snprintf(out + pos, outlen - pos, "%s%zu",
				       pos ? "," : "", i);
		else
			len = snprintf(out + pos, outlen - pos, "%s%zu-%zu",
				       pos ? "," : "", i, j);
		if (len < 0 || (size_t)len >= outlen - pos)
			return -1;
		pos += (size_t)len;
		i = j + 1;
	}
	return 0;
}

/**
 * vgpuctl_parse_list_norm() - validate a list and give it back in canonical form
 * @s: the list as typed ("8,0-3,2")
 * @max: largest number allowed
 * @out: canonical form ("0-3,8")
 * @outlen: size of @out; VGPU_LIST_LEN_MAX + 1 matches the kernel's limit
 *
 * Return: 0, or -1 when invalid or too long once normalised.
 */
int vgpuctl_parse_list_norm(const char *s, unsigned int max, char *out, size_t outlen)
{
	uint64_t bits[VGPU_LIST_WORDS];

	if (vgpuctl_parse_list(s, max, bits, VGPU_LIST_WORDS))
		return -1;
	return vgpuctl_format_list(bits, VGPU_LIST_WORDS, out, outlen);
}

/** vgpuctl_parse_gpus() - a list of GPU indexes (0-63) into a u64 bit mask. */
int vgpuctl_parse_gpus(const char *s, uint64_t *mask)
{
	return vgpuctl_parse_list(s, VGPU_GPU_MAX - 1, mask, 1);
}

/**
 * vgpuctl_format_size() - print a byte count in the largest exact binary unit
 * @bytes: the count
 * @out: "16GiB", "1536MiB", "4KiB" or plain bytes ("1000")
 * @outlen: size of @out (24 is always enough)
 */
void vgpuctl_format_size(uint64_t bytes, char *out, size_t outlen)
{
	static const char *const units[] = { "TiB", "GiB", "MiB", "KiB" };
	unsigned int i;

	for (i = 0; i < 4 && bytes; i++) {
		unsigned int shift = 40 - 10 * i;

		if (!(bytes & ((1ULL << shift) - 1))) {
			snprintf(out, outlen, "%llu%s",
				 (unsigned long long)(bytes >> shift), units[i]);
			return;
		}
	}
	snprintf(out, outlen, "%llu", (unsigned long long)bytes);
}

/**
 * vgpuctl_format_pct() - print basis points as a percentage
 * @bp: 3750
 * @out: "37.5%" (no trailing zeros, "100%", "0.05%")
 * @outlen: size of @out (16 is always enough)
 */
void vgpuctl_format_pct(uint32_t bp, char *out, size_t outlen)
{
	unsigned int ip = bp / 100, frac = bp % 100;

	if (!frac)
		snprintf(out, outlen, "%u%%", ip);
	else if (frac % 10 == 0)
		snprintf(out, outlen, "%u.%u%%", ip, frac / 10);
	else
		snprintf(out, outlen, "%u.%02u%%", ip, frac);
}

/**
 * vgpuctl_matches() - iproute2's abbreviation rule
 * @arg: what the user typed
 * @word: the full keyword
 *
 * Return: true when @arg is a non-empty prefix of @word.
 */
bool vgpuctl_matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}
