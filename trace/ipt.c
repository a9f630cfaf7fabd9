/* trace/ipt.c: the intel-pt backend's pure logic: the PMU's sysfs files
 * (from any root, so tests use fixture trees), the perf_event_attr of
 * every event, buffer sizes and locked-memory limits, CPU lists,
 * /proc/cpuinfo, and the error texts.  See ipt.h. */
#include "trace/ipt.h"
#include "trace/ring.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a small text file into buf (NUL-terminated); -1 with errno set. */
static int read_small(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t got;

	if (!f)
		return -1;
	got = fread(buf, 1, n - 1, f);
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		errno = e ? e : EIO;
		return -1;
	}
	fclose(f);
	buf[got] = 0;
	return 0;
}

static int parse_uint(const char *s, uint64_t *v)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : 0;
}

int trace_ipt_format_parse(const char *text, struct trace_ipt_field *f)
{
	const char *p = text;
	char *end;
	long lo, hi;

	memset(f, 0, sizeof(*f));
	if (!strncmp(p, "config1:", 8)) {
		f->word = 1;
		p += 8;
	} else if (!strncmp(p, "config2:", 8)) {
		f->word = 2;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		p += 7;
	} else {
		return -1;
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	lo = strtol(p, &end, 10);
	hi = lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		hi = strtol(end + 1, &end, 10);
	}
	while (*end == '\n' || *end == ' ')
		end++;
	if (*end || lo < 0 || hi > 63 || hi < lo)
		return -1;
	f->lo = (int)lo;
	f->hi = (int)hi;
	f->valid = 1;
	return 0;
}

int trace_ipt_field_set(uint64_t cfg[3], const struct trace_ipt_field *f, uint64_t v,
			const char *what, struct ptdb_err *err)
{
	int width;
	uint64_t mask;

	if (!f->valid)
		return ptdb_err_set(err, "this CPU's Intel PT has no %s setting "
				    "(no format file for it in %s/format)", what, TRACE_IPT_SYSFS);
	width = f->hi - f->lo + 1;
	mask = width == 64 ? ~0ull : ((1ull << width) - 1);
	if (v & ~mask)
		return ptdb_err_set(err, "%s value %" PRIu64 " does not fit the PMU's %d-bit field",
				    what, v, width);
	cfg[f->word] = (cfg[f->word] & ~(mask << f->lo)) | (v << f->lo);
	return 0;
}

static void read_format(const char *root, const char *name, struct trace_ipt_field *f)
{
	char path[4096], buf[128];

	snprintf(path, sizeof(path), "%s/format/%s", root, name);
	if (read_small(path, buf, sizeof(buf)) < 0 || trace_ipt_format_parse(buf, f) < 0)
		memset(f, 0, sizeof(*f));
}

/* caps/<name>: the kernel's pt_cap_show writes "%x\n" (psb_periods "3f") */
static uint64_t read_cap(const char *root, const char *name)
{
	char path[4096], buf[128], *end;
	const char *s = buf;
	uint64_t v;

	snprintf(path, sizeof(path), "%s/caps/%s", root, name);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	if (!isxdigit((unsigned char)*s))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 16);
	while (isspace((unsigned char)*end))
		end++;
	return errno || *end ? 0 : v;
}

int trace_ipt_pmu_read(struct trace_ipt_pmu *p, const char *root, struct ptdb_err *err)
{
	char path[4096], buf[128];
	uint64_t v;

	memset(p, 0, sizeof(*p));
	if (!root)
		root = TRACE_IPT_SYSFS;
	snprintf(path, sizeof(path), "%s/type", root);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return ptdb_err_set(err, "Intel PT is not available on this machine: cannot read %s "
				    "(%s). Use --backend software.", path, strerror(errno));
	if (parse_uint(buf, &v) < 0 || v > UINT32_MAX)
		return ptdb_err_set(err, "%s: not a PMU type: '%.40s'", path, buf);
	p->type = (uint32_t)v;
	read_format(root, "tsc", &p->tsc);
	read_format(root, "psb_period", &p->psb_period);
	p->psb_cyc = read_cap(root, "psb_cyc") != 0;
	p->psb_periods = (uint32_t)read_cap(root, "psb_periods");
	return 0;
}

int trace_ipt_psb_exponent(const struct trace_ipt_pmu *p, size_t bytes, unsigned *n,
			   struct ptdb_err *err)
{
	unsigned e = 0;
	char list[256] = "";
	size_t used = 0;

