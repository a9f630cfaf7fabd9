/* trace/cpusplit.c: per-CPU traces into per-thread traces (see cpusplit.h). */
#include "trace/cpusplit.h"
#include "trace/ring.h"

#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>

#define REC_SWITCH_CPU_WIDE 15u		/* PERF_RECORD_SWITCH_CPU_WIDE */
#define REC_MISC_SWITCH_OUT (1u << 13)	/* PERF_RECORD_MISC_SWITCH_OUT */
/* The software backend writes a switch's out and in records 2 and 1 ns
 * before the PSB+ that starts the next thread's part (trace/swc.c) */
#define SWITCH_SLACK_NS 2
#define REC_SIZE 32u			/* header, next_prev pid/tid, pid/tid, time */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void trace_switch_append(uint8_t **buf, size_t *len, size_t *cap, const struct trace_switch *s,
			 pid_t other_pid, pid_t other_tid)
{
	uint8_t *p;

	if (*len + REC_SIZE > *cap) {
		*cap = *cap ? *cap * 2 : 4096;
		*buf = xrealloc(*buf, *cap);
	}
	p = *buf + *len;
	put32(p, REC_SWITCH_CPU_WIDE);
	put16(p + 4, s->out ? REC_MISC_SWITCH_OUT : 0);
	put16(p + 6, REC_SIZE);
	put32(p + 8, (uint32_t)other_pid);
	put32(p + 12, (uint32_t)other_tid);
	put32(p + 16, (uint32_t)s->pid);	/* sample_id: PERF_SAMPLE_TID */
	put32(p + 20, (uint32_t)s->tid);
	put64(p + 24, s->time);			/* PERF_SAMPLE_TIME */
	*len += REC_SIZE;
}

int trace_switch_parse(const uint8_t *buf, size_t len, struct trace_switch **out, size_t *n,
		       struct ptdb_err *err)
{
	size_t off = 0, cap = 0;

	*out = NULL;
	*n = 0;
	while (off < len) {
		uint32_t type;
		uint16_t misc, size;

		if (len - off < 8) {
			free(*out);
			*out = NULL;
			return ptdb_err_set(err, "context-switch trace: a record header is cut off at offset %zu", off);
		}
		type = get32(buf + off);
		misc = get16(buf + off + 4);
		size = get16(buf + off + 6);
		if (size < 8 || size > len - off) {
			free(*out);
			*out = NULL;
			return ptdb_err_set(err, "context-switch trace: record of %u bytes at offset %zu %s", size,
					    off, size < 8 ? "is too small" : "runs past the end");
		}
		if (type == REC_SWITCH_CPU_WIDE && size >= REC_SIZE) {
			struct trace_switch *s;

			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = xrealloc(*out, cap * sizeof(**out));
			}
			s = &(*out)[(*n)++];
			s->out = (misc & REC_MISC_SWITCH_OUT) != 0;
			s->pid = (pid_t)get32(buf + off + 16);
			s->tid = (pid_t)get32(buf + off + 20);
			s->time = get64(buf + off + 24);
		}
		off += size;
	}
	return 0;
}

/* ---- splitting ---- */

struct chunk {
	size_t off;
	uint64_t ns;
	int has_time;
};

/* The PSBs of the trace with the time of their PSB+ (its TSC packet). */
static int scan_psbs(const uint8_t *buf, size_t len, const struct trace_tsc_conv *conv,
		     struct chunk **out, size_t *n, struct ptdb_err *err)
{
	struct pt_config cfg;
	struct pt_packet_decoder *dec;
	size_t cap = 0;
	int in_psb = 0;

	*out = NULL;
	*n = 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)buf;
	cfg.end = (uint8_t *)buf + len;
	dec = pt_pkt_alloc_decoder(&cfg);
	if (!dec)
		return ptdb_err_set(err, "cannot allocate the Intel PT packet decoder");
	while (pt_pkt_sync_forward(dec) >= 0) {
		for (;;) {
			struct pt_packet pkt;
			uint64_t off = 0;

			pt_pkt_get_offset(dec, &off);
			if (pt_pkt_next(dec, &pkt, sizeof(pkt)) < 0)
				break;	/* resync at the next PSB */
			if (pkt.type == ppt_psb) {
				if (*n == cap) {
					cap = cap ? cap * 2 : 256;
					*out = xrealloc(*out, cap * sizeof(**out));
				}
				(*out)[*n].off = (size_t)off;
				(*out)[*n].has_time = 0;
				(*n)++;
				in_psb = 1;
			} else if (pkt.type == ppt_psbend) {
				in_psb = 0;
			} else if (pkt.type == ppt_tsc && in_psb && *n) {
				(*out)[*n - 1].ns = conv->valid ? trace_tsc_to_ns(conv, pkt.payload.tsc.tsc)
								: pkt.payload.tsc.tsc;
				(*out)[*n - 1].has_time = 1;
			}
		}
	}
	pt_pkt_free_decoder(dec);
	return 0;
}

static int cmp_switch(const void *a, const void *b)
{
	const struct trace_switch *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* at one instant the outgoing thread leaves before the next comes in */
	return y->out - x->out;
}

