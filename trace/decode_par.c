/* trace/decode_par.c: the indexing pass on all cores (issue 33).  The
 * trace is cut at K-1 PSBs where tracing is on (their PSB+ has a FUP: a
 * decoder synchronized there knows its IP, so it decodes on as one that
 * came through it), each segment is indexed by its own thread with its own
 * block decoder and its own copy of the image (the section cache is
 * libipt's, shared and locked; the reader of code outside the files, a
 * live process's memory through /proc/PID/mem, is called under a lock),
 * starting from a guessed state: no time in
 * force, no hardware disable, the CPU marks before it.  The segments are
 * then checked in order against the state the one before really ended in
 * (it stopped at this PSB; the first time seen is not the time already in
 * force; the first enable was not after a hardware disable; the same CPU
 * marks); any doubt and the pass runs serially instead.  Merged, the index
 * and totals are the serial pass's (its chunks may fall elsewhere). */
#include "trace/decode.h"
#include "trace/decode_int.h"

#include <intel-pt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEG_MIN_BYTES ((size_t)1 << 20)	/* less is not worth a thread */
#define SEG_MAX 64

/* The image's reader (code outside the files: a live process's memory,
 * read through /proc/PID/mem) called by one segment at a time. */
struct locked_reader {
	const struct image_reader *r;
	pthread_mutex_t mu;
};

static int locked_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		       void *context)
{
	struct locked_reader *l = context;
	size_t got;

	pthread_mutex_lock(&l->mu);
	got = trace_image_read(l->r, asid ? asid->cr3 : pt_asid_no_cr3, ip, buf, size);
	pthread_mutex_unlock(&l->mu);
	return got ? (int)got : -pte_nomap;
}

struct seg {
	struct trace_decoded *d;
	uint64_t start;			/* its PSB (segment 0: 0) */
	struct trace_image img;		/* the image with its own pt_image */
	int timing, r;
	struct ptdb_err err;
	pthread_t th;
	volatile uint64_t done;		/* trace bytes decoded (progress) */
	volatile int *cancel;
	int *finished;			/* threads done, all segments */
	int guess_tsc;			/* started with the time d->last_tsc had
					 * before any of its own (else none) */
	uint64_t guess;
};

static int seg_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct seg *s = ctx;

	(void)total;
	__atomic_store_n(&s->done, done > s->start ? done - s->start : 0, __ATOMIC_RELAXED);
	return __atomic_load_n(s->cancel, __ATOMIC_RELAXED);
}

