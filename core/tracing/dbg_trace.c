/* core/tracing/dbg_trace.c: the trace session of a live process — which threads
 * (and CPUs) are traced, start and stop, the threads the user excluded,
 * the traces kept until the next resume.  What fills their buffers is the
 * collector's (struct dbg_collector, core/collectors/collector.h): the software
 * one (core/collectors/dbg_swc.c) or the intel-pt one (core/collectors/dbg_ipt.c). */
#include "core/tracing/dbg_trace_int.h"
#include "core/tracing/items_int.h"
#include "trace/pages.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>

const struct dbg_collector *dbg_trace_collector(const struct dbg_trace *t)
{
	return t->hw ? &dbg_ipt_collector : &dbg_swc_collector;
}

struct dbg_tracee *dbg_tee(struct dbg *d)
{
	struct dbg_tracee *t = &dbg_tr(d)->trace->tee;

	t->trace = dbg_tr(d)->trace;
	dbg_tr(d)->host->tee(d, t);
	t->tsc_conv = dbg_tsc_conv_rw(d);
	t->s = d;
	return t;
}

void dbg_trace_cache_stats(const struct dbg *d, struct dbg_cache_stats *out)
{
	*out = dbg_swc_cache_stats(dbg_tr(d)->trace);
}

static void drop_cpu(struct dbg *d)
{
	if (!dbg_tr(d)->trace->cpu)
		return;
	dbg_trace_collector(dbg_tr(d)->trace)->cpus_stop(dbg_tee(d));
	dbg_tr(d)->trace->cpu = NULL;
	dbg_tr(d)->trace->cpu_stopped = 0;
}

int dbg_tracing(const struct dbg *d)
{
	return dbg_tr(d)->trace != NULL;
}

int dbg_trace_kept(const struct dbg *d)
{
	return dbg_tr(d)->trace && !dbg_tr(d)->pm && !dbg_tr(d)->host->alive(d);
}

void dbg_trace_exited(struct dbg *d)
{
	if (!dbg_tr(d)->trace)
		return;
	if (!dbg_trace_collector(dbg_tr(d)->trace)->exited(dbg_tee(d))) {
		dbg_trace_end(d);
		return;
	}
	/* the rings hold the whole story: keep them */
	dbg_tr(d)->trace->all = 0;
	for (int i = 0; i < dbg_tr(d)->trace->nth; i++) {
		dbg_tr(d)->trace->th[i]->tracing = 0;
		dbg_traced(dbg_tr(d)->trace->th[i])->sw.parked_at = 0;
	}
}

struct target_thread_info *dbg_proc_threads(struct dbg *d, int *n)
{
	int cap = 64;
	struct target_thread_info *ti = NULL;

	for (;;) {
		ti = xrealloc(ti, (size_t)cap * sizeof(*ti));
		*n = target_threads(dbg_tr_proc(d), ti, cap);
		if (*n <= cap)
			return ti;
		cap = *n;
	}
}

struct trace_swc_thread *dbg_traced_new(void)
{
	struct dbg_traced *n = xcalloc(1, sizeof(*n));

	return &n->s;
}

void dbg_trace_thread_release(struct dbg *d, struct trace_swc_thread *th)
{
	struct dbg_traced *t = dbg_traced(th);

	dbg_decoded_forget(d, th);
	trace_swc_release(th);
	memset(&t->sw, 0, sizeof(t->sw));
	t->loss_notice = 0;
}

struct dbg_ipt *dbg_trace_ipt(const struct dbg *d)
{
	return dbg_tr(d)->trace ? dbg_tr(d)->trace->hw : NULL;
}

static struct trace_swc_thread *add(struct dbg_trace *t)
{
	t->th = xrealloc(t->th, (size_t)(t->nth + 1) * sizeof(*t->th));
	return t->th[t->nth++] = dbg_traced_new();
}

static void forget(struct dbg_trace *t, struct trace_swc_thread *th)
{
	for (int i = 0; i < t->nth; i++)
		if (t->th[i] == th) {
			memmove(&t->th[i], &t->th[i + 1], (size_t)(t->nth - i - 1) * sizeof(*t->th));
			break;
		}
	t->nth--;
	free(th);
}

struct trace_swc_thread *dbg_trace_find(struct dbg *d, pid_t tid)
{
	if (!dbg_tr(d)->trace)
		return NULL;
	for (int i = 0; i < dbg_tr(d)->trace->nth; i++)
		if (dbg_tr(d)->trace->th[i]->tid == tid)
			return dbg_tr(d)->trace->th[i];
	return NULL;
}

static void exclude(struct dbg_trace *t, pid_t tid)
{
	t->excluded = xrealloc(t->excluded, (size_t)(t->nexcl + 1) * sizeof(pid_t));
	t->excluded[t->nexcl++] = tid;
}