/* The thread on the CPU at time ns (0: none), with sw sorted. */
static pid_t owner(const struct trace_switch *sw, size_t n, uint64_t ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* first record later than ns */
		size_t mid = lo + (hi - lo) / 2;

		if (sw[mid].time <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)	/* before every record: whoever the first one takes off */
		return n && sw[0].out ? sw[0].tid : 0;
	return sw[lo - 1].out ? 0 : sw[lo - 1].tid;
}

/* 1 if a switch lies strictly between a and b (sw sorted). */
static int switch_between(const struct trace_switch *sw, size_t n, uint64_t a, uint64_t b)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* first record later than a */
		size_t mid = lo + (hi - lo) / 2;

		if (sw[mid].time <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sw[lo].time < b;
}

int trace_split_pieces(const uint8_t *buf, size_t len, const struct trace_switch *sw_in, size_t nsw,
		       const struct trace_tsc_conv *conv, int cpu, struct trace_piece **out,
		       size_t *n, struct ptdb_err *err)
{
	struct trace_switch *sw = NULL;
	struct trace_piece *cur = NULL;
	struct chunk *ch;
	size_t nch, cap = *n;
	pid_t prev = 0;

	if (scan_psbs(buf, len, conv, &ch, &nch, err) < 0)
		return -1;
	if (nsw) {
		sw = xmalloc(nsw * sizeof(*sw));
		memcpy(sw, sw_in, nsw * sizeof(*sw));
		qsort(sw, nsw, sizeof(*sw), cmp_switch);
	}
	for (size_t i = 0; i < nch; i++) {
		size_t end = i + 1 < nch ? ch[i + 1].off : len;
		pid_t tid;

		if (!ch[i].has_time) {
			size_t off = ch[i].off;

			free(ch);
			free(sw);
			return ptdb_err_set(err, "the CPU trace has a PSB without a timestamp at offset %zu: "
					    "it cannot be split into threads", off);
		}
		tid = owner(sw, nsw, ch[i].ns);
		if (!tid) {
			prev = 0;
			continue;
		}
		if (tid != prev) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = xrealloc(*out, cap * sizeof(**out));
			}
			cur = &(*out)[(*n)++];
			memset(cur, 0, sizeof(*cur));
			cur->tid = tid;
			cur->cpu = cpu;
			cur->ns = ch[i].ns;
			cur->off = ch[i].off;
			/* it came in after the previous chunk began: its first
			 * instructions went with that chunk (switches within
			 * SWITCH_SLACK_NS before the PSB are the PSB's own: the
			 * software backend writes them so) */
			cur->inexact = i > 0 && ch[i].ns > SWITCH_SLACK_NS &&
				       switch_between(sw, nsw, ch[i - 1].ns,
						      ch[i].ns - SWITCH_SLACK_NS);
		}
		cur->len = end - cur->off;
		cur->psbs++;
		prev = tid;
	}
	free(ch);
	free(sw);
	return 0;
}

static int cmp_piece(const void *a, const void *b)
{
	const struct trace_piece *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->cpu - y->cpu;
}

int trace_split_merge(const uint8_t *const *bufs, const struct trace_piece *pieces, size_t npieces,
		      struct trace_split_thread **out, size_t *n)
{
	struct trace_piece *p = NULL;

	*out = NULL;
	*n = 0;
	if (!npieces)
		return 0;
	p = xmalloc(npieces * sizeof(*p));
	memcpy(p, pieces, npieces * sizeof(*p));
	qsort(p, npieces, sizeof(*p), cmp_piece);
	for (size_t i = 0; i < npieces; i++) {
		struct trace_split_thread *t;

		int first = !*n || (*out)[*n - 1].tid != p[i].tid;

		if (first) {
			*out = xrealloc(*out, (*n + 1) * sizeof(**out));
			t = &(*out)[(*n)++];
			memset(t, 0, sizeof(*t));
			t->tid = p[i].tid;
		} else {
			t = &(*out)[*n - 1];
		}
		if (first || p[i - 1].cpu != p[i].cpu) {
			t->cpu_marks = xrealloc(t->cpu_marks, (t->ncpu_marks + 1) * sizeof(*t->cpu_marks));
			t->cpu_ids = xrealloc(t->cpu_ids, (t->ncpu_marks + 1) * sizeof(*t->cpu_ids));
			t->cpu_marks[t->ncpu_marks] = t->len;
			t->cpu_ids[t->ncpu_marks++] = p[i].cpu;
			t->cpu_changes += !first;
		}
		t->executions++;
		t->psbs += p[i].psbs;
		t->inexact += p[i].inexact != 0;
		t->bytes = xrealloc(t->bytes, t->len + p[i].len + TRACE_RING_SLACK);
		memcpy(t->bytes + t->len, bufs[p[i].cpu] + p[i].off, p[i].len);
		t->len += p[i].len;
		memset(t->bytes + t->len, 0, TRACE_RING_SLACK);
	}
	free(p);
	return 0;
}

void trace_split_free(struct trace_split_thread *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].bytes);
		free(t[i].cpu_marks);
		free(t[i].cpu_ids);
	}
	free(t);
}
