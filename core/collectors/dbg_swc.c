/* core/collectors/dbg_swc.c: the software collector — traced threads run under
 * ptrace, one at a time (round robin, a quantum counted in instructions),
 * each turn through an engine (the cache engine, core/collectors/dbg_swc_cache.c, or
 * the ptrace engine's blocks, core/collectors/dbg_swc_block.c, or one single step),
 * while the Intel PT stream of what they execute is written (trace/swc).
 * A thread inside a system call that may block runs on its own until it
 * returns (it is "parked" at the return address); threads not traced run
 * freely. */
#include "core/collectors/dbg_code.h"
#include "core/collectors/dbg_swc_int.h"
#include "trace/ring.h"
#include "trace/swc.h"
#include "trace/syscalls.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DBG_TRACE_QUANTUM 256

struct dbg_swc *dbg_swc(struct dbg_tracee *d)
{
	if (!d->trace->sw)
		d->trace->sw = xcalloc(1, sizeof(*d->trace->sw));
	return d->trace->sw;
}

uint64_t dbg_swc_parked_at(struct dbg_tracee *d, const struct trace_swc_thread *th, pid_t tid)
{
	uint64_t parked = th ? dbg_traced(th)->sw.parked_at : 0;
	struct user_regs_struct r;

	/* stopped inside a system call (a thread blocked in join when tracing
	 * starts): stepping it would block with the call, so it runs on its
	 * own until the call returns, as one the collector parked */
	if (!parked && target_get_regs(d->proc, tid, &r, NULL) == 0 && (long)r.orig_rax >= 0 &&
	    (long)r.rax < 0 && (long)r.rax >= -4095)
		parked = r.rip;	/* (a new thread returns 0 from its clone: not this) */
	return parked;
}

/* ---- the collector's interface ---- */

static size_t traced_bytes(const struct dbg_trace *t)
{
	size_t n = t->cpu ? t->cpu->s.ring.size : 0;

	for (int i = 0; i < t->nth; i++)
		n += t->th[i]->ring.size;
	return n;
}

static int swc_thread_admit(struct dbg_tracee *d, pid_t tid, struct ptdb_err *err)
{
	struct dbg_trace *t = d->trace;
	size_t size = trace_ring_round_size(t->opts.size);

	if (t->opts.total_limit && traced_bytes(t) + size > t->opts.total_limit)
		return ptdb_err_code(err, PTDB_E_LIMIT,
				     "Thread %d can't be traced as the process trace size "
				     "limit has been reached. Consider retracing with a higher limit.",
				     (int)tid);
	return 0;
}

static int swc_thread_start(struct dbg_tracee *d, struct trace_swc_thread *th, int fresh, pid_t tid,
			    struct ptdb_err *err)
{
	const struct dbg_trace_opts *o = &d->trace->opts;
	uint64_t parked = dbg_swc_parked_at(d, th, tid);

	/* tracing it again restarts its trace with the new parameters */
	if (!fresh)
		d->host->thread_release(d->s, th);
	if (trace_swc_init(th, tid, target_thread_index(d->proc, tid), o->size, o->psb_period,
			   o->tsc, err) < 0)
		return -1;
	dbg_code_pages_writer(d->trace, th);
	dbg_traced(th)->sw.parked_at = parked;
	return 0;
}

static void swc_thread_stop(struct dbg_tracee *d, struct trace_swc_thread *th)
{
	struct user_regs_struct r;

	if (th->tracing && d->host->alive(d->s) && target_get_regs(d->proc, th->tid, &r, NULL) == 0)
		trace_swc_pause(th, r.rip);
	if (th->tracing)
		trace_swc_cpu_leave(th);
}

/* One emulated CPU that every traced thread runs on. */
static int swc_cpus_start(struct dbg_tracee *d, const struct dbg_trace_opts *o, struct ptdb_err *err)
{
	struct trace_swc_cpu *c = xcalloc(1, sizeof(*c));
	/* the records' clock: the session's conversion, else TSC ticks */
	struct trace_tsc_conv conv = *d->tsc_conv;
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
	dbg_code_pages_writer(d->trace, &c->s);
	/* earlier traces, stopped and kept for dumps, go now */
	d->host->trace_drop_kept(d->s);
	d->trace->cpu = c;
	return 0;
}

