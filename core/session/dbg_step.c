/* core/session/dbg_step.c: source-line and instruction stepping, each a
 * run of dbg_run.c's dbg_run_wait (finish and until: dbg_finish.c;
 * continue and the steps a stop interrupted: dbg_plan.c). */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

static void stop_at_calls(struct dbg *d, struct dbg_stop *stop, pid_t tid,
			  enum dbg_reason why, uint64_t pc);

static int is_call(const struct disasm_insn *in)
{
	return in->kind == DISASM_KIND_CALL || in->kind == DISASM_KIND_CALL_IND;
}

/* Steps one instruction of tid; over = run calls to their return.
 * RW_USER (stop filled) or RW_STEPPED. */
int dbg_one_insn(struct dbg *d, pid_t tid, int over, struct dbg_stop *stop,
		    struct ptdb_err *err)
{
	struct user_regs_struct r;
	struct disasm_insn in;

	if (dbg_thread_regs(d, tid, &r, err) < 0)
		return -1;
	if (over && dbg_insn_at(d, r.rip, &in) == 0 && is_call(&in)) {
		struct dbg_goal g = { r.rip + in.len, r.rsp, 0 };
		int rr = dbg_run_to_plan(d, tid, &g, 1, stop, err);

		return rr == RW_GOAL ? RW_STEPPED : rr;
	}
	return dbg_run_wait(d, tid, tid, NULL, 0, stop, err);
}

void dbg_step_done(struct dbg *d, struct dbg_stop *stop, pid_t tid,
		 enum dbg_reason why)
{
	memset(stop, 0, sizeof(*stop));
	stop->reason = why;
	stop->tid = tid;
	dbg_user_stop(d, stop);
}

/* The end of a stepping command: an error, a stop that came first
 * (RW_USER: breakpoint, signal, exit), or the command's own stop. */
int dbg_step_end(struct dbg *d, int rr, struct dbg_stop *stop, pid_t tid,
		      enum dbg_reason why)
{
	if (rr < 0)
		return -1;
	if (rr == RW_USER)
		dbg_user_stop(d, stop);
	else
		dbg_step_done(d, stop, tid, why);
	return 0;
}

int dbg_step_insn(struct dbg *d, int over, struct dbg_stop *stop,
		  struct ptdb_err *err)
{
	pid_t tid = d->sel_tid;

	if (dbg_check_alive(d, err) < 0)
		return -1;
	dbg_interrupt_arm(d);
	return dbg_step_end(d, dbg_one_insn(d, tid, over, stop, err), stop, tid,
			  over ? DBG_R_ISTEP_OVER : DBG_R_ISTEP);
}

struct line_at {
	struct dbg_module *m;
	const char *file;
	unsigned line;
	uint64_t func;
};

static int line_at(struct dbg *d, uint64_t pc, struct line_at *la)
{
	struct sym_loc loc;

	memset(la, 0, sizeof(*la));
	la->m = dbg_module_for(d, pc);
	if (!la->m || sym_lookup_addr(la->m->sym, pc, &loc) < 0 || !loc.file)
		return -1;
	la->file = loc.file;
	la->line = loc.line;
	la->func = loc.func ? loc.func_addr : 0;
	return 0;
}

enum { LC_BACK = 3, LC_IN = 4, LC_ON = 5, LC_BP = 6 };

/* Whether 's' steps over the function at pc: its name without parameters
 * matches target.process.thread.step-avoid-regexp (LLDB's default
 * "^std::" when the setting was never set). */
static int avoid_name(struct dbg *d, const char *fname)
{
	const char *re = d->step_avoid ? d->step_avoid : "^std::";
	char name[1024];
	regex_t rx;
	int hit;

	if (!re[0] || !fname)
		return 0;
	snprintf(name, sizeof(name), "%s", fname);
	name[sym_name_stem_len(name)] = 0;
	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	hit = regexec(&rx, name, 0, NULL, 0) == 0;
	regfree(&rx);
	return hit;
}

static int step_avoided(struct dbg *d, struct dbg_module *m, uint64_t pc)
{
	struct sym_loc loc;

	return sym_lookup_addr(m->sym, pc, &loc) == 0 && avoid_name(d, loc.func);
}

