/* core/session/size.c: size and integer parsing for command options. */
#include "core/session/size.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int uint_parse(const char *s, uint64_t *out, struct ptdb_err *err)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return ptdb_err_set(err, "invalid number: \"%s\"", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		return ptdb_err_set(err, "number out of range: \"%s\"", s);
	if (*end)
		return ptdb_err_set(err, "invalid number: \"%s\"", s);
	*out = v;
	return 0;
}

static const struct {
	const char *suffix;
	unsigned shift;
} units[] = {
	{ "b", 0 },
	{ "k", 10 }, { "kb", 10 }, { "kib", 10 },
	{ "m", 20 }, { "mb", 20 }, { "mib", 20 },
	{ "g", 30 }, { "gb", 30 }, { "gib", 30 },
	{ "t", 40 }, { "tb", 40 }, { "tib", 40 },
};

int size_parse(const char *s, uint64_t bare_unit, uint64_t *out, struct ptdb_err *err)
{
	char *end;
	unsigned long long v;
	uint64_t mult = bare_unit;

	if (!s || !isdigit((unsigned char)*s))
		return ptdb_err_set(err, "invalid size: \"%s\"", s ? s : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return ptdb_err_set(err, "size too large: \"%s\"", s);
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return ptdb_err_set(err, "invalid size: \"%s\" (use a number "
				"with an optional unit: B, KiB, MiB, GiB)", s);
		mult = (uint64_t)1 << units[i].shift;
	}
	if (mult && v > UINT64_MAX / mult)
		return ptdb_err_set(err, "size too large: \"%s\"", s);
	*out = v * mult;
	return 0;
}

char *size_format(uint64_t bytes, char *buf, size_t n)
{
	static const char *const names[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int i = -1;

	if (bytes < 1024) {
		snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024 && i < 3) {
		v /= 1024;
		i++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(buf, n, "%llu %s", (unsigned long long)v, names[i]);
	else
		snprintf(buf, n, "%.2f %s", v, names[i]);
	return buf;
}

int mem_available(uint64_t *bytes)
{
	const char *v = getenv("PTDB_MEM_AVAILABLE");
	char line[256];
	unsigned long long kb;
	FILE *f;
	int r = -1;
	struct ptdb_err err;

	if (v && *v)
		return size_parse(v, 1, bytes, &err);
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
			*bytes = (uint64_t)kb << 10;
			r = 0;
			break;
		}
	fclose(f);
	return r;
}
