/* core/dbg_trace.c: live tracing — which threads are traced; with the
 * software backend running them block by block while recording their
 * Intel PT stream (trace/swc), with the intel-pt backend running them
 * natively under perf events (core/dbg_ipt.c); and decoding the trace
 * (trace/decode) against the process's modules, cached per stop id. */
#include "core/dbg.h"
#include "core/dbg_int.h"
#include "core/dbg_cache.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"
#include "trace/swc.h"
#include "trace/syscalls.h"
#include "trace/xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct dbg_trace {
	struct trace_swc_thread **th;	/* traced threads, and stopped ones
					 * kept dumpable until the next resume
					 * (each its own allocation: the packet
					 * writer points at its ring) */
	int nth;
	int all;			/* trace threads created later */
	int process;			/* "process trace start" */
	struct dbg_trace_opts opts;
	pid_t *excluded;		/* threads the user stopped tracing: not
					 * adopted again by 'all' */
	int nexcl;
	unsigned rr;			/* round-robin position */
	/* block stepping (one run of dbg_trace_run) */
	struct blk **bcache;		/* open hash by start address */
	size_t bcap, bn;
	struct trace_swc_thread *blk_th;	/* running a block now */
	struct blk *blk_cur;
	uint64_t *sticky;		/* planted sticky breakpoints */
	size_t nsticky, csticky;
	unsigned quantum;		/* instructions left for the current thread */
	struct trace_swc_cpu *cpu;	/* per-CPU tracing: the one CPU */
	int cpu_stopped;		/* its tracing stopped: freed on resume */
	struct dbg_ipt *hw;		/* intel-pt backend, NULL: software */
	pid_t hw_limit_tid;		/* a new thread over the total limit */
	struct dbg_cache *cc;		/* the cache engine (core/dbg_cache.c) */
};

#define DBG_TRACE_QUANTUM 256

static void bcache_clear(struct dbg_trace *t);
static void will_resume(struct dbg *d);

static void drop_cpu(struct dbg_trace *t)
{
	if (!t->cpu)
		return;
	if (t->hw) {
		dbg_ipt_cpus_stop(t->hw);	/* owns the chain */
	} else {
		trace_swc_cpu_release(t->cpu);
		free(t->cpu);
	}
	t->cpu = NULL;
	t->cpu_stopped = 0;
}

struct trace_swc_cpu *dbg_trace_cpu(struct dbg *d)
{
	if (d->pm)
		return d->pm->cpu;
	return d->trace ? d->trace->cpu : NULL;
}
static void unplant_sticky(struct dbg *d);
#define BLK_MAX 512

/* A block: straight-line code and direct jumps/calls from start up to
 * (not including) stop, the next state-dependent control transfer, an
 * instruction the collector does not run natively in a block, or a forced
 * stop (a loop closed by direct jumps, the length cap). */
struct blk_insn {
	uint64_t addr, next, target;
	uint8_t len, kind, has_target;
};

struct blk {
	uint64_t start, stop;
	int n;
	struct blk_insn *ins;
	struct disasm_insn stop_in;	/* the instruction at stop */
	int stop_have;
	int sticky;			/* stop is a transfer the collector
					 * computes: its breakpoint stays for the
					 * run (forced stops are removed) */
};

int dbg_tracing(const struct dbg *d)
{
	return d->trace != NULL;
}

int dbg_trace_kept(const struct dbg *d)
{
	return d->trace && !d->pm && !dbg_alive(d);
}

void dbg_trace_exited(struct dbg *d)
{
	if (!d->trace)
		return;
	if (d->trace->hw) {
		dbg_trace_end(d);	/* the perf events went with the process */
		return;
	}
	/* the rings hold the whole story: keep them, the process's state
	 * (breakpoints of the collector, system calls under way) is gone */
	d->trace->nsticky = 0;
	bcache_clear(d->trace);
	d->trace->all = 0;
	for (int i = 0; i < d->trace->nth; i++) {
		d->trace->th[i]->tracing = 0;
		d->trace->th[i]->parked_at = 0;
	}
}

struct dbg_ipt *dbg_trace_ipt(const struct dbg *d)
{
	return d->trace ? d->trace->hw : NULL;
}

const char *dbg_trace_technology(const struct dbg *d)
{
	return d->pm || (d->trace && d->trace->hw) ? "intel-pt" : "software";
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

/* intel-pt, per thread: its own perf event. */
static int start_one_hw(struct dbg *d, struct trace_swc_thread *th, pid_t tid,
			struct ptdb_err *err)
{
	struct dbg_trace *t = d->trace;

	if (th) {
		/* tracing it again restarts its trace with the new parameters */
		if (th->tracing)
			dbg_ipt_thread_stop(t->hw, th, NULL);
		trace_swc_release(th);
	} else {
		t->th = xrealloc(t->th, (size_t)(t->nth + 1) * sizeof(*t->th));
		th = t->th[t->nth++] = xcalloc(1, sizeof(*th));
	}
	if (dbg_ipt_thread_start(t->hw, th, tid, target_thread_index(d->proc, tid), t->opts.size,
				 t->opts.total_limit, &d->tsc_conv, err) < 0) {
		forget(t, th);
		return -1;
	}
	return 0;
}

static struct trace_swc_thread *find(struct dbg *d, pid_t tid)
{
	if (!d->trace)
		return NULL;
	for (int i = 0; i < d->trace->nth; i++)
		if (d->trace->th[i]->tid == tid)
			return d->trace->th[i];
	return NULL;
}

struct trace_swc_thread *dbg_trace_thread(struct dbg *d, pid_t tid)
{
	if (d->pm) {
		for (int i = 0; i < d->pm->nth; i++)
			if (d->pm->th[i].tid == tid)
				return d->pm->th[i].th;
		return NULL;
	}
	return find(d, tid);
}

int dbg_trace_all(struct dbg *d, struct trace_swc_thread **out, int max)
{
	int n = 0;

	if (d->pm) {
		for (int i = 0; i < d->pm->nth && n < max; i++)
			if (d->pm->th[i].th)
				out[n++] = d->pm->th[i].th;
		return n;
	}
	for (int i = 0; d->trace && i < d->trace->nth && n < max; i++)
		out[n++] = d->trace->th[i];
	/* in thread order */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && out[k - 1]->index > out[k]->index; k--) {
			struct trace_swc_thread *x = out[k];

			out[k] = out[k - 1];
			out[k - 1] = x;
		}
	return n;
}

