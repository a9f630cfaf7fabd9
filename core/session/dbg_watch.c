/* core/session/dbg_watch.c: watchpoints — their table, the x86 debug registers
 * where the machine delivers their traps, and otherwise exact software
 * checking: every thread runs one instruction at a time and the memory
 * each instruction is about to access decides whether it hits. */
#include "core/session/watch.h"
#include "core/session/dbg_int.h"
#include "core/data/value.h"
#include "core/collectors/dbg_cache.h"
#include "trace/syscalls.h"

#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { METHOD_UNKNOWN, METHOD_HW, METHOD_SW };

struct dbg_watch {
	struct dbg_watchpoint w[DBG_WATCH_MAX * 4];
	int n;
	unsigned next_id;
	int method;
	/* threads in a blocking system call, running on their own until a
	 * breakpoint at its return address brings them back */
	struct { pid_t tid; uint64_t at; } park[256];
	int npark;
	unsigned rr;
	struct dbg_cache *cc;	/* the code cache between accesses
				 * (core/session/dbg_watch_cache.c) */
};

static struct dbg_watch *watch_of(struct dbg *d)
{
	if (!d->watch) {
		d->watch = xmalloc(sizeof(*d->watch));
		memset(d->watch, 0, sizeof(*d->watch));
		d->watch->next_id = 1;
	}
	return d->watch;
}

static int enabled_count(const struct dbg_watch *ws)
{
	int k = 0;

	for (int i = 0; i < ws->n; i++)
		k += ws->w[i].enabled;
	return k;
}

struct dbg_watchpoint *dbg_watch_add(struct dbg *d, uint64_t addr, unsigned size, int access,
				     const char *spec, const struct sym_type *type,
				     const char *decl, struct ptdb_err *err)
{
	struct dbg_watch *ws = watch_of(d);
	struct dbg_watchpoint *w;

	if (!dbg_alive(d)) {
		ptdb_err_code(err, PTDB_E_NO_PROCESS, "Process must be launched.");
		return NULL;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		ptdb_err_set(err, "watch size of %u is not supported (1, 2, 4 or 8 bytes)", size);
		return NULL;
	}
	if (addr % size) {
		ptdb_err_set(err, "address 0x%" PRIx64 " is not aligned to the watch size %u",
			     addr, size);
		return NULL;
	}
	if (enabled_count(ws) >= DBG_WATCH_MAX || ws->n >= (int)(sizeof(ws->w) / sizeof(ws->w[0]))) {
		ptdb_err_set(err, "all %d hardware watchpoint slots are in use (delete or disable "
			     "one first)", DBG_WATCH_MAX);
		return NULL;
	}
	w = &ws->w[ws->n];
	memset(w, 0, sizeof(*w));
	w->id = ws->next_id;
	w->addr = addr;
	w->size = size;
	w->access = access;
	w->enabled = 1;
	w->spec = spec ? xstrdup(spec) : NULL;
	w->type = type;
	w->decl = decl ? xstrdup(decl) : NULL;
	if (dbg_watch_read(d, w, w->now) < 0) {
		free(w->spec);
		free(w->decl);
		ptdb_err_set(err, "cannot read memory at 0x%" PRIx64, addr);
		return NULL;
	}
	ws->n++;
	ws->next_id++;
	return w;
}

struct dbg_watchpoint *dbg_watch_find(struct dbg *d, unsigned id)
{
	if (!d->watch)
		return NULL;
	for (int i = 0; i < d->watch->n; i++)
		if (d->watch->w[i].id == id)
			return &d->watch->w[i];
	return NULL;
}

struct dbg_watchpoint *dbg_watch_all(struct dbg *d, int *n)
{
	*n = d->watch ? d->watch->n : 0;
	return d->watch ? d->watch->w : NULL;
}

int dbg_watch_delete(struct dbg *d, unsigned id)
{
	struct dbg_watchpoint *w = dbg_watch_find(d, id);
	struct dbg_watch *ws = d->watch;

	if (!w)
		return -1;
	free(w->spec);
	free(w->decl);
	free(w->cond);
	memmove(w, w + 1, (size_t)(&ws->w[ws->n] - (w + 1)) * sizeof(*w));
	ws->n--;
	return 0;
}

int dbg_watch_enable(struct dbg *d, struct dbg_watchpoint *w, int on, struct ptdb_err *err)
{
	if (on && !w->enabled && enabled_count(watch_of(d)) >= DBG_WATCH_MAX)
		return ptdb_err_set(err, "all %d hardware watchpoint slots are in use (delete or "
				    "disable one first)", DBG_WATCH_MAX);
	w->enabled = on;
	return 0;
}

