/* tests/unit/test-cancel.c: interrupting long trace work: a decode whose
 * hook cancels returns "interrupted" and caches nothing, the next one
 * decodes and caches; Ctrl-C during a busy command only raises the flag. */
#include "test.h"

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "trace/decode.h"
#include "trace/swc.h"

#include <stdlib.h>
#include <string.h>

#define PROG "tests/programs/trace_long"

static int calls, cancel_at;

static int hook_fn(void *ctx, uint64_t done, uint64_t total)
{
	(void)ctx;
	(void)done;
	(void)total;
	return ++calls == cancel_at;
}

/* trace_long traced from main to its return (line 21). */
static struct trace_swc_thread *traced(struct dbg *d)
{
	struct ptdb_err err;
	struct dbg_stop st;
	char *argv[] = { PROG, NULL };
	struct dbg_trace_opts o = { .size = 4u << 20 };

	dbg_init(d);
	if (dbg_set_exe(d, PROG, &err) < 0)
		return NULL;
	dbg_bp_add(d, DBG_BP_NAME, "main", NULL, 0, 0);
	if (dbg_launch(d, argv, 1, &err) < 0 || dbg_continue(d, &st, &err) < 0 ||
	    st.reason != DBG_R_BREAKPOINT)
		return NULL;
	dbg_bp_add(d, DBG_BP_LINE, NULL, "trace_long.c", 21, 0);
	if (dbg_trace_start(d, &d->sel_tid, 1, 0, 0, &o, &err) < 0 ||
	    dbg_continue(d, &st, &err) < 0 || st.reason != DBG_R_BREAKPOINT)
		return NULL;
	return dbg_trace_thread(d, d->sel_tid);
}

TEST(cancelled_decode_caches_nothing)
{
	struct dbg d;
	struct trace_swc_thread *th = traced(&d);
	struct trace_decode_hook hook = { hook_fn, NULL };
	struct trace_decoded *dec = NULL, *again = NULL;
	struct ptdb_err err;

	CHECK(th);
	calls = 0;
	cancel_at = 1;
	CHECK_INT(dbg_trace_decode_hooked(&d, th, &hook, &dec, &err), TRACE_DECODE_CANCELLED);
	CHECK_STR(err.msg, "interrupted");
	CHECK(dbg_decoded_cached(&d, th) == NULL);
	CHECK_INT(calls, 1);
	calls = 0;
	cancel_at = -1;
	CHECK_INT(dbg_trace_decode_hooked(&d, th, &hook, &dec, &err), 0);
	CHECK(calls > 10);	/* 150000 loop blocks, a call per 4096 */
	CHECK(dec && dbg_decoded_cached(&d, th) == dec);
	CHECK_INT(trace_decoded_insn_count(dec), 150000ull * 30 + 16);
	/* cached: a cancelling hook is not even asked */
	calls = 0;
	cancel_at = 1;
	CHECK_INT(dbg_trace_decode_hooked(&d, th, &hook, &again, &err), 0);
	CHECK(again == dec);
	CHECK_INT(calls, 0);
	dbg_release(&d);
}

TEST(ctrl_c_while_busy_only_raises_the_flag)
{
	struct dbg d;
	struct ptdb_err err;
	char *argv[] = { PROG, NULL };

	dbg_init(&d);
	CHECK(dbg_set_exe(&d, PROG, &err) == 0);
	CHECK(dbg_launch(&d, argv, 1, &err) == 0);
	dbg_request_interrupt(&d, 0);		/* at the prompt: nothing */
	CHECK_INT(d.interrupt_requested, 0);
	d.busy = 1;
	dbg_request_interrupt(&d, 0);
	CHECK_INT(d.interrupt_requested, 1);
	d.busy = 0;
	d.interrupt_requested = 0;
	dbg_release(&d);
}

TEST_MAIN(cancelled_decode_caches_nothing, ctrl_c_while_busy_only_raises_the_flag)
