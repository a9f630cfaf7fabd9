/* trace/swc.h: the software backend's per-thread recording state.  The
 * collector (core/collectors/dbg_swc.c) runs a traced thread under ptrace; for every
 * instruction it executes it calls trace_swc_executed(), which turns the
 * instruction's control-flow effect into Intel PT packets (trace/ptw) in the
 * thread's ring buffer.  Pure logic: no ptrace here. */
#ifndef PTDB_TRACE_SWC_H
#define PTDB_TRACE_SWC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "disasm/disasm.h"
#include "trace/ptw.h"
#include "trace/ring.h"
#include "trace/tsc.h"

struct trace_decoded;
struct trace_swc_cpu;

/* The CPU a bundle of the software backend declares ("cpuInfo"): decoders
 * (libipt, and LLDB through it) refuse a trace of no known CPU.  Intel's
 * family 6 model 0x7a (Goldmont Plus) has one erratum in libipt, APL11 (a
 * TIP.PGD right after an OVF), which the writer never produces (after an
 * OVF it writes MODE and TIP.PGE, or a FUP): its decode is exactly the
 * one the packets need. */
#define TRACE_SWC_CPU_VENDOR "GenuineIntel"
#define TRACE_SWC_CPU_FAMILY 6
#define TRACE_SWC_CPU_MODEL 0x7a
#define TRACE_SWC_CPU_STEPPING 1

/* A thread's part of a per-CPU trace, from the last split (core/tracing/dbg_decoded.c
 * fills it from trace/cpusplit's struct trace_split_thread). */
struct trace_swc_part {
	unsigned executions, psbs, inexact;
	unsigned cpu_changes;
	/* where each execution on a new CPU starts in the thread's ring, with
	 * the CPU's id (heap; "CPU core changed" events) */
	size_t *cpu_marks;
	int *cpu_ids;
	unsigned ncpu_marks;
};

/* A software-traced thread: its buffer (ring, with its generation) and
 * the packet writer that fills it (or its CPU's, per CPU), what the
 * writer counted, and its part of a per-CPU trace.  The collector's own
 * per-thread state and the decoded trace live in core/ (struct
 * dbg_traced, core/tracing/dbg_decoded.c). */
struct trace_swc_thread {
	pid_t tid;
	unsigned index;
	struct trace_ring ring;
	struct trace_ptw w;
	int tracing;		/* started and not stopped by the user */
	uint64_t insns;		/* instructions recorded */
	uint64_t transfers;	/* state-dependent transfers among them */
	/* per-CPU tracing: the CPU stream its packets go to (NULL: its own
	 * ring); its ring then holds its part of the CPU trace after a split */
	struct trace_swc_cpu *cpu;
	uint64_t next_ip;	/* where it goes on: the FUP when switched out */
	struct trace_swc_part part;	/* what the last split gave it */
};

/* One emulated CPU of per-CPU tracing: all traced threads run on it one at
 * a time, so one Intel PT stream holds them all; every switch between
 * threads disables tracing (FUP, TIP.PGD), writes a PSB+ (no state carries
 * over to the next thread) and appends perf context-switch records (out,
 * in) at the time of the switch.  TSC packets are always on. */
struct trace_swc_cpu {
	struct trace_swc_thread s;	/* the stream: ring and writer */
	int id;
	pid_t pid;
	struct trace_swc_thread *on;	/* whose packets came last */
	struct trace_tsc_conv conv;	/* TSC -> the records' ns */
	uint8_t *sw;			/* context-switch records */
	size_t sw_len, sw_cap;
	uint64_t switches;
	uint64_t sw_lost;		/* intel-pt: switch-ring overflows (the
					 * oldest records between two stops) */
	struct trace_swc_cpu *next;	/* the process's other CPUs (a loaded
					 * bundle may have several) */
	int split_valid;		/* threads' rings hold the split of */
	uint64_t split_total;		/* s.ring.total and */
	size_t split_sw;		/* sw_len at the last split */
};

int trace_swc_cpu_init(struct trace_swc_cpu *c, int id, pid_t pid, size_t size,
		       size_t psb_period, const struct trace_tsc_conv *conv, struct ptdb_err *err);
void trace_swc_cpu_release(struct trace_swc_cpu *c);
/* A thread traced on CPU c (no buffer of its own). */
void trace_swc_init_on_cpu(struct trace_swc_thread *t, pid_t tid, unsigned index,
			   struct trace_swc_cpu *c);
/* The thread leaves the CPU for good (stopped tracing, exited): the next
 * one to run switches in without its switch-out. */
void trace_swc_cpu_leave(struct trace_swc_thread *t);