void dbg_watch_set_condition(struct dbg_watchpoint *w, const char *cond)
{
	free(w->cond);
	w->cond = cond && *cond ? xstrdup(cond) : NULL;
}

const char *dbg_watch_method(struct dbg *d)
{
	struct dbg_watch *ws = watch_of(d);

	if (d->no_hw_watch && ws->method == METHOD_HW && dbg_alive(d)) {
		static const struct target_dr_slot none[4];

		target_dr_set(d->proc, none, NULL);	/* single-stepping from now on */
	}
	if (d->no_hw_watch)
		ws->method = METHOD_SW;
	else if (ws->method != METHOD_HW)
		ws->method = target_dr_probe() == 1 ? METHOD_HW : METHOD_SW;
	if (ws->method == METHOD_HW)
		return "hardware";
	return d->watch_by_step ? "software (single-step)" : "software (code cache)";
}

void dbg_watch_cache_counts(struct dbg *d, uint64_t *traps, uint64_t *entries)
{
	dbg_cache_watch_counts(d->watch ? d->watch->cc : NULL, traps, entries);
}

int dbg_watch_read(struct dbg *d, const struct dbg_watchpoint *w, uint8_t *v)
{
	memset(v, 0, 8);
	if (!dbg_alive(d))
		return -1;
	return target_read_mem(d->proc, w->addr, v, w->size, NULL) < 0 ? -1 : 0;
}

void dbg_watch_format(struct dbg *d, const struct dbg_watchpoint *w, const uint8_t *v,
		      char *buf, size_t n)
{
	uint64_t u = 0;
	const struct sym_type *st = w->type ? sym_type_strip(w->type) : NULL;

	/* a pointer: its value alone, as lldb-16 (no string or symbol after) */
	if (w->type && !(st && st->kind == SYM_T_POINTER)) {
		struct value val;

		memset(&val, 0, sizeof(val));
		val.type = w->type;
		val.bytes = (uint8_t *)v;
		val.size = w->size;
		val.in_mem = 1;
		val.addr = w->addr;
		val.in_reg = -1;
		value_brief(&d->env, &val, buf, n);
		return;
	}
	memcpy(&u, v, w->size);
	snprintf(buf, n, "0x%016" PRIx64, u);
}

void dbg_watch_drop_types(struct dbg *d)
{
	for (int i = 0; d->watch && i < d->watch->n; i++)
		d->watch->w[i].type = NULL;
}

void dbg_watch_free(struct dbg *d)
{
	if (!d->watch)
		return;
	for (int i = 0; i < d->watch->n; i++) {
		free(d->watch->w[i].spec);
		free(d->watch->w[i].decl);
		free(d->watch->w[i].cond);
	}
	dbg_cache_free(d->watch->cc);
	free(d->watch);
	d->watch = NULL;
}

/* ---- hits ---- */

/* After an access of kind acc by tid to w: 1 it stops (*stop filled),
 * 0 it does not (a read watchpoint written, a false condition). */
static int hit(struct dbg *d, struct dbg_watchpoint *w, int acc, const uint8_t *old, pid_t tid,
	       struct dbg_stop *stop)
{
	uint8_t now[8];

	if (!(acc & w->access))
		return 0;
	dbg_watch_read(d, w, now);
	if (w->cond) {
		struct ptdb_err why;
		int r = dbg_cond_true(d, w->cond, tid, &why);

		if (r == 0)
			return 0;
		if (r < 0) {
			size_t n = strlen(w->cond) + strlen(why.msg) + 128;

			free(d->stop_error);
			d->stop_error = xmalloc(n);
			snprintf(d->stop_error, n, "stopped due to an error evaluating condition of "
				 "watchpoint %u: \"%s\": %s", w->id, w->cond, why.msg);
		}
	}
	memcpy(w->old, old, 8);
	memcpy(w->now, now, 8);
	w->hits++;
	memset(stop, 0, sizeof(*stop));
	stop->reason = DBG_R_WATCH;
	stop->tid = tid;
	stop->bp_id = w->id;
	return 1;
}

static uint64_t reg_val(const struct user_regs_struct *r, int reg)
{
	if (reg < 0 || reg > DISASM_REG_GS)
		return 0;
	return ((const unsigned long long *)r)[reg];
}

