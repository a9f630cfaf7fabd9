/* core/tracing/dbg_decoded.c: the decoded side of the trace session — the
 * decoder's image of the process (its modules' files, live code outside
 * them), the per-CPU split into per-thread traces, and decoding a thread's
 * trace (trace/decode) cached per stop id. */
#include "core/tracing/cursor.h"
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/trace_info.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
#include "trace/pages.h"
#include "trace/swc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- decoding ---- */

struct img_ctx {
	struct trace_image *img;
	const char *path;
	struct ptdb_err *err;
	const struct trace_pages *pages;	/* the code as it ran, or NULL */
};

/* A module's segment, without the pages whose code changed while traced
 * (their versions are the image's pages, trace/pages.h). */
static int add_segment(void *ctx, uint64_t off, uint64_t size, uint64_t vaddr)
{
	struct img_ctx *c = ctx;
	uint64_t at = vaddr, end = vaddr + size;

	if (!trace_pages_touched(c->pages))
		return trace_image_add_file(c->img, c->path, off, size, vaddr, c->err);
	while (at < end) {
		uint64_t from = at;

		while (at < end && !trace_pages_touched_at(c->pages, at))
			at = (at & ~(TRACE_PAGE - 1)) + TRACE_PAGE;
		if (at > end)
			at = end;
		if (at > from && trace_image_add_file(c->img, c->path, off + (from - vaddr), at - from,
						      from, c->err) < 0)
			return -1;
		while (at < end && trace_pages_touched_at(c->pages, at))
			at = (at & ~(TRACE_PAGE - 1)) + TRACE_PAGE;
		if (at > end)
			at = end;
	}
	return 0;
}

/* The code pages the session's trace kept (live, or a loaded bundle's). */
struct trace_pages *dbg_trace_pages(struct dbg *d)
{
	if (dbg_tr(d)->pm)
		return dbg_tr(d)->pm->pages;
	return dbg_tr(d)->trace ? dbg_tr(d)->trace->pages : NULL;
}

/* trace_image_read_fn over the live process: code outside every module
 * (anonymous executable memory), up to the first unreadable page. */
static size_t live_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct dbg *d = ctx;
	size_t got = 0;

	if (dbg_tr(d)->host->module_for(d, addr))
		return 0;	/* a module's own bytes come from its file */
	while (got < n) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);

		if (chunk > n - got)
			chunk = n - got;
		if (target_read_mem(dbg_tr_proc(d), a, buf + got, chunk, NULL) < 0)
			break;
		got += chunk;
	}
	return got;
}

int dbg_trace_build_image(struct dbg *d, struct trace_image *img, struct ptdb_err *err)
{
	if (trace_image_init(img, err) < 0)
		return -1;
	{
		/* the CPU that wrote the trace (its source's, or its collector's:
		 * intel-pt): libipt's errata */
		char v[32];
		int f, m, st;

		if (dbg_trace_cpu_info(d, v, sizeof(v), &f, &m, &st) == 0) {
			img->cpu.intel = !strcmp(v, "GenuineIntel");
			img->cpu.family = (uint16_t)f;
			img->cpu.model = (uint8_t)m;
			img->cpu.stepping = (uint8_t)st;
		}
	}
	if (!dbg_tr(d)->pm && dbg_tr(d)->host->alive(d))
		trace_image_set_reader(img, live_code, d);
	if (dbg_trace_pages(d))
		trace_image_set_pages(img, dbg_trace_pages(d));
	int nmods;
	struct dbg_module *mods = dbg_tr(d)->host->modules(d, &nmods);

	for (int i = 0; i < nmods; i++) {
		struct dbg_module *m = &mods[i];
		char fdpath[64];
		struct img_ctx c = { img, m->path, err, dbg_trace_pages(d) };

		if (!m->sym || !m->end)
			continue;
		/* the file the module was read from, through its open
		 * descriptor: the vDSO's unlinked copy, a bundle's copies, a
		 * program deleted or rebuilt since it was mapped */
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", sym_module_fd(m->sym));
		c.path = fdpath;
		if (sym_module_segments(m->sym, add_segment, &c) < 0) {
			trace_image_release(img);
			return -1;
		}
	}
	return trace_image_add_pages(img);
}

uint64_t dbg_trace_next_ip(void *ctx, uint64_t ip)
{
	return dbg_cursor_next_ip(ctx, ip);	/* through the instruction cache */
}

/* The decode cache: one entry per thread decoded, keyed by (the
 * generation of its buffer, the stop id).  A hardware refill, a per-CPU
 * split or a loaded trace replaces the buffer's contents and bumps the
 * generation; the software writer appends while the process runs, which
 * ends in a new stop id.  Either makes the entry stale, judged in one
 * place (decoded_current); dbg_decoded_forget drops it.  Readers keyed by
 * a decoded trace notice a new one through trace_decoded_serial. */
