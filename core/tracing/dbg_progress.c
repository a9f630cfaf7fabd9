/* core/tracing/dbg_progress.c: a traced run's progress (instructions so far, rate,
 * buffer fill) handed to the caller's function every DBG_PROGRESS_EVERY
 * seconds, so a long traced 'continue' is not a blank screen.  Core only
 * counts; cmd/ decides whether and how to show it. */
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/trace_info.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Recorded instructions of every traced thread, and the fullest ring. */
static uint64_t figures(struct dbg *d, unsigned *fill, int *wrapped)
{
	uint64_t insns = 0;
	int n;
	struct trace_swc_thread **th = dbg_trace_list(d, &n);

	*fill = 0;
	*wrapped = 0;
	for (int i = 0; i < n; i++) {
		const struct trace_ring *r = &th[i]->ring;
		unsigned f = r->wrapped ? 100 : r->size ? (unsigned)(r->pos * 100 / r->size) : 0;

		insns += th[i]->insns;
		*wrapped |= r->wrapped;
		if (f > *fill)
			*fill = f;
	}
	free(th);
	return insns;
}

void dbg_progress_begin(struct dbg *d)
{
	unsigned fill;
	int wrapped;

	dbg_tr(d)->progress.t0 = dbg_tr(d)->progress.last = now_s();
	dbg_tr(d)->progress.n = 0;
	dbg_tr(d)->progress.insns0 = dbg_tr(d)->progress.fn ? figures(d, &fill, &wrapped) : 0;
}

void dbg_progress_tick(struct dbg *d)
{
	if (!dbg_tr(d)->progress.fn || (++dbg_tr(d)->progress.n & 255))
		return;
	dbg_progress_poll(d);
}

/* Reads the clock at every call: for a caller between whose calls much
 * runs (the cache engine, at each of its traps: at least every full
 * record buffer while the thread runs). */
void dbg_progress_poll(struct dbg *d)
{
	struct dbg_progress_info in;
	double t;

	if (!dbg_tr(d)->progress.fn)
		return;
	t = now_s();
	if (t - dbg_tr(d)->progress.last < DBG_PROGRESS_EVERY)
		return;
	dbg_tr(d)->progress.last = t;
	memset(&in, 0, sizeof(in));
	in.seconds = t - dbg_tr(d)->progress.t0;
	in.insns = figures(d, &in.fill_pct, &in.wrapped) - dbg_tr(d)->progress.insns0;
	in.rate = in.seconds > 0 ? (double)in.insns / in.seconds : 0;
	dbg_tr(d)->progress.fn(dbg_tr(d)->progress.ctx, &in);
}
