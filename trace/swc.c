/* trace/swc.c: per-instruction packet emission of the software backend. */
#include "trace/swc.h"
#include "trace/decode.h"

#include <string.h>

int trace_swc_init(struct trace_swc_thread *t, pid_t tid, unsigned index,
		   size_t size, size_t psb_period, int tsc, struct ptdb_err *err)
{
	struct trace_ptw_config c = { psb_period, tsc };

	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->index = index;
	if (trace_ring_init(&t->ring, size, err) < 0)
		return -1;
	if (trace_ptw_init(&t->w, &t->ring, &c, err) < 0) {
		trace_ring_release(&t->ring);
		return -1;
	}
	t->tracing = 1;
	return 0;
}

void trace_swc_release(struct trace_swc_thread *t)
{
	trace_ptw_release(&t->w);
	trace_ring_release(&t->ring);
	if (t->dec)
		trace_decoded_free(t->dec);
	memset(t, 0, sizeof(*t));
}

/* The time stamp counter for the TSC packets (--tsc) of this stop. */
static void now(struct trace_swc_thread *t)
{
	if (t->w.tsc_on)
		trace_ptw_set_time(&t->w, __builtin_ia32_rdtsc());
}

int trace_swc_resume(struct trace_swc_thread *t, uint64_t pc)
{
	if (t->w.packet_en)
		return 0;
	now(t);
	return trace_ptw_enable(&t->w, pc);
}

int trace_swc_pause(struct trace_swc_thread *t, uint64_t pc)
{
	if (!t->w.packet_en)
		return 0;
	now(t);
	return trace_ptw_disable_async(&t->w, pc);
}

int trace_swc_state_dependent(const struct disasm_insn *in)
{
	switch (in->kind) {
	case DISASM_KIND_JCC:
	case DISASM_KIND_JRCXZ:
	case DISASM_KIND_LOOP:
	case DISASM_KIND_JMP_IND:
	case DISASM_KIND_CALL_IND:
	case DISASM_KIND_RET:
	case DISASM_KIND_SYSCALL:
		return 1;
	default:
		return 0;
	}
}

int trace_swc_executed(struct trace_swc_thread *t, const struct disasm_insn *in,
		       uint64_t next)
{
	uint64_t nlip = in->addr + in->len;
	struct trace_ptw *w = &t->w;
	int r = 0;

	if (!w->packet_en && trace_ptw_enable(w, in->addr) < 0)
		return -1;
	t->insns++;
	if (trace_swc_state_dependent(in))
		t->transfers++;
	switch (in->kind) {
	case DISASM_KIND_JCC:
	case DISASM_KIND_JRCXZ:
	case DISASM_KIND_LOOP:
		r = trace_ptw_cond(w, next != nlip);
		break;
	case DISASM_KIND_CALL:
		r = trace_ptw_call_direct(w, nlip, in->has_target && in->target == nlip);
		break;
	case DISASM_KIND_CALL_IND:
		r = trace_ptw_call_indirect(w, nlip, next);
		break;
	case DISASM_KIND_JMP_IND:
		r = trace_ptw_jump_indirect(w, next);
		break;
	case DISASM_KIND_RET:
		r = trace_ptw_ret(w, next);
		break;
	case DISASM_KIND_SYSCALL:
		/* §7.1: the SYSCALL is listed, then disabled/enabled(next) */
		now(t);
		r = trace_ptw_syscall(w);
		if (r == 0)
			r = trace_ptw_enable(w, next);
		break;
	case DISASM_KIND_INT:
		/* §7.2: the program's own INT is not listed (FUP(CLIP)) */
		t->insns--;
		r = trace_ptw_int(w, in->addr);
		if (r == 0)
			r = trace_ptw_enable(w, next);
		break;
	default:
		/* straight-line code and direct jumps: the decoder follows them;
		 * anything else that lands off the fall-through (far transfers)
		 * is an asynchronous change of flow */
		if (in->kind != DISASM_KIND_JMP && next != nlip &&
		    in->kind != DISASM_KIND_OTHER) {
			r = trace_ptw_disable_async(w, next);
			if (r == 0)
				r = trace_ptw_enable(w, next);
		} else if (in->kind == DISASM_KIND_OTHER && next != nlip) {
			/* e.g. rep movs stepping: the same instruction again */
			if (next == in->addr) {
				t->insns--;
				return 0;
			}
			r = trace_ptw_disable_async(w, next);
			if (r == 0)
				r = trace_ptw_enable(w, next);
		}
		break;
	}
	if (r < 0)
		return -1;
	/* a PSB+ carries the time of now, not of the last stop: timestamps
	 * every PSB period while the thread runs (--tsc) */
	if (trace_ptw_psb_due(w))
		now(t);
	return trace_ptw_maybe_psb(w, next) < 0 ? -1 : 0;
}

int trace_swc_syscall(struct trace_swc_thread *t, const struct disasm_insn *in)
{
	if (!t->w.packet_en && trace_ptw_enable(&t->w, in->addr) < 0)
		return -1;
	t->insns++;
	t->transfers++;
	now(t);
	return trace_ptw_syscall(&t->w);
}
