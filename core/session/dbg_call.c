/* core/session/dbg_call.c: calling a function of the stopped process for
 * an expression ("p f(1, 2)"), as LLDB does: in the selected thread, with
 * the SysV ABI as the data classified the arguments (struct
 * dbg_call_args: rdi, rsi, rdx, rcx, r8, r9, xmm0-7, bytes on the stack,
 * space for a MEMORY-class result), returning to an int3 planted at the
 * executable's entry point.  Only that thread runs.  Every register
 * (general and FPU/SSE) is put back afterwards, whether the call returned
 * or crashed (a signal); the user's breakpoints are passed (lldb-16's
 * expressions ignore them); the stack it used lies
 * below the red zone and is left as garbage, as LLDB leaves it. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <sys/user.h>

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/symbols/sym.h"
#include "target/target.h"

static uint64_t return_address(struct dbg *d)
{
	for (int i = 0; i < d->nmods; i++)
		if (d->mods[i].is_exe && d->mods[i].sym && d->mods[i].end)
			return sym_module_entry(d->mods[i].sym);
	return 0;
}

#define CALL_MAX_STACK (64 * 1024)	/* stack arguments, a result in memory */

/* The thread's registers for the call (r from saved, f from fsaved) and
 * the stack below the red zone: [sp] the return address, [sp + 8] the
 * stack arguments (sp + 8 aligned to 16, as after a call), above them the
 * space of a MEMORY-class result (*retp). */
static int place_args(struct dbg *d, struct dbg_call_args *c, uint64_t back,
		      struct user_regs_struct *r, struct user_fpregs_struct *f,
		      uint64_t *retp, struct ptdb_err *err)
{
	static const size_t argreg[6] = {
		offsetof(struct user_regs_struct, rdi), offsetof(struct user_regs_struct, rsi),
		offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rcx),
		offsetof(struct user_regs_struct, r8), offsetof(struct user_regs_struct, r9),
	};
	uint64_t top = (r->rsp - 128 - 256) & ~(uint64_t)15, sp;

	if (c->ngpr > 6 || c->nsse > 8 || c->nstack % 8)
		return ptdb_err_set(err, "bad call arguments (%d, %d, %zu)", c->ngpr, c->nsse,
				    c->nstack);
	if (c->nstack > CALL_MAX_STACK || c->ret_mem > CALL_MAX_STACK)
		return ptdb_err_set(err, "the call's arguments or result are too large (over %d "
				    "bytes on the stack)", CALL_MAX_STACK);
	*retp = 0;
	if (c->ret_mem) {
		top = (top - c->ret_mem) & ~(uint64_t)15;
		*retp = top;
		c->gpr[0] = top;
		if (c->ngpr < 1)
			c->ngpr = 1;
	}
	sp = ((top - c->nstack) & ~(uint64_t)15) - 8;
	if (target_write_mem(d->proc, sp, &back, 8, err) < 0 ||
	    (c->nstack && target_write_mem(d->proc, sp + 8, c->stack, c->nstack, err) < 0))
		return -1;
	for (int i = 0; i < c->ngpr; i++)
		memcpy((char *)r + argreg[i], &c->gpr[i], 8);
	for (int i = 0; i < c->nsse; i++) {
		memset(&f->xmm_space[i * 4], 0, 16);
		memcpy(&f->xmm_space[i * 4], &c->sse[i], 8);
	}
	r->rsp = sp;
	r->rax = (unsigned long long)c->nsse;	/* varargs: vector registers used */
	r->orig_rax = (unsigned long long)-1;	/* no system call to restart */
	return 0;
}

/* The result of a call that came back: rax, rdx, xmm0, xmm1 and a
 * MEMORY-class result's bytes. */
static int take_result(struct dbg *d, pid_t tid, struct dbg_call_args *c, uint64_t retp,
		       struct ptdb_err *err)
{
	struct user_regs_struct r;
	struct user_fpregs_struct f;

	if (target_get_regs(d->proc, tid, &r, err) < 0 ||
	    target_get_fpregs(d->proc, tid, &f, err) < 0)
		return -1;
	c->rax = r.rax;
	c->rdx = r.rdx;
	memcpy(&c->xmm0, &f.xmm_space[0], 8);
	memcpy(&c->xmm1, &f.xmm_space[4], 8);
	if (c->ret_mem && target_read_mem(d->proc, retp, c->ret_buf, c->ret_mem, err) < 0)
		return -1;
	return 0;
}