/* 's' into a PLT entry: on to the function it jumps to when that has
 * lines (LLDB's step through a trampoline), found by name in every
 * module; or back after the call.  *r: the registers where it stopped.
 * -1, RW_USER, LC_BACK, or LC_ON (in the function, or no stub: *r
 * updated). */
static int through_stub(struct dbg *d, pid_t tid, struct user_regs_struct *r, uint64_t ret,
			uint64_t call_rsp, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_module *m = dbg_module_for(d, r->rip);
	struct dbg_goal g[8];
	char name[256];
	int ng = 0, rr;

	if (!m || sym_stub_target(m->sym, r->rip, name, sizeof(name)) < 0)
		return LC_ON;
	for (int i = 0; i < d->nmods && ng < 7; i++) {
		uint64_t entry[4];
		int n = d->mods[i].sym ? sym_lookup_exported(d->mods[i].sym, name, entry, 4) : 0;

		for (int k = 0; k < n && ng < 7; k++) {
			struct line_at la;

			if (line_at(d, entry[k], &la) == 0)
				g[ng++] = (struct dbg_goal){ entry[k], 0, 0 };
		}
	}
	if (!ng)
		return LC_ON;
	g[ng++] = (struct dbg_goal){ ret, call_rsp, 0 };
	rr = dbg_run_to_plan(d, tid, g, ng, stop, err);

	if (rr < 0 || rr == RW_USER)
		return rr;
	if (dbg_thread_regs(d, tid, r, err) < 0)
		return -1;
	return r->rip == ret ? LC_BACK : LC_ON;
}

/* 'n' or 's' at a call instruction (*r0, in): runs the call.  -1 or
 * RW_USER (stop filled) as run_wait; LC_IN: 's' stopped in the callee,
 * after its prologue (it has lines); LC_BP: it did, at a breakpoint
 * there (stop filled, as lldb-16's step in completes there); LC_BACK:
 * back after the call. */
static int line_call(struct dbg *d, pid_t tid, int into, const struct user_regs_struct *r0,
		     const struct disasm_insn *in, struct dbg_stop *stop, struct ptdb_err *err)
{
	uint64_t ret = r0->rip + in->len, call_rsp = r0->rsp;
	struct user_regs_struct r;
	struct line_at now;
	int rr;

	rr = dbg_run_wait(d, tid, tid, NULL, 0, stop, err);
	if (rr < 0 || rr == RW_USER)
		return rr;
	if (dbg_thread_regs(d, tid, &r, err) < 0)
		return -1;
	{
		unsigned id, loc;

		if (dbg_bp_hit(d, tid, r.rip, &id, &loc)) {
			/* a breakpoint where the call lands (an -O2 function's
			 * entry): it stops 'n' and 's' there, as in lldb-16 */
			memset(stop, 0, sizeof(*stop));
			stop->reason = DBG_R_BREAKPOINT;
			stop->tid = tid;
			stop->bp_id = id;
			stop->loc_id = loc;
			return RW_USER;
		}
	}
	if (into && line_at(d, r.rip, &now) < 0) {
		rr = through_stub(d, tid, &r, ret, call_rsp, stop, err);
		if (rr < 0 || rr == RW_USER)
			return rr;
		if (rr == LC_BACK)
			return LC_BACK;
	}
	if (into && line_at(d, r.rip, &now) == 0 && step_avoided(d, now.m, r.rip)) {
		/* LLDB's step-avoid-regexp: as if it had no lines */
		struct dbg_goal g = { ret, call_rsp, 0 };

		rr = dbg_run_to_plan(d, tid, &g, 1, stop, err);
		return rr < 0 || rr == RW_USER ? rr : LC_BACK;
	}
	if (into && line_at(d, r.rip, &now) == 0) {
		uint64_t ap = sym_func_after_prologue(now.m->sym, r.rip);

		if (ap && ap != r.rip) {
			struct dbg_goal g = { ap, 0, 0 };

			rr = dbg_run_to(d, tid, &g, 1, stop, err);
			if (rr == RW_USER && stop->reason == DBG_R_BREAKPOINT && stop->tid == tid &&
			    dbg_thread_regs(d, tid, &r, err) == 0 && r.rip == ap)
				return LC_BP;	/* a breakpoint where 's' stops: its
						 * stop, and the step's end */
			if (rr < 0 || rr == RW_USER)
				return rr;
		}
		return LC_IN;
	}
	if (r.rip != ret) {
		struct dbg_goal g = { ret, call_rsp, 0 };

		rr = dbg_run_to_plan(d, tid, &g, 1, stop, err);
		if (rr < 0 || rr == RW_USER)
			return rr;
	}
	return LC_BACK;
}

