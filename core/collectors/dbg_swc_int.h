/* core/collectors/dbg_swc_int.h: what the software collector's files share: its
 * state, the stepping loop (core/collectors/dbg_swc.c), the ptrace engine's blocks
 * (core/collectors/dbg_swc_block.c) and the cache engine's turn (core/collectors/dbg_swc_cache.c,
 * over core/collectors/dbg_cache.c).  Not for use elsewhere. */
#ifndef PTDB_CORE_DBG_SWC_INT_H
#define PTDB_CORE_DBG_SWC_INT_H

#include "core/collectors/collector.h"

#include <sys/user.h>

struct blk;
struct dbg_cache;

/* The software collector's state in a trace session. */
struct dbg_swc {
	/* block stepping (one run of the collector) */
	struct blk **bcache;		/* open hash by start address */
	size_t bcap, bn;
	struct trace_swc_thread *blk_th;	/* running a block now */
	struct blk *blk_cur;
	uint64_t *sticky;		/* planted sticky breakpoints */
	size_t nsticky, csticky;
	unsigned rr;			/* round-robin position */
	unsigned quantum;		/* instructions left for the current thread */
	struct dbg_cache *cc;		/* the cache engine (core/collectors/dbg_cache.c) */
	/* the mappings (core/collectors/dbg_swc_code.c) */
	struct target_map *maps;
	int nmaps, maps_stale, last_map;
	pid_t vm_child;			/* a child that runs in this memory
					 * (clone CLONE_VM): no breakpoint of
					 * the engine's while it lives */
	unsigned vm_checks;
	/* its breakpoints hidden from the program (core/collectors/dbg_swc_hide.c) */
	int hide_off;			/* not in this session (no pku, the program's own keys) */
	int hide_key;			/* the hidden mappings' key in this run, 0 none */
	uint64_t hide_sc;		/* a SYSCALL instruction to inject at */
	size_t pkru_off;		/* PKRU's offset in the XSAVE area */
	uint8_t *xs;			/* an XSAVE area */
	struct swc_range { uint64_t lo, hi; int plain; } *hidden;	/* the hidden mappings
								 * (plain: one that refused the key) */
	int nhidden, chidden;
	unsigned long long hide_served;	/* reads of them served */
	struct target_stop *deferred;	/* reads of threads not traced, while a
					 * traced one ran: served at its stop */
	int ndeferred, cdeferred;
};

/* d->trace->sw, created on first use. */
struct dbg_swc *dbg_swc(struct dbg_tracee *d);

/* A turn's outcome besides the RW_* results: the thread stopped where the
 * loop must look at it (EV_GO_ON), nothing ran (EV_NOTHING: step it), the
 * engine does not run now (EV_OFF: the ptrace engine runs). */
enum { EV_GO_ON = -2, EV_NOTHING = -3, EV_OFF = -4 };

/* An event of a thread that ran on its own (core/collectors/dbg_swc.c): EV_GO_ON, or
 * a run result with *stop filled. */
int dbg_swc_event(struct dbg_tracee *d, const struct target_stop *ts, const struct dbg_run_req *rq,
		  struct dbg_stop *stop);
/* After thread t reached next (not by executing into a breakpoint): a
 * user breakpoint or a goal there is a stop; EV_GO_ON otherwise. */
int dbg_swc_arrived(struct dbg_tracee *d, pid_t t, uint64_t next, uint64_t rsp,
		    const struct dbg_run_req *rq, struct dbg_stop *stop);

/* The ptrace engine (core/collectors/dbg_swc_block.c).  Whether in runs natively
 * inside a block (straight-line code, direct jumps and calls). */
int dbg_swc_runs_in_block(const struct disasm_insn *in);
/* Runs th natively block after block from r->rip: EV_GO_ON when th
 * stopped somewhere the loop must handle, EV_NOTHING when nothing ran, or
 * a run result. */
int dbg_swc_run_block(struct dbg_tracee *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		      const struct dbg_run_req *rq, struct dbg_stop *stop, struct ptdb_err *err);
/* The end of a run: the thread that ran part of a block when everything
 * stopped gets its instructions recorded; the collector's breakpoints
 * come out; the blocks are forgotten. */
void dbg_swc_blocks_end(struct dbg_tracee *d);
void dbg_swc_unplant_sticky(struct dbg_tracee *d);
void dbg_swc_bcache_clear(struct dbg_swc *s);

/* Code that changes (core/collectors/dbg_swc_code.c).  Whether the ptrace
 * engine may plant a breakpoint at addr (a private, read-only,
 * executable mapping); thread about to run the system call at r->rip:
 * one that changes mappings or writes memory through /proc takes the
 * engine's breakpoints out of what it touches and forgets the blocks. */