/* The watchpoints the instruction at r->rip is about to touch: for each
 * enabled one, the access kinds (acc[i]) and its value now (old[i]). */
static void sw_before(struct dbg *d, const struct user_regs_struct *r,
		      const struct disasm_insn *in, int *acc, uint8_t (*old)[8])
{
	struct disasm_mem m[8];
	struct dbg_watch *ws = d->watch;
	int n = disasm_mem_access(d->dis, in->bytes, in->len, in->addr, m, 8);

	for (int i = 0; i < ws->n; i++)
		acc[i] = 0;
	for (int k = 0; k < n; k++) {
		uint64_t ea = reg_val(r, m[k].base) + reg_val(r, m[k].index) * (uint64_t)m[k].scale +
			      (uint64_t)m[k].disp;

		if (m[k].seg_fs_gs == DISASM_SEG_FS)
			ea += r->fs_base;
		else if (m[k].seg_fs_gs == DISASM_SEG_GS)
			ea += r->gs_base;
		if (m[k].addr32)
			ea &= 0xffffffffu;
		for (int i = 0; i < ws->n; i++) {
			struct dbg_watchpoint *w = &ws->w[i];

			if (w->enabled && ea < w->addr + w->size && w->addr < ea + m[k].size)
				acc[i] |= m[k].access;
		}
	}
	for (int i = 0; i < ws->n; i++)
		if (acc[i])
			dbg_watch_read(d, &ws->w[i], old[i]);
}

/* ---- software: one instruction at a time ---- */

enum { GO_ON = -3 };

static int parked(struct dbg_watch *ws, pid_t tid)
{
	for (int i = 0; i < ws->npark; i++)
		if (ws->park[i].tid == tid)
			return i;
	return -1;
}

static void unpark(struct dbg *d, int i)
{
	struct dbg_watch *ws = d->watch;

	if (dbg_alive(d) && target_bp_planted(d->proc, ws->park[i].at))
		target_bp_remove(d->proc, ws->park[i].at, NULL);
	ws->park[i] = ws->park[--ws->npark];
}

/* Lets tid run its system call on its own (pc: where it is stopped). */
static int park_run(struct dbg *d, pid_t tid, uint64_t at, uint64_t pc, struct ptdb_err *err)
{
	if (target_bp_insert(d->proc, at, err) < 0)
		return -1;
	if (pc == at || !target_bp_planted(d->proc, pc))
		return target_thread_cont_raw(d->proc, tid, err);
	return target_thread_cont(d->proc, tid, err);
}

/* An event of a thread that ran on its own (or of a new thread). */
static int sw_event(struct dbg *d, const struct target_stop *ts, pid_t tid,
		    const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop)
{
	struct dbg_watch *ws = d->watch;
	int pk = parked(ws, ts->tid);
	struct dbg_run_req q = { 0, tid, goals, ngoals };
	struct user_regs_struct r;

	stop->tid = ts->tid;
	switch (ts->kind) {
	case TARGET_STOP_BREAKPOINT:
		if (pk >= 0 && ws->park[pk].at == ts->addr) {
			unpark(d, pk);	/* back from its system call */
			pk = -1;
		}
		if (dbg_bp_hit(d, ts->tid, ts->addr, &stop->bp_id, &stop->loc_id)) {
			stop->reason = DBG_R_BREAKPOINT;
			return RW_USER;
		}
		if (dbg_goal_at(&q, ts->tid, ts->addr) &&
		    target_get_regs(d->proc, ts->tid, &r, NULL) == 0 &&
		    dbg_goal_reached(&q, ts->tid, ts->addr, r.rsp))
			return RW_GOAL;
		if (ts->addr == d->load_bp)
			dbg_refresh_modules(d);
		break;
	case TARGET_STOP_SIGNAL:
		if (pk >= 0) {
			unpark(d, pk);
			pk = -1;
		}
		if (dbg_signal_stop(d, ts, stop))
			return RW_USER;
		break;
	default:
		if (dbg_end_stop(d, ts, stop))
			return RW_USER;
		break;
	}
	/* a parked thread stopped for something else goes back to its call */
	if (pk >= 0 && target_thread_stopped(d->proc, ts->tid))
		target_thread_cont_raw(d->proc, ts->tid, NULL);
	return GO_ON;
}

