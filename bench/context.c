/* SPDX-License-Identifier: MIT */
/*
 * The machine a run was measured on, recorded with every result: without
 * it a figure cannot be compared with another machine's, kernel's or
 * build's.  Everything comes from sysfs, /proc, uname and CPUID; what a
 * machine does not expose is left as "unknown".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cyclock.h>
#include <cyclock/timeline.h>

#include "bench.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifndef CYCLOCK_TOOL_VERSION
#define CYCLOCK_TOOL_VERSION "unknown"
#endif
#ifndef CYCLOCK_TOOL_BUILD_TYPE
#define CYCLOCK_TOOL_BUILD_TYPE "unknown"
#endif

/*
 * Where a file of sysfs or /proc is read from: @path itself, or under
 * $CYCLOCK_TEST_SYSROOT when the tests set it, so that they can feed the
 * parsers values no real machine has (tests/tool/cli/test_context.sh).
 */
static const char *sys_path(const char *path, char *buf, size_t len)
{
	const char *root = getenv("CYCLOCK_TEST_SYSROOT");

	if (!root || !root[0])
		return path;
	snprintf(buf, len, "%s%s", root, path);
	return buf;
}

/* The first line of file @path, without its newline and cleaned
 * (bench_text_clean()), into @buf; false (and @buf = @dflt) when it
 * cannot be read. */
static bool read_line(const char *path, char *buf, size_t len, const char *dflt)
{
	char where[512], raw[512];
	FILE *f = fopen(sys_path(path, where, sizeof(where)), "r");
	bool ok = f && fgets(raw, (int)sizeof(raw), f);

	if (f)
		fclose(f);
	if (!ok) {
		snprintf(buf, len, "%s", dflt);
		return false;
	}
	raw[strcspn(raw, "\n")] = '\0';
	bench_text_clean(buf, len, raw);
	return true;
}

/* The value of the first "@key<tabs>: value" line of /proc/cpuinfo. */
static bool cpuinfo(const char *key, char *buf, size_t len)
{
	char where[512], line[512];
	FILE *f = fopen(sys_path("/proc/cpuinfo", where, sizeof(where)), "r");
	size_t klen = strlen(key);
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, key, klen) != 0 || !colon ||
		    strspn(line + klen, " \t") != (size_t)(colon - line - (long)klen))
			continue;
		colon += strspn(colon + 1, " \t") + 1;
		colon[strcspn(colon, "\n")] = '\0';
		bench_text_clean(buf, len, colon);
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* The decimal number at @s, at most @max, into *@v with *@end after it;
 * false when there is none or it is larger (ERANGE included).  sysfs is
 * the kernel's, but a driver, a container's fake or a test may put
 * anything there, and a C conversion that overflows is undefined. */
static bool parse_num(const char *s, unsigned long long max, unsigned long long *v, char **end)
{
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno == 0 && *v <= max;
}

#define MAX_CPUS (1u << 20)

/* How many CPUs a sysfs list such as "0-3,8" names; 1 when it is not one. */
static int cpu_list_count(const char *list)
{
	unsigned long long count = 0, a, b;
	char *end;

	while (*list && parse_num(list, MAX_CPUS, &a, &end)) {
		b = a;
		if (*end == '-' && (!parse_num(end + 1, MAX_CPUS, &b, &end) || b < a))
			return 1;
		count += b - a + 1;
		if (count > MAX_CPUS)
			return 1;
		list = *end == ',' ? end + 1 : end;
	}
	return count > 0 ? (int)count : 1;
}

/* Above any cache made: a size this large is garbage. */
#define MAX_CACHE_BYTES (16ULL << 30)

/* "32K", "1024K", "32768K", "8M" in bytes; 0 when it is not a size
 * (unparseable, overflowing, above MAX_CACHE_BYTES). */
static long cache_size(const char *s)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!parse_num(s, MAX_CACHE_BYTES, &v, &end))
		return 0;
	if (*end == 'K')
		mult = 1024;
	else if (*end == 'M')
		mult = 1024 * 1024;
	else if (*end != '\0')
		return 0;
	return v <= MAX_CACHE_BYTES / mult ? (long)(v * mult) : 0;
}