static size_t traced_bytes(const struct dbg_trace *t)
{
	size_t n = t->cpu ? t->cpu->s.ring.size : 0;

	for (int i = 0; i < t->nth; i++)
		n += t->th[i]->ring.size;
	return n;
}

static int excluded(const struct dbg_trace *t, pid_t tid)
{
	for (int i = 0; i < t->nexcl; i++)
		if (t->excluded[i] == tid)
			return 1;
	return 0;
}

static int start_one(struct dbg *d, pid_t tid, struct ptdb_err *err)
{
	struct dbg_trace *t = d->trace;

	for (int i = 0; i < t->nexcl; i++)
		if (t->excluded[i] == tid)
			t->excluded[i--] = t->excluded[--t->nexcl];
	struct trace_swc_thread *th = find(d, tid);
	size_t size = trace_ring_round_size(t->opts.size);

	if (t->hw && !t->cpu)
		return start_one_hw(d, th, tid, err);

	uint64_t parked = th ? th->parked_at : 0;
	struct user_regs_struct r;

	/* stopped inside a system call (a thread blocked in join when tracing
	 * starts): stepping it would block with the call, so it runs on its
	 * own until the call returns, as one the collector parked */
	if (!parked && target_get_regs(d->proc, tid, &r, NULL) == 0 && (long)r.orig_rax >= 0 &&
	    (long)r.rax < 0 && (long)r.rax >= -4095)
		parked = r.rip;	/* (a new thread returns 0 from its clone: not this) */

	if (th) {
		/* tracing it again restarts its trace with the new parameters */
		trace_swc_release(th);
	} else if (t->cpu) {
		t->th = xrealloc(t->th, (size_t)(t->nth + 1) * sizeof(*t->th));
		th = t->th[t->nth++] = xcalloc(1, sizeof(*th));
	} else {
		if (t->opts.total_limit && traced_bytes(t) + size > t->opts.total_limit)
			return ptdb_err_code(err, PTDB_E_LIMIT,
					     "Thread %d can't be traced as the process trace size "
					    "limit has been reached. Consider retracing with a higher limit.",
					    (int)tid);
		t->th = xrealloc(t->th, (size_t)(t->nth + 1) * sizeof(*t->th));
		th = t->th[t->nth++] = xcalloc(1, sizeof(*th));
	}
	if (t->cpu) {
		trace_swc_init_on_cpu(th, tid, target_thread_index(d->proc, tid), t->cpu);
		th->parked_at = parked;
		return 0;
	}
	if (trace_swc_init(th, tid, target_thread_index(d->proc, tid), t->opts.size,
			   t->opts.psb_period, t->opts.tsc, err) < 0) {
		forget(t, th);
		return -1;
	}
	th->parked_at = parked;
	return 0;
}

/* intel-pt per thread: a thread the process creates while it runs gets
 * its event as the target learns of it (the clone event), before it runs
 * any code.  Over the total limit it is not traced and the process stops
 * with the limit reason, as the software backend stops it. */
static void hw_thread_created(void *ctx, struct target_proc *p, pid_t tid, unsigned index)
{
	struct dbg *d = ctx;
	struct ptdb_err err;

	(void)index;
	if (!d->trace || !d->trace->hw || !d->trace->all || d->trace->cpu || find(d, tid) ||
	    excluded(d->trace, tid))
		return;
	/* another failure (the kernel refused the event) leaves it untraced:
	 * dump info says so */
	if (start_one(d, tid, &err) < 0 && err.code == PTDB_E_LIMIT && !d->trace->hw_limit_tid) {
		d->trace->hw_limit_tid = tid;
		target_interrupt(p);
	}
}