/* LLDB's frame 0 at a stop: the concrete function, the inlined calls it
 * shows (outermost first; those starting at pc hidden, as a step's stop
 * hides them), its file and line (a hidden call's call site). */
struct frame0 {
	struct dbg_module *m;
	uint64_t func;
	const char *file;
	unsigned line;
	int hidden, nvis;
	struct sym_inline vis[DBG_MAX_INLINE];
};

/* hide < 0: LLDB's rule after a step (the innermost calls whose range
 * starts at pc); else that many.  -1 without line information. */
static int frame0_at(struct dbg *d, uint64_t pc, int hide, struct frame0 *f)
{
	struct sym_inline inl[DBG_MAX_INLINE];
	struct sym_loc loc;
	int ni;

	memset(f, 0, sizeof(*f));
	f->m = dbg_module_for(d, pc);
	if (!f->m || sym_lookup_addr(f->m->sym, pc, &loc) < 0 || !loc.file)
		return -1;
	ni = sym_inlines_at(f->m->sym, pc, inl, DBG_MAX_INLINE);
	if (hide < 0)
		for (hide = 0; hide < ni && inl[hide].lo == pc; hide++)
			;
	f->hidden = hide < ni ? hide : ni;
	f->nvis = ni - f->hidden;
	for (int k = 0; k < f->nvis; k++)
		f->vis[k] = inl[ni - 1 - k];
	f->func = loc.func ? loc.func_addr : 0;
	f->file = loc.file;
	f->line = loc.line;
	if (f->hidden) {
		f->file = inl[f->hidden - 1].call_file;
		f->line = inl[f->hidden - 1].call_line;
	}
	return 0;
}

static int same_call(const struct sym_inline *a, const struct sym_inline *b)
{
	return a->name == b->name && a->call_line == b->call_line &&
	       a->call_col == b->call_col && a->call_file == b->call_file;
}

/* LLDB's frame comparison of frame 0 with the step's first frame. */
enum { FC_EQUAL, FC_YOUNGER, FC_OLDER, FC_SAME_PARENT, FC_AVOIDED };
static int frame_order(const struct frame0 *st, const struct frame0 *now)
{
	int k = 0;

	if (now->func != st->func || now->m != st->m)
		return FC_OLDER;
	while (k < st->nvis && k < now->nvis && same_call(&st->vis[k], &now->vis[k]))
		k++;
	if (k == st->nvis)
		return now->nvis == k ? FC_EQUAL : FC_YOUNGER;
	if (k == now->nvis)
		return FC_OLDER;
	return k + 1 == st->nvis && k + 1 == now->nvis ? FC_SAME_PARENT : FC_OLDER;
}

/* The address ranges a step runs through (LLDB's step range plan). */
struct step_ranges {
	int n;
	uint64_t lo[32], hi[32];
};

static int in_ranges(const struct step_ranges *rs, uint64_t pc)
{
	for (int i = 0; i < rs->n; i++)
		if (pc >= rs->lo[i] && pc < rs->hi[i])
			return 1;
	return 0;
}

static void add_range(struct step_ranges *rs, uint64_t lo, uint64_t hi)
{
	if (rs->n == 32)	/* the oldest goes */
		memmove(rs->lo, rs->lo + 1, 31 * sizeof(rs->lo[0])),
		memmove(rs->hi, rs->hi + 1, 31 * sizeof(rs->hi[0])), rs->n--;
	rs->lo[rs->n] = lo;
	rs->hi[rs->n++] = hi;
}