static void fill_caches(struct bench_context *ctx)
{
	for (int i = 0; i < 8 && ctx->n_caches < 8; i++) {
		char path[96], level[16], type[16], size[32], shared[64], *end;
		struct bench_cache *c = &ctx->caches[ctx->n_caches];
		unsigned long long lvl;

#define INDEX_FILE(name) (snprintf(path, sizeof(path), \
	"/sys/devices/system/cpu/cpu0/cache/index%d/" name, i), path)
		if (!read_line(INDEX_FILE("level"), level, sizeof(level), "") ||
		    !read_line(INDEX_FILE("type"), type, sizeof(type), "") ||
		    !read_line(INDEX_FILE("size"), size, sizeof(size), ""))
			continue;
		read_line(INDEX_FILE("shared_cpu_list"), shared, sizeof(shared), "0");
#undef INDEX_FILE
		/* A cache whose level or size is not a number is unknown: left
		 * out, as one that sysfs does not list. */
		if (!parse_num(level, 16, &lvl, &end) || *end || !(c->size = cache_size(size)))
			continue;
		c->level = (int)lvl;
		snprintf(c->type, sizeof(c->type), "%s", type);
		c->num_sharing = cpu_list_count(shared);
		ctx->n_caches++;
	}
}

/* The hypervisor's name from CPUID's leaf 0x40000000, or the device tree
 * and DMI elsewhere; "none" on bare metal. */
static void fill_virtualization(struct bench_context *ctx)
{
	static const struct { const char *sig, *name; } known[] = {
		{ "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" }, { "XenVMMXenVMM", "xen" },
		{ "TCGTCGTCGTCG", "qemu-tcg" }, { "ACRNACRNACRN", "acrn" },
		{ " lrpepyh  vr", "parallels" }, { "bhyve bhyve ", "bhyve" },
	};
	snprintf(ctx->virtualization, sizeof(ctx->virtualization), "none");
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	char sig[13] = { 0 };

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	snprintf(ctx->virtualization, sizeof(ctx->virtualization), "unknown (%s)", sig);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(sig, known[i].sig) == 0)
			snprintf(ctx->virtualization, sizeof(ctx->virtualization), "%s",
				 known[i].name);
#else
	char vendor[64];

	(void)known;
	if (access("/sys/firmware/devicetree/base/hypervisor", F_OK) == 0)
		snprintf(ctx->virtualization, sizeof(ctx->virtualization), "hypervisor");
	else if (read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor), "") &&
		 strstr(vendor, "QEMU"))
		snprintf(ctx->virtualization, sizeof(ctx->virtualization), "qemu");
#endif
}

static void fill_cpu(struct bench_context *ctx)
{
	int cpus[1024];
	char mhz[32];

	ctx->num_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ctx->allowed_cpus = bench_allowed_cpus(cpus, 1024);
	if (!cpuinfo("model name", ctx->cpu_model, sizeof(ctx->cpu_model)) &&
	    !cpuinfo("uarch", ctx->cpu_model, sizeof(ctx->cpu_model)) &&
	    !cpuinfo("CPU part", ctx->cpu_model, sizeof(ctx->cpu_model)))
		snprintf(ctx->cpu_model, sizeof(ctx->cpu_model), "unknown");
	if (cpuinfo("cpu MHz", mhz, sizeof(mhz)))
		ctx->mhz_per_cpu = atof(mhz);
	else if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", mhz,
			   sizeof(mhz), ""))
		ctx->mhz_per_cpu = atof(mhz) / 1000;
	/* atof() reads "nan" and "1e999" too: a rate is finite or unknown. */
	if (!(ctx->mhz_per_cpu > 0 && ctx->mhz_per_cpu < 1e9))
		ctx->mhz_per_cpu = 0;
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", ctx->governor,
		  sizeof(ctx->governor), "none");
	ctx->cpu_scaling_enabled = strcmp(ctx->governor, "none") != 0 &&
				   strcmp(ctx->governor, "performance") != 0;
	fill_caches(ctx);
	fill_virtualization(ctx);
}