int dbg_trace_start(struct dbg *d, const pid_t *tids, int n, int all, int process,
		    const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct target_thread_info ti[1024];
	int nt;

	if (!dbg_alive(d))
		return ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched");
	if (d->trace && d->trace->cpu && !d->trace->cpu_stopped)
		return ptdb_err_set(err, process ? "Process currently traced. Stop process tracing first"
					 : "Can't start tracing an individual thread when per-cpu "
					   "process tracing is enabled.");
	/* LLDB's words: stop a traced thread first to trace it with other
	 * options (a stopped thread's trace is kept until then, and goes) */
	for (int i = 0; !process && !all && d->trace && i < n; i++) {
		const struct trace_swc_thread *th = dbg_trace_thread(d, tids[i]);

		if (th && th->tracing)
			return ptdb_err_set(err, "Thread %d already traced", (int)tids[i]);
	}
	if (o->per_cpu && d->trace)
		for (int i = 0; i < d->trace->nth; i++)
			if (d->trace->th[i]->tracing)
				return ptdb_err_set(err, "Threads currently traced. Stop tracing them first");
	/* TSC packets come from rdtsc in this process: their conversion to
	 * nanoseconds is this machine's, measured once per session (a
	 * failure leaves raw TSC values, which dumps still show) */
	if (d->trace && (d->trace->hw != NULL) != (o->backend == DBG_BACKEND_INTEL_PT) &&
	    (d->trace->nth || d->trace->cpu))
		return ptdb_err_set(err, "The process is traced with the %s backend. Stop tracing "
				    "it first", d->trace->hw ? "intel-pt" : "software");
	if (o->backend == DBG_BACKEND_INTEL_PT && !(d->trace && d->trace->hw)) {
		struct target_hooks hk = { .thread_created = hw_thread_created, .ctx = d };
		struct dbg_ipt *hw;

		if (dbg_ipt_new(&hw, o, err) < 0)
			return -1;
		if (!d->trace)
			d->trace = xcalloc(1, sizeof(*d->trace));
		d->trace->hw = hw;
		target_set_hooks(d->proc, &hk);
	}
	if ((o->tsc || (o->per_cpu && o->backend == DBG_BACKEND_INTEL_PT)) &&
	    (!d->tsc_conv.valid || d->tsc_conv.source == TRACE_TSC_GIVEN))
		trace_tsc_measure(&d->tsc_conv);
	if (!d->trace) {
		d->trace = xcalloc(1, sizeof(*d->trace));
		d->trace->opts = *o;
	} else {
		d->trace->opts = *o;
	}
	if (o->per_cpu && d->trace->hw) {
		struct trace_swc_cpu *chain;

		/* earlier traces, stopped and kept for dumps, go now */
		will_resume(d);
		drop_cpu(d->trace);
		if (dbg_ipt_cpus_start(d->trace->hw, d->pid, o->size, o->total_limit, !o->no_cgroup,
				       &d->tsc_conv, &chain, err) < 0)
			return -1;
		d->trace->cpu = chain;
		d->trace->opts.tsc = 1;
	} else if (o->per_cpu) {
		struct trace_swc_cpu *c = xcalloc(1, sizeof(*c));
		/* the records' clock: the session's conversion, else TSC ticks */
		struct trace_tsc_conv conv = d->tsc_conv;
		size_t size = trace_ring_round_size(o->size);

		if (!conv.valid)
			conv = (struct trace_tsc_conv){ .mult = 1, .shift = 0, .zero = 0, .valid = 1 };
		if (o->total_limit && size > o->total_limit) {
			free(c);
			return ptdb_err_set(err, "The per-cpu buffer of %zu bytes exceeds the process trace size "
					    "limit of %zu bytes. Consider retracing with a higher limit.",
					    size, o->total_limit);
		}
		if (trace_swc_cpu_init(c, 0, d->pid, o->size, o->psb_period, &conv, err) < 0) {
			free(c);
			return -1;
		}
		/* earlier traces, stopped and kept for dumps, go now */
		will_resume(d);
		drop_cpu(d->trace);
		d->trace->cpu = c;
		d->trace->opts.tsc = 1;
	}
	if (process) {
		d->trace->process = 1;
		all = 1;
	}
	if (!all) {
		for (int i = 0; i < n; i++)
			if (start_one(d, tids[i], err) < 0)
				return -1;
		return 0;
	}
	d->trace->all = 1;
	nt = target_threads(d->proc, ti, 1024);
	for (int i = 0; i < nt && i < 1024; i++)
		if (start_one(d, ti[i].tid, err) < 0)
			return -1;
	return 0;
}

/* Stopped threads stay dumpable until the process runs again. */
static void stop_one(struct dbg *d, struct trace_swc_thread *th)
{
	struct user_regs_struct r;

	if (d->trace->hw) {
		if (th->tracing && !th->cpu)
			dbg_ipt_thread_stop(d->trace->hw, th, NULL);
		th->tracing = 0;
		return;
	}

	if (th->tracing && dbg_alive(d) && target_get_regs(d->proc, th->tid, &r, NULL) == 0)
		trace_swc_pause(th, r.rip);
	if (th->tracing)
		trace_swc_cpu_leave(th);
	th->tracing = 0;
}

int dbg_trace_stop(struct dbg *d, const pid_t *tids, int n, int all,
		   struct ptdb_err *err)
{
	if (!d->trace)
		return ptdb_err_set(err, "Process is not being traced");
	if (d->trace->cpu && !d->trace->cpu_stopped && !all)
		return ptdb_err_set(err, "Can't stop tracing an individual thread when per-cpu process "
				    "tracing is enabled.");
	if (all) {
		int any = d->trace->all;

		for (int i = 0; i < d->trace->nth; i++)
			any |= d->trace->th[i]->tracing;
		if (!any)
			return ptdb_err_set(err, "Process is not being traced");
		for (int i = 0; i < d->trace->nth; i++)
			stop_one(d, d->trace->th[i]);
		if (d->trace->cpu)
			d->trace->cpu_stopped = 1;
		d->trace->nexcl = 0;
		d->trace->all = 0;
		d->trace->process = 0;
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct trace_swc_thread *th = find(d, tids[i]);

		if (!th || !th->tracing)
			return ptdb_err_set(err, "thread not traced");
	}
	for (int i = 0; i < n; i++) {
		stop_one(d, find(d, tids[i]));
		d->trace->excluded = xrealloc(d->trace->excluded,
					      (size_t)(d->trace->nexcl + 1) * sizeof(pid_t));
		d->trace->excluded[d->trace->nexcl++] = tids[i];
	}
	return 0;
}

int dbg_trace_single_step(const struct dbg *d)
{
	return d->trace && d->trace->opts.single_step;
}

const char *dbg_trace_engine(const struct dbg *d)
{
	return d->trace && d->trace->opts.engine == DBG_ENGINE_CACHE ? "cache" : "ptrace";
}

void dbg_trace_cache_stats(const struct dbg *d, struct dbg_cache_stats *out)
{
	*out = dbg_cache_get_stats(d->trace ? d->trace->cc : NULL);
}

int dbg_trace_is_process(const struct dbg *d)
{
	return d->trace && d->trace->process;
}