int dbg_swc_plantable(struct dbg_tracee *d, uint64_t addr);
void dbg_swc_code_syscall(struct dbg_tracee *d, const struct user_regs_struct *r);
/* The mapping [*lo, *hi) that holds addr: 0, or -1 none. */
int dbg_swc_map_range(struct dbg_tracee *d, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* Thread t made a child that runs in this memory, not traced (clone with
 * CLONE_VM, not vfork: it runs beside the process): the engine plants
 * nothing until it is gone (it would trap on a breakpoint and die). */
void dbg_swc_vm_child(struct dbg_tracee *d, pid_t child);

/* The ptrace engine's breakpoints out of the program's sight
 * (core/collectors/dbg_swc_hide.c).  Before an int3 is planted at addr
 * (thread t stopped, about to run): its mapping hidden behind a
 * protection key; 0 plant it (hidden, or hiding is off), -1 not now
 * (step that code). */
int dbg_swc_hide(struct dbg_tracee *d, pid_t t, uint64_t addr);
/* Thread t stopped with ts: a read or write of a hidden mapping is
 * served (the instruction stepped with the original bytes, recorded in
 * th's trace when th traces): 1 with *out the step's stop (a
 * TARGET_STOP_STEP when it ran, else the event to handle instead); 0
 * not such a fault. */
int dbg_swc_hide_fault(struct dbg_tracee *d, struct trace_swc_thread *th, const struct target_stop *ts,
		       struct target_stop *out);
/* Is ts such a fault?  _defer: one of a thread that runs untraced, kept
 * (the thread stays stopped) until no traced thread runs: lifting the
 * int3s then would let it run past them. */
int dbg_swc_hide_is_fault(struct dbg_tracee *d, const struct target_stop *ts);
void dbg_swc_hide_defer(struct dbg_tracee *d, const struct target_stop *ts);
/* Thread t about to run the system call at r->rip, or the instruction
 * in (a WRPKRU turns hiding off; dbg_swc_hide_insn: is in one): the
 * hidden mappings it touches get key 0 back. */
void dbg_swc_hide_syscall(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *r);
void dbg_swc_hide_step(struct dbg_tracee *d, pid_t t, const struct disasm_insn *in);
int dbg_swc_hide_insn(const struct disasm_insn *in);
/* The end of a run: everything hidden gets key 0, the key is freed;
 * _gone: the process (or its memory, at an exec) is gone; _free: the
 * state's memory. */
void dbg_swc_hide_end(struct dbg_tracee *d);
void dbg_swc_hide_gone(struct dbg_tracee *d);
void dbg_swc_hide_free(struct dbg_swc *s);

/* The cache engine's turn (core/collectors/dbg_swc_cache.c): as dbg_swc_run_block,
 * or EV_OFF. */
/* The running thread's turn ends: the round robin goes on to the next. */
void dbg_swc_turn_over(struct dbg_tracee *d);
int dbg_swc_cache_step(struct dbg_tracee *d, struct trace_swc_thread *th, struct user_regs_struct *r,
		       const struct dbg_run_req *rq, struct dbg_stop *stop, struct ptdb_err *err);
/* The end of a run: the cache leaves the inferior (died: it is gone). */
void dbg_swc_cache_finish(struct dbg_tracee *d, int died);
void dbg_swc_cache_count_fallback(struct dbg_tracee *d);
/* Thread t is about to run the system call at r->rip (whichever engine
 * runs it): translations of code it unmaps or protects go. */
void dbg_swc_cache_syscall(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *r);
void dbg_swc_cache_free(struct dbg_tracee *d);

/* Interval timers' pace (core/collectors/dbg_swc_timer.c): the signal to
 * deliver to th now, sig or 0 (a timer's held; or the one held, due). */
int dbg_swc_pace_timer(struct dbg_tracee *d, struct trace_swc_thread *th, uint64_t pc, int sig, int blocks);
/* th is about to take signal sig, or else run the instruction in (NULL:
 * unknown; r its registers): its held timer signal blocked in its mask
 * while it runs its own code, the mask its own before a delivery or a
 * call that passes it on. */
void dbg_swc_timer_mask(struct dbg_tracee *d, struct trace_swc_thread *th, int sig, const struct disasm_insn *in,
			const struct user_regs_struct *r);
/* Around a system call th runs (stepped) with ptdb's bit in its mask:
 * _call before, _called after: what rt_sigprocmask reads back is the
 * program's own mask, and a call that sets the mask takes ptdb's bit. */
struct dbg_swc_call {
	int sig, has_set;
	uint64_t nr, ret, how, old, set;
};
void dbg_swc_timer_call(struct dbg_tracee *d, struct trace_swc_thread *th, const struct disasm_insn *in,
			const struct user_regs_struct *r, struct dbg_swc_call *c);
void dbg_swc_timer_called(struct dbg_tracee *d, struct trace_swc_thread *th, const struct dbg_swc_call *c);
/* th is parked at a system call that may block: entered with ptdb's bit
 * (the next tick cannot stop it first), then its own mask.  1: inside
 * the call, or not masked: to let run; 0: another stop came first (its
 * event next): not to resume; -1: not entered (its own mask: as before). */
int dbg_swc_timer_park(struct dbg_tracee *d, struct trace_swc_thread *th);
/* Does th's turn end here: a timer signal it holds, blocked, is due? */
int dbg_swc_timer_turn_over(const struct trace_swc_thread *th);
/* The end of a run: every mask the program's, the held signals pending. */
void dbg_swc_unhold_timers(struct dbg_tracee *d);

#endif