static int start_one(struct dbg *d, pid_t tid, struct ptdb_err *err)
{
	struct dbg_trace *t = dbg_tr(d)->trace;
	const struct dbg_collector *col = dbg_trace_collector(t);
	struct trace_swc_thread *th;
	int fresh = 0;

	for (int i = 0; i < t->nexcl; i++)
		if (t->excluded[i] == tid)
			t->excluded[i--] = t->excluded[--t->nexcl];
	th = dbg_trace_find(d, tid);
	if (t->cpu) {
		/* per CPU: it writes into its CPU's stream */
		uint64_t parked = dbg_swc_parked_at(dbg_tee(d), th, tid);

		if (th)
			dbg_trace_thread_release(d, th);
		else
			th = add(t);
		trace_swc_init_on_cpu(th, tid, target_thread_index(dbg_tr_proc(d), tid), t->cpu);
		dbg_traced(th)->sw.parked_at = parked;
		return 0;
	}
	if (!th) {
		if (col->thread_admit && col->thread_admit(dbg_tee(d), tid, err) < 0)
			return -1;
		th = add(t);
		fresh = 1;
	}
	if (col->thread_start(dbg_tee(d), th, fresh, tid, err) < 0) {
		forget(t, th);
		return -1;
	}
	return 0;
}

int dbg_trace_adopt(struct dbg *d, pid_t tid, struct ptdb_err *err)
{
	return start_one(d, tid, err);
}