void dbg_trace_end(struct dbg *d)
{
	if (!d->trace)
		return;
	if (dbg_alive(d))
		unplant_sticky(d);
	dbg_cache_finish(dbg_alive(d) ? d : NULL, d->trace->cc);
	dbg_cache_free(d->trace->cc);
	free(d->trace->sticky);
	bcache_clear(d->trace);
	for (int i = 0; i < d->trace->nth; i++) {
		trace_swc_release(d->trace->th[i]);
		free(d->trace->th[i]);
	}
	free(d->trace->th);
	free(d->trace->excluded);
	drop_cpu(d->trace);
	if (d->trace->hw && d->proc)
		target_set_hooks(d->proc, NULL);
	dbg_ipt_free(d->trace->hw);
	free(d->trace);
	d->trace = NULL;
}

/* Before the process runs: forget threads whose trace the user stopped
 * (and a per-CPU stream whose tracing stopped). */
static void will_resume(struct dbg *d)
{
	struct dbg_trace *t = d->trace;
	int k = 0;

	if (t->cpu && t->cpu_stopped)
		for (int i = 0; i < t->nth; i++)
			t->th[i]->tracing = 0;

	for (int i = 0; i < t->nth; i++) {
		if (t->th[i]->tracing) {
			t->th[k++] = t->th[i];
			continue;
		}
		trace_swc_release(t->th[i]);
		free(t->th[i]);
	}
	t->nth = k;
	if (t->cpu && t->cpu_stopped)
		drop_cpu(t);
}

/* A stop the user sees: every traced thread's trace pauses where it is. */
void dbg_trace_did_stop(struct dbg *d)
{
	if (!d->trace || !dbg_alive(d))
		return;
	if (d->trace->hw) {
		struct target_thread_info ti[1024];
		int nt = target_threads(d->proc, ti, 1024);

		/* a failed copy leaves the previous one (dumps say what they
		 * can); the next stop tries again */
		dbg_ipt_did_stop(d->trace->hw, NULL);
		/* threads created while it ran are traced from now on (per CPU
		 * they were traced all along) */
		for (int i = 0; d->trace->all && !d->trace->cpu && i < nt && i < 1024; i++)
			if (!find(d, ti[i].tid) && !excluded(d->trace, ti[i].tid))
				start_one(d, ti[i].tid, NULL);
		return;
	}
	for (int i = 0; i < d->trace->nth; i++) {
		struct trace_swc_thread *th = d->trace->th[i];
		struct user_regs_struct r;

		if (th->tracing && target_get_regs(d->proc, th->tid, &r, NULL) == 0)
			trace_swc_pause(th, r.rip);
	}
}

/* A new thread that the total limit leaves untraced: the stop reports it
 * once, then it runs on untraced (not excluded, every 'continue' stopped
 * on it again and the process never got on). */
static void over_limit(struct dbg *d, pid_t tid, struct dbg_stop *stop)
{
	d->trace->excluded = xrealloc(d->trace->excluded, (size_t)(d->trace->nexcl + 1) * sizeof(pid_t));
	d->trace->excluded[d->trace->nexcl++] = tid;
	memset(stop, 0, sizeof(*stop));
	stop->reason = DBG_R_TRACE_LIMIT;
	stop->tid = tid;
}

/* New threads of a process traced with 'all'. */
static int adopt_new_threads(struct dbg *d, struct dbg_stop *stop)
{
	struct target_thread_info ti[1024];
	int nt;
	struct ptdb_err err;

	if (!d->trace->all)
		return 0;
	nt = target_threads(d->proc, ti, 1024);
	for (int i = 0; i < nt && i < 1024; i++) {
		if (find(d, ti[i].tid) || excluded(d->trace, ti[i].tid))
			continue;
		if (start_one(d, ti[i].tid, &err) < 0) {
			over_limit(d, ti[i].tid, stop);
			return 1;
		}
	}
	return 0;
}

/* The next traced, live thread to step (round robin, a quantum counted in
 * instructions so a traced run always takes the same schedule). */
static struct trace_swc_thread *pick(struct dbg *d)
{
	struct dbg_trace *t = d->trace;

	for (int tries = 0; tries <= t->nth; tries++) {
		struct trace_swc_thread *th;

		if (t->rr >= (unsigned)t->nth)
			t->rr = 0;
		th = t->nth ? t->th[t->rr] : NULL;
		if (th && th->tracing && !th->parked_at && target_thread_stopped(d->proc, th->tid) &&
		    t->quantum) {
			t->quantum--;
			return th;
		}
		t->rr++;
		t->quantum = DBG_TRACE_QUANTUM;
	}
	return NULL;
}

/* Threads that are not traced keep running while the traced ones step. */
static void run_untraced(struct dbg *d)
{
	struct target_thread_info ti[1024];
	int nt = target_threads(d->proc, ti, 1024);

	for (int i = 0; i < nt && i < 1024; i++) {
		struct trace_swc_thread *th = find(d, ti[i].tid);

		if ((!th || !th->tracing) && target_thread_stopped(d->proc, ti[i].tid))
			target_thread_cont(d->proc, ti[i].tid, NULL);
	}
}

/* A thread in a system call runs on its own until it returns. */
static int park(struct dbg *d, struct trace_swc_thread *th, struct ptdb_err *err)
{
	struct user_regs_struct r;

	if (target_bp_insert(d->proc, th->parked_at, err) < 0)
		return -1;
	/* inside the call (pc = its return address) or at a SYSCALL without
	 * a breakpoint: nothing to step over, and a step would block */
	if (target_get_regs(d->proc, th->tid, &r, err) < 0)
		return -1;
	if (r.rip == th->parked_at || !target_bp_planted(d->proc, r.rip))
		return target_thread_cont_raw(d->proc, th->tid, err);
	return target_thread_cont(d->proc, th->tid, err);
}

static void unplant_parks(struct dbg *d)
{
	for (int i = 0; i < d->trace->nth; i++)
		if (d->trace->th[i]->parked_at && target_bp_planted(d->proc, d->trace->th[i]->parked_at))
			target_bp_remove(d->proc, d->trace->th[i]->parked_at, NULL);
}

