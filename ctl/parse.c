// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsers and formatters of vgpuctl's arguments (see parse.h).
 */
#include <stdio.h>
#include <string.h>

#include "../uapi/vgpu.h"
#include "parse.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
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
 * vgpu_parse_u32() - parse a decimal integer within [min, max]
 * @s: the text
 * @min: smallest value accepted
 * @max: largest value accepted
 * @out: where the value goes
 *
 * Return: 0, or -1 when @s is not a plain decimal number in range.
 */
int vgpu_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_digits(&s, &v) || *s || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/** vgpu_parse_weight() - a compute weight, as the spec's weight check. */
int vgpu_parse_weight(const char *s, uint32_t *out)
{
	return vgpu_parse_u32(s, VGPU_CHECK_TENANT_WEIGHT_MIN,
			      VGPU_CHECK_TENANT_WEIGHT_MAX, out);
}

/** vgpu_parse_index() - a GPU index, as the spec's index check (0 to 63). */
int vgpu_parse_index(const char *s, uint32_t *out)
{
	return vgpu_parse_u32(s, 0, VGPU_CHECK_GPU_INDEX_MAX, out);
}

/** vgpu_parse_numa() - a NUMA node, 0 to VGPU_LIST_NODE_MAX, or -1 for none. */
int vgpu_parse_numa(const char *s, int32_t *out)
{
	uint32_t v;

	if (!strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	if (vgpu_parse_u32(s, 0, VGPU_LIST_NODE_MAX, &v))
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
 * vgpu_parse_size() - parse a byte count with an optional binary suffix
 * @s: "8G", "1.5GiB", "512MiB", "4096", ...
 * @out: the number of bytes
 *
 * Every suffix (K, M, G, T with or without i/iB/B, and B) is a power of 1024.
 * A fraction is allowed and the result is rounded down to a whole byte.
 *
 * Return: 0, or -1 on a malformed or overflowing size.
 */
int vgpu_parse_size(const char *s, uint64_t *out)
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
 * vgpu_parse_pct() - parse a percentage into basis points
 * @s: "37.5%", "37.5", "100", "0.01%"
 * @bp: hundredths of a percent, 0 to VGPU_BP_MAX
 *
 * Return: 0, or -1 when malformed, above 100 or with more than 2 decimals.
 */
int vgpu_parse_pct(const char *s, uint32_t *bp)
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

/** vgpu_parse_priority() - "low", "normal" or "high" into enum vgpu_priority. */
int vgpu_parse_priority(const char *s, uint32_t *out)
{
	return vgpu_parse_enum(vgpu_priority_names, VGPU_PRIORITY_COUNT, s, out);
}

/** vgpu_priority_name() - name of a priority, or NULL if unknown. */
const char *vgpu_priority_name(uint32_t prio)
{
	return vgpu_enum_name(vgpu_priority_names, VGPU_PRIORITY_COUNT, prio);
}

/** vgpu_parse_policy() - "allow" or "deny" into enum vgpu_default_policy. */
int vgpu_parse_policy(const char *s, uint32_t *out)
{
	return vgpu_parse_enum(vgpu_default_policy_names, VGPU_DEFAULT_POLICY_COUNT,
			       s, out);
}

/** vgpu_policy_name() - name of a default policy, or NULL if unknown. */
const char *vgpu_policy_name(uint32_t policy)
{
	return vgpu_enum_name(vgpu_default_policy_names, VGPU_DEFAULT_POLICY_COUNT,
			      policy);
}

/* Check that @s is exactly @n hex digits followed by @end; advance it. */
static bool hex_run(const char **s, unsigned int n, char end)
{
	const char *p = *s;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!is_xdigit(p[i]))
			return false;
	if (p[n] != end)
		return false;
	*s = p + n + (end ? 1 : 0);
	return true;
}

/**
 * vgpu_parse_uuid() - check an NVML GPU UUID
 * @s: "GPU-" and 8-4-4-4-12 hex digits (VGPU_UUID_LEN characters)
 *
 * Return: 0 when well formed, else -1.
 */
int vgpu_parse_uuid(const char *s)
{
	if (strncmp(s, "GPU-", 4))
		return -1;
	s += 4;
	if (!hex_run(&s, 8, '-') || !hex_run(&s, 4, '-') ||
	    !hex_run(&s, 4, '-') || !hex_run(&s, 4, '-') ||
	    !hex_run(&s, 12, '\0'))
		return -1;
	return 0;
}

/**
 * vgpu_parse_busid() - check a PCI bus id
 * @s: "DOMAIN:BB:DD.F", hex digits, a domain of 4 to 8 (as the kernel
 *     takes it: kmod/parse.c)
 *
 * Return: 0 when well formed, else -1.
 */
int vgpu_parse_busid(const char *s)
{
	size_t len = strlen(s);

	if (len < 12 || len > VGPU_CHECK_GPU_PCI_MAX_LEN)
		return -1;
	if (!hex_run(&s, len - 8, ':') || !hex_run(&s, 2, ':') ||
	    !hex_run(&s, 2, '.') || !hex_run(&s, 1, '\0'))
		return -1;
	return 0;
}

/* The value of a run of 1 to @max hex digits ending at @end; advance *s. */
static int hex_field(const char **s, unsigned int max, char end, unsigned long *out)
{
	const char *p = *s;
	unsigned long v = 0;
	unsigned int n;

	for (n = 0; is_xdigit(p[n]); n++) {
		if (n == max)
			return -1;
		v = v * 16 + (unsigned long)(is_digit(p[n]) ? p[n] - '0' :
					     (p[n] | 0x20) - 'a' + 10);
	}
	if (!n || p[n] != end)
		return -1;
	*s = p + n + (end ? 1 : 0);
	*out = v;
	return 0;
}

/**
 * vgpu_busid_norm() - a PCI bus id in the form sysfs and vgpu use
 * @s: DOMAIN:BB:DD.F in hex, either case, domain of 1 to 8 digits (NVML
 *     writes "00000000:3B:00.0")
 * @out: "0000:3b:00.0": lowercase, a domain of at least 4 digits, as the
 *     kernel and sysfs print it ("%04x": "10000:01:00.0")
 * @outlen: size of @out (17 is always enough)
 *
 * Return: 0, or -1 when @s is malformed or @out too small.
 */
int vgpu_busid_norm(const char *s, char *out, size_t outlen)
{
	unsigned long dom, bus, dev, fn;
	int n;

	if (hex_field(&s, 8, ':', &dom) || hex_field(&s, 2, ':', &bus) ||
	    hex_field(&s, 2, '.', &dev) || hex_field(&s, 1, '\0', &fn) ||
	    dev > 0x1f || fn > 7)
		return -1;
	n = snprintf(out, outlen, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/**
 * vgpu_parse_name() - check a tenant name
 * @s: 1 to VGPU_NAME_LEN_MAX printable ASCII characters, no space
 *
 * Return: 0 when valid, else -1.
 */
int vgpu_parse_name(const char *s)
{
	size_t len = strlen(s), i;

	if (!len || len > VGPU_CHECK_TENANT_NAME_MAX_LEN)
		return -1;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return -1;
	return 0;
}

/**
 * vgpu_parse_list() - parse a cpulist ("0-3,8") into a bitmap
 * @s: comma separated numbers and ascending ranges, no spaces
 * @max: largest number allowed
 * @bits: bitmap of @words 64-bit words, cleared first; must hold @max
 * @words: size of @bits
 *
 * Return: 0, or -1 when malformed, empty, descending or above @max.
 */
int vgpu_parse_list(const char *s, unsigned int max, uint64_t *bits, size_t words)
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
 * vgpu_format_list() - print a bitmap in canonical cpulist form
 * @bits: the bitmap
 * @words: its size in 64-bit words
 * @out: buffer; receives "" for an empty bitmap
 * @outlen: its size
 *
 * Return: 0, or -1 when @out is too small.
 */
int vgpu_format_list(const uint64_t *bits, size_t words, char *out, size_t outlen)
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
 * vgpu_parse_list_norm() - validate a list and give it back in canonical form
 * @s: the list as typed ("8,0-3,2")
 * @max: largest number allowed
 * @out: canonical form ("0-3,8")
 * @outlen: size of @out; VGPU_LIST_LEN_MAX + 1 matches the kernel's limit
 *
 * Return: 0, or -1 when invalid or too long once normalised.
 */
int vgpu_parse_list_norm(const char *s, unsigned int max, char *out, size_t outlen)
{
	uint64_t bits[VGPU_LIST_WORDS];

	if (vgpu_parse_list(s, max, bits, VGPU_LIST_WORDS))
		return -1;
	return vgpu_format_list(bits, VGPU_LIST_WORDS, out, outlen);
}

/** vgpu_parse_gpus() - a list of GPU indexes (0-63) into a u64 bit mask. */
int vgpu_parse_gpus(const char *s, uint64_t *mask)
{
	return vgpu_parse_list(s, VGPU_GPU_MAX - 1, mask, 1);
}

/**
 * vgpu_format_size() - print a byte count in the largest exact binary unit
 * @bytes: the count
 * @out: "16GiB", "1536MiB", "4KiB" or plain bytes ("1000")
 * @outlen: size of @out (24 is always enough)
 */
void vgpu_format_size(uint64_t bytes, char *out, size_t outlen)
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
 * vgpu_format_pct() - print basis points as a percentage
 * @bp: 3750
 * @out: "37.5%" (no trailing zeros, "100%", "0.05%")
 * @outlen: size of @out (16 is always enough)
 */
void vgpu_format_pct(uint32_t bp, char *out, size_t outlen)
{
	unsigned int ip = bp / 100, frac = bp % 100;

	if (!frac)
		snprintf(out, outlen, "%u%%", ip);
	else if (frac % 10 == 0)
		snprintf(out, outlen, "%u.%u%%", ip, frac / 10);
	else
		snprintf(out, outlen, "%u.%02u%%", ip, frac);
}

/* Undo the octal escapes (\040 for space, ...) of /proc/self/mounts. */
static void unescape_mount(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/**
 * vgpu_cgroup_mount() - find where cgroup v2 is mounted
 * @mounts_file: "/proc/self/mounts" (tests pass a fixture)
 * @out: the first cgroup2 mount point, or "/sys/fs/cgroup" if none is found
 * @outlen: size of @out
 *
 * Return: 0 when a cgroup2 mount was found, 1 when the default was used,
 * -1 when @out is too small.
 */
int vgpu_cgroup_mount(const char *mounts_file, char *out, size_t outlen)
{
	char line[8192], dir[4096], type[64];
	FILE *f = fopen(mounts_file, "re");
	int ret = 1;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%*s %4095s %63s", dir, type) != 2 ||
			    strcmp(type, "cgroup2"))
				continue;
			unescape_mount(dir);
			if (strlen(dir) >= outlen) {
				fclose(f);
				return -1;
			}
			strcpy(out, dir);
			ret = 0;
			break;
		}
		fclose(f);
	}
	if (ret == 1) {
		if (outlen < sizeof("/sys/fs/cgroup"))
			return -1;
		strcpy(out, "/sys/fs/cgroup");
	}
	return ret;
}

/*
 * Normalise an absolute path lexically into @out: collapse "//", drop "."
 * and resolve ".." (cgroupfs has no symlinks). Returns -2 on ".." above the
 * root, -1 when @out is too small.
 */
static int normalise_path(const char *in, char *out, size_t outlen)
{
	size_t pos = 0;

	if (outlen < 2)
		return -1;
	out[0] = '\0';
	while (*in) {
		const char *end;
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchr(in, '/');
		n = end ? (size_t)(end - in) : strlen(in);
		if (n == 1 && in[0] == '.') {
			/* nothing */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			if (!pos)
				return -2;
			while (pos && out[pos - 1] != '/')
				pos--;
			pos--;	/* the '/' itself */
			out[pos] = '\0';
		} else {
			if (pos + 1 + n + 1 > outlen)
				return -1;
			out[pos++] = '/';
			memcpy(out + pos, in, n);
			pos += n;
			out[pos] = '\0';
		}
		in += n;
	}
	if (!pos)
		strcpy(out, "/");
	return 0;
}

/**
 * vgpu_cgroup_path() - turn a cgroup argument into the path the kernel takes
 * @mnt: the cgroup2 mount point ("/sys/fs/cgroup")
 * @arg: "/sys/fs/cgroup/team-a", "team-a", "/sys/fs/cgroup"
 * @out: path relative to the mount, with a leading slash ("/team-a", "/")
 * @outlen: size of @out; VGPU_PATH_LEN_MAX + 1 matches the kernel's limit
 *
 * The path is normalised lexically; existence is not checked.
 *
 * Return: 0, -1 when empty or too long, -2 when outside @mnt (absolute
 * elsewhere, or climbing above it with "..").
 */
int vgpu_cgroup_path(const char *mnt, const char *arg, char *out, size_t outlen)
{
	char nmnt[VGPU_PATH_LEN_MAX + 1], full[2 * (VGPU_PATH_LEN_MAX + 1)];
	size_t mlen;
	int ret;

	if (!*arg || normalise_path(mnt, nmnt, sizeof(nmnt)))
		return -1;
	if (arg[0] == '/') {
		ret = normalise_path(arg, full, sizeof(full));
		if (ret)
			return ret;
		mlen = strlen(nmnt);
		if (!strcmp(nmnt, "/"))
			mlen = 0;
		if (strncmp(full, nmnt, mlen) ||
		    (full[mlen] != '/' && full[mlen] != '\0'))
			return -2;
		if (!full[mlen])
			return snprintf(out, outlen, "/") < (int)outlen ? 0 : -1;
		if (strlen(full + mlen) >= outlen)
			return -1;
		strcpy(out, full + mlen);
		return 0;
	}
	/* Relative to the mount: normalise it as if it were rooted there. */
	if (strlen(arg) + 2 > sizeof(full))
		return -1;
	full[0] = '/';
	strcpy(full + 1, arg);
	return normalise_path(full, out, outlen);
}

/**
 * vgpu_matches() - iproute2's abbreviation rule
 * @arg: what the user typed
 * @word: the full keyword
 *
 * Return: true when @arg is a non-empty prefix of @word.
 */
bool vgpu_matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && !strncmp(arg, word, len);
}
