/* trace/swc.c: per-instruction packet emission of the software backend. */
#include "trace/swc.h"
#include "trace/cpusplit.h"
#include "trace/decode.h"

#include <stdlib.h>
#include <string.h>

/* The writer t's packets go to: its own, or its CPU's. */
static struct trace_ptw *W(struct trace_swc_thread *t)
{
	return t->cpu ? &t->cpu->s.w : &t->w;
}

/* Per-CPU: t takes the CPU; the one on it is switched out (its trace
 * disabled where it goes on), a PSB+ starts t's part, and the switch is
 * recorded at this instant. */
static int take_cpu(struct trace_swc_thread *t)
{
	struct trace_swc_cpu *c = t->cpu;
	struct trace_swc_thread *prev;
	struct trace_ptw *w;
	uint64_t tsc;

	if (!c || c->on == t)
		return 0;
	prev = c->on;
	w = &c->s.w;
	tsc = __builtin_ia32_rdtsc();
	trace_ptw_set_time(w, tsc);
	if (w->packet_en && prev && trace_ptw_disable_async(w, prev->next_ip) < 0)
		return -1;
	if (trace_ptw_psb_disabled(w) < 0)
		return -1;
	{
		uint64_t ns = trace_tsc_to_ns(&c->conv, tsc);
		struct trace_switch s = { ns, c->pid, 0, 1 };

		/* the outgoing thread leaves 2 ns and the next comes in 1 ns
		 * before the PSB+ that starts its part: perf's records never
		 * share a time (LLDB refuses a record that is not later than
		 * the one before it), and LLDB gives a thread only the PSBs
		 * strictly inside its execution */
		if (prev) {
			s.tid = prev->tid;
			s.time = ns - 2;
			trace_switch_append(&c->sw, &c->sw_len, &c->sw_cap, &s, c->pid, t->tid);
		}
		s.tid = t->tid;
		s.time = ns - 1;
		s.out = 0;
		trace_switch_append(&c->sw, &c->sw_len, &c->sw_cap, &s, c->pid, prev ? prev->tid : 0);
	}
	c->switches++;
	c->on = t;
	return 0;
}

int trace_swc_cpu_init(struct trace_swc_cpu *c, int id, pid_t pid, size_t size,
		       size_t psb_period, const struct trace_tsc_conv *conv, struct ptdb_err *err)
{
	memset(c, 0, sizeof(*c));
	if (trace_swc_init(&c->s, 0, 0, size, psb_period, 1, err) < 0)
		return -1;
	c->id = id;
	c->pid = pid;
	c->conv = *conv;
	return 0;
}

void trace_swc_cpu_release(struct trace_swc_cpu *c)
{
	trace_swc_release(&c->s);
	free(c->sw);
	memset(c, 0, sizeof(*c));
}

void trace_swc_init_on_cpu(struct trace_swc_thread *t, pid_t tid, unsigned index,
			   struct trace_swc_cpu *c)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->index = index;
	t->cpu = c;
	t->tracing = 1;
}

void trace_swc_cpu_leave(struct trace_swc_thread *t)
{
	struct trace_swc_cpu *c = t->cpu;

	if (!c || c->on != t)
		return;
	if (c->s.w.packet_en) {
		trace_ptw_set_time(&c->s.w, __builtin_ia32_rdtsc());
		trace_ptw_disable_async(&c->s.w, t->next_ip);
	}
	{
		struct trace_switch s = { trace_tsc_to_ns(&c->conv, c->s.w.now), c->pid, t->tid, 1 };

		trace_switch_append(&c->sw, &c->sw_len, &c->sw_cap, &s, c->pid, 0);
	}
	c->on = NULL;
}

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

void trace_swc_init_loaded(struct trace_swc_thread *t, pid_t tid, unsigned index,
			   uint8_t *data, size_t len)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->index = index;
	trace_ring_adopt(&t->ring, data, len);
}

void trace_swc_release(struct trace_swc_thread *t)
{
	trace_ptw_release(&t->w);
	trace_ring_release(&t->ring);
	free(t->part.cpu_marks);
	free(t->part.cpu_ids);
	memset(t, 0, sizeof(*t));
}

/* The time stamp counter for the TSC packets (--tsc) of this stop. */
static void now(struct trace_swc_thread *t)
{
	if (W(t)->tsc_on)
		trace_ptw_set_time(W(t), __builtin_ia32_rdtsc());
}

int trace_swc_resume(struct trace_swc_thread *t, uint64_t pc)
{
	t->next_ip = pc;
	if (take_cpu(t) < 0)
		return -1;
	if (W(t)->packet_en)
		return 0;
	now(t);
	return trace_ptw_enable(W(t), pc);
}

int trace_swc_pause(struct trace_swc_thread *t, uint64_t pc)
{
	t->next_ip = pc;
	if (t->cpu && t->cpu->on != t)
		return 0;	/* switched out: already disabled */
	if (!W(t)->packet_en)
		return 0;
	now(t);
	return trace_ptw_disable_async(W(t), pc);
}

int trace_swc_code_moved(struct trace_swc_thread *t, uint64_t pc)
{
	if (t->cpu && t->cpu->on != t)
		return 0;	/* switched out: its next PSB+ says it */
	if (W(t)->packet_en)
		now(t);
	return trace_ptw_code_moved(W(t), pc);
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
	struct trace_ptw *w = W(t);
	int r = 0;

	t->next_ip = in->addr;
	if (take_cpu(t) < 0)
		return -1;
	if (!w->packet_en && trace_ptw_enable(w, in->addr) < 0)
		return -1;
	t->next_ip = next;
	t->insns++;
	if (trace_swc_state_dependent(in))
		t->transfers++;
	r = trace_swc_branch_packets(w, in->kind, nlip, in->has_target && in->target == nlip, next);
	if (r <= 0)
		goto done;
	r = 0;
	switch (in->kind) {
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
done:
	if (r < 0)
		return -1;
	/* a PSB+ carries the time of now, not of the last stop: timestamps
	 * every PSB period while the thread runs (--tsc) */
	if (trace_ptw_psb_due(w))
		now(t);
	return trace_ptw_maybe_psb(w, next) < 0 ? -1 : 0;
}

int trace_swc_straight(struct trace_swc_thread *t, uint64_t n, uint64_t next)
{
	if (!W(t)->packet_en || (t->cpu && t->cpu->on != t) || trace_ptw_psb_due(W(t)))
		return -1;
	t->insns += n;
	t->next_ip = next;
	return 0;
}

int trace_swc_psb_after(struct trace_swc_thread *t, uint64_t next)
{
	now(t);
	return trace_ptw_maybe_psb(&t->w, next) < 0 ? -2 : 0;
}

int trace_swc_syscall(struct trace_swc_thread *t, const struct disasm_insn *in)
{
	t->next_ip = in->addr;
	if (take_cpu(t) < 0)
		return -1;
	if (!W(t)->packet_en && trace_ptw_enable(W(t), in->addr) < 0)
		return -1;
	t->insns++;
	t->transfers++;
	t->next_ip = in->addr + in->len;
	now(t);
	return trace_ptw_syscall(W(t));
}
