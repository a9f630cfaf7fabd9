/* core/collectors/dbg_code_pages.c: the code as it ran, for both software
 * engines (see dbg_code.h and trace/pages.h).  An instruction about to be
 * recorded whose bytes are not those kept has its page read and kept (its
 * first version, or a new one); a system call that maps, protects or
 * writes kept code moves the generation on, so the packets after it say
 * the new one (the writer's PIP) and the pages are read again when next
 * run.  Bytes found changed without such a call (a store into writable
 * code) move it too, said at once in the running thread's trace. */
#include "core/collectors/collector.h"
#include "core/collectors/dbg_code.h"
#include "trace/pages.h"

#include <sys/mman.h>
#include <sys/syscall.h>

struct trace_pages *dbg_code_pages(struct dbg_trace *t)
{
	if (!t->pages)
		t->pages = trace_pages_new();
	return t->pages;
}

void dbg_code_pages_writer(struct dbg_trace *t, struct trace_swc_thread *th)
{
	th->w.code_gen = trace_pages_gen_ptr(dbg_code_pages(t));
}

void dbg_code_pages_syscall(struct dbg_tracee *d, const struct user_regs_struct *r)
{
	uint64_t lo, hi;

	if (!d->trace)
		return;
	if (dbg_code_call(d->pid, r, &lo, &hi) == DBG_CODE_NONE)
		return;
	if (r->rax == SYS_mremap) {
		/* what it moves, and where to when fixed (else fresh memory):
		 * not every page (realloc moves data with it) */
		lo = r->rdi & ~(TRACE_PAGE - 1);
		hi = r->rdi + r->rsi;
		if (r->r10 & MREMAP_FIXED)
			trace_pages_changed(dbg_code_pages(d->trace), r->r8 & ~(TRACE_PAGE - 1),
					    r->r8 + r->rdx);
	}
	trace_pages_changed(dbg_code_pages(d->trace), lo, hi);
}

void dbg_code_pages_insn(struct dbg_tracee *d, struct trace_swc_thread *th,
			 const struct disasm_insn *in, uint64_t pc)
{
	struct trace_pages *p;
	uint64_t first = in->addr & ~(TRACE_PAGE - 1), last = (in->addr + in->len - 1) & ~(TRACE_PAGE - 1);
	int moved = 0;

	if (!d->trace)
		return;
	p = dbg_code_pages(d->trace);
	if (!in->len || trace_pages_known(p, in->addr, in->bytes, in->len))
		return;
	for (uint64_t pg = first; pg <= last; pg += TRACE_PAGE) {
		uint8_t b[TRACE_PAGE];

		/* (the engines' breakpoints read as the code's bytes) */
		if (target_read_mem(d->proc, pg, b, sizeof(b), NULL) == 0)
			moved |= trace_pages_put(p, pg, b);
	}
	if (moved && th)
		trace_swc_code_moved(th, pc);
}

const uint8_t *dbg_code_pages_page(struct dbg_trace *t, uint64_t page, const uint8_t *bytes)
{
	if (!t)		/* a cache run with no trace (watchpoints) keeps none */
		return NULL;
	trace_pages_put(dbg_code_pages(t), page, bytes);
	/* (its latest version: these bytes) */
	return trace_pages_latest(dbg_code_pages(t), page);
}
