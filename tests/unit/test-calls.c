/* tests/unit/test-calls.c: trace/calls on synthetic instruction streams —
 * nested calls, returns past the start of the trace, gaps, recursion, tail
 * calls, signal handlers, longjmp, call-to-next, the depth limit and the
 * error paths; segment extents and the interpolating clock. */
#include "tests/unit/test.h"
#include "trace/calls.h"

#include <stdlib.h>

/* Functions of the synthetic program: [start, start + 0x100); from 0x8000
 * code without symbols, one key. */
#define MAIN 0x1000u
#define FOO 0x2000u
#define BAR 0x3000u
#define HANDLER 0x4000u
#define TRAMP 0x5000u
#define FACT 0x6000u
#define NOSYM 0x8000u

static uint64_t func_of(void *ctx, uint64_t ip, int *named)
{
	(void)ctx;
	if (ip >= NOSYM)
		return NOSYM;
	*named = 1;
	return ip & ~(uint64_t)0xff;
}

enum { O = TRACE_CALLS_OTHER, J = TRACE_CALLS_JUMP, C = TRACE_CALLS_CALL,
       R = TRACE_CALLS_RETURN, F = TRACE_CALLS_FAR, GAP = 100, ASYNC = 101 };

/* One input step: an instruction (ip, length, class), a gap, or an
 * asynchronous stop before 'ip'. */
struct in {
	uint64_t ip;
	int len;
	int cls;
};

struct want {
	int kind, depth;
	uint64_t first, last, ip;
	unsigned tree;
};

static struct trace_calls *build(const struct in *s, size_t n)
{
	struct trace_calls *c = trace_calls_new(func_of, NULL);
	struct ptdb_err err;

	for (size_t i = 0; i < n; i++) {
		if (s[i].cls == GAP)
			trace_calls_gap(c, &err);
		else if (s[i].cls == ASYNC)
			trace_calls_async(c, s[i].ip);
		else
			trace_calls_insn(c, s[i].ip, s[i].ip + (uint64_t)s[i].len,
					 (enum trace_calls_class)s[i].cls, &err);
	}
	trace_calls_finish(c, &err);
	return c;
}

/* 1 if the segments are exactly w[0..n); prints the first difference. */
static int same(struct trace_calls *c, const struct want *w, size_t n)
{
	size_t have;
	const struct trace_call_seg *s = trace_calls_segs(c, &have);

	for (size_t i = 0; i < have || i < n; i++) {
		if (i >= have || i >= n) {
			printf("#   %zu segments, expected %zu\n", have, n);
			return 0;
		}
		if ((int)s[i].kind != w[i].kind || (int)s[i].depth != w[i].depth ||
		    s[i].first_id != w[i].first || s[i].last_id != w[i].last ||
		    s[i].first_ip != w[i].ip || s[i].tree != w[i].tree) {
			printf("#   segment %zu: kind %u depth %u [%llu, %llu] ip 0x%llx tree %u; "
			       "expected kind %d depth %d [%llu, %llu] ip 0x%llx tree %u\n", i,
			       (unsigned)s[i].kind, (unsigned)s[i].depth,
			       (unsigned long long)s[i].first_id, (unsigned long long)s[i].last_id,
			       (unsigned long long)s[i].first_ip, (unsigned)s[i].tree, w[i].kind,
			       w[i].depth, (unsigned long long)w[i].first,
			       (unsigned long long)w[i].last, (unsigned long long)w[i].ip, w[i].tree);
			return 0;
		}
	}
	return 1;
}

#define T TRACE_SEG_TRACED
#define U TRACE_SEG_UNTRACED
#define E TRACE_SEG_ERRORS
#define N(a) (sizeof(a) / sizeof((a)[0]))