static void swc_cpus_stop(struct dbg_tracee *d)
{
	trace_swc_cpu_release(d->trace->cpu);
	free(d->trace->cpu);
}

static void swc_did_stop(struct dbg_tracee *d)
{
	for (int i = 0; i < d->trace->nth; i++) {
		struct trace_swc_thread *th = d->trace->th[i];
		struct user_regs_struct r;

		if (th->tracing && target_get_regs(d->proc, th->tid, &r, NULL) == 0)
			trace_swc_pause(th, r.rip);
	}
}

/* The rings hold the whole story: they stay; the process's state (the
 * collector's breakpoints, system calls under way) is gone. */
static int swc_exited(struct dbg_tracee *d)
{
	struct dbg_swc *s = dbg_swc(d);

	s->nsticky = 0;
	dbg_swc_bcache_clear(s);
	dbg_swc_hide_gone(d);
	return 1;
}

static void swc_end(struct dbg_tracee *d)
{
	if (d->host->alive(d->s))
		dbg_swc_unplant_sticky(d);
	dbg_swc_cache_finish(d, !d->host->alive(d->s));
	dbg_swc_cache_free(d);
	free(dbg_swc(d)->sticky);
	dbg_swc_bcache_clear(dbg_swc(d));
	dbg_swc_hide_free(dbg_swc(d));
	free(d->trace->sw);
	d->trace->sw = NULL;
}

static int swc_cpu_info(struct dbg_tracee *d, char *vendor, size_t n, int *family, int *model,
			int *stepping)
{
	(void)d, (void)vendor, (void)n, (void)family, (void)model, (void)stepping;
	return -1;
}

static int swc_run(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err);

const struct dbg_collector dbg_swc_collector = {
	.technology = "software",
	.thread_start = swc_thread_start,
	.thread_admit = swc_thread_admit,
	.thread_stop = swc_thread_stop,
	.cpus_start = swc_cpus_start,
	.cpus_stop = swc_cpus_stop,
	.run = swc_run,
	.did_stop = swc_did_stop,
	.exited = swc_exited,
	.end = swc_end,
	.state = NULL,
	.cpu_info = swc_cpu_info,
};

/* ---- the stepping loop ---- */

/* New threads of a process traced with 'all'. */
static int adopt_new_threads(struct dbg_tracee *d, struct dbg_stop *stop)
{
	struct target_thread_info *ti;
	int nt;
	struct ptdb_err err;

	if (!d->trace->all)
		return 0;
	ti = d->host->proc_threads(d->s, &nt);
	for (int i = 0; i < nt; i++) {
		if (d->host->trace_find(d->s, ti[i].tid) || dbg_trace_excluded(d->trace, ti[i].tid))
			continue;
		if (d->host->trace_adopt(d->s, ti[i].tid, &err) < 0) {
			d->host->trace_over_limit(d->s, ti[i].tid, stop);
			free(ti);
			return 1;
		}
	}
	free(ti);
	return 0;
}

/* The next traced, live thread to step (round robin, a quantum counted in
 * instructions so a traced run always takes the same schedule). */
static struct trace_swc_thread *pick(struct dbg_tracee *d)
{
	struct dbg_trace *t = d->trace;
	struct dbg_swc *s = dbg_swc(d);

	for (int tries = 0; tries <= t->nth; tries++) {
		struct trace_swc_thread *th;

		if (s->rr >= (unsigned)t->nth)
			s->rr = 0;
		th = t->nth ? t->th[s->rr] : NULL;
		if (th && th->tracing && !dbg_traced(th)->sw.parked_at &&
		    target_thread_stopped(d->proc, th->tid) && s->quantum) {
			s->quantum--;
			return th;
		}
		s->rr++;
		s->quantum = DBG_TRACE_QUANTUM;
	}
	return NULL;
}

void dbg_swc_turn_over(struct dbg_tracee *d)
{
	dbg_swc(d)->rr++;
	dbg_swc(d)->quantum = DBG_TRACE_QUANTUM;
}