enum { EV_GO_ON = -2, EV_NOTHING = -3 };

/* An event of a thread that ran on its own.  Returns EV_GO_ON, or a
 * run_wait result with *stop filled. */
static int running_event(struct dbg *d, const struct target_stop *ts, pid_t tid,
			 const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop)
{
	struct trace_swc_thread *th = find(d, ts->tid);
	struct user_regs_struct r;

	stop->tid = ts->tid;
	switch (ts->kind) {
	case TARGET_STOP_BREAKPOINT:
		if (dbg_bp_hit(d, ts->tid, ts->addr, &stop->bp_id, &stop->loc_id)) {
			if (th && th->parked_at == ts->addr) {
				target_bp_remove(d->proc, th->parked_at, NULL);
				th->parked_at = 0;
			}
			stop->reason = DBG_R_BREAKPOINT;
			return RW_USER;
		}
		if (th && th->parked_at == ts->addr) {
			/* back from its system call: it steps again from here */
			target_bp_remove(d->proc, th->parked_at, NULL);
			th->parked_at = 0;
			return EV_GO_ON;
		}
		if (ts->tid == tid && target_get_regs(d->proc, tid, &r, NULL) == 0)
			for (int i = 0; i < ngoals; i++)
				if (goals[i].pc == ts->addr && r.rsp >= goals[i].min_rsp)
					return RW_GOAL;
		if (ts->addr == d->load_bp)
			dbg_refresh_modules(d);
		break;
	case TARGET_STOP_SIGNAL: {
		if (th && th->parked_at) {
			/* the system call ended (or will restart) with a signal:
			 * back in user space at pc and stopped there before the
			 * handler (§8); the collector steps the delivery */
			target_bp_remove(d->proc, th->parked_at, NULL);
			th->parked_at = 0;
			if (target_get_regs(d->proc, ts->tid, &r, NULL) == 0) {
				trace_swc_resume(th, r.rip);
				trace_swc_pause(th, r.rip);
			}
		}
		if (dbg_signal_stop(d, ts, stop))
			return RW_USER;
		break;
	}
	case TARGET_STOP_EXITED:
	case TARGET_STOP_SIGNALED:
		dbg_exit_stop(stop, ts);
		return RW_USER;
	case TARGET_STOP_EXEC:
		stop->reason = DBG_R_EXEC;
		return RW_USER;
	case TARGET_STOP_INTERRUPT:
		if (d->interrupt_requested) {
			stop->reason = DBG_R_INTERRUPT;
			return RW_USER;
		}
		break;
	case TARGET_STOP_STEP:
	case TARGET_STOP_NONE:
		break;
	}
	/* a new thread of an 'all' trace is traced from its first instruction */
	if (!th && d->trace->all && !excluded(d->trace, ts->tid) &&
	    target_thread_stopped(d->proc, ts->tid)) {
		struct ptdb_err err;

		if (start_one(d, ts->tid, &err) < 0) {
			over_limit(d, ts->tid, stop);
			return RW_USER;
		}
		return EV_GO_ON;
	}
	/* it goes on running (untraced), or, traced, is stepped */
	if (target_thread_stopped(d->proc, ts->tid) && (!th || !th->tracing || th->parked_at))
		target_thread_cont(d->proc, ts->tid, NULL);
	return EV_GO_ON;
}

static void bcache_clear(struct dbg_trace *t)
{
	for (size_t i = 0; i < t->bcap; i++)
		if (t->bcache[i]) {
			free(t->bcache[i]->ins);
			free(t->bcache[i]);
		}
	free(t->bcache);
	t->bcache = NULL;
	t->bcap = t->bn = 0;
}