/* size: buffer bytes (rounded as for hardware); psb_period 0 = default. */
int trace_swc_init(struct trace_swc_thread *t, pid_t tid, unsigned index,
		   size_t size, size_t psb_period, int tsc, struct ptdb_err *err);
void trace_swc_release(struct trace_swc_thread *t);
/* A thread whose trace was recorded elsewhere (a loaded bundle): the ring
 * holds data[0,len) as written, unwrapped (its size is len, not a power of
 * two).  Takes data (xmalloc'd). */
void trace_swc_init_loaded(struct trace_swc_thread *t, pid_t tid, unsigned index,
			   uint8_t *data, size_t len);

/* The thread is about to run at pc: TIP.PGE(pc) unless already enabled. */
int trace_swc_resume(struct trace_swc_thread *t, uint64_t pc);
/* The thread stopped before pc (a stop the user sees, a signal): FUP(pc)
 * TIP.PGD unless already disabled. */
int trace_swc_pause(struct trace_swc_thread *t, uint64_t pc);
/* The code generation moved (trace/pages.h) before the thread's
 * instruction at pc: said at once (a PSB+) when tracing is on. */
int trace_swc_code_moved(struct trace_swc_thread *t, uint64_t pc);
/* in executed and the thread's next instruction is at next: the packets of
 * its control-flow effect (TNT, TIP, return compression, SYSCALL's
 * disable/enable), then a periodic PSB+ when due. */
int trace_swc_executed(struct trace_swc_thread *t, const struct disasm_insn *in,
		       uint64_t next);
/* n instructions ran that write no packets (straight-line code and direct
 * jumps), the thread going on at next: counted at once.  -1 (nothing
 * done) when they must go through trace_swc_executed one by one: tracing
 * is not enabled, a PSB+ is due, or a per-CPU stream is another thread's. */
int trace_swc_straight(struct trace_swc_thread *t, uint64_t n, uint64_t next);
/* The fast form of trace_swc_straight(n) then trace_swc_executed() for a
 * control transfer of kind (JCC, JRCXZ, LOOP, direct CALL to target,
 * CALL_IND, JMP_IND, RET) at addr, len bytes, going on at next: the same
 * packets.  -1 (nothing done) where the two calls must be made: another
 * kind, tracing not enabled, a PSB+ due, per-CPU tracing. */
int trace_swc_psb_after(struct trace_swc_thread *t, uint64_t next);
/* The packets of a branch of kind (JCC, JRCXZ, LOOP, direct CALL whose
 * target is or is not the next instruction, CALL_IND, JMP_IND, RET)
 * ending at nlip, going on at next: 0, -1 on failure, 1 for another kind
 * (nothing written). */
static inline int trace_swc_branch_packets(struct trace_ptw *w, int kind, uint64_t nlip,
					   int target_is_nlip, uint64_t next)
{
	switch (kind) {
	case DISASM_KIND_JCC:
	case DISASM_KIND_JRCXZ:
	case DISASM_KIND_LOOP:
		return trace_ptw_cond(w, next != nlip);
	case DISASM_KIND_CALL:
		return trace_ptw_call_direct(w, nlip, target_is_nlip);
	case DISASM_KIND_CALL_IND:
		return trace_ptw_call_indirect(w, nlip, next);
	case DISASM_KIND_JMP_IND:
		return trace_ptw_jump_indirect(w, next);
	case DISASM_KIND_RET:
		return trace_ptw_ret(w, next);
	default:
		return 1;
	}
}
static inline int trace_swc_transfer(struct trace_swc_thread *t, uint64_t n, int kind, uint64_t addr,
				     unsigned len, uint64_t target, uint64_t next)
{
	struct trace_ptw *w = &t->w;
	uint64_t nlip = addr + len;
	int r;

	if (t->cpu || !w->packet_en || trace_ptw_psb_due(w))
		return -1;
	r = trace_swc_branch_packets(w, kind, nlip, target == nlip, next);
	if (r > 0)
		return -1;
	t->insns += n + 1;
	t->transfers += kind != DISASM_KIND_CALL;	/* (state-dependent) */
	t->next_ip = next;
	if (r < 0)
		return -2;
	/* (a PSB+ with the time of now, as trace_swc_executed) */
	return trace_ptw_psb_due(w) ? trace_swc_psb_after(t, next) : 0;
}
/* A SYSCALL the thread executes on its own (it may block): lists it and
 * disables tracing (§7.1); trace_swc_resume at the return address enables
 * it again. */
int trace_swc_syscall(struct trace_swc_thread *t, const struct disasm_insn *in);
/* 1 if in is a state-dependent control transfer (Jcc, loop, jrcxz,
 * indirect jmp/call, ret, syscall). */
int trace_swc_state_dependent(const struct disasm_insn *in);

#endif