/* The next stopped, unparked thread, round robin (step_tid: only it). */
static pid_t sw_pick(struct dbg *d, pid_t step_tid)
{
	struct dbg_watch *ws = d->watch;
	struct target_thread_info *ti = NULL;
	int n, cap = 64;
	pid_t pick = 0;

	if (step_tid)
		return target_thread_stopped(d->proc, step_tid) && parked(ws, step_tid) < 0 ? step_tid : 0;
	for (;;) {
		ti = xrealloc(ti, (size_t)cap * sizeof(*ti));
		n = target_threads(d->proc, ti, cap);
		if (n <= cap)
			break;
		cap = n;
	}
	for (int k = 0; k < n && !pick; k++) {
		pid_t t = ti[(ws->rr + (unsigned)k) % (unsigned)n].tid;

		if (target_thread_stopped(d->proc, t) && parked(ws, t) < 0) {
			ws->rr = (ws->rr + (unsigned)k + 1) % (unsigned)n;
			pick = t;
		}
	}
	free(ti);
	return pick;
}

int dbg_watch_arrive(struct dbg *d, pid_t t, pid_t tid, const struct user_regs_struct *r,
		     const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop)
{
	stop->tid = t;
	if (dbg_bp_hit(d, t, r->rip, &stop->bp_id, &stop->loc_id)) {
		stop->reason = DBG_R_BREAKPOINT;
		return RW_USER;
	}
	if (dbg_goal_reached(&(struct dbg_run_req){ 0, tid, goals, ngoals }, t, r->rip, r->rsp))
		return RW_GOAL;
	if (r->rip == d->load_bp)
		dbg_refresh_modules(d);
	return DBG_WA_ON;
}

/* Steps thread t one instruction and checks it.  GO_ON or a result. */
static int sw_step(struct dbg *d, pid_t t, pid_t step_tid, pid_t tid,
		   const struct dbg_goal *goals, int ngoals, struct dbg_stop *stop,
		   struct ptdb_err *err)
{
	struct dbg_watch *ws = d->watch;
	struct user_regs_struct r;
	struct disasm_insn in;
	struct target_stop ts;
	int acc[DBG_WATCH_MAX * 4] = { 0 }, have, sig, rr;
	uint8_t old[DBG_WATCH_MAX * 4][8];