/* Threads that are not traced keep running while the traced ones step. */
static void run_untraced(struct dbg_tracee *d)
{
	int nt;
	struct target_thread_info *ti = d->host->proc_threads(d->s, &nt);

	for (int i = 0; i < nt; i++) {
		struct trace_swc_thread *th = d->host->trace_find(d->s, ti[i].tid);

		if ((!th || !th->tracing) && target_thread_stopped(d->proc, ti[i].tid))
			target_thread_cont(d->proc, ti[i].tid, NULL);
	}
	free(ti);
}

/* A thread in a system call runs on its own until it returns. */
static int park(struct dbg_tracee *d, struct trace_swc_thread *th, struct ptdb_err *err)
{
	struct user_regs_struct r;

	int in;

	if (target_bp_insert(d->proc, dbg_traced(th)->sw.parked_at, err) < 0)
		return -1;
	in = dbg_swc_timer_park(d, th);
	if (!in)
		return 0;	/* (stopped before the call: its event next) */
	/* inside the call (pc = its return address) or at a SYSCALL without
	 * a breakpoint: nothing to step over, and a step would block */
	if (target_get_regs(d->proc, th->tid, &r, err) < 0)
		return -1;
	if (r.rip == dbg_traced(th)->sw.parked_at || !target_bp_planted(d->proc, r.rip))
		return target_thread_cont_raw(d->proc, th->tid, err);
	return target_thread_cont(d->proc, th->tid, err);
}

static void unplant_parks(struct dbg_tracee *d)
{
	for (int i = 0; i < d->trace->nth; i++) {
		uint64_t at = dbg_traced(d->trace->th[i])->sw.parked_at;

		if (at && target_bp_planted(d->proc, at))
			target_bp_remove(d->proc, at, NULL);
	}
}

/* An event of a thread that ran on its own.  Returns EV_GO_ON, or a
 * run_wait result with *stop filled. */
int dbg_swc_event(struct dbg_tracee *d, const struct target_stop *ts, const struct dbg_run_req *rq,
		  struct dbg_stop *stop)
{
	struct trace_swc_thread *th = d->host->trace_find(d->s, ts->tid);
	struct user_regs_struct r;
	struct target_stop served;