/* Runs tid until the call comes back to back: 0 with the result in c, or
 * -1 with why not (a crash, a breakpoint, the process exited). */
static int run_call(struct dbg *d, pid_t tid, uint64_t back, struct dbg_call_args *c,
		    uint64_t retp, struct ptdb_err *err)
{
	struct target_stop ts;
	int rc = -1;

	if (target_thread_cont_raw(d->proc, tid, err) < 0)
		return -1;
	for (;;) {
		if (!target_thread_event(d->proc, 1, &ts))
			return ptdb_err_set(err, "the call did not come back");
		if (ts.tid != tid && ts.kind != TARGET_STOP_EXITED &&
		    ts.kind != TARGET_STOP_SIGNALED) {
			if (ts.kind == TARGET_STOP_NONE)
				continue;	/* a thread started or stopped */
			target_thread_requeue(d->proc, &ts);	/* another thread's */
			return ptdb_err_set(err, "another thread stopped during the call");
		}
		if (ts.tid == tid && ts.kind == TARGET_STOP_BREAKPOINT && ts.addr != back) {
			/* a breakpoint of the user's: passed, as lldb-16's
			 * expressions ignore breakpoints by default */
			if (target_thread_cont(d->proc, tid, err) < 0)
				return -1;
			continue;
		}
		break;
	}
	if (ts.kind == TARGET_STOP_BREAKPOINT && ts.addr == back)
		rc = take_result(d, tid, c, retp, err);
	else if (ts.kind == TARGET_STOP_SIGNAL)
		ptdb_err_set(err, "Execution was interrupted, reason: signal SIG%s (fault "
			     "address: 0x%" PRIx64 "): the call crashed; the process has "
			     "been returned to the state before expression evaluation",
			     sigabbrev_np(ts.signo) ? sigabbrev_np(ts.signo) : "?", ts.addr);
	else if (ts.kind == TARGET_STOP_BREAKPOINT)
		ptdb_err_set(err, "the call stopped at a breakpoint at 0x%" PRIx64
			     "; it was abandoned and the thread's registers restored", ts.addr);
	else if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED)
		ptdb_err_set(err, "the process exited during the call");
	else
		ptdb_err_set(err, "the call stopped (%d); it was abandoned", (int)ts.kind);
	return rc;
}

int dbg_call(struct dbg *d, pid_t tid, uint64_t fn, struct dbg_call_args *c,
	     struct ptdb_err *err)
{
	struct user_regs_struct saved, r;
	struct user_fpregs_struct fsaved, f;
	static uint8_t xsaved[16384];	/* the XSAVE area (AVX-512: ~2.7 KB) */
	size_t xlen = sizeof(xsaved);
	int have_x;
	struct target_stop ex;
	uint64_t back = return_address(d), retp = 0;
	int rc = -1;

	if (!dbg_alive(d))
		return ptdb_err_set(err, "a function call needs a live process");
	if (!back)
		return ptdb_err_set(err, "no place to return to (the executable's entry point)");
	if (target_get_regs(d->proc, tid, &saved, err) < 0 ||
	    target_get_fpregs(d->proc, tid, &fsaved, err) < 0)
		return -1;
	/* libc's string functions use ymm/zmm registers beyond fpregs' */
	have_x = target_get_xstate(d->proc, tid, xsaved, &xlen, NULL) == 0;
	r = saved;
	f = fsaved;
	if (place_args(d, c, back, &r, &f, &retp, err) < 0)
		return -1;
	r.rip = fn;
	if (target_bp_insert(d->proc, back, err) < 0)
		return -1;
	if (target_set_regs(d->proc, tid, &r, err) < 0 ||
	    (c->nsse && target_set_fpregs(d->proc, tid, &f, err) < 0)) {
		target_set_regs(d->proc, tid, &saved, NULL);
		target_bp_remove(d->proc, back, NULL);
		return -1;
	}
	target_thread_begin(d->proc);
	rc = run_call(d, tid, back, c, retp, err);
	if (target_thread_end(d->proc, &ex))
		return -1;
	target_set_pending_signal(d->proc, tid, 0);	/* the crash is not delivered */
	target_bp_remove(d->proc, back, NULL);
	if (target_set_regs(d->proc, tid, &saved, rc < 0 ? NULL : err) < 0 ||
	    target_set_fpregs(d->proc, tid, &fsaved, rc < 0 ? NULL : err) < 0 ||
	    (have_x && target_set_xstate(d->proc, tid, xsaved, xlen, rc < 0 ? NULL : err) < 0))
		return -1;
	return rc;
}
