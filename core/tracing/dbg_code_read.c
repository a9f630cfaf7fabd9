/* core/tracing/dbg_code_read.c: memory reads of the code a software trace
 * kept as it ran (trace/pages.h), for `memory read` and `disassemble`.
 * While replaying, the code is the version in force at the cursor (the
 * generation its instruction ran in); otherwise the newest version kept.
 * A loaded bundle (or a process that exited with its traces) reads kept
 * pages no module file covers, and module pages that changed, from here;
 * a live process replayed reads the pages that changed from here, the
 * rest from its memory. */
#include "core/tracing/dbg_trace_int.h"
#include "trace/pages.h"

static uint64_t read_gen(struct dbg *d)
{
	uint64_t gen = UINT64_MAX;

	if (dbg_replay_code_gen(d, &gen) < 0)
		gen = UINT64_MAX;
	return gen;
}

size_t dbg_trace_code_read(struct dbg *d, uint64_t addr, void *buf, size_t n)
{
	struct trace_pages *p = dbg_trace_pages(d);
	uint64_t end = (addr | (TRACE_PAGE - 1)) + 1;

	if (!p || !n)
		return 0;
	if (!trace_pages_touched_at(p, addr) && dbg_tr(d)->host->module_for(d, addr))
		return 0;	/* the module's file has it */
	if (n > end - addr)
		n = (size_t)(end - addr);
	return trace_pages_read(p, read_gen(d), addr, buf, n);
}

void dbg_trace_code_overlay(struct dbg *d, uint64_t addr, void *buf, size_t n)
{
	struct trace_pages *p = dbg_trace_pages(d);
	uint64_t gen;
	size_t got = 0;

	if (!trace_pages_touched(p) || !dbg_replaying(d) || (gen = read_gen(d)) == UINT64_MAX)
		return;
	while (got < n) {
		uint64_t a = addr + got, k = ((a | (TRACE_PAGE - 1)) + 1) - a;

		if (k > n - got)
			k = n - got;
		if (trace_pages_touched_at(p, a))
			trace_pages_read(p, gen, a, (uint8_t *)buf + got, (size_t)k);
		got += (size_t)k;
	}
}

int dbg_trace_code_kept(struct dbg *d, uint64_t addr, size_t n)
{
	struct trace_pages *p = dbg_trace_pages(d);
	uint64_t a = addr & ~(TRACE_PAGE - 1), end = addr + n;
	uint8_t b;

	if (!p || !n || end < addr)
		return 0;
	for (; a < end; a += TRACE_PAGE)
		if (!trace_pages_read(p, UINT64_MAX, a, &b, 1))
			return 0;
	return 1;
}
