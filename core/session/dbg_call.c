/* core/session/dbg_call.c: calling a function of the stopped process for
 * an expression ("p f(1, 2)"), as LLDB does: in the selected thread, with
 * the SysV ABI (integer and pointer arguments in rdi, rsi, rdx, rcx, r8,
 * r9; the result in rax), returning to an int3 planted at the
 * executable's entry point.  Only that thread runs.  Every register
 * (general and FPU/SSE) is put back afterwards, whether the call returned,
 * crashed (a signal) or stopped at a breakpoint; the stack it used lies
 * below the red zone and is left as garbage, as LLDB leaves it. */
#include <inttypes.h>
#include <stddef.h>
#include <string.h>

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

int dbg_call(struct dbg *d, pid_t tid, uint64_t fn, const uint64_t *args, int nargs,
	     uint64_t *ret, struct ptdb_err *err)
{
	static const size_t argreg[6] = {
		offsetof(struct user_regs_struct, rdi), offsetof(struct user_regs_struct, rsi),
		offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rcx),
		offsetof(struct user_regs_struct, r8), offsetof(struct user_regs_struct, r9),
	};
	struct user_regs_struct saved, r;
	struct user_fpregs_struct fsaved;
	static uint8_t xsaved[16384];	/* the XSAVE area (AVX-512: ~2.7 KB) */
	size_t xlen = sizeof(xsaved);
	int have_x;
	struct target_stop ts, ex;
	uint64_t back = return_address(d), sp;
	int rc = -1, done = 0;

	if (!dbg_alive(d))
		return ptdb_err_set(err, "a function call needs a live process");
	if (nargs > 6)
		return ptdb_err_set(err, "function calls take at most 6 arguments here");
	if (!back)
		return ptdb_err_set(err, "no place to return to (the executable's entry point)");
	if (target_get_regs(d->proc, tid, &saved, err) < 0 ||
	    target_get_fpregs(d->proc, tid, &fsaved, err) < 0)
		return -1;
	/* libc's string functions use ymm/zmm registers beyond fpregs' */
	have_x = target_get_xstate(d->proc, tid, xsaved, &xlen, NULL) == 0;
	r = saved;
	sp = ((saved.rsp - 128 - 256) & ~(uint64_t)15) - 8;	/* below the red zone */
	if (target_write_mem(d->proc, sp, &back, 8, err) < 0)
		return -1;
	for (int i = 0; i < nargs; i++)
		memcpy((char *)&r + argreg[i], &args[i], 8);
	r.rsp = sp;	/* at the entry: rsp + 8 aligned to 16, as after a call */
	r.rip = fn;
	r.rax = 0;	/* varargs: no vector registers */
	r.orig_rax = (unsigned long long)-1;	/* no system call to restart */
	if (target_bp_insert(d->proc, back, err) < 0)
		return -1;
	if (target_set_regs(d->proc, tid, &r, err) < 0) {
		target_bp_remove(d->proc, back, NULL);
		return -1;
	}
	target_thread_begin(d->proc);
	if (target_thread_cont_raw(d->proc, tid, err) == 0) {
		while (!done) {
			if (!target_thread_event(d->proc, 1, &ts)) {
				ptdb_err_set(err, "the call did not come back");
				break;
			}
			if (ts.tid != tid && ts.kind != TARGET_STOP_EXITED &&
			    ts.kind != TARGET_STOP_SIGNALED) {
				if (ts.kind == TARGET_STOP_NONE)
					continue;	/* a thread started or stopped */
				target_thread_requeue(d->proc, &ts);	/* another thread's */
				ptdb_err_set(err, "another thread stopped during the call");
				break;
			}
			done = 1;
			if (ts.kind == TARGET_STOP_BREAKPOINT && ts.addr == back) {
				if (target_get_regs(d->proc, tid, &r, err) == 0) {
					*ret = r.rax;
					rc = 0;
				}
			} else if (ts.kind == TARGET_STOP_SIGNAL)
				ptdb_err_set(err, "Execution was interrupted, reason: signal SIG%s (fault "
					     "address: 0x%" PRIx64 "): the call crashed; the process has "
					     "been returned to the state before expression evaluation",
					     sigabbrev_np(ts.signo) ? sigabbrev_np(ts.signo) : "?",
					     ts.addr);
			else if (ts.kind == TARGET_STOP_BREAKPOINT)
				ptdb_err_set(err, "the call stopped at a breakpoint at 0x%" PRIx64
					     "; it was abandoned and the thread's registers restored",
					     ts.addr);
			else if (ts.kind == TARGET_STOP_EXITED || ts.kind == TARGET_STOP_SIGNALED)
				ptdb_err_set(err, "the process exited during the call");
			else
				ptdb_err_set(err, "the call stopped (%d); it was abandoned", (int)ts.kind);
		}
	}
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
