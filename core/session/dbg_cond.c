/* core/session/dbg_cond.c: what makes a breakpoint hit a stop — the thread it
 * is limited to (-t TID, -x INDEX), its condition (-c EXPR, evaluated in
 * the stopping thread's frame 0 by core/data/expr.c; one that cannot be
 * evaluated stops, as LLDB's does) and its ignore count (-i N). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/data/expr.h"

void dbg_bp_set_condition(struct dbg_bp *bp, const char *cond)
{
	free(bp->cond);
	bp->cond = cond && *cond ? xstrdup(cond) : NULL;
}

static void cond_error(struct dbg *d, struct dbg_bp *bp, int loc, const char *why)
{
	size_t n = strlen(bp->cond) + strlen(why) + 128;

	free(d->stop_error);
	d->stop_error = xmalloc(n);
	snprintf(d->stop_error, n, "stopped due to an error evaluating condition of breakpoint "
		 "%u.%d: \"%s\": %s", bp->id, loc + 1, bp->cond, why);
}

int dbg_cond_true(struct dbg *d, const char *cond, pid_t tid, struct ptdb_err *why)
{
	struct frame_ctx fc;
	struct value v;
	int r;

	if (frame_ctx_open(d, tid, 0, &fc, why) < 0)
		return -1;
	r = expr_eval(&fc, &d->results, cond, &v, why);
	frame_ctx_close(&fc);
	if (r < 0)
		return -1;
	{
		const struct sym_type *t = sym_type_strip(v.type);
		uint64_t u = 0;

		if (!t || (t->kind != SYM_T_BASE && t->kind != SYM_T_POINTER && t->kind != SYM_T_ENUM)) {
			value_release(&v);
			return ptdb_err_set(why, "the condition is not a number, a pointer or a bool");
		}
		if (t->kind == SYM_T_BASE && t->enc == 4 /* DW_ATE_float */) {
			double x = 0;

			if (v.size == 4) {
				float f;

				memcpy(&f, v.bytes, 4);
				x = f;
			} else
				memcpy(&x, v.bytes, v.size < 8 ? v.size : 8);
			r = x != 0;
		} else {
			memcpy(&u, v.bytes, v.size < 8 ? v.size : 8);
			r = u != 0;
		}
	}
	value_release(&v);
	return r;
}

int dbg_bp_passes(struct dbg *d, struct dbg_bp *bp, pid_t tid, int loc)
{
	if (bp->tid && bp->tid != tid)
		return 0;
	if (bp->tindex && dbg_thread_index(d, tid) != bp->tindex)
		return 0;
	if (bp->cond) {
		struct ptdb_err why;
		int r = dbg_cond_true(d, bp->cond, tid, &why);

		if (r < 0) {
			cond_error(d, bp, loc, why.msg);
			return 1;
		}
		if (!r)
			return 0;	/* LLDB counts no hit when the condition fails */
	}
	if (bp->ignore) {
		bp->ignore--;
		return 2;
	}
	return 1;
}