/* LLDB's ThreadPlanStepRange::InRange past the ranges: the same line
 * elsewhere, or line 0, joins the step; the middle of another line
 * becomes the step's line.  1: go on. */
static int extend_step(struct step_ranges *rs, struct frame0 *cx, const struct frame0 *now,
		       uint64_t pc, int into)
{
	struct sym_line_entry e;
	uint64_t lo, hi;

	if (!sym_same_file(now->file, cx->file))
		return 0;
	if (now->line == cx->line || now->line == 0) {
		if (sym_step_range(now->m->sym, pc, cx->file, cx->line, !into, &lo, &hi) < 0)
			return 0;
		add_range(rs, lo, hi);
		return 1;
	}
	if (sym_line_entry_at(now->m->sym, pc, &e) < 0 || e.lo == pc)
		return 0;
	cx->line = now->line;
	rs->n = 0;
	add_range(rs, e.lo, e.hi);
	return 1;
}

/* The stop at pc shows frame 0 with the innermost hide inlined calls
 * hidden (their call site as its line). */
static void hide_calls(struct dbg *d, pid_t tid, uint64_t pc, int hide)
{
	if (hide <= 0)
		return;
	d->inl_hide.n = (unsigned)hide;
	d->inl_hide.tid = tid;
	d->inl_hide.pc = pc;
	d->inl_hide.stop_id = target_stop_id(d->proc);
}

static void stop_hidden(struct dbg *d, struct dbg_stop *stop, pid_t tid, enum dbg_reason why,
			uint64_t pc, int hide)
{
	unsigned id, loc;

	if (d->goal_bp.on && d->goal_bp.tid == tid && d->goal_bp.pc == pc) {
		/* it ends at its return, where a breakpoint's hit came:
		 * the step's stop, the breakpoint's commands run */
		dbg_step_done(d, stop, tid, why);
	} else if (dbg_bp_hit(d, tid, pc, &id, &loc)) {
		/* the step ends where a breakpoint is: lldb-16 reports (and
		 * counts) the breakpoint */
		memset(stop, 0, sizeof(*stop));
		stop->reason = DBG_R_BREAKPOINT;
		stop->tid = tid;
		stop->bp_id = id;
		stop->loc_id = loc;
		dbg_user_stop(d, stop);
	} else {
		dbg_step_done(d, stop, tid, why);
	}
	hide_calls(d, tid, pc, hide);
}

/* A step or finish that ended at pc (its own stop, not a breakpoint's):
 * the inlined calls whose ranges start there hidden, as lldb-16 shows
 * any stop of a thread plan; e.g. a return into the first instruction of
 * an inlined call stops at that call's call site, and 'n' from there
 * steps over the call. */
static void stop_at_calls(struct dbg *d, struct dbg_stop *stop, pid_t tid,
			  enum dbg_reason why, uint64_t pc)
{
	struct frame0 f;

	dbg_step_done(d, stop, tid, why);
	if (frame0_at(d, pc, -1, &f) == 0)
		hide_calls(d, tid, pc, f.hidden);
}

void dbg_step_out_stop(struct dbg *d, struct dbg_stop *stop, pid_t tid, uint64_t pc)
{
	stop_at_calls(d, stop, tid, DBG_R_STEP_OUT, pc);
	stop->out_done = 1;
}

/* Whether frame 0 (now) is still inside what a step runs out of. */
typedef int (*inside_fn)(const struct frame0 *now, const void *ctx);

/* Over calls, one instruction at a time, while frame 0 is inside (frame
 * 0 without line information is not), as LLDB steps out of an inlined
 * frame (through the ranges of its block).  RW_STEPPED (r: there),
 * RW_USER or -1. */
static int step_while(struct dbg *d, pid_t tid, inside_fn inside, const void *ctx,
		      struct user_regs_struct *r, struct dbg_stop *stop, struct ptdb_err *err)
{
	struct frame0 now;

	for (;;) {
		int rr;

		if (d->interrupt_requested)
			return RW_STEPPED;
		rr = dbg_one_insn(d, tid, 1, stop, err);
		if (rr != RW_STEPPED)
			return rr;
		if (dbg_thread_regs(d, tid, r, err) < 0)
			return -1;
		if (frame0_at(d, r->rip, 0, &now) < 0 || !inside(&now, ctx))
			return RW_STEPPED;
	}
}

