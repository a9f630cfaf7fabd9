/* core/dbg_decoded.c: the decoded side of the trace session — the
 * decoder's image of the process (its modules' files, live code outside
 * them), the per-CPU split into per-thread traces, and decoding a thread's
 * trace (trace/decode) cached per stop id. */
#include "core/cursor.h"
#include "core/dbg.h"
#include "core/dbg_int.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
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
};

static int add_segment(void *ctx, uint64_t off, uint64_t size, uint64_t vaddr)
{
	struct img_ctx *c = ctx;

	return trace_image_add_file(c->img, c->path, off, size, vaddr, c->err);
}

/* trace_image_read_fn over the live process: code outside every module
 * (anonymous executable memory), up to the first unreadable page. */
static size_t live_code(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	struct dbg *d = ctx;
	size_t got = 0;

	if (dbg_module_for(d, addr))
		return 0;	/* a module's own bytes come from its file */
	while (got < n) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (size_t)(a & 4095);

		if (chunk > n - got)
			chunk = n - got;
		if (target_read_mem(d->proc, a, buf + got, chunk, NULL) < 0)
			break;
		got += chunk;
	}
	return got;
}

int dbg_trace_build_image(struct dbg *d, struct trace_image *img, struct ptdb_err *err)
{
	if (trace_image_init(img, err) < 0)
		return -1;
	if (d->pm) {
		img->cpu.intel = !strcmp(d->pm->vendor, "GenuineIntel");
		img->cpu.family = (uint16_t)d->pm->family;
		img->cpu.model = (uint8_t)d->pm->model;
		img->cpu.stepping = (uint8_t)d->pm->stepping;
	} else if (dbg_alive(d)) {
		if (dbg_trace_ipt(d)) {
			/* the CPU that wrote the trace: libipt's errata */
			char v[32];
			int f, m, st;

			dbg_ipt_cpu_info(dbg_trace_ipt(d), v, sizeof(v), &f, &m, &st);
			img->cpu.intel = !strcmp(v, "GenuineIntel");
			img->cpu.family = (uint16_t)f;
			img->cpu.model = (uint8_t)m;
			img->cpu.stepping = (uint8_t)st;
		}
		trace_image_set_reader(img, live_code, d);
	}
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		char fdpath[64];
		struct img_ctx c = { img, m->path, err };

		if (!m->sym || !m->end)
			continue;
		if (m->path[0] != '/' || d->pm) {	/* the vDSO copy: unlinked, open;
							 * a bundle's copies */
			snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", sym_module_fd(m->sym));
			c.path = fdpath;
		}
		if (sym_module_segments(m->sym, add_segment, &c) < 0) {
			trace_image_release(img);
			return -1;
		}
	}
	return 0;
}

uint64_t dbg_trace_next_ip(void *ctx, uint64_t ip)
{
	return dbg_cursor_next_ip(ctx, ip);	/* through the instruction cache */
}

/* The one place a thread's decoded trace is dropped: its trace changed
 * (per-CPU split) or the process stopped again since it was decoded
 * (readers keyed by it notice through trace_decoded_serial). */
static void forget_decoded(struct trace_swc_thread *th)
{
	trace_decoded_free(th->dec);
	th->dec = NULL;
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
	static struct trace_swc_thread *ths[4096];
	struct trace_split_thread *parts = NULL;
	struct trace_piece *pieces = NULL;
	const uint8_t **bufs;
	size_t nparts = 0, np = 0;
	int n, ncpu = 0, stale = 0, r = 0;

	for (struct trace_swc_cpu *k = c; k; k = k->next, ncpu++)
		stale |= !k->split_valid || k->split_total != k->s.ring.total || k->split_sw != k->sw_len;
	if (!stale)
		return 0;
	bufs = xcalloc((size_t)ncpu, sizeof(*bufs));
	ncpu = 0;
	for (struct trace_swc_cpu *k = c; k && r == 0; k = k->next, ncpu++) {
		struct trace_switch *sw;
		size_t nsw, len;
		uint8_t *buf;

		if (trace_switch_parse(k->sw, k->sw_len, &sw, &nsw, err) < 0) {
			r = -1;
			break;
		}
		if (trace_ring_snapshot(&k->s.ring, &buf, &len, err) < 0) {
			free(sw);
			r = -1;
			break;
		}
		bufs[ncpu] = buf;
		r = trace_split_pieces(buf, len, sw, nsw, &k->conv, ncpu, &pieces, &np, err);
		free(sw);
	}
	if (r == 0)
		r = trace_split_merge(bufs, pieces, np, &parts, &nparts);
	for (int k = 0; k < ncpu; k++)
		free((void *)bufs[k]);
	free(bufs);
	free(pieces);
	if (r < 0)
		return -1;
	n = dbg_trace_all(d, ths, 4096);
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = ths[i];
		struct trace_split_thread *p = NULL;

		if (th->cpu != c)
			continue;
		for (size_t k = 0; k < nparts; k++)
			if (parts[k].tid == th->tid)
				p = &parts[k];
		trace_ring_release(&th->ring);
		if (p) {
			th->ring.buf = p->bytes;
			p->bytes = NULL;
			th->ring.size = th->ring.pos = th->ring.total = p->len;
			th->executions = p->executions;
			th->psbs = p->psbs;
			th->inexact = p->inexact;
			th->cpu_changes = p->cpu_changes;
			free(th->cpu_marks);
			free(th->cpu_ids);
			th->cpu_marks = p->cpu_marks;
			th->cpu_ids = p->cpu_ids;
			th->ncpu_marks = p->ncpu_marks;
			p->cpu_marks = NULL;
			p->cpu_ids = NULL;
			for (unsigned m = 0; m < th->ncpu_marks; m++)
				th->cpu_ids[m] = cpu_id(c, th->cpu_ids[m]);
		} else {
			th->ring.buf = xcalloc(1, TRACE_RING_SLACK);
			th->executions = th->psbs = th->inexact = th->cpu_changes = 0;
			free(th->cpu_marks);
			free(th->cpu_ids);
			th->cpu_marks = NULL;
			th->cpu_ids = NULL;
			th->ncpu_marks = 0;
		}
		forget_decoded(th);	/* its trace changed */
	}
	trace_split_free(parts, nparts);
	for (struct trace_swc_cpu *k = c; k; k = k->next) {
		k->split_valid = 1;
		k->split_total = k->s.ring.total;
		k->split_sw = k->sw_len;
	}
	return 0;
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
	uint64_t sid = dbg_trace_stop_id(d);
	struct trace_image img;
	struct timespec t0, t1;
	uint8_t *buf;
	size_t len;
	int r;

	if (th->cpu && split_cpu(d, th->cpu, err) < 0)
		return -1;
	if (th->dec && th->dec_stop_id == sid) {
		*out = th->dec;
		return 0;
	}
	forget_decoded(th);
	if (trace_ring_snapshot(&th->ring, &buf, &len, err) < 0)
		return -1;
	if (dbg_trace_build_image(d, &img, err) < 0) {
		free(buf);
		return -1;
	}
	if (th->cpu) {	/* (its ring is its split part, whole) */
		img.cpu_marks = th->cpu_marks;
		img.cpu_ids = th->cpu_ids;
		img.ncpu_marks = th->ncpu_marks;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = trace_decode_hooked(buf, len, &img, hook, &th->dec, err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	trace_image_release(&img);
	free(buf);
	if (r < 0) {
		th->dec = NULL;
		return r;
	}
	th->dec_seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	th->dec_stop_id = sid;
	*out = th->dec;
	return 0;
}