static void bcache_put(struct dbg_trace *t, struct blk *b)
{
	if (2 * (t->bn + 1) > t->bcap) {
		struct blk **old = t->bcache;
		size_t ocap = t->bcap;

		t->bcap = t->bcap ? 2 * t->bcap : 1024;
		t->bcache = xcalloc(t->bcap, sizeof(*t->bcache));
		t->bn = 0;
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				bcache_put(t, old[i]);
		free(old);
	}
	for (size_t h = (b->start * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		if (!t->bcache[h & (t->bcap - 1)]) {
			t->bcache[h & (t->bcap - 1)] = b;
			t->bn++;
			return;
		}
	}
}

static struct blk *bcache_get(struct dbg_trace *t, uint64_t start)
{
	if (!t->bcap)
		return NULL;
	for (size_t h = (start * 0x9e3779b97f4a7c15ull) >> 20;; h++) {
		struct blk *b = t->bcache[h & (t->bcap - 1)];

		if (!b || b->start == start)
			return b;
	}
}

static int plant_stop(struct dbg *d, struct blk *b, struct ptdb_err *err)
{
	struct dbg_trace *t = d->trace;

	if (!b->sticky)
		return target_bp_insert(d->proc, b->stop, err);
	for (size_t i = 0; i < t->nsticky; i++)
		if (t->sticky[i] == b->stop)
			return 0;
	if (target_bp_insert(d->proc, b->stop, err) < 0)
		return -1;
	if (t->nsticky == t->csticky) {
		t->csticky = t->csticky ? 2 * t->csticky : 256;
		t->sticky = xrealloc(t->sticky, t->csticky * sizeof(*t->sticky));
	}
	t->sticky[t->nsticky++] = b->stop;
	return 0;
}

static void unplant_stop(struct dbg *d, struct blk *b)
{
	if (!b->sticky && dbg_alive(d))
		target_bp_remove(d->proc, b->stop, NULL);
}

static void unplant_sticky(struct dbg *d)
{
	struct dbg_trace *t = d->trace;

	for (size_t i = 0; i < t->nsticky && dbg_alive(d); i++)
		target_bp_remove(d->proc, t->sticky[i], NULL);
	t->nsticky = 0;
}

static int runs_in_block(const struct disasm_insn *in)
{
	return in->kind == DISASM_KIND_OTHER || in->kind == DISASM_KIND_JMP ||
	       in->kind == DISASM_KIND_CALL;
}

static struct blk *block_at(struct dbg *d, uint64_t pc)
{
	struct blk *b = bcache_get(d->trace, pc);
	uint64_t a = pc;

	if (b)
		return b;
	b = xcalloc(1, sizeof(*b));
	b->start = pc;
	b->ins = xmalloc(16 * sizeof(*b->ins));
	for (;;) {
		struct disasm_insn in;
		struct blk_insn *bi;
		uint64_t next;
		int seen = 0;

		if (dbg_insn_at(d, a, &in) < 0 || !runs_in_block(&in) || b->n >= BLK_MAX)
			break;
		if (!(b->n & (b->n - 1)) && b->n >= 16)
			b->ins = xrealloc(b->ins, 2 * (size_t)b->n * sizeof(*b->ins));
		bi = &b->ins[b->n++];
		next = in.kind != DISASM_KIND_OTHER && in.has_target ? in.target : a + in.len;
		bi->addr = a;
		bi->next = next;
		bi->len = in.len;
		bi->kind = (uint8_t)in.kind;
		bi->has_target = (uint8_t)in.has_target;
		bi->target = in.target;
		for (int i = 0; i < b->n && !seen; i++)
			seen = b->ins[i].addr == next;
		a = next;
		if (seen)	/* a loop closed by direct jumps: forced stop */
			break;
	}
	b->stop = a;
	b->stop_have = dbg_insn_at(d, a, &b->stop_in) == 0;
	b->sticky = b->stop_have && trace_swc_state_dependent(&b->stop_in) &&
		    b->stop_in.kind != DISASM_KIND_SYSCALL;
	bcache_put(d->trace, b);
	return b;
}

/* Records the first k instructions of b. */
static void block_record(struct trace_swc_thread *th, const struct blk *b, int k)
{
	for (int i = 0; i < k && i < b->n; i++) {
		const struct blk_insn *bi = &b->ins[i];
		struct disasm_insn in;

		memset(&in, 0, sizeof(in));
		in.addr = bi->addr;
		in.len = bi->len;
		in.kind = (enum disasm_kind)bi->kind;
		in.has_target = bi->has_target;
		in.target = bi->target;
		trace_swc_executed(th, &in, bi->next);
	}
}

/* How many of b's instructions ran before the thread stopped at pc. */
static int block_done(const struct blk *b, uint64_t pc)
{
	if (pc == b->stop)
		return b->n;
	for (int i = 0; i < b->n; i++)
		if (b->ins[i].addr == pc)
			return i;
	return 0;
}

/* The thread that ran part of a block when everything stopped. */
static void block_interrupted(struct dbg *d)
{
	struct dbg_trace *t = d->trace;
	struct user_regs_struct r;

	if (!t || !t->blk_th)
		return;
	if (dbg_alive(d) && target_get_regs(d->proc, t->blk_th->tid, &r, NULL) == 0)
		block_record(t->blk_th, t->blk_cur, block_done(t->blk_cur, r.rip));
	unplant_stop(d, t->blk_cur);
	t->blk_th = NULL;
	t->blk_cur = NULL;
}

/* ---- the transfer a block stops at (one trap each): trace/xfer ---- */

static int read_word(void *ctx, uint64_t addr, uint64_t *val)
{
	struct dbg *d = ctx;

	return target_read_mem(d->proc, addr, val, 8, NULL) < 0 ? -1 : 0;
}

/* Computes and applies the effect of the transfer in at r->rip (which has
 * not executed) to the registers and memory.  0 with *next, or -1 if it is
 * not modelled or an access failed (then it is stepped natively, so a bad
 * pointer faults for real). */
static int emulate(struct dbg *d, pid_t tid, struct user_regs_struct *r,
		   const struct disasm_insn *in, uint64_t *next)
{
	struct xfer_outcome o;

	if (xfer_compute(r, in, read_word, d, &o) < 0)
		return -1;
	if (o.push && target_write_mem(d->proc, o.rsp, &o.ret_addr, 8, NULL) < 0)
		return -1;
	xfer_apply(r, &o);
	*next = o.next;
	return target_set_regs(d->proc, tid, r, NULL) < 0 ? -1 : 0;
}

/* After the thread reached next (not by executing into a breakpoint):
 * a user breakpoint or a goal there is a stop. */
static int arrived(struct dbg *d, pid_t t, pid_t tid, uint64_t next, uint64_t rsp,
		   const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop)
{
	if (dbg_bp_hit(d, t, next, &stop->bp_id, &stop->loc_id)) {
		stop->reason = DBG_R_BREAKPOINT;
		stop->tid = t;
		return RW_USER;
	}
	if (t == tid)
		for (int i = 0; i < ngoals; i++)
			if (goals[i].pc == next && rsp >= goals[i].min_rsp)
				return RW_GOAL;
	if (next == d->load_bp)
		dbg_refresh_modules(d);
	return EV_GO_ON;
}

/* Runs th natively block after block from r->rip: each block up to its
 * stop, whose transfer is then computed; a transfer at the start of a
 * block is computed without running.  Returns EV_GO_ON when th stopped
 * somewhere the caller must handle (its instructions recorded),
 * EV_NOTHING when nothing ran (step pc instead), or a run result. */
static int run_block(struct dbg *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		     pid_t tid, const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop,
		     struct ptdb_err *err)
{
	pid_t t = th->tid;
	int budget = d->trace->nth > 1 ? 64 : 1 << 30, first = 1;

	for (;; first = 0) {
		struct blk *b = block_at(d, r->rip);
		struct target_stop ts;
		uint64_t next;
		int rr;

		if (budget-- <= 0 || d->interrupt_requested)
			return EV_GO_ON;
		dbg_progress_tick(d);
		if (b->n == 0) {
			/* a lone transfer: computed in place, no trap */
			if (!b->sticky || emulate(d, t, r, &b->stop_in, &next) < 0)
				return first ? EV_NOTHING : EV_GO_ON;
			trace_swc_executed(th, &b->stop_in, next);
			th->emulated++;
			rr = arrived(d, t, tid, next, r->rsp, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			continue;
		}
		if (plant_stop(d, b, err) < 0)
			return -1;
		d->trace->blk_th = th;
		d->trace->blk_cur = b;
		d->running = 1;
		if (d->interrupt_requested)
			target_interrupt(d->proc);
		rr = target_bp_planted(d->proc, r->rip) ? target_thread_cont(d->proc, t, err)
							: target_thread_cont_raw(d->proc, t, err);
		if (rr < 0) {
			d->running = 0;
			return -1;
		}
		for (;;) {
			if (!target_thread_event(d->proc, 1, &ts)) {
				d->running = 0;
				return ptdb_err_set(err, "the traced thread %d vanished", (int)t);
			}
			if (ts.tid == t)
				break;
			rr = running_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != EV_GO_ON) {
				d->running = 0;
				return rr;	/* th still runs: block_interrupted */
			}
		}
		d->running = 0;
		th = find(d, t);
		d->trace->blk_th = NULL;
		d->trace->blk_cur = NULL;
		if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED || !th ||
		    target_get_regs(d->proc, t, r, NULL) < 0) {
			unplant_stop(d, b);
			return running_event(d, &ts, tid, goals, ngoals, stop);
		}
		th->traps++;
		block_record(th, b, block_done(b, r->rip));
		unplant_stop(d, b);
		stop->tid = t;
		if (ts.kind != TARGET_STOP_BREAKPOINT) {
			if (ts.kind == TARGET_STOP_SIGNAL)
				trace_swc_pause(th, r->rip);
			return running_event(d, &ts, tid, goals, ngoals, stop);
		}
		rr = arrived(d, t, tid, r->rip, r->rsp, goals, ngoals, stop);
		if (rr != EV_GO_ON)
			return rr;
		/* at the block's transfer: its outcome is computed and applied
		 * here, it never runs natively */
		if (r->rip != b->stop || !b->sticky || emulate(d, t, r, &b->stop_in, &next) < 0)
			return EV_GO_ON;
		trace_swc_executed(th, &b->stop_in, next);
		th->emulated++;
		rr = arrived(d, t, tid, next, r->rsp, goals, ngoals, stop);
		if (rr != EV_GO_ON)
			return rr;
	}
}