	if (!p->psb_cyc || !p->psb_period.valid)
		return ptdb_err_set(err, "--psb-period: this CPU's Intel PT cannot configure the PSB "
				    "period (caps/psb_cyc is 0)");
	if (bytes < 2048 || (bytes & (bytes - 1)))
		return ptdb_err_set(err, "--psb-period %zu: the intel-pt backend takes a power of two "
				    "of at least 2 KiB (2^(N+11) bytes)", bytes);
	while ((2048ull << e) < bytes)
		e++;
	if (e < 32 && (p->psb_periods & (1u << e))) {
		*n = e;
		return 0;
	}
	for (unsigned k = 0; k < 32 && used < sizeof(list) - 24; k++)
		if (p->psb_periods & (1u << k))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%llu",
						 used ? ", " : "", 2048ull << k);
	return ptdb_err_set(err, "--psb-period %zu is not supported by this CPU's Intel PT "
			    "(caps/psb_periods allows: %s bytes)", bytes, used ? list : "none");
}

int trace_ipt_attr_pt(struct perf_event_attr *a, const struct trace_ipt_pmu *p,
		      const struct trace_ipt_opts *o, int per_cpu, struct ptdb_err *err)
{
	uint64_t cfg[3] = { o->perf_config, 0, 0 };
	unsigned n;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = p->type;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_idle = 1;
	a->disabled = 1;
	if ((o->tsc || per_cpu) &&
	    trace_ipt_field_set(cfg, &p->tsc, 1, "TSC (--tsc)", err) < 0)
		return -1;
	if (o->psb_period) {
		if (trace_ipt_psb_exponent(p, o->psb_period, &n, err) < 0 ||
		    trace_ipt_field_set(cfg, &p->psb_period, n, "--psb-period", err) < 0)
			return -1;
	}
	a->config = cfg[0];
	a->config1 = cfg[1];
	a->config2 = cfg[2];
	return 0;
}

void trace_ipt_attr_switch(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_period = 0;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->context_switch = 1;
	a->sample_id_all = 1;
	/* mapped read-only (overwrite mode, TRACE_IPT_DATA_WRITABLE 0): it
	 * keeps the newest switches, as the aux ring keeps the newest trace;
	 * written backward so the newest records can be walked whole */
	a->write_backward = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
}

int trace_ipt_cpulist_parse(const char *s, int **cpus, int *n, struct ptdb_err *err)
{
	int *v = NULL, nv = 0, cap = 0;
	const char *p = s;

	*cpus = NULL;
	*n = 0;
	while (*p && *p != '\n') {
		char *end;
		long lo, hi;

		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = hi = strtol(p, &end, 10);
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			hi = strtol(end + 1, &end, 10);
		}
		if (hi < lo || hi > 65535)
			goto bad;
		for (long c = lo; c <= hi; c++) {
			if (nv == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, (size_t)cap * sizeof(*v));
			}
			v[nv++] = (int)c;
		}
		p = end;
		if (*p == ',') {
			p++;
			if (!*p || *p == '\n')
				goto bad;
		} else if (*p && *p != '\n') {
			goto bad;
		}
	}
	if (!nv)
		goto bad;
	*cpus = v;
	*n = nv;
	return 0;
bad:
	free(v);
	return ptdb_err_set(err, "malformed CPU list '%.60s'", s);
}

int trace_ipt_cpus_online(const char *path, int **cpus, int *n, struct ptdb_err *err)
{
	char buf[4096];

	if (!path)
		path = TRACE_IPT_CPU_ONLINE;
	if (read_small(path, buf, sizeof(buf)) < 0)
		return ptdb_err_errno(err, "cannot read %s", path);
	return trace_ipt_cpulist_parse(buf, cpus, n, err);
}

/* The value of "key<tabs/spaces>: value" when line is that key exactly. */
static const char *field_value(const char *line, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k))
		return NULL;
	line += k;
	while (*line == ' ' || *line == '\t')
		line++;
	if (*line != ':')
		return NULL;
	line++;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

int trace_ipt_cpuinfo_parse(const char *text, struct trace_ipt_cpuinfo *ci, struct ptdb_err *err)
{
	const char *line = text;
	int seen = 0, have_proc = 0;

	memset(ci, 0, sizeof(*ci));
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char l[512];
		const char *v;

		snprintf(l, sizeof(l), "%.*s", (int)(len < sizeof(l) ? len : sizeof(l) - 1), line);
		line = nl ? nl + 1 : NULL;
		if (!l[0] && have_proc)
			break;	/* the first processor's block ends */
		if (field_value(l, "processor"))
			have_proc = 1;
		if ((v = field_value(l, "vendor_id"))) {
			snprintf(ci->vendor, sizeof(ci->vendor), "%s", v);
			seen |= 1;
		} else if ((v = field_value(l, "cpu family"))) {
			ci->family = atoi(v);
			seen |= 2;
		} else if ((v = field_value(l, "model"))) {
			ci->model = atoi(v);
			seen |= 4;
		} else if ((v = field_value(l, "stepping"))) {
			ci->stepping = atoi(v);
			seen |= 8;
		}
	}
	if (seen != 15)
		return ptdb_err_set(err, "/proc/cpuinfo: no %s line",
				    !(seen & 1) ? "vendor_id" : !(seen & 2) ? "cpu family"
				    : !(seen & 4) ? "model" : "stepping");
	return 0;
}