/* 'n' past an inlined call it entered in its middle: out of it (and the
 * calls in it) while frame 0 is younger than the step's first frame. */
static int younger_than(const struct frame0 *now, const void *st)
{
	return frame_order(st, now) == FC_YOUNGER;
}

/* 's' out of an avoided inlined call (frame 0 of f): while frame 0 is in
 * that call of f's function. */
static int within_call(const struct frame0 *now, const void *ctx)
{
	const struct frame0 *f = ctx;
	int k = f->nvis - 1;

	return now->m == f->m && now->func == f->func && now->nvis > k &&
	       same_call(&now->vis[k], &f->vis[k]);
}

/* Whether frame 0 of f (its innermost visible call) is an inlined call
 * that 's' steps out of: step-avoid-regexp names it, as LLDB checks an
 * inlined frame as it checks a function. */
static int avoided_inline(struct dbg *d, const struct frame0 *f)
{
	return f->nvis > 0 && avoid_name(d, f->vis[f->nvis - 1].name);
}

/* 's' at pc where hidden inlined calls start: into the outermost hidden
 * one, nothing runs (LLDB's virtual step); or, when step-avoid-regexp
 * names it, out of it, and on out of each avoided call frame 0 then
 * is, and stop there (LLDB's virtual step plan asks only whether to
 * stop where its step out ended). */
static int virtual_step(struct dbg *d, pid_t tid, int hidden, struct user_regs_struct *r,
			struct dbg_stop *stop, struct ptdb_err *err)
{
	struct frame0 f;
	int rr;

	if (frame0_at(d, r->rip, hidden - 1, &f) < 0 || !avoided_inline(d, &f)) {
		unsigned left = d->inl_hide.n - 1;

		dbg_step_done(d, stop, tid, DBG_R_STEP_IN);
		d->inl_hide.n = left;
		d->inl_hide.stop_id = target_stop_id(d->proc);
		return 0;
	}
	do {
		rr = step_while(d, tid, within_call, &f, r, stop, err);
		if (rr < 0)
			return -1;
		if (rr == RW_USER) {
			dbg_user_stop(d, stop);
			return 0;
		}
		if (frame0_at(d, r->rip, -1, &f) < 0)
			break;
	} while (avoided_inline(d, &f) && !d->interrupt_requested);
	if (d->interrupt_requested)
		dbg_step_done(d, stop, tid, DBG_R_INTERRUPT);
	else
		stop_at_calls(d, stop, tid, DBG_R_STEP_IN, r->rip);
	return 0;
}

/* A line step's state, as LLDB's step range plan keeps it: a step a
 * stop interrupted stays with it (dbg_plan.c) and goes on from there. */
struct dbg_step_plan {
	int into;
	uint64_t cfa;		/* its frame's canonical frame address */
	struct frame0 st, cx;
	struct step_ranges rs;
};

/* The canonical frame address of tid's frame 0 (its caller's stack
 * pointer), UINT64_MAX in the outermost frame. */
static uint64_t frame_cfa(struct dbg *d, pid_t tid)
{
	struct dbg_frame fr[2 + DBG_MAX_INLINE];
	int n = dbg_frames(d, tid, fr, 2 + DBG_MAX_INLINE, NULL);

	for (int i = 1; i < n; i++)
		if (!fr[i].virt)
			return fr[i].rsp;
	return UINT64_MAX;
}

/* A stop that came before a step's own (reported): 1 when the step
 * stays (a breakpoint, signal or watchpoint, as LLDB's plan stays on the
 * thread's stack), 0 when it ends with it. */
static int interrupted(struct dbg *d, struct dbg_stop *stop)
{
	dbg_user_stop(d, stop);
	return stop->reason != DBG_R_EXITED && stop->reason != DBG_R_EXEC &&
	       stop->reason != DBG_R_INTERRUPT && dbg_alive(d);
}

/* The stepping of plan p by tid (r: its registers) until its stop.
 * fresh: from the step's start; else from where tid is, as the plan
 * judges a stop.  0: the step stopped (reported); 1: another stop came
 * first (reported), the plan stays; -1. */