	stop->tid = ts->tid;
	/* a thread that runs untraced read code the engine hides: served
	 * (once the traced thread running a block has stopped) */
	if ((!th || !th->tracing) && dbg_swc(d)->blk_th && dbg_swc_hide_is_fault(d, ts)) {
		dbg_swc_hide_defer(d, ts);
		return EV_GO_ON;
	}
	if ((!th || !th->tracing) && dbg_swc_hide_fault(d, NULL, ts, &served)) {
		if (served.tid == ts->tid && served.kind == TARGET_STOP_STEP) {
			target_thread_cont(d->proc, ts->tid, NULL);
			return EV_GO_ON;
		}
		return dbg_swc_event(d, &served, rq, stop);
	}
	switch (ts->kind) {
	case TARGET_STOP_BREAKPOINT:
		if (d->host->bp_hit(d->s, ts->tid, ts->addr, &stop->bp_id, &stop->loc_id)) {
			if (th && dbg_traced(th)->sw.parked_at == ts->addr) {
				target_bp_remove(d->proc, dbg_traced(th)->sw.parked_at, NULL);
				dbg_traced(th)->sw.parked_at = 0;
			}
			stop->reason = DBG_R_BREAKPOINT;
			return RW_USER;
		}
		if (th && dbg_traced(th)->sw.parked_at == ts->addr) {
			/* back from its system call: it steps again from here */
			target_bp_remove(d->proc, dbg_traced(th)->sw.parked_at, NULL);
			dbg_traced(th)->sw.parked_at = 0;
			return EV_GO_ON;
		}
		if (dbg_goal_at(rq, ts->tid, ts->addr) &&
		    target_get_regs(d->proc, ts->tid, &r, NULL) == 0 &&
		    dbg_goal_reached(rq, ts->tid, ts->addr, r.rsp)) {
			stop->tid = ts->tid;
			return RW_GOAL;
		}
		if (ts->addr == *d->load_bp)
			d->host->refresh_modules(d->s);
		break;
	case TARGET_STOP_SIGNAL: {
		if (th && dbg_traced(th)->sw.parked_at) {
			/* the system call ended (or will restart) with a signal:
			 * back in user space at pc and stopped there before the
			 * handler (§8); the collector steps the delivery */
			target_bp_remove(d->proc, dbg_traced(th)->sw.parked_at, NULL);
			dbg_traced(th)->sw.parked_at = 0;
			if (target_get_regs(d->proc, ts->tid, &r, NULL) == 0) {
				trace_swc_resume(th, r.rip);
				trace_swc_pause(th, r.rip);
			}
		}
		if (d->host->signal_stop(d->s, ts, stop))
			return RW_USER;
		break;
	}
	default:
		if (d->host->end_stop(d->s, ts, stop))
			return RW_USER;
		break;
	}
	/* a new thread of an 'all' trace is traced from its first instruction */
	if (!th && d->trace->all && !dbg_trace_excluded(d->trace, ts->tid) &&
	    target_thread_stopped(d->proc, ts->tid)) {
		struct ptdb_err err;

		if (d->host->trace_adopt(d->s, ts->tid, &err) < 0) {
			d->host->trace_over_limit(d->s, ts->tid, stop);
			return RW_USER;
		}
		return EV_GO_ON;
	}
	/* it goes on running (untraced), or, traced, is stepped */
	if (target_thread_stopped(d->proc, ts->tid) && (!th || !th->tracing || dbg_traced(th)->sw.parked_at))
		target_thread_cont(d->proc, ts->tid, NULL);
	return EV_GO_ON;
}
int dbg_swc_arrived(struct dbg_tracee *d, pid_t t, uint64_t next, uint64_t rsp,
		    const struct dbg_run_req *rq, struct dbg_stop *stop)
{
	if (d->host->bp_hit(d->s, t, next, &stop->bp_id, &stop->loc_id)) {
		stop->reason = DBG_R_BREAKPOINT;
		stop->tid = t;
		return RW_USER;
	}
	if (dbg_goal_reached(rq, t, next, rsp)) {
		stop->tid = t;
		return RW_GOAL;
	}
	if (next == *d->load_bp)
		d->host->refresh_modules(d->s);
	return EV_GO_ON;
}

/* Everything traced is in a system call: waits for someone, running, so
 * that an interrupt stops the process and the wait returns with its
 * SIGSTOP.  Nothing runs and nothing can step: the process runs
 * natively. */
static int wait_any(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		    struct ptdb_err *err)
{
	struct target_stop ts;
	int have;

	*d->running = 1;
	if (*d->interrupt_requested)
		target_interrupt(d->proc);
	have = target_thread_event(d->proc, 1, &ts);
	*d->running = 0;
	if (!have) {
		dbg_swc_hide_end(d);	/* (nothing serves a read natively) */
		return d->host->run_native(d->s, rq, stop, err);
	}
	return dbg_swc_event(d, &ts, rq, stop);
}

/* Does delivering sig to thread t run a handler?  Not when the program
 * ignores it or leaves it to its default action (SIGCHLD, SIGWINCH...):
 * the step that delivers it then runs the instruction at pc. */
static int signal_caught(struct dbg_tracee *d, pid_t t, int sig)
{
	struct target_sigsets s;

	if (target_thread_sigsets(d->pid, t, &s) < 0)
		return 1;
	return sig < 1 || sig > 64 || ((s.caught >> (sig - 1)) & 1);
}

/* Does sig do nothing to thread t: ignored, or not caught and ignored by
 * default (SIGCHLD, SIGURG, SIGWINCH)?  The kernel drops it then. */
static int signal_does_nothing(struct dbg_tracee *d, pid_t t, int sig)
{
	struct target_sigsets s;
	uint64_t bit = sig >= 1 && sig <= 64 ? 1ull << (sig - 1) : 0;

	if (!bit || target_thread_sigsets(d->pid, t, &s) < 0 || (s.caught & bit))
		return 0;
	return (s.ignored & bit) || sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH;
}

/* One instruction of th by a single step (in, when have, is the
 * instruction at pc; sig a signal it is about to take). */