	if (target_get_regs(d->proc, t, &r, err) < 0)
		return -1;
	sig = target_pending_signal(d->proc, t);
	/* stopped inside a system call (the main thread in join): a step
	 * would block with it, so it runs on its own until the call returns */
	if (!sig && !step_tid && (long)r.orig_rax >= 0 && (long)r.rax < 0 && (long)r.rax >= -4095 &&
	    ws->npark < 256) {
		ws->park[ws->npark].tid = t;
		ws->park[ws->npark++].at = r.rip;
		return park_run(d, t, r.rip, r.rip, err) < 0 ? -1 : GO_ON;
	}
	have = dbg_insn_at(d, r.rip, &in) == 0;
	if (!sig && have && in.kind == DISASM_KIND_SYSCALL && !step_tid &&
	    !trace_syscall_returns_at_once(r.rax, r.rsi) && ws->npark < 256) {
		ws->park[ws->npark].tid = t;
		ws->park[ws->npark++].at = r.rip + in.len;
		return park_run(d, t, r.rip + in.len, r.rip, err) < 0 ? -1 : GO_ON;
	}
	if (have && !sig)
		sw_before(d, &r, &in, acc, old);
	rr = target_thread_step(d->proc, t, &ts, err);
	if (rr < 0)
		return -1;
	if (ts.tid != t || (ts.kind != TARGET_STOP_STEP && ts.kind != TARGET_STOP_BREAKPOINT))
		return sw_event(d, &ts, tid, goals, ngoals, stop);
	for (int i = 0; i < ws->n; i++)
		if (acc[i] && hit(d, &ws->w[i], acc[i], old[i], t, stop))
			return RW_USER;
	if (step_tid)
		return RW_STEPPED;
	if (target_get_regs(d->proc, t, &r, err) < 0)
		return -1;
	rr = dbg_watch_arrive(d, t, tid, &r, goals, ngoals, stop);
	return rr == DBG_WA_ON ? GO_ON : rr;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The single-stepping's progress for the caller's d->tr.progress.fn (a line
 * on the terminal): instructions stepped and their rate, about every
 * DBG_PROGRESS_EVERY seconds (the clock read every 256 steps). */
static void sw_progress(struct dbg *d, uint64_t steps, double t0, double *last)
{
	struct dbg_progress_info in;
	double t;

	if (!d->tr.progress.fn || (steps & 255))
		return;
	t = now_s();
	if (t - *last < DBG_PROGRESS_EVERY)
		return;
	*last = t;
	memset(&in, 0, sizeof(in));
	in.seconds = t - t0;
	in.insns = steps;
	in.rate = in.seconds > 0 ? (double)steps / in.seconds : 0;
	in.watching = 1;
	d->tr.progress.fn(d->tr.progress.ctx, &in);
}

static int sw_loop(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		   int ngoals, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_watch *ws = d->watch;
	double t0 = now_s(), last = t0;
	uint64_t steps = 0;
	struct dbg_cache_wrange rg[DBG_WATCH_MAX * 4];
	int nrg = 0;

	for (int i = 0; i < ws->n; i++)
		if (ws->w[i].enabled)
			rg[nrg++] = (struct dbg_cache_wrange){ ws->w[i].addr, ws->w[i].size, ws->w[i].access };

	/* threads still in the system calls of the last run go on there */
	for (int i = ws->npark - 1; i >= 0; i--) {
		struct user_regs_struct r;

		if (!target_thread_index(d->proc, ws->park[i].tid) ||
		    target_get_regs(d->proc, ws->park[i].tid, &r, NULL) < 0) {
			ws->park[i] = ws->park[--ws->npark];
			continue;
		}
		if ((!step_tid || step_tid == ws->park[i].tid) &&
		    park_run(d, ws->park[i].tid, ws->park[i].at, r.rip, err) < 0)
			return -1;
	}
	for (;;) {
		struct target_stop ts;
		pid_t t;
		int rr;

		while (target_thread_event(d->proc, 0, &ts)) {
			rr = sw_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != GO_ON)
				return rr;
		}
		/* an interrupt (Ctrl-C) comes as the SIGSTOP it sent: a thread
		 * that runs next stops with it, and sw_event reports it */
		t = sw_pick(d, step_tid);
		if (!t) {
			/* everyone is in a system call: wait for one */
			if (!target_thread_event(d->proc, 1, &ts))
				return dbg_run_native(d, &(struct dbg_run_req){ step_tid, tid, goals, ngoals },
						      stop, err);
			rr = sw_event(d, &ts, tid, goals, ngoals, stop);
			if (rr != GO_ON)
				return rr;
			continue;
		}
		/* natively out of the code cache up to what may touch a
		 * watched range (dbg_watch_cache.c), then that one step */
		if (!step_tid) {
			rr = dbg_watch_cache_turn(d, &ws->cc, t, tid, goals, ngoals, rg, nrg, &ts, stop, err);
			if (rr == DBG_WC_NEXT)
				continue;
			if (rr == DBG_WC_EVENT)
				rr = sw_event(d, &ts, tid, goals, ngoals, stop);
			if (rr == GO_ON)
				continue;
			if (rr != DBG_WC_STEP)
				return rr;
		}
		rr = sw_step(d, t, step_tid, tid, goals, ngoals, stop, err);
		if (rr != GO_ON)
			return rr;
		sw_progress(d, ++steps, t0, &last);
	}
}

/* A run that failed (rr < 0) because the process was killed from outside:
 * its exit is the stop.  Still there: its end, if it is on its way out
 * (target_poll_exit); already gone, its end taken on the way by a wait
 * whose caller failed next (the code cache setting itself up as the kill
 * came, then a step on a thread that is no more): that end, not
 * "process is not running".  (Its end that does not come: err says so.) */
static int run_gone(struct dbg *d, struct dbg_stop *stop, int rr, struct ptdb_err *err)
{
	struct target_stop ex;

	if (rr >= 0 || !d->proc ||
	    (dbg_alive(d) ? target_poll_exit(d->proc, &ex, err) : target_end_stop(d->proc, &ex)) <= 0)
		return rr;
	memset(stop, 0, sizeof(*stop));
	dbg_exit_stop(stop, &ex);
	return RW_USER;
}