static int step_loop(struct dbg *d, pid_t tid, struct dbg_step_plan *p, int fresh,
		     struct user_regs_struct *r, struct dbg_stop *stop, struct ptdb_err *err)
{
	int into = p->into, rr, have = 0, order;
	enum dbg_reason why = into ? DBG_R_STEP_IN : DBG_R_STEP_OVER;
	struct frame0 now, deep;
	struct disasm_insn in;

	if (!fresh)
		goto again;
	for (;;) {
		have = dbg_insn_at(d, r->rip, &in) == 0;
		if (d->interrupt_requested) {
			dbg_step_done(d, stop, tid, DBG_R_INTERRUPT);
			return 0;
		}
		if (have && is_call(&in)) {
			rr = line_call(d, tid, into, r, &in, stop, err);
			if (rr == LC_BP) {
				dbg_user_stop(d, stop);
				return 0;
			}
			if (rr == LC_IN) {
				/* in the callee: the inlined calls starting
				 * here hidden, as after any step */
				if (dbg_thread_regs(d, tid, r, err) < 0)
					return -1;
				stop_hidden(d, stop, tid, why, r->rip,
					    frame0_at(d, r->rip, -1, &now) < 0 ? 0 : now.hidden);
				return 0;
			}
		} else {
			rr = dbg_run_wait(d, tid, tid, NULL, 0, stop, err);
		}
		if (rr < 0)
			return -1;
		if (rr == RW_USER)
			goto user;
		if (dbg_thread_regs(d, tid, r, err) < 0)
			return -1;
again:
		if (in_ranges(&p->rs, r->rip))
			continue;
		if (have && in.kind == DISASM_KIND_RET) {
			/* back in the caller: stop there */
			stop_at_calls(d, stop, tid, why, r->rip);
			return 0;
		}
		if (frame0_at(d, r->rip, -1, &now) < 0)
			break;	/* code without line information */
		order = frame_order(&p->st, &now);
		if (order == FC_YOUNGER && into && frame0_at(d, r->rip, 0, &deep) == 0 &&
		    avoided_inline(d, &deep))
			order = FC_AVOIDED;
		if (order == FC_AVOIDED || (order == FC_YOUNGER && !into)) {
			rr = order == FC_AVOIDED ? step_while(d, tid, within_call, &deep, r, stop, err)
						 : step_while(d, tid, younger_than, &p->st, r, stop, err);
			goto stepped_out;
		}
		if (order == FC_YOUNGER || order == FC_OLDER || (into && order == FC_SAME_PARENT)) {
			if (now.line == 0)
				continue;	/* LLDB never stops at line 0 */
			stop_hidden(d, stop, tid, why, r->rip, order == FC_YOUNGER ? 0 : now.hidden);
			return 0;
		}
		if (extend_step(&p->rs, &p->cx, &now, r->rip, into)) {
			if (into && now.hidden && now.line == p->cx.line) {
				/* into the inlined call starting here (LLDB's
				 * virtual step), or out of it when avoided */
				if (frame0_at(d, r->rip, now.hidden - 1, &now) == 0 &&
				    avoided_inline(d, &now)) {
					rr = step_while(d, tid, within_call, &now, r, stop, err);
					goto stepped_out;
				}
				stop_hidden(d, stop, tid, why, r->rip, now.hidden);
				return 0;
			}
			continue;
		}
		if (!into && now.line == 0)
			continue;
		stop_hidden(d, stop, tid, why, r->rip, now.hidden);
		return 0;
stepped_out:	/* out of an inlined call (step_while): judged from there */
		if (rr < 0)
			return -1;
		if (rr == RW_USER)
			goto user;
		have = 0;
		goto again;
	}
	dbg_step_done(d, stop, tid, why);
	return 0;
user:
	return interrupted(d, stop);
}

int dbg_step_line(struct dbg *d, int into, struct dbg_stop *stop,
		  struct ptdb_err *err)
{
	enum dbg_reason why = into ? DBG_R_STEP_IN : DBG_R_STEP_OVER;
	pid_t tid = d->sel_tid;
	struct user_regs_struct r;
	struct dbg_step_plan p = { .into = into };
	uint64_t lo, hi;
	int rr, hidden;