static int step_one(struct dbg_tracee *d, struct trace_swc_thread *th, const struct disasm_insn *in,
		    int have, int sig, const struct dbg_run_req *rq, struct dbg_stop *stop,
		    struct ptdb_err *err)
{
	struct user_regs_struct r;
	struct target_stop ts;
	pid_t t = th->tid;
	int rr;

	/* a signal nothing catches is dropped by the step, which then runs
	 * the instruction (known before: that instruction may be the
	 * sigaction that changes it) */
	if (sig && !signal_caught(d, t, sig))
		sig = 0;
	*d->running = 1;
	if (*d->interrupt_requested)
		target_interrupt(d->proc);
	rr = target_thread_step(d->proc, t, &ts, err);
	*d->running = 0;
	if (rr < 0)
		return -1;
	th = d->host->trace_find(d->s, t);	/* the table may have moved */
	if (th)
		dbg_traced(th)->sw.traps++;
	if (ts.tid != t || !th)
		return dbg_swc_event(d, &ts, rq, stop);
	stop->tid = t;
	switch (ts.kind) {
	case TARGET_STOP_STEP:
	case TARGET_STOP_BREAKPOINT:
		if (target_get_regs(d->proc, t, &r, err) < 0)
			return -1;
		/* a step that delivered a signal ran no instruction: the
		 * thread is at its handler */
		if (!sig && have)
			trace_swc_executed(th, in, r.rip);
		if (rq->step_tid)
			return RW_STEPPED;
		return dbg_swc_arrived(d, t, r.rip, r.rsp, rq, stop);
	case TARGET_STOP_SIGNAL:
		/* a read of code the engine hides: served (and recorded) */
		if (dbg_swc_hide_fault(d, th, &ts, &ts)) {
			if (ts.tid == t && (ts.kind == TARGET_STOP_STEP || ts.kind == TARGET_STOP_BREAKPOINT) &&
			    (th = d->host->trace_find(d->s, t)) && target_get_regs(d->proc, t, &r, err) == 0)
				return rq->step_tid ? RW_STEPPED : dbg_swc_arrived(d, t, r.rip, r.rsp, rq, stop);
			if (ts.tid != t || ts.kind != TARGET_STOP_SIGNAL)
				return dbg_swc_event(d, &ts, rq, stop);
		}
		/* the instruction at pc did not execute (a fault) or the
		 * signal arrived before it: an asynchronous stop; but a
		 * system call that unblocked a pending signal did run */
		if (target_get_regs(d->proc, t, &r, NULL) == 0) {
			if (!sig && have && in->kind == DISASM_KIND_SYSCALL && r.rip != in->addr)
				trace_swc_executed(th, in, r.rip);
			trace_swc_pause(th, r.rip);
		}
		/* fall through */
	default:
		return dbg_swc_event(d, &ts, rq, stop);
	}
}

/* Is the system call about to run (registers r) a vfork, or a clone that
 * makes a process sharing this memory (posix_spawn's)?  Its child, not
 * traced, runs in this memory: a breakpoint of the collector's there
 * would trap in it and kill it. */
static int child_shares_memory(struct dbg_tracee *d, const struct user_regs_struct *r)
{
	uint64_t flags = r->rdi;

	if (r->rax == 58)	/* vfork */
		return 1;
	if (r->rax == 435 && target_read_mem(d->proc, r->rdi, &flags, 8, NULL) < 0)	/* clone3 */
		return 0;
	if (r->rax != 56 && r->rax != 435)
		return 0;
	return (flags & 0x100) && !(flags & 0x10000);	/* CLONE_VM, not CLONE_THREAD */
}

/* Thread t is stopped inside a system call the kernel restarts when it
 * resumes with no signal to deliver (a Ctrl-C, another thread's stop or
 * a signal ptdb does not pass interrupted it: rax -ERESTARTSYS,
 * -ERESTARTNOINTR, -ERESTARTNOHAND or -ERESTART_RESTARTBLOCK, orig_rax
 * the call).  Its pc, past the SYSCALL, is not where it goes on: the
 * restart is made here as the kernel makes it (pc back to the SYSCALL,
 * rax the call again, or restart_syscall), orig_rax -1 so the kernel
 * does not make it twice.  The engines then see the instruction that
 * really runs next (a cache run entered at the old pc crashed when the
 * kernel moved it 2 bytes back into the cache).  1: restarted. */