struct dbg_decoded_entry {
	const struct trace_swc_thread *th;
	struct trace_decoded *dec;
	uint64_t gen;		/* th->ring.gen when decoded */
	uint64_t total;		/* th->ring.total then: packets written since
				 * (a traced run to the exit, same stop id) */
	uint64_t stop_id;	/* dbg_trace_stop_id then */
	double seconds;		/* how long the decoding took */
};

struct dbg_decoded_cache {
	struct dbg_decoded_entry *e;
	int n, cap;
};

static struct dbg_decoded_entry *entry(struct dbg *d, const struct trace_swc_thread *th, int add)
{
	struct dbg_decoded_cache *c = dbg_tr(d)->decoded;

	for (int i = 0; c && i < c->n; i++)
		if (c->e[i].th == th)
			return &c->e[i];
	if (!add)
		return NULL;
	if (!c)
		c = dbg_tr(d)->decoded = xcalloc(1, sizeof(*c));
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->e = xrealloc(c->e, (size_t)c->cap * sizeof(*c->e));
	}
	memset(&c->e[c->n], 0, sizeof(c->e[0]));
	c->e[c->n].th = th;
	return &c->e[c->n++];
}

static int decoded_current(struct dbg *d, const struct dbg_decoded_entry *e)
{
	return e && e->dec && e->gen == e->th->ring.gen && e->total == e->th->ring.total &&
	       e->stop_id == dbg_trace_stop_id(d);
}

void dbg_decoded_forget(struct dbg *d, const struct trace_swc_thread *th)
{
	struct dbg_decoded_cache *c = dbg_tr(d)->decoded;
	struct dbg_decoded_entry *e = entry(d, th, 0);

	if (!e)
		return;
	trace_decoded_free(e->dec);
	*e = c->e[--c->n];
}

struct trace_decoded *dbg_decoded_cached(struct dbg *d, const struct trace_swc_thread *th)
{
	const struct dbg_decoded_entry *e = entry(d, th, 0);

	return e ? e->dec : NULL;
}

double dbg_decoded_seconds(struct dbg *d, const struct trace_swc_thread *th)
{
	const struct dbg_decoded_entry *e = entry(d, th, 0);

	return e ? e->seconds : 0;
}

void dbg_decoded_free(struct dbg *d)
{
	struct dbg_decoded_cache *c = dbg_tr(d)->decoded;

	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		trace_decoded_free(c->e[i].dec);
	free(c->e);
	free(c);
	dbg_tr(d)->decoded = NULL;
}

/* The id of the k-th CPU of the list c. */
static int cpu_id(const struct trace_swc_cpu *c, int k)
{
	while (k-- > 0 && c->next)
		c = c->next;
	return c->id;
}

/* Per-CPU: each thread's ring gets its part of the CPU traces (c and the
 * CPUs after it), when one of them changed since the last split. */
static int split_cpu(struct dbg *d, struct trace_swc_cpu *c, struct ptdb_err *err)
{
	struct trace_swc_thread **ths;
	struct trace_split_thread *parts = NULL;
	struct trace_piece *pieces = NULL;
	const uint8_t **bufs;
	size_t nparts = 0, np = 0;
	int n, ncpu = 0, stale = 0, r = 0, *owned;

	for (struct trace_swc_cpu *k = c; k; k = k->next, ncpu++)
		stale |= !k->split_valid || k->split_total != k->s.ring.total || k->split_sw != k->sw_len;
	if (!stale)
		return 0;
	bufs = xcalloc((size_t)ncpu, sizeof(*bufs));
	owned = xcalloc((size_t)ncpu, sizeof(*owned));
	ncpu = 0;
	for (struct trace_swc_cpu *k = c; k && r == 0; k = k->next, ncpu++) {
		struct trace_switch *sw;
		size_t nsw, len;
		uint8_t *buf;

		if (trace_switch_parse(k->sw, k->sw_len, &sw, &nsw, err) < 0) {
			r = -1;
			break;
		}
		if ((buf = (uint8_t *)trace_ring_view(&k->s.ring, &len))) {
			owned[ncpu] = 0;	/* a loaded file's */
		} else if (trace_ring_snapshot(&k->s.ring, &buf, &len, err) < 0) {
			free(sw);
			r = -1;
			break;
		} else {
			owned[ncpu] = 1;
		}
		bufs[ncpu] = buf;
		r = trace_split_pieces(buf, len, sw, nsw, &k->conv, ncpu, &pieces, &np, err);
		free(sw);
	}
	if (r == 0)
		r = trace_split_merge(bufs, pieces, np, &parts, &nparts);
	for (int k = 0; k < ncpu; k++)
		if (owned[k])
			free((void *)bufs[k]);
	free(bufs);
	free(owned);
	free(pieces);
	if (r < 0)
		return -1;
	ths = dbg_trace_list(d, &n);
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = ths[i];
		struct trace_split_thread *p = NULL;

		if (th->cpu != c)
			continue;
		for (size_t k = 0; k < nparts; k++)
			if (parts[k].tid == th->tid)
				p = &parts[k];
		if (p) {
			trace_ring_adopt(&th->ring, p->bytes, p->len);
			p->bytes = NULL;
			th->part.executions = p->executions;
			th->part.psbs = p->psbs;
			th->part.inexact = p->inexact;
			th->part.cpu_changes = p->cpu_changes;
			free(th->part.cpu_marks);
			free(th->part.cpu_ids);
			th->part.cpu_marks = p->cpu_marks;
			th->part.cpu_ids = p->cpu_ids;
			th->part.ncpu_marks = p->ncpu_marks;
			p->cpu_marks = NULL;
			p->cpu_ids = NULL;
			for (unsigned m = 0; m < th->part.ncpu_marks; m++)
				th->part.cpu_ids[m] = cpu_id(c, th->part.cpu_ids[m]);
		} else {
			trace_ring_adopt(&th->ring, xcalloc(1, TRACE_RING_SLACK), 0);
			th->part.executions = th->part.psbs = th->part.inexact = th->part.cpu_changes = 0;
			free(th->part.cpu_marks);
			free(th->part.cpu_ids);
			th->part.cpu_marks = NULL;
			th->part.cpu_ids = NULL;
			th->part.ncpu_marks = 0;
		}
	}
	free(ths);
	trace_split_free(parts, nparts);
	for (struct trace_swc_cpu *k = c; k; k = k->next) {
		k->split_valid = 1;
		k->split_total = k->s.ring.total;
		k->split_sw = k->sw_len;
	}
	return 0;
}