int trace_ipt_cpuinfo_read(const char *path, struct trace_ipt_cpuinfo *ci, struct ptdb_err *err)
{
	size_t n = 16384;	/* the first processor's block fits */
	char *buf = xmalloc(n);
	int r;

	if (!path)
		path = "/proc/cpuinfo";
	if (read_small(path, buf, n) < 0) {
		free(buf);
		return ptdb_err_errno(err, "cannot read %s", path);
	}
	r = trace_ipt_cpuinfo_parse(buf, ci, err);
	free(buf);
	return r;
}

int trace_ipt_aux_size(size_t bytes, size_t page, size_t *size, size_t *pages,
		       struct ptdb_err *err)
{
	size_t s = trace_ring_round_size(bytes);

	if (!s)
		return ptdb_err_set(err, "trace buffer size %zu is too large", bytes);
	if (!page || s % page || ((s / page) & (s / page - 1)))
		return ptdb_err_set(err, "trace buffer size %zu is not a power-of-two number of "
				    "%zu-byte pages", s, page);
	*size = s;
	*pages = s / page;
	return 0;
}

int trace_ipt_mlock_read(const char *path, struct trace_ipt_limits *l, struct ptdb_err *err)
{
	char buf[64];
	uint64_t v;

	if (!path)
		path = TRACE_IPT_MLOCK_KB;
	l->has_mlock = 0;
	if (read_small(path, buf, sizeof(buf)) < 0)
		return ptdb_err_errno(err, "cannot read %s", path);
	if (parse_uint(buf, &v) < 0)
		return ptdb_err_set(err, "%s: not a number", path);
	l->mlock_kb = v;
	l->has_mlock = 1;
	return 0;
}

int trace_ipt_check_mlock(const struct trace_ipt_limits *l, size_t bytes, size_t page,
			  size_t data_pages, unsigned nbuf, struct ptdb_err *err)
{
	/* perf_mmap: pages beyond perf_event_mlock_kb (per online CPU, per
	 * user) are charged to RLIMIT_MEMLOCK, and past both it fails */
	uint64_t one = (uint64_t)bytes + (uint64_t)(1 + data_pages) * page;
	uint64_t need = one * nbuf, allow;

	if (l->privileged || l->memlock_infinite || !l->has_mlock)
		return 0;
	allow = l->mlock_kb * 1024 * (uint64_t)(l->ncpus > 0 ? l->ncpus : 1) + l->memlock;
	if (need <= allow)
		return 0;
	return ptdb_err_set(err, "%u trace buffer%s of %zu KiB need %" PRIu64 " KiB of locked "
			    "memory, more than %s (%" PRIu64 " KiB per CPU) and RLIMIT_MEMLOCK "
			    "(%" PRIu64 " KiB) allow. Use a smaller --size, or raise them (as root, "
			    "or 'ulimit -l').", nbuf, nbuf == 1 ? "" : "s", bytes >> 10, need >> 10,
			    TRACE_IPT_MLOCK_KB, l->mlock_kb, l->memlock >> 10);
}

int trace_ipt_check_total(size_t bytes, unsigned nbuf, size_t limit, pid_t tid,
			  struct ptdb_err *err)
{
	if (!limit || (uint64_t)bytes * nbuf <= limit)
		return 0;
	if (!tid)
		return ptdb_err_code(err, PTDB_E_LIMIT,
				     "The process can't be traced because the process trace size "
				    "limit has been reached. Consider retracing with a higher limit.");
	return ptdb_err_code(err, PTDB_E_LIMIT,
			     "Thread %d can't be traced as the process trace size limit has "
			    "been reached. Consider retracing with a higher limit.", (int)tid);
}

int trace_ipt_open_error(struct ptdb_err *err, const char *what, int e)
{
	if (e == EACCES || e == EPERM)
		return ptdb_err_set(err, "%s: %s\nYou might need to rerun as sudo or to set "
				    "%s to a value of 0 or -1.", what, strerror(e), TRACE_IPT_PARANOID);
	return ptdb_err_set(err, "%s: %s", what, strerror(e));
}