TEST(nested_calls)
{
	static const struct in s[] = {
		{ MAIN, 1, O }, { MAIN + 1, 5, C },
		{ FOO, 1, O }, { FOO + 1, 5, C },
		{ BAR, 1, O }, { BAR + 1, 1, R },
		{ FOO + 6, 1, O }, { FOO + 7, 1, R },
		{ MAIN + 6, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 1, MAIN, 0 }, { T, 1, 2, 3, FOO, 0 }, { T, 2, 4, 5, BAR, 0 },
		{ T, 1, 6, 7, FOO + 6, 0 }, { T, 0, 8, 8, MAIN + 6, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	size_t n;
	const struct trace_call_seg *seg = trace_calls_segs(c, &n);
	int ok = same(c, w, N(w));

	CHECK(ok);
	CHECK_INT(seg[2].last_ip, BAR + 1);
	CHECK_INT(trace_calls_tree_count(c), 1);
	trace_calls_free(c);
}

/* The trace begins in bar, called by foo, called by main: each return past
 * the root adds the untraced caller above it (LLDB's new root). */
TEST(return_past_start)
{
	static const struct in s[] = {
		{ BAR, 1, O }, { BAR + 1, 1, R },
		{ FOO + 6, 1, O }, { FOO + 7, 1, R },
		{ MAIN + 6, 5, C },
		{ FOO, 1, R },
		{ MAIN + 11, 1, O },
	};
	static const struct want w[] = {
		{ U, 0, 0, 3, MAIN + 6, 0 }, { U, 1, 0, 1, FOO + 6, 0 },
		{ T, 2, 0, 1, BAR, 0 }, { T, 1, 2, 3, FOO + 6, 0 }, { T, 0, 4, 4, MAIN + 6, 0 },
		{ T, 1, 5, 5, FOO, 0 }, { T, 0, 6, 6, MAIN + 11, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* Gaps end a tree; consecutive gaps are one errors tree; untraced callers
 * of a later tree stay with it. */
TEST(gaps)
{
	static const struct in s[] = {
		{ MAIN, 5, C }, { FOO, 1, O }, { 0, 0, GAP }, { 0, 0, GAP },
		{ BAR, 1, R }, { FOO + 6, 1, O },
		{ 0, 0, GAP },
		{ MAIN + 20, 1, O },
		{ 0, 0, GAP },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 1, FOO, 0 },
		{ E, 0, 2, 2, 0, 1 },
		{ U, 0, 2, 2, FOO + 6, 2 }, { T, 1, 2, 2, BAR, 2 }, { T, 0, 3, 3, FOO + 6, 2 },
		{ E, 0, 4, 4, 0, 3 },
		{ T, 0, 4, 4, MAIN + 20, 4 },
		{ E, 0, 5, 5, 0, 5 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	CHECK_INT(trace_calls_tree_count(c), 6);
	trace_calls_free(c);
}

/* fact calling itself: returns into the same function pop one level each
 * (the return addresses tell, the symbol cannot). */
TEST(recursion)
{
	static const struct in s[] = {
		{ MAIN, 5, C },
		{ FACT, 1, O }, { FACT + 1, 5, C },
		{ FACT, 1, O }, { FACT + 1, 5, C },
		{ FACT, 2, J }, { FACT + 0x20, 1, R },
		{ FACT + 6, 1, R },
		{ FACT + 6, 1, R },
		{ MAIN + 5, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 },
		{ T, 1, 1, 2, FACT, 0 }, { T, 2, 3, 4, FACT, 0 }, { T, 3, 5, 6, FACT, 0 },
		{ T, 2, 7, 7, FACT + 6, 0 }, { T, 1, 8, 8, FACT + 6, 0 },
		{ T, 0, 9, 9, MAIN + 5, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* foo jumps to bar's start (a tail call): bar at foo's level, and bar's
 * return goes to main, foo's caller.  A PLT stub does the same. */
TEST(tail_call)
{
	static const struct in s[] = {
		{ MAIN, 5, C },
		{ FOO, 1, O }, { FOO + 1, 2, J },
		{ BAR, 1, O }, { BAR + 1, 1, R },
		{ MAIN + 5, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 2, FOO, 0 }, { T, 1, 3, 4, BAR, 0 },
		{ T, 0, 5, 5, MAIN + 5, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* Jumps within a function and a call to the next instruction (reading the
 * program counter) stay in the segment. */
TEST(same_function)
{
	static const struct in s[] = {
		{ MAIN, 2, J }, { MAIN + 0x40, 5, C }, { MAIN + 0x45, 1, O }, { MAIN + 0x46, 2, J },
		{ MAIN + 0x10, 1, O },
	};
	static const struct want w[] = { { T, 0, 0, 4, MAIN, 0 } };
	struct trace_calls *c = build(s, N(s));
	size_t n;
	int ok = same(c, w, N(w));

	CHECK(ok);
	CHECK_INT(trace_calls_segs(c, &n)[0].last_ip, MAIN + 0x10);
	trace_calls_free(c);
}

/* A signal: the thread stops before main+1 and goes on in the handler (a
 * level deeper); the handler returns into the trampoline (same level),
 * whose sigreturn resumes main+1 in main. */
TEST(signal_handler)
{
	static const struct in s[] = {
		{ MAIN, 1, O }, { MAIN + 1, 0, ASYNC },
		{ HANDLER, 5, C }, { FOO, 1, R }, { HANDLER + 5, 1, R },
		{ TRAMP, 2, F },
		{ MAIN + 1, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 1, HANDLER, 0 }, { T, 2, 2, 2, FOO, 0 },
		{ T, 1, 3, 3, HANDLER + 5, 0 }, { T, 1, 4, 4, TRAMP, 0 }, { T, 0, 5, 5, MAIN + 1, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* An asynchronous stop resumed where it stopped changes nothing; a system
 * call that goes on at the next instruction neither. */
TEST(stop_and_syscall)
{
	static const struct in s[] = {
		{ MAIN, 1, O }, { MAIN + 1, 0, ASYNC }, { MAIN + 1, 2, F }, { MAIN + 3, 1, O },
	};
	static const struct want w[] = { { T, 0, 0, 2, MAIN, 0 } };
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* bar jumps into the middle of main (longjmp): back to main's level. */
TEST(longjmp)
{
	static const struct in s[] = {
		{ MAIN, 5, C }, { FOO, 5, C }, { BAR, 2, J }, { MAIN + 0x50, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 1, FOO, 0 }, { T, 2, 2, 2, BAR, 0 },
		{ T, 0, 3, 3, MAIN + 0x50, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* A return to an address no call left: to the nearest frame of that
 * function, else one level up. */
TEST(return_elsewhere)
{
	static const struct in s[] = {
		{ MAIN, 5, C }, { FOO, 5, C }, { BAR, 1, R }, { MAIN + 0x30, 5, C },
		{ FOO, 5, C }, { BAR, 1, R }, { TRAMP, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 1, FOO, 0 }, { T, 2, 2, 2, BAR, 0 },
		{ T, 0, 3, 3, MAIN + 0x30, 0 }, { T, 1, 4, 4, FOO, 0 }, { T, 2, 5, 5, BAR, 0 },
		{ T, 1, 6, 6, TRAMP, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

/* Code without symbols is one key: a jump from a named function into it
 * is a tail call, not a return to the unnamed frame further up. */
TEST(unnamed_code)
{
	static const struct in s[] = {
		{ MAIN, 5, C },
		{ NOSYM + 0x100, 5, C },	/* start_thread, no symbol */
		{ FOO, 2, J },			/* _setjmp jumps on to... */
		{ NOSYM + 0x200, 1, R },	/* ...__sigjmp_save, no symbol */
		{ NOSYM + 0x105, 1, R },
		{ MAIN + 5, 1, O },
	};
	static const struct want w[] = {
		{ T, 0, 0, 0, MAIN, 0 }, { T, 1, 1, 1, NOSYM + 0x100, 0 }, { T, 2, 2, 2, FOO, 0 },
		{ T, 2, 3, 3, NOSYM + 0x200, 0 }, { T, 1, 4, 4, NOSYM + 0x105, 0 },
		{ T, 0, 5, 5, MAIN + 5, 0 },
	};
	struct trace_calls *c = build(s, N(s));
	int ok = same(c, w, N(w));

	CHECK(ok);
	trace_calls_free(c);
}

TEST(depth_limit)
{
	struct trace_calls *c = trace_calls_new(func_of, NULL);
	struct ptdb_err err;
	int r = 0;
	uint32_t i;

	for (i = 0; i < TRACE_CALLS_MAX_DEPTH && r == 0; i++)
		r = trace_calls_insn(c, FACT, FACT + 5, TRACE_CALLS_CALL, &err);
	CHECK_INT(r, 0);
	CHECK_INT(trace_calls_insn(c, FACT, FACT + 5, TRACE_CALLS_CALL, &err), -1);
	CHECK(strstr(err.msg, "deeper than 1048576 levels") != NULL);
	trace_calls_free(c);
}

TEST(finished)
{
	struct trace_calls *c = trace_calls_new(func_of, NULL);
	struct ptdb_err err;
	size_t n = 7;

	CHECK(trace_calls_segs(c, &n) == NULL);
	CHECK_INT(n, 0);
	CHECK_INT(trace_calls_finish(c, &err), 0);
	CHECK(trace_calls_segs(c, &n) == NULL);	/* no instructions: no segments */
	CHECK_INT(n, 0);
	CHECK_INT(trace_calls_finish(c, &err), -1);
	CHECK_INT(trace_calls_insn(c, MAIN, MAIN + 1, TRACE_CALLS_OTHER, &err), -1);
	CHECK(strstr(err.msg, "finished") != NULL);
	CHECK_INT(trace_calls_gap(c, &err), -1);
	trace_calls_free(c);
	trace_calls_free(NULL);
}

/* 40 bytes a segment, and segments only where calls and returns are. */
TEST(memory)
{
	struct trace_calls *c = trace_calls_new(func_of, NULL);
	struct ptdb_err err;
	size_t n;

	CHECK_INT(sizeof(struct trace_call_seg), 40);
	for (int i = 0; i < 100000; i++) {
		trace_calls_insn(c, MAIN, MAIN + 5, TRACE_CALLS_CALL, &err);
		trace_calls_insn(c, FOO, FOO + 1, TRACE_CALLS_OTHER, &err);
		trace_calls_insn(c, FOO + 1, FOO + 2, TRACE_CALLS_RETURN, &err);
		trace_calls_insn(c, MAIN + 5, MAIN + 7, TRACE_CALLS_JUMP, &err);
	}
	trace_calls_finish(c, &err);
	trace_calls_segs(c, &n);
	CHECK_INT(n, 200001);
	CHECK(trace_calls_mem_bytes(c) < 200001 * 40 + 1024);
	trace_calls_free(c);
}

/* Extents: a segment lasts until the next one at its level or above, so
 * callees lie within callers. */
TEST(extents)
{
	static const struct in s[] = {
		{ BAR, 1, R },			/* 0: bar, returns past the start */
		{ MAIN + 6, 1, O }, { MAIN + 7, 5, C },	/* 1-2: main */
		{ FOO, 1, O }, { FOO + 1, 5, C },	/* 3-4: foo */
		{ BAR, 1, R },			/* 5: bar */
		{ FOO + 6, 1, R },		/* 6: foo */
		{ MAIN + 12, 1, O },		/* 7: main */
		{ 0, 0, GAP },
		{ FOO, 1, O },			/* 8 */
	};
	/* untraced main, bar, main, foo, bar, foo, main, errors, foo */
	static const uint64_t want[] = { 0, 0, 6, 5, 5, 6, 7, 8, 8 };
	struct trace_calls *c = build(s, N(s));
	size_t n;
	const struct trace_call_seg *seg = trace_calls_segs(c, &n);
	uint64_t last[16];

	CHECK_INT(n, N(want));
	trace_calls_extents(seg, n, last);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(last[i], want[i]);
	/* each segment's extent lies within the nearest shallower one before it */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j-- > 0 && seg[j].tree == seg[i].tree;)
			if (seg[j].depth < seg[i].depth) {
				CHECK(seg[j].first_id <= seg[i].first_id && last[i] <= last[j]);
				break;
			}
	trace_calls_free(c);
}

TEST(clock)
{
	struct trace_clock k;

	trace_clock_init(&k);
	CHECK_INT(trace_clock_at(&k, 5), 0);
	trace_clock_add(&k, 2, 1000);
	CHECK_INT(trace_clock_at(&k, 0), 1000);	/* flat before the first */
	CHECK_INT(trace_clock_at(&k, 9), 1000);	/* and after the last */
	trace_clock_add(&k, 12, 2000);
	CHECK_INT(trace_clock_at(&k, 7), 1500);
	/* a stop: disabled and enabled at one boundary, time passes */
	trace_clock_add(&k, 12, 5000);
	CHECK_INT(trace_clock_at(&k, 12), 5000);
	CHECK_INT(trace_clock_at(&k, 11), 1900);
	trace_clock_add(&k, 20, 4000);	/* backwards: held at 5000 */
	CHECK_INT(trace_clock_at(&k, 16), 5000);
	trace_clock_add(&k, 30, UINT64_MAX);	/* no overflow in between */
	CHECK(trace_clock_at(&k, 25) > 5000);
	for (uint64_t x = 0, prev = 0; x < 40; x++) {
		uint64_t t = trace_clock_at(&k, x);

		CHECK(t >= prev);
		prev = t;
	}
	trace_clock_release(&k);
	CHECK_INT(trace_clock_at(&k, 5), 0);
}

TEST_MAIN(nested_calls, return_past_start, gaps, recursion, tail_call, same_function,
	  signal_handler, stop_and_syscall, longjmp, return_elsewhere, unnamed_code, depth_limit, finished,
	  memory, extents, clock)