/* The cache engine runs th (core/dbg_cache.c), with run_block's results:
 * like run_block it goes on past a stop that is not the user's (the
 * loader's breakpoint, a goal in a deeper frame) and comes back before
 * code it does not run, so the collector's loop turns as often under
 * either engine (its turns schedule the threads).  EV_OFF: the ptrace
 * engine runs instead. */
enum { EV_OFF = -4 };
static int cache_step(struct dbg *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		      pid_t tid, const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop,
		      struct ptdb_err *err)
{
	struct target_stop ts;
	pid_t t = th->tid;
	int rr;

	for (int first = 1;; first = 0) {
		if (!first && d->interrupt_requested)
			return EV_GO_ON;
		switch (dbg_cache_run(d, &d->trace->cc, th, r, goals, ngoals, &ts, err)) {
		case DBG_CACHE_OFF:
			return first ? EV_OFF : EV_GO_ON;
		case DBG_CACHE_NOTHING:
			return first ? EV_NOTHING : EV_GO_ON;
		case DBG_CACHE_AT:
			stop->tid = t;
			rr = arrived(d, t, tid, r->rip, r->rsp, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			break;
		case DBG_CACHE_EVENT:
			stop->tid = t;
			return running_event(d, &ts, tid, goals, ngoals, stop);
		default:
			return -1;
		}
	}
}

static int collect(struct dbg *d, pid_t step_tid, pid_t tid,
		   const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	if (!step_tid)
		run_untraced(d);
	for (int i = 0; i < d->trace->nth; i++)
		if (d->trace->th[i]->parked_at && target_thread_index(d->proc, d->trace->th[i]->tid) &&
		    (!step_tid || d->trace->th[i]->tid == step_tid) && park(d, d->trace->th[i], err) < 0)
			return -1;
	for (;;) {
		struct trace_swc_thread *th;
		struct user_regs_struct r;
		struct target_stop ts;
		struct disasm_insn in;
		pid_t t;
		int have, sig, rr;

		while (target_thread_event(d->proc, 0, &ts)) {
			rr = running_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
		}
		if (adopt_new_threads(d, stop))
			return RW_USER;
		dbg_progress_tick(d);
		if (d->interrupt_requested) {
			stop->reason = DBG_R_INTERRUPT;
			stop->tid = d->sel_tid;
			return RW_USER;
		}
		th = step_tid ? find(d, step_tid) : pick(d);
		if (th && (th->parked_at || !target_thread_stopped(d->proc, th->tid)))
			th = NULL;
		if (!th) {
			/* everything traced is in a system call: wait for someone;
			 * running, so that an interrupt stops the process and the
			 * wait returns with its SIGSTOP */
			d->running = 1;
			if (d->interrupt_requested)
				target_interrupt(d->proc);
			have = target_thread_event(d->proc, 1, &ts);
			d->running = 0;
			if (!have) {
				if (step_tid)
					return dbg_run_native(d, step_tid, tid, goals, ngoals, stop, err);
				/* nothing runs and nothing can step: run natively */
				return dbg_run_native(d, 0, tid, goals, ngoals, stop, err);
			}
			rr = running_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			continue;
		}
		t = th->tid;
		if (target_get_regs(d->proc, t, &r, err) < 0)
			return -1;
		have = dbg_insn_at(d, r.rip, &in) == 0;
		sig = target_pending_signal(d->proc, t);
		if (!sig)
			trace_swc_resume(th, r.rip);
		/* a system call that may block runs on its own; one that
		 * returns at once is stepped (see trace_syscall_returns_at_once) */
		if (!sig && have && in.kind == DISASM_KIND_SYSCALL && !step_tid && !trace_syscall_returns_at_once(r.rax, r.rsi)) {
			trace_swc_syscall(th, &in);
			th->parked_at = r.rip + in.len;
			/* its turn ends here, back by the next pick or not */
			d->trace->rr++;
			d->trace->quantum = DBG_TRACE_QUANTUM;
			if (park(d, th, err) < 0)
				return -1;
			continue;
		}
		rr = EV_OFF;
		if (!sig && have && !step_tid && !d->trace->opts.single_step &&
		    d->trace->opts.engine == DBG_ENGINE_CACHE) {
			rr = cache_step(d, th, &r, tid, goals, ngoals, stop, err);
			if (rr != EV_NOTHING && rr != EV_OFF) {
				if (rr != EV_GO_ON)
					return rr;
				continue;
			}
			if (rr == EV_NOTHING)
				dbg_cache_count_fallback(d->trace->cc);
		}
		if (rr == EV_OFF && !sig && have && !step_tid && !d->trace->opts.single_step &&
		    runs_in_block(&in)) {
			rr = run_block(d, th, &r, tid, goals, ngoals, stop, err);
			if (rr != EV_NOTHING) {
				if (rr != EV_GO_ON)
					return rr;
				continue;
			}
		}
		d->running = 1;
		if (d->interrupt_requested)
			target_interrupt(d->proc);
		rr = target_thread_step(d->proc, t, &ts, err);
		d->running = 0;
		if (rr < 0)
			return -1;
		th = find(d, t);	/* the table may have moved */
		if (th)
			th->traps++;
		if (ts.tid != t || !th) {
			rr = running_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			continue;
		}
		stop->tid = t;
		switch (ts.kind) {
		case TARGET_STOP_STEP:
		case TARGET_STOP_BREAKPOINT: {
			uint64_t pc;

			if (target_get_regs(d->proc, t, &r, err) < 0)
				return -1;
			pc = r.rip;
			/* a step that delivered a signal ran no instruction: the
			 * thread is at its handler */
			if (!sig && have)
				trace_swc_executed(th, &in, pc);
			if (step_tid)
				return RW_STEPPED;
			rr = arrived(d, t, tid, pc, r.rsp, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			break;
		}
		case TARGET_STOP_SIGNAL:
			/* the instruction at pc did not execute (a fault) or the
			 * signal arrived before it: an asynchronous stop; but a
			 * system call that unblocked a pending signal did run */
			if (target_get_regs(d->proc, t, &r, NULL) == 0) {
				if (!sig && have && in.kind == DISASM_KIND_SYSCALL && r.rip != in.addr)
					trace_swc_executed(th, &in, r.rip);
				trace_swc_pause(th, r.rip);
			}
			/* fall through */
		default:
			rr = running_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != EV_GO_ON)
				return rr;
			break;
		}
	}
}

int dbg_trace_run(struct dbg *d, pid_t step_tid, pid_t tid,
		  const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop,
		  struct ptdb_err *err)
{
	struct target_stop ex;
	int rr;