static int sw_run(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		  int ngoals, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct target_stop ex;
	int rr;

	dbg_replay_leave(d);
	memset(stop, 0, sizeof(*stop));
	target_thread_begin(d->proc);
	/* running for Ctrl-C the whole time, not only during a step: an
	 * interrupt between two steps must not be lost */
	d->running = 1;
	if (d->interrupt_requested)
		target_interrupt(d->proc);
	rr = sw_loop(d, step_tid, tid, goals, ngoals, stop, err);
	d->running = 0;
	if (dbg_alive(d)) {
		for (int i = 0; i < d->watch->npark; i++)
			if (target_bp_planted(d->proc, d->watch->park[i].at))
				target_bp_remove(d->proc, d->watch->park[i].at, NULL);
		if (target_thread_end(d->proc, &ex)) {
			dbg_watch_cache_end(d, d->watch->cc);
			memset(stop, 0, sizeof(*stop));
			dbg_exit_stop(stop, &ex);
			return RW_USER;
		}
	}
	/* a failure may be the process killed from outside: its exit */
	rr = run_gone(d, stop, rr, err);
	dbg_watch_cache_end(d, d->watch->cc);
	if (!dbg_alive(d))
		d->watch->npark = 0;
	return rr;
}

/* ---- hardware: DR0-DR3 ---- */

static int hw_run(struct dbg *d, pid_t step_tid, pid_t tid, const struct dbg_goal *goals,
		  int ngoals, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_watch *ws = d->watch;
	struct target_dr_slot slot[4];
	struct dbg_watchpoint *by_slot[4] = { 0 };
	int k = 0;

	memset(slot, 0, sizeof(slot));
	for (int i = 0; i < ws->n && k < 4; i++)
		if (ws->w[i].enabled) {
			by_slot[k] = &ws->w[i];
			slot[k].enabled = 1;
			slot[k].addr = ws->w[i].addr;
			slot[k].len = ws->w[i].size;
			/* x86 has no read-only watch: reads and writes, writes sorted out */
			slot[k].rw = ws->w[i].access == DBG_WATCH_WRITE ? 1 : 3;
			dbg_watch_read(d, &ws->w[i], ws->w[i].now);
			k++;
		}
	if (target_dr_set(d->proc, slot, err) < 0)
		return run_gone(d, stop, -1, err);
	for (;;) {
		uint64_t dr6 = 0;
		int rr = dbg_run_native(d, &(struct dbg_run_req){ step_tid, tid, goals, ngoals }, stop,
					err);
		/* the thread that stopped; a data breakpoint that fires during
		 * a step or on the way to a goal comes with that stop's trap
		 * (DR6 holds both), so every stop is checked, not only the
		 * TRAP_HWBKPT signal */
		pid_t t = rr == RW_STEPPED ? step_tid : rr == RW_GOAL ? tid : stop->tid;
		int trap = rr == RW_USER && stop->reason == DBG_R_SIGNAL && stop->signo == SIGTRAP &&
			   stop->si_code == 4 /* TRAP_HWBKPT */;

		if (rr < 0)
			return run_gone(d, stop, rr, err);
		if (!t || !dbg_alive(d) || target_dr_get(d->proc, t, 6, &dr6, NULL) < 0 ||
		    !(dr6 & 0xf))
			return rr;
		target_dr_clear_status(d->proc, t);
		if (trap)
			target_set_pending_signal(d->proc, t, 0);
		for (int s = 0; s < 4; s++) {
			struct dbg_watchpoint *w = by_slot[s];
			uint8_t old[8], now[8];
			int acc;

			if (!w || !(dr6 & (1u << s)))
				continue;
			memcpy(old, w->now, 8);
			dbg_watch_read(d, w, now);
			acc = memcmp(old, now, 8) ? DBG_WATCH_WRITE : DBG_WATCH_READ;
			if (w->access == DBG_WATCH_WRITE)
				acc = DBG_WATCH_WRITE;
			memcpy(w->now, now, 8);
			if (hit(d, w, acc, old, t, stop))
				return RW_USER;
		}
		if (!trap)
			return rr;	/* the step or goal it was, no watchpoint stops */
	}
}

int dbg_watch_run(struct dbg *d, const struct dbg_run_req *rq, struct dbg_stop *stop,
		  struct ptdb_err *err)
{
	static const struct target_dr_slot none[4];

	if (!d->watch || !dbg_alive(d))
		return -2;
	if (!enabled_count(d->watch)) {
		if (d->watch->method == METHOD_HW)
			target_dr_set(d->proc, none, NULL);
		d->watch->npark = 0;	/* they run natively now */
		return -2;
	}
	dbg_watch_method(d);
	if (d->watch->method == METHOD_HW)
		return hw_run(d, rq->step_tid, rq->tid, rq->goals, rq->ngoals, stop, err);
	return sw_run(d, rq->step_tid, rq->tid, rq->goals, rq->ngoals, stop, err);
}