int trace_ipt_data_take(const uint8_t *ring, size_t size, uint64_t tail, uint64_t head,
			uint8_t **buf, size_t *len, size_t *cap, struct ptdb_err *err)
{
	uint64_t n = head - tail;
	size_t off;

	if (!size || (size & (size - 1)))
		return ptdb_err_set(err, "perf data ring size %zu is not a power of two", size);
	if (head < tail || n > size)
		return ptdb_err_set(err, "context-switch records lost: %" PRIu64 " bytes written "
				    "since the last read, the ring holds %zu", n, size);
	if (*len + n > *cap) {
		*cap = *cap ? *cap : 4096;
		while (*len + n > *cap)
			*cap *= 2;
		*buf = xrealloc(*buf, *cap);
	}
	off = (size_t)(tail & (size - 1));
	if (off + n <= size) {
		memcpy(*buf + *len, ring + off, (size_t)n);
	} else {
		memcpy(*buf + *len, ring + off, size - off);
		memcpy(*buf + *len + (size - off), ring, (size_t)n - (size - off));
	}
	*len += (size_t)n;
	return 0;
}

/* n bytes at offset pos of a ring of size (a power of two), wrapping. */
static void ring_get(const uint8_t *ring, size_t size, uint64_t pos, uint8_t *dst, size_t n)
{
	size_t off = (size_t)(pos & (size - 1)), first = n < size - off ? n : size - off;

	memcpy(dst, ring + off, first);
	memcpy(dst + first, ring, n - first);
}

int trace_ipt_data_take_backward(const uint8_t *ring, size_t size, uint64_t prev, uint64_t head,
				 uint8_t **buf, size_t *len, size_t *cap, uint64_t *lost,
				 struct ptdb_err *err)
{
	uint64_t n = prev - head;	/* written since the last read */
	size_t win, off = 0, *at = NULL, nat = 0, atcap = 0, end;

	if (!size || (size & (size - 1)))
		return ptdb_err_set(err, "perf data ring size %zu is not a power of two", size);
	win = n > size ? size : (size_t)n;
	if (n > size)
		(*lost)++;	/* the oldest were written over */
	while (off + sizeof(struct perf_event_header) <= win) {
		struct perf_event_header h;

		ring_get(ring, size, head + off, (uint8_t *)&h, sizeof(h));
		if (h.size < sizeof(h) || h.size > win - off) {
			if (n > size)
				break;	/* the oldest, cut by the newer ones */
			free(at);
			return ptdb_err_set(err, "context-switch ring: record of %u bytes at %zu of %zu %s",
					    h.size, off, win, h.size < sizeof(h) ? "is too small" : "runs past the end");
		}
		if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			uint64_t k;

			ring_get(ring, size, head + off + 16, (uint8_t *)&k, sizeof(k));
			*lost += k;
		}
		if (nat == atcap) {
			atcap = atcap ? atcap * 2 : 64;
			at = xrealloc(at, atcap * sizeof(*at));
		}
		at[nat++] = off;
		off += h.size;
	}
	if (n <= size && off != win) {
		free(at);
		return ptdb_err_set(err, "context-switch ring: %zu bytes after the last record", win - off);
	}
	if (*len + off > *cap) {
		*cap = *cap ? *cap : 4096;
		while (*len + off > *cap)
			*cap *= 2;
		*buf = xrealloc(*buf, *cap);
	}
	/* newest first in the ring: appended the other way round */
	end = off;
	for (size_t i = nat; i-- > 0;) {
		size_t rl = end - at[i];

		ring_get(ring, size, head + at[i], *buf + *len, rl);
		*len += rl;
		end = at[i];
	}
	free(at);
	return 0;
}

int trace_ipt_mlock_exempt(const char *status, const char *paranoid)
{
	const char *cap = status ? strstr(status, "\nCapEff:") : NULL;

	if (paranoid) {
		char *end;
		long v = strtol(paranoid, &end, 10);

		if (end != paranoid && v <= -1)
			return 1;
	}
	if (cap) {
		uint64_t bits = strtoull(cap + 8, NULL, 16);

		if (bits & (1ull << 14))	/* CAP_IPC_LOCK */
			return 1;
	}
	return 0;
}

int trace_ipt_cgroup_parse(const char *text, char *path, size_t len)
{
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line) : strlen(line);

		if (l > 3 && !strncmp(line, "0::", 3) && line[3] == '/') {
			if (l - 3 >= len)
				return -1;
			memcpy(path, line + 3, l - 3);
			path[l - 3] = 0;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}