/* The checks before anything starts: LLDB's words. */
static int start_allowed(struct dbg *d, const pid_t *tids, int n, int all, int process,
			 const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct dbg_trace *t = dbg_tr(d)->trace;

	if (!dbg_tr(d)->host->alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
	if (!t)
		return 0;
	if (t->cpu && !t->cpu_stopped)
		return ptdb_err_set(err, process ? "Process currently traced. Stop process tracing first"
					 : "Can't start tracing an individual thread when per-cpu "
					   "process tracing is enabled.");
	/* stop a traced thread first to trace it with other options (a
	 * stopped thread's trace is kept until then, and goes) */
	for (int i = 0; !process && !all && i < n; i++) {
		const struct trace_swc_thread *th = dbg_trace_thread(d, tids[i]);

		if (th && th->tracing)
			return ptdb_err_set(err, "Thread %d already traced", (int)tids[i]);
	}
	if (o->per_cpu)
		for (int i = 0; i < t->nth; i++)
			if (t->th[i]->tracing)
				return ptdb_err_set(err, "Threads currently traced. Stop tracing them first");
	if ((t->hw != NULL) != (o->backend == DBG_BACKEND_INTEL_PT) && (t->nth || t->cpu))
		return ptdb_err_set(err, "The process is traced with the %s backend. Stop tracing "
				    "it first", t->hw ? "intel-pt" : "software");
	return 0;
}

int dbg_trace_start(struct dbg *d, const pid_t *tids, int n, int all, int process,
		    const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct target_thread_info *ti;
	int nt;

	if (start_allowed(d, tids, n, all, process, o, err) < 0)
		return -1;
	if (o->backend == DBG_BACKEND_INTEL_PT && !(dbg_tr(d)->trace && dbg_tr(d)->trace->hw)) {
		int fresh = !dbg_tr(d)->trace;

		if (fresh)
			dbg_tr(d)->trace = xcalloc(1, sizeof(*dbg_tr(d)->trace));
		if (dbg_ipt_collector_new(dbg_tee(d), o, err) < 0) {
			if (fresh) {
				free(dbg_tr(d)->trace);
				dbg_tr(d)->trace = NULL;
			}
			return -1;
		}
	}
	/* TSC packets come from rdtsc in this process: their conversion to
	 * nanoseconds is this machine's, measured once per session (a
	 * failure leaves raw TSC values, which dumps still show) */
	if ((o->tsc || (o->per_cpu && o->backend == DBG_BACKEND_INTEL_PT)) &&
	    (!dbg_tsc_conv_rw(d)->valid || dbg_tr(d)->tsc_conv->source == TRACE_TSC_GIVEN))
		trace_tsc_measure(dbg_tr(d)->tsc_conv);
	if (!dbg_tr(d)->trace)
		dbg_tr(d)->trace = xcalloc(1, sizeof(*dbg_tr(d)->trace));
	dbg_tr(d)->trace->opts = *o;
	if (o->per_cpu) {
		if (dbg_trace_collector(dbg_tr(d)->trace)->cpus_start(dbg_tee(d), o, err) < 0)
			return -1;
		dbg_tr(d)->trace->opts.tsc = 1;
	}
	if (process) {
		dbg_tr(d)->trace->process = 1;
		all = 1;
	}
	if (!all) {
		for (int i = 0; i < n; i++)
			if (start_one(d, tids[i], err) < 0)
				return -1;
		return 0;
	}
	dbg_tr(d)->trace->all = 1;
	ti = dbg_proc_threads(d, &nt);
	for (int i = 0; i < nt; i++)
		if (start_one(d, ti[i].tid, err) < 0) {
			free(ti);
			return -1;
		}
	free(ti);
	return 0;
}

/* Stopped threads stay dumpable until the process runs again. */
static void stop_one(struct dbg *d, struct trace_swc_thread *th)
{
	dbg_trace_collector(dbg_tr(d)->trace)->thread_stop(dbg_tee(d), th);
	th->tracing = 0;
}

int dbg_trace_stop(struct dbg *d, const pid_t *tids, int n, int all,
		   struct ptdb_err *err)
{
	if (!dbg_tr(d)->trace)
		return ptdb_err_set(err, "Process is not being traced");
	if (dbg_tr(d)->trace->cpu && !dbg_tr(d)->trace->cpu_stopped && !all)
		return ptdb_err_set(err, "Can't stop tracing an individual thread when per-cpu process "
				    "tracing is enabled.");
	if (all) {
		int any = dbg_tr(d)->trace->all;

		for (int i = 0; i < dbg_tr(d)->trace->nth; i++)
			any |= dbg_tr(d)->trace->th[i]->tracing;
		if (!any)
			return ptdb_err_set(err, "Process is not being traced");
		for (int i = 0; i < dbg_tr(d)->trace->nth; i++)
			stop_one(d, dbg_tr(d)->trace->th[i]);
		if (dbg_tr(d)->trace->cpu)
			dbg_tr(d)->trace->cpu_stopped = 1;
		dbg_tr(d)->trace->nexcl = 0;
		dbg_tr(d)->trace->all = 0;
		dbg_tr(d)->trace->process = 0;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = dbg_trace_find(d, tids[i]);

		if (!th || !th->tracing)
			return ptdb_err_set(err, "thread not traced");
	}
	for (int i = 0; i < n; i++) {
		stop_one(d, dbg_trace_find(d, tids[i]));
		exclude(dbg_tr(d)->trace, tids[i]);
	}
	return 0;
}

int dbg_trace_single_step(const struct dbg *d)
{
	return dbg_tr(d)->trace && dbg_tr(d)->trace->opts.single_step;
}

const char *dbg_trace_engine(const struct dbg *d)
{
	return dbg_tr(d)->trace && dbg_tr(d)->trace->opts.engine == DBG_ENGINE_CACHE ? "cache" : "ptrace";
}

int dbg_trace_is_process(const struct dbg *d)
{
	return dbg_tr(d)->trace && dbg_tr(d)->trace->process;
}

void dbg_trace_end(struct dbg *d)
{
	if (!dbg_tr(d)->trace)
		return;
	dbg_trace_collector(dbg_tr(d)->trace)->end(dbg_tee(d));
	for (int i = 0; i < dbg_tr(d)->trace->nth; i++) {
		dbg_trace_thread_release(d, dbg_tr(d)->trace->th[i]);
		free(dbg_traced(dbg_tr(d)->trace->th[i]));
	}
	free(dbg_tr(d)->trace->th);
	free(dbg_tr(d)->trace->excluded);
	drop_cpu(d);
	trace_pages_free(dbg_tr(d)->trace->pages);
	free(dbg_tr(d)->trace);
	dbg_tr(d)->trace = NULL;
}

/* Before the process runs: forget threads whose trace the user stopped
 * (and a per-CPU stream whose tracing stopped). */
void dbg_trace_drop_kept(struct dbg *d)
{
	struct dbg_trace *t = dbg_tr(d)->trace;
	int k = 0;

	if (t->cpu && t->cpu_stopped)
		for (int i = 0; i < t->nth; i++)
			t->th[i]->tracing = 0;

	for (int i = 0; i < t->nth; i++) {
		if (t->th[i]->tracing) {
			t->th[k++] = t->th[i];
			continue;
		}
		dbg_trace_thread_release(d, t->th[i]);
		free(dbg_traced(t->th[i]));
	}
	t->nth = k;
	if (t->cpu && t->cpu_stopped)
		drop_cpu(d);
}

/* A stop the user sees: every traced thread's trace pauses where it is. */
void dbg_trace_did_stop(struct dbg *d)
{
	if (!dbg_tr(d)->trace || !dbg_tr(d)->host->alive(d))
		return;
	dbg_trace_collector(dbg_tr(d)->trace)->did_stop(dbg_tee(d));
}

void dbg_trace_over_limit(struct dbg *d, pid_t tid, struct dbg_stop *stop)
{
	/* reported once, then it runs on untraced (not excluded, every
	 * 'continue' stopped on it again and the process never got on) */
	exclude(dbg_tr(d)->trace, tid);
	memset(stop, 0, sizeof(*stop));
	stop->reason = DBG_R_TRACE_LIMIT;
	stop->tid = tid;
}

int dbg_trace_run(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		  struct ptdb_err *err)
{
	dbg_replay_leave(d);	/* any resume leaves replay mode */
	memset(stop, 0, sizeof(*stop));
	dbg_trace_drop_kept(d);
	return dbg_trace_collector(dbg_tr(d)->trace)->run(dbg_tee(d), rq, stop, err);
}