static int restart_interrupted(struct dbg_tracee *d, pid_t t, struct user_regs_struct *r, struct ptdb_err *err)
{
	long e = (long)r->rax;

	if ((long)r->orig_rax < 0 || (e != -512 && e != -513 && e != -514 && e != -516))
		return 0;
	r->rax = e == -516 ? 219 /* restart_syscall */ : r->orig_rax;
	r->rip -= 2;
	r->orig_rax = (uint64_t)-1;
	return target_set_regs(d->proc, t, r, err) < 0 ? -1 : 1;
}

/* One turn of th: a system call that may block is parked; else the
 * engine runs it (the cache engine, the ptrace engine's blocks) or, when
 * neither can, one instruction is single-stepped. */
static int turn(struct dbg_tracee *d, struct trace_swc_thread *th, const struct dbg_run_req *rq,
		struct dbg_stop *stop, struct ptdb_err *err)
{
	const struct dbg_trace_opts *o = &d->trace->opts;
	struct user_regs_struct r;
	struct disasm_insn in;
	pid_t t = th->tid;
	int have, sig, rr, engines, vm_child, held;
	struct dbg_swc_call call;

	if (target_get_regs(d->proc, t, &r, err) < 0)
		return -1;
	sig = target_pending_signal(d->proc, t);
	/* (one that does nothing is dropped here, as the kernel would:
	 * delivered by a step, from inside a system call it interrupted,
	 * it let the kernel restart the call, and the step ended only
	 * with it: never, for a wait on a thread stopped meanwhile) */
	if (sig && signal_does_nothing(d, t, sig)) {
		target_set_pending_signal(d->proc, t, 0);
		sig = 0;
	}
	if (!sig && restart_interrupted(d, t, &r, err) < 0)
		return -1;
	have = d->host->insn_at(d->s, r.rip, &in) == 0;
	if (have)	/* (its code kept: the code as it ran) */
		dbg_code_pages_insn(d, th, &in, r.rip);
	held = sig;
	sig = dbg_swc_pace_timer(d, th, r.rip, sig, have && in.kind == DISASM_KIND_SYSCALL &&
				 !trace_syscall_returns_at_once(r.rax, r.rsi));
	/* (a tick held that interrupted a system call: the thread resumes
	 * without it, and the call restarts; the cache engine, entered past
	 * the SYSCALL, had the kernel move its pc 2 bytes back into the
	 * cache: SIGILL) */
	held = held && !sig ? restart_interrupted(d, t, &r, err) : 0;
	if (held < 0)
		return -1;
	if (held)
		have = d->host->insn_at(d->s, r.rip, &in) == 0;
	/* (a held one blocked while th runs: its next ticks do not stop
	 * it; its mask its own at a delivery, or a call that passes it on) */
	dbg_swc_timer_mask(d, th, sig, have ? &in : NULL, &r);
	if (!sig)
		trace_swc_resume(th, r.rip);
	engines = !sig && have && !rq->step_tid && !o->single_step;
	if (!sig && have)
		dbg_swc_hide_step(d, t, &in);
	if (!sig && have && in.kind == DISASM_KIND_SYSCALL) {
		dbg_code_pages_syscall(d, &r);
		dbg_swc_hide_syscall(d, t, &r);
		dbg_swc_code_syscall(d, &r);
		if (o->engine == DBG_ENGINE_CACHE)
			dbg_swc_cache_syscall(d, t, &r);
	}
	/* a system call that may block runs on its own; one that
	 * returns at once is stepped (see trace_syscall_returns_at_once) */
	if (!sig && have && in.kind == DISASM_KIND_SYSCALL && !rq->step_tid &&
	    !trace_syscall_returns_at_once(r.rax, r.rsi)) {
		trace_swc_syscall(th, &in);
		dbg_traced(th)->sw.parked_at = r.rip + in.len;
		/* its turn ends here, back by the next pick or not */
		dbg_swc(d)->rr++;
		dbg_swc(d)->quantum = DBG_TRACE_QUANTUM;
		return park(d, th, err) < 0 ? -1 : EV_GO_ON;
	}
	/* (the ptrace engine's breakpoints out of its way: planted again
	 * as its blocks need them; a child that runs beside the process,
	 * not vfork's, holds them back while it lives) */
	vm_child = 0;
	if (!sig && have && in.kind == DISASM_KIND_SYSCALL && child_shares_memory(d, &r)) {
		dbg_swc_unplant_sticky(d);
		vm_child = r.rax != 58 && !(r.rax == 56 && (r.rdi & 0x4000)) && r.rax != 435;
		if (r.rax == 435) {	/* clone3: flags in its struct */
			uint64_t fl = 0;

			vm_child = target_read_mem(d->proc, r.rdi, &fl, 8, NULL) == 0 && !(fl & 0x4000);
		}
	}
	rr = EV_OFF;
	if (engines && o->engine == DBG_ENGINE_CACHE) {
		rr = dbg_swc_cache_step(d, th, &r, rq, stop, err);
		if (rr != EV_NOTHING && rr != EV_OFF)
			return rr;
		if (rr == EV_NOTHING)
			dbg_swc_cache_count_fallback(d);
	}
	if (rr == EV_OFF && engines && dbg_swc_runs_in_block(&in)) {
		rr = dbg_swc_run_block(d, th, &r, rq, stop, err);
		if (rr != EV_NOTHING)
			return rr;
	}
	dbg_swc_timer_call(d, th, have ? &in : NULL, &r, &call);
	rr = step_one(d, th, &in, have, sig, rq, stop, err);
	dbg_swc_timer_called(d, th, &call);
	if (vm_child && target_get_regs(d->proc, t, &r, NULL) == 0 && r.rip == in.addr + in.len && (long)r.rax > 0)
		dbg_swc_vm_child(d, (pid_t)r.rax);
	return rr;
}