	dbg_replay_leave(d);	/* any resume leaves replay mode */
	memset(stop, 0, sizeof(*stop));
	will_resume(d);
	if (d->trace->hw) {
		/* the hardware records while the process runs natively: enable
		 * every event (resume every CPU) just before it resumes */
		if (dbg_ipt_will_resume(d->trace->hw, err) < 0)
			return -1;
		d->trace->hw_limit_tid = 0;
		rr = dbg_run_native(d, step_tid, tid, goals, ngoals, stop, err);
		if (rr >= 0 && d->trace && d->trace->hw_limit_tid && dbg_alive(d)) {
			over_limit(d, d->trace->hw_limit_tid, stop);
			rr = RW_USER;
		}
		return rr;
	}
	target_thread_begin(d->proc);
	dbg_progress_begin(d);
	rr = collect(d, step_tid, tid, goals, ngoals, stop, err);
	if (dbg_alive(d)) {
		int died;

		unplant_parks(d);
		died = target_thread_end(d->proc, &ex);
		if (d->trace)
			dbg_cache_finish(died ? NULL : d, d->trace->cc);
		if (d->trace) {
			block_interrupted(d);
			unplant_sticky(d);
			bcache_clear(d->trace);
		}
		if (died) {
			memset(stop, 0, sizeof(*stop));
			dbg_exit_stop(stop, &ex);
			return RW_USER;
		}
	}
	return rr;
}

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
		if (d->trace && d->trace->hw) {
			/* the CPU that wrote the trace: libipt's errata */
			char v[32];
			int f, m, st;

			dbg_ipt_cpu_info(d->trace->hw, v, sizeof(v), &f, &m, &st);
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
	struct dbg *d = ctx;
	struct disasm_insn in;

	if ((!dbg_alive(d) && !d->pm && !d->trace) || dbg_insn_at(d, ip, &in) < 0)
		return 0;
	if ((in.kind == DISASM_KIND_JMP || in.kind == DISASM_KIND_CALL) && in.has_target)
		return in.target;
	return ip + in.len;
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
		if (th->dec)
			trace_decoded_free(th->dec);
		th->dec = NULL;
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
	uint64_t sid = d->proc ? target_stop_id(d->proc) : 0;	/* loaded: never changes */
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
	if (th->dec) {
		trace_decoded_free(th->dec);
		th->dec = NULL;
	}
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