	if (dbg_check_alive(d, err) < 0)
		return -1;
	dbg_interrupt_arm(d);
	if (dbg_thread_regs(d, tid, &r, err) < 0)
		return -1;
	hidden = dbg_inline_hidden(d, tid, r.rip);
	if (into && hidden > 0)
		return virtual_step(d, tid, hidden, &r, stop, err);
	if (frame0_at(d, r.rip, hidden, &p.st) < 0 ||
	    sym_step_range(p.st.m->sym, r.rip, p.st.file, p.st.line, !into, &lo, &hi) < 0) {
		/* no line information: one instruction, 'n' over calls and
		 * 's' into them, as lldb-16 steps such a frame */
		return dbg_step_end(d, dbg_one_insn(d, tid, !into, stop, err), stop, tid, why);
	}
	p.cx = p.st;
	p.cfa = frame_cfa(d, tid);
	add_range(&p.rs, lo, hi);
	rr = step_loop(d, tid, &p, 1, &r, stop, err);
	if (rr == 1)
		dbg_plan_push_step(d, tid, &p, sizeof(p));
	return rr < 0 ? -1 : 0;
}

enum dbg_reason dbg_step_plan_reason(const struct dbg_step_plan *p)
{
	return p->into ? DBG_R_STEP_IN : DBG_R_STEP_OVER;
}

/* LLDB's IsPlanStale of a step range plan: its frame returned, or tid is
 * back in it outside the step's lines (the same line elsewhere, line 0
 * and the middle of another line joining them, as stepping joins them). */
int dbg_step_plan_stale(struct dbg *d, pid_t tid, struct dbg_step_plan *p)
{
	struct user_regs_struct r;
	struct frame0 now;
	uint64_t cfa;

	if (dbg_thread_regs(d, tid, &r, NULL) < 0 || r.rsp >= p->cfa)
		return 1;
	cfa = frame_cfa(d, tid);
	if (cfa != p->cfa)
		return cfa > p->cfa;	/* a younger frame: not yet */
	if (in_ranges(&p->rs, r.rip))
		return 0;
	return frame0_at(d, r.rip, -1, &now) < 0 ||
	       !extend_step(&p->rs, &p->cx, &now, r.rip, p->into);
}

/* A continue of tid whose newest plan is the step p a stop interrupted:
 * back to the step's frame (over what it called, as LLDB's step plan
 * steps out of a younger frame; 's' stops at the first instruction of
 * one with lines, as LLDB's step in does) and on with the step there.
 * As step_loop. */
int dbg_step_resume(struct dbg *d, pid_t tid, struct dbg_step_plan *p,
		    struct dbg_stop *stop, struct ptdb_err *err)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct user_regs_struct r;
	struct frame0 now;
	int n, k, j;

	if (dbg_thread_regs(d, tid, &r, err) < 0)
		return -1;
	if (frame_cfa(d, tid) >= p->cfa)
		return step_loop(d, tid, p, 0, &r, stop, err);
	if (p->into && frame0_at(d, r.rip, -1, &now) == 0)
		return step_loop(d, tid, p, 1, &r, stop, err);
	n = dbg_frames(d, tid, fr, DBG_MAX_FRAMES, err);
	if (n < 0)
		return -1;
	/* the step's frame (j): the one whose caller's stack pointer is
	 * its canonical frame address */
	for (k = 1, j = 0; k < n; k++)
		if (!fr[k].virt) {
			if (fr[k].rsp == p->cfa)
				break;
			j = k;
		}
	if (k < n && j > 0) {
		struct dbg_goal g = { fr[j].pc, fr[j].rsp, 0 };
		int rr = dbg_run_to_plan(d, tid, &g, 1, stop, err);

		if (rr < 0)
			return -1;
		if (rr == RW_USER)
			return interrupted(d, stop);
		if (dbg_thread_regs(d, tid, &r, err) < 0)
			return -1;
	}
	return step_loop(d, tid, p, 0, &r, stop, err);
}