static int collect(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	if (!rq->step_tid)
		run_untraced(d);
	for (int i = 0; i < d->trace->nth; i++)
		if (dbg_traced(d->trace->th[i])->sw.parked_at &&
		    target_thread_index(d->proc, d->trace->th[i]->tid) &&
		    (!rq->step_tid || d->trace->th[i]->tid == rq->step_tid) &&
		    park(d, d->trace->th[i], err) < 0)
			return -1;
	for (;;) {
		struct trace_swc_thread *th;
		struct target_stop ts;
		int rr;

		while (target_thread_event(d->proc, 0, &ts)) {
			rr = dbg_swc_event(d, &ts, rq, stop);
			if (rr != EV_GO_ON)
				return rr;
		}
		while (dbg_swc(d)->ndeferred) {
			ts = dbg_swc(d)->deferred[--dbg_swc(d)->ndeferred];
			rr = dbg_swc_event(d, &ts, rq, stop);
			if (rr != EV_GO_ON)
				return rr;
		}
		if (adopt_new_threads(d, stop))
			return RW_USER;
		d->host->progress_tick(d->s);
		if (*d->interrupt_requested) {
			stop->reason = DBG_R_INTERRUPT;
			stop->tid = *d->sel_tid;
			return RW_USER;
		}
		th = rq->step_tid ? d->host->trace_find(d->s, rq->step_tid) : pick(d);
		if (th && (dbg_traced(th)->sw.parked_at || !target_thread_stopped(d->proc, th->tid)))
			th = NULL;
		rr = th ? turn(d, th, rq, stop, err) : wait_any(d, rq, stop, err);
		if (rr != EV_GO_ON)
			return rr;
	}
}

static int swc_run(struct dbg_tracee *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	struct target_stop ex;
	int rr;

	target_thread_begin(d->proc);
	d->host->progress_begin(d->s);
	rr = collect(d, rq, stop, err);
	if (d->host->alive(d->s)) {
		int died;

		dbg_swc_unhold_timers(d);
		unplant_parks(d);
		died = target_thread_end(d->proc, &ex);
		if (d->trace) {
			dbg_swc_cache_finish(d, died);
			dbg_swc_blocks_end(d);
		}
		if (died) {
			memset(stop, 0, sizeof(*stop));
			dbg_exit_stop(stop, &ex);
			return RW_USER;
		}
	}
	return rr;
}