static void *seg_run(void *arg)
{
	struct seg *s = arg;
	struct trace_decode_hook h = { seg_progress, s };

	s->r = trace_decode_span(s->d, &s->img, s->timing, &h, s->start > 0, s->start, &s->err);
	__atomic_add_fetch(s->finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Whether the PSB+ at off binds an IP (tracing is on there). */
static int psb_enabled(const uint8_t *buf, size_t len, uint64_t off)
{
	struct pt_packet_decoder *pd;
	struct pt_packet pk;
	int on = 0;

	pd = trace_pkt_decoder(buf, len);
	if (!pd)
		return 0;
	if (pt_pkt_sync_set(pd, off) >= 0)
		for (int n = 0; n < 64 && pt_pkt_next(pd, &pk, sizeof(pk)) >= 0; n++) {
			if (pk.type == ppt_fup) {
				on = 1;
				break;
			}
			if (pk.type == ppt_psbend || (n && pk.type == ppt_psb))
				break;
		}
	pt_pkt_free_decoder(pd);
	return on;
}

/* The time in force at the sync point of the PSB at off, as libipt keeps
 * it when the trace's time comes in TSC packets alone (the software
 * backend's): the last TSC packet since the PSB before it, up to the end
 * of its own PSB+ (the serial pass ticks at a PSB+'s time before its sync
 * point: the segment before this one has that tick, and this one starts
 * with its time in force).  0 if none (or MTC/CYC refine it: the
 * segment's check then sends the pass back to serial). */
static int time_at(const uint8_t *buf, size_t len, uint64_t off, uint64_t *tsc)
{
	uint64_t from = off > ((uint64_t)1 << 16) ? off - ((uint64_t)1 << 16) : 0, prev = off;
	struct pt_packet_decoder *pd;
	struct pt_packet pk;
	int found = 0;

	for (uint64_t p = trace_next_psb(buf, len, from); p < off; p = trace_next_psb(buf, len, p + 1))
		prev = p;
	pd = trace_pkt_decoder(buf, len);
	if (!pd)
		return 0;
	if (pt_pkt_sync_set(pd, prev) >= 0)
		for (;;) {
			uint64_t at = 0;

			if (pt_pkt_get_offset(pd, &at) < 0 || pt_pkt_next(pd, &pk, sizeof(pk)) < 0)
				break;
			if (pk.type == ppt_tsc) {
				*tsc = pk.payload.tsc.tsc;
				found = 1;
			} else if (pk.type == ppt_mtc || pk.type == ppt_cyc) {
				found = 0;
				break;
			} else if (at > off && (pk.type == ppt_psbend || pk.type == ppt_psb)) {
				break;	/* its PSB+ read */
			}
		}
	pt_pkt_free_decoder(pd);
	return found;
}

/* How many threads: the cores online (PTDB_DECODE_THREADS for tests,
 * which also lifts the minimum segment size). */
static int threads_for(size_t len, size_t *min_bytes)
{
	const char *v = getenv("PTDB_DECODE_THREADS");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	*min_bytes = SEG_MIN_BYTES;
	if (v && *v) {
		n = atol(v);
		*min_bytes = 256;
	}
	if (n > (long)(len / *min_bytes))
		n = (long)(len / *min_bytes);
	return n < 1 ? 1 : n > SEG_MAX ? SEG_MAX : (int)n;
}

/* Cuts buf at up to k-1 PSBs where tracing is on: starts[0] = 0. */
static int cut(const uint8_t *buf, size_t len, int k, uint64_t *starts)
{
	int n = 1;

	starts[0] = 0;
	for (int i = 1; i < k; i++) {
		uint64_t want = (uint64_t)len / (uint64_t)k * (uint64_t)i, p;
		uint64_t limit = want + len / (uint64_t)k / 2;

		if (want <= starts[n - 1])
			want = starts[n - 1] + 1;
		p = trace_next_psb(buf, len, want);
		while (p < limit && !psb_enabled(buf, len, p))
			p = trace_next_psb(buf, len, p + 1);
		if (p < limit && p > starts[n - 1] && trace_next_psb(buf, len, 0) < p)
			starts[n++] = p;
	}
	return n;
}

static void merge_seg(struct trace_decoded *top, const struct seg *s)
{
	struct trace_index *ix = top->ix, *sx = s->d->ix;
	const struct trace_decoded *d = s->d;
	uint64_t bi = top->items, bn = top->insns, bs = ix->nside;

	if (ix->n + sx->n > ix->cap) {
		ix->cap = ix->n + sx->n;
		ix->ent = xrealloc(ix->ent, ix->cap * sizeof(*ix->ent));
	}
	for (size_t j = 0; j < sx->n; j++) {
		struct trace_ixent *e = &ix->ent[ix->n++];

		*e = sx->ent[j];
		if (!e->have_tsc) {	/* no time seen in the segment yet */
			e->have_tsc = (uint8_t)top->have_tsc;
			e->last_tsc = top->last_tsc;
		}
		if (!d->seen_hw || e->item <= d->first_hw_item)
			e->hw_disabled = (uint8_t)top->hw_disabled;
		if (e->has_prev) {
			e->prev_item += bi;
		} else if (ix->have_last) {
			e->has_prev = 1;
			e->prev_item = ix->last_item;
			e->prev_tsc = ix->last_tsc;
		}
		if (e->has_next)
			e->next_item += bi;
		e->item += bi;
		e->insn += bn;
		e->side += bs;
	}
	for (int k = 0; k < TRACE_EV_NKINDS; k++)
		ix->events[k] += sx->events[k];
	if (sx->have_tsc_range) {
		if (!ix->have_tsc_range || sx->tsc_lo < ix->tsc_lo)
			ix->tsc_lo = sx->tsc_lo;
		if (!ix->have_tsc_range || sx->tsc_hi > ix->tsc_hi)
			ix->tsc_hi = sx->tsc_hi;
		ix->have_tsc_range = 1;
	}
	if (sx->have_last) {
		ix->have_last = 1;
		ix->last_item = sx->last_item + bi;
		ix->last_tsc = sx->last_tsc;
	}
	for (int k = 0; k < sx->nerr; k++) {
		int e;

		for (e = 0; e < ix->nerr && strcmp(ix->err_text[e], sx->err_text[k]); e++)
			;
		if (e == ix->nerr) {
			if (e == TRACE_INDEX_ERRS)
				continue;
			ix->err_text[ix->nerr++] = sx->err_text[k];
		}
		ix->err_count[e] += sx->err_count[k];
	}
	for (size_t k = 0; k < d->ndict; k++)
		trace_dict_add(top, &d->dict[k]);
	ix->nside += sx->nside;
	top->items += d->items;
	top->insns += d->insns;
	top->blocks += d->blocks;
	top->gaps += d->gaps;
	if (d->have_tsc) {
		top->have_tsc = 1;
		top->last_tsc = d->last_tsc;
	}
	if (d->seen_hw)
		top->hw_disabled = d->hw_disabled;
	top->next_mark = d->next_mark;
}

/* Whether segment s (after the merged ones) started from the state the
 * one before ended in, as far as it matters. */
static int seg_holds(const struct trace_decoded *top, const struct seg *prev, const struct seg *s)
{
	const struct trace_decoded *d = s->d;

	if (!prev->d->stop_exact || s->d->ix->ent[0].next_mark != top->next_mark)
		return 0;
	if (s->guess_tsc ? !top->have_tsc || top->last_tsc != s->guess
			 : d->seen_tsc && top->have_tsc && d->first_tsc == top->last_tsc)
		return 0;	/* the time in force was not the one guessed */
	if (d->seen_hw && d->first_hw_enabled && top->hw_disabled)
		return 0;	/* its first enable returned from a hardware disable */
	return 1;
}

/* Waits for the threads, passing their progress to hook. */
static int wait_all(struct seg *sg, int n, int started, const struct trace_decode_hook *hook,
		    volatile int *cancel, int *finished, size_t len)
{
	int r = 0;

	while (hook && __atomic_load_n(finished, __ATOMIC_ACQUIRE) < started) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		uint64_t done = 0;

		for (int i = 0; i < n; i++)
			done += __atomic_load_n(&sg[i].done, __ATOMIC_RELAXED);
		if (!__atomic_load_n(cancel, __ATOMIC_RELAXED) && hook->progress(hook->ctx, done, len))
			__atomic_store_n(cancel, 1, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
	for (int i = 0; i < n; i++) {
		if (sg[i].th)
			pthread_join(sg[i].th, NULL);
		if (sg[i].r < 0 && !r)
			r = sg[i].r;
	}
	return r;
}

int trace_index_parallel(struct trace_decoded *d, struct trace_image *img,
			 const struct trace_decode_hook *hook, struct ptdb_err *err)
{
	struct trace_index *ix = d->ix;
	struct seg sg[SEG_MAX];
	struct locked_reader lr = { img ? img->reader : NULL, PTHREAD_MUTEX_INITIALIZER };
	uint64_t starts[SEG_MAX];
	volatile int cancel = 0;
	size_t min_bytes;
	int k = threads_for(d->len, &min_bytes), n, r, ok = 1, started = 0, finished = 0;

	if (k < 2 || !img || !img->image)
		return 0;
	n = cut(d->buf, d->len, k, starts);
	if (n < 2)
		return 0;
	memset(sg, 0, sizeof(sg));
	for (int i = 0; i < n; i++) {
		struct seg *s = &sg[i];

		s->start = starts[i];
		s->cancel = &cancel;
		s->finished = &finished;
		s->timing = ix->timing;
		s->img = *img;
		s->img.image = pt_image_alloc("ptdb-segment");
		if (!s->img.image || pt_image_copy(s->img.image, img->image) < 0) {
			ok = 0;
			break;
		}
		s->img.reader = NULL;	/* (the original's, not owned) */
		s->img.read_cb = lr.r ? locked_read : NULL;
		s->img.read_ctx = &lr;
		if (lr.r)
			pt_image_set_callback(s->img.image, locked_read, &lr);
		s->d = trace_decoded_new(d->buf, d->len, TRACE_MODE_INDEX);
		trace_index_new(s->d, img, ix->chunk_bytes);
		s->d->ix->ent[0].off = s->start;
		s->d->stop_off = i + 1 < n ? starts[i + 1] : UINT64_MAX;
		s->d->marks = img->cpu_marks;
		s->d->mark_cpus = img->cpu_ids;
		s->d->nmarks = img->ncpu_marks;
		while (s->d->next_mark < s->d->nmarks && s->d->marks[s->d->next_mark] < s->start)
			s->d->next_mark++;
		if (i && ix->timing && time_at(d->buf, d->len, s->start, &s->guess)) {
			s->d->last_tsc = s->guess;
			s->d->have_tsc = 1;	/* (ent[0]'s is set when merged) */
			s->guess_tsc = 1;
		}
		s->d->ix->ent[0].next_mark = (uint32_t)s->d->next_mark;
	}
	for (int i = 0; ok && i < n; i++) {
		if (pthread_create(&sg[i].th, NULL, seg_run, &sg[i]) != 0) {
			sg[i].th = 0;
			ok = 0;
		} else {
			started++;
		}
	}
	r = wait_all(sg, n, started, hook, &cancel, &finished, d->len);
	if (cancel) {
		ptdb_err_code(err, PTDB_E_CANCELLED, "interrupted");
		r = TRACE_DECODE_CANCELLED;
	} else if (r < 0 || !ok) {
		r = 0;		/* the serial pass says what went wrong */
	} else {
		for (int i = 0; i < n; i++)
			trace_index_flush(sg[i].d);
		ix->n = 0;
		for (int i = 0; i < n && r == 0; i++) {
			if (i && !seg_holds(d, &sg[i - 1], &sg[i]))
				r = -3;
			else
				merge_seg(d, &sg[i]);
		}
		r = r == 0 ? 1 : 0;
		ix->segments = n;
		if (!r) {	/* back to a fresh pass */
			struct trace_index *fresh;

			free(d->dict);
			free(d->htab);
			d->dict = NULL;
			d->htab = NULL;
			d->ndict = d->cdict = d->hcap = 0;
			d->items = d->insns = d->blocks = d->gaps = 0;
			d->have_tsc = d->hw_disabled = 0;
			d->last_tsc = 0;
			d->next_mark = 0;
			trace_cursor_release(&d->cur);
			d->ix = NULL;
			fresh = trace_index_new(d, img, ix->chunk_bytes);
			fresh->timing = ix->timing;
			fresh->fell_back = 1;
			trace_index_free(ix);
		}
	}
	for (int i = 0; i < n; i++) {
		if (sg[i].img.image)
			pt_image_free(sg[i].img.image);
		if (sg[i].d) {
			sg[i].d->marks = NULL;
			trace_decoded_free(sg[i].d);
		}
	}
	return r;
}