/* A thread's decoded trace is an index over its trace, its chunks
 * decoded as they are read (trace_decode_indexed), each at least
 * DECODE_CHUNK_BYTES of trace.  For tests: PTDB_TRACE_CHUNK_BYTES sets
 * that size (0: a chunk at every PSB), PTDB_TRACE_STORE=full decodes the
 * whole trace into memory instead (the store before the index). */
#define DECODE_CHUNK_BYTES (4u << 10)

static size_t chunk_bytes(void)
{
	const char *v = getenv("PTDB_TRACE_CHUNK_BYTES");

	return v && *v ? (size_t)strtoull(v, NULL, 0) : DECODE_CHUNK_BYTES;
}

static int decode_full(void)
{
	const char *v = getenv("PTDB_TRACE_STORE");

	return v && !strcmp(v, "full");
}

int dbg_trace_decode(struct dbg *d, struct trace_swc_thread *th,
		     struct trace_decoded **out, struct ptdb_err *err)
{
	return dbg_trace_decode_hooked(d, th, NULL, out, err);
}

int dbg_trace_decode_hooked(struct dbg *d, struct trace_swc_thread *th,
			    const struct trace_decode_hook *hook,
			    struct trace_decoded **out, struct ptdb_err *err)
{
	struct dbg_decoded_entry *e;
	struct trace_decoded *dec = NULL;
	struct trace_image img;
	struct timespec t0, t1;
	const uint8_t *view;
	uint8_t *buf;
	size_t len;
	int r;

	if (th->cpu && split_cpu(d, th->cpu, err) < 0)
		return -1;
	e = entry(d, th, 0);
	if (decoded_current(d, e)) {
		*out = e->dec;
		return 0;
	}
	dbg_decoded_forget(d, th);
	/* a loaded trace is read where it is mapped (the decoded trace is
	 * forgotten before its ring is released); a live one is copied */
	if ((view = trace_ring_view(&th->ring, &len)))
		buf = (uint8_t *)view;
	else if (trace_ring_snapshot(&th->ring, &buf, &len, err) < 0)
		return -1;
	if (dbg_trace_build_image(d, &img, err) < 0) {
		if (!view)
			free(buf);
		return -1;
	}
	if (th->cpu) {	/* (its ring is its split part, whole) */
		img.cpu_marks = th->part.cpu_marks;
		img.cpu_ids = th->part.cpu_ids;
		img.ncpu_marks = th->part.ncpu_marks;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (decode_full())
		r = trace_decode_hooked(buf, len, &img, hook, &dec, err);
	else
		r = trace_decode_indexed(buf, len, &img, chunk_bytes(), hook, &dec, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r < 0) {
		trace_image_release(&img);
		if (!view)
			free(buf);
		return r;
	}
	trace_decoded_adopt(dec, view ? NULL : buf, &img);	/* read as chunks are decoded */
	e = entry(d, th, 1);
	e->dec = dec;
	e->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	e->gen = th->ring.gen;
	e->total = th->ring.total;
	e->stop_id = dbg_trace_stop_id(d);
	*out = dec;
	return 0;
}