static void fill_system(struct bench_context *ctx, const char *argv0)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	char tz[8], host[sizeof(ctx->host_name)];

	localtime_r(&now, &tm);
	strftime(ctx->date, sizeof(ctx->date), "%Y-%m-%dT%H:%M:%S", &tm);
	/* ISO 8601 wants the offset as +hh:mm; strftime gives +hhmm. */
	strftime(tz, sizeof(tz), "%z", &tm);
	snprintf(ctx->date + strlen(ctx->date), sizeof(ctx->date) - strlen(ctx->date),
		 "%.3s:%.2s", tz, tz + 3);
	if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	bench_text_clean(ctx->host_name, sizeof(ctx->host_name), host);
	snprintf(ctx->executable, sizeof(ctx->executable), "%s", argv0 ? argv0 : "cyclock");
	if (uname(&u) == 0) {
		snprintf(ctx->arch, sizeof(ctx->arch), "%.15s", u.machine);
		snprintf(ctx->kernel, sizeof(ctx->kernel), "%.20s %.40s %.60s", u.sysname,
			 u.release, u.version);
	}
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  ctx->clocksource, sizeof(ctx->clocksource), "unknown");
	read_line("/sys/devices/system/clocksource/clocksource0/available_clocksource",
		  ctx->clocksources, sizeof(ctx->clocksources), "unknown");
	if (getloadavg(ctx->load_avg, 3) != 3)
		memset(ctx->load_avg, 0, sizeof(ctx->load_avg));
}

void bench_context_fill(struct bench_context *ctx, const char *argv0)
{
	struct cyclock_state info;
	const char *floor_clock, *floor_read;

	memset(ctx, 0, sizeof(*ctx));
	fill_system(ctx, argv0);
	fill_cpu(ctx);
	snprintf(ctx->version, sizeof(ctx->version), "%s", CYCLOCK_TOOL_VERSION);
	snprintf(ctx->build_type, sizeof(ctx->build_type), "%s", CYCLOCK_TOOL_BUILD_TYPE);
	info.version = CYCLOCK_STATE_VERSION;
	cyclock_get_state(&info);
	snprintf(ctx->counter, sizeof(ctx->counter), "%s",
		 info.using_counter == CYCLOCK_USING_COUNTER ? info.counter : "none");
	ctx->counter_hz = bench_counter_hz();
	floor_clock = bench_floor_ordered();
	floor_read = bench_floor_read();
	snprintf(ctx->floor, sizeof(ctx->floor), "%s", floor_clock ? floor_clock : "");
	snprintf(ctx->ordered, sizeof(ctx->ordered), "%s", floor_read ? floor_read : "");
	snprintf(ctx->describe, sizeof(ctx->describe), "%s", cyclock_describe());
}

/* Where in @ctx's list the last level's data or unified cache is, or -1;
 * of a level listed twice, the later entry. */
static int llc_index(const struct bench_context *ctx)
{
	int best = -1;

	for (int i = 0; i < ctx->n_caches; i++)
		if (strcmp(ctx->caches[i].type, "Instruction") &&
		    (best < 0 || ctx->caches[i].level >= ctx->caches[best].level))
			best = i;
	return best;
}

long bench_llc_bytes(const struct bench_context *ctx)
{
	int i = llc_index(ctx);

	return i >= 0 && ctx->caches[i].size > 0 ? ctx->caches[i].size : 8L << 20;
}

long bench_mid_cache_bytes(const struct bench_context *ctx)
{
	int top = llc_index(ctx), best = -1;

	for (int i = 0; top >= 0 && i < ctx->n_caches; i++)
		if (strcmp(ctx->caches[i].type, "Instruction") &&
		    ctx->caches[i].level < ctx->caches[top].level &&
		    (best < 0 || ctx->caches[i].level >= ctx->caches[best].level))
			best = i;
	return best >= 0 ? ctx->caches[best].size : 0;
}
