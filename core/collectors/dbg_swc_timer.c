/* core/collectors/dbg_swc_timer.c: interval timers' pace under tracing
 * (split from core/collectors/dbg_swc.c).
 *
 * Interval timers (SIGALRM, SIGVTALRM, SIGPROF) tick in real or CPU time
 * while tracing slows the thread down a hundredfold and more: delivered as
 * they come, a fast one (100 us) runs the handler again as soon as it
 * returns and the program never gets on.  So a thread takes a timer signal
 * at most once per TIMER_PACE of its instructions; one that comes sooner
 * is held (as the kernel merges a repeated one) and given at its first
 * turn past that.  At a system call that may block (it may wait for that
 * very signal) the pace is TIMER_BLOCK_NS of real time instead: the call
 * gets to run between two (a starved setitimer could not stop the timer),
 * and an interval timer that fires while it waits is delivered then.
 *
 * Held, the signal is also blocked in the thread's own mask (ptrace's
 * SETSIGMASK): the kernel keeps the next ticks pending, merged, and they
 * do not stop the thread.  Each tick that stops a thread costs a ptrace
 * round trip, and where that is longer than the tick (50 us across this
 * machine's CPUs, 10 us anywhere) the next tick was pending again as the
 * thread resumed: it stopped before it ran one instruction, every time,
 * and neither the program nor (paced by its instructions) its handler
 * ever got on.  Blocked, the thread runs its TIMER_PACE instructions
 * untouched; only a resume with the signal unblocked and no delivery
 * could stop it before an instruction again, so ptdb's bit stays on
 * through everything but:
 * - a signal's delivery: the mask its own first (the handler's frame
 *   saves it, rt_sigreturn puts it back);
 * - a system call that passes the mask on (vfork, clone with
 *   CLONE_VFORK: the child runs untraced); fork, clone, clone3 and exec
 *   run with it, and it comes off in the new task or image at its first
 *   stop (new_task_seen);
 * - a system call that may block (it may wait for that very signal): it
 *   is entered with the bit (PTRACE_SYSCALL's entry stop), then the mask
 *   is its own, and a tick interrupts the call as it would untraced;
 * - the end of a run.
 * rt_sigprocmask runs stepped with the bit (the cache engine leaves the
 * cache for it while a thread's mask holds one: dbg_cache_sys_sync): the
 * mask it reads back loses the bit, and one the program blocks itself is
 * its own; a call that sets the mask (rt_sigreturn too) takes ptdb's bit
 * away, set again at the thread's next turn.  The turn of a thread whose
 * signal is blocked ends when the signal is due (the ptrace engine's
 * blocks: dbg_swc_timer_turn_over), in the cache after TIMER_MASK_NS
 * (dbg_swc_timer_deadline: nothing else may stop a loop there), and the
 * signal is delivered at its next turn.  While blocked, a tick the kernel
 * sends the whole process (ITIMER_REAL, ITIMER_PROF) may go to another
 * thread that does not block it, as the kernel may choose any such. */
#include "core/collectors/dbg_swc_int.h"
#include "trace/swc.h"

#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#define TIMER_PACE 20000
#define TIMER_BLOCK_NS 10000000ull
/* (a thread that runs nothing between two ticks, each stopping it before
 * an instruction, still takes one this often: its handler runs) */
#define TIMER_STARVE_NS 100000000ull
/* (a masked thread's turn in the cache: its TIMER_PACE instructions take
 * far less there) */
#define TIMER_MASK_NS 1000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int dbg_swc_timer_due(const struct trace_swc_thread *th, int blocks)
{
	const struct dbg_swc_thread *s = &dbg_traced(th)->sw;

	if (!s->timer_at)
		return 1;
	if (blocks)
		return now_ns() >= s->timer_ns + TIMER_BLOCK_NS;
	return th->insns + 1 >= s->timer_at + TIMER_PACE || now_ns() >= s->timer_ns + TIMER_STARVE_NS;
}

int dbg_swc_pace_timer(struct dbg_tracee *d, struct trace_swc_thread *th, uint64_t pc, int sig, int blocks)
{
	struct dbg_swc_thread *s = &dbg_traced(th)->sw;
	int timer = sig == SIGALRM || sig == SIGVTALRM || sig == SIGPROF;

	if (!timer && (sig || !s->timer_held))
		return sig;
	if (!dbg_swc_timer_due(th, blocks)) {
		if (timer) {
			s->timer_held = sig;
			target_set_pending_signal(d->proc, th->tid, 0);
		}
		return 0;
	}
	if (!timer) {
		sig = s->timer_held;
		target_set_pending_signal(d->proc, th->tid, sig);
		trace_swc_pause(th, pc);	/* (as at a signal's stop) */
	}
	s->timer_held = 0;
	s->timer_at = th->insns + 1;
	s->timer_ns = now_ns();
	return sig;
}

/* System calls that pass the mask on (a child or thread made, an exec's
 * image): the program's own mask before them. */
static int passes_mask(uint64_t nr)
{
	return nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone3 || nr == SYS_execve ||
	       nr == SYS_execveat;
}

/* Of those, the ones whose new task (fork's, clone's but CLONE_VFORK's:
 * traced from its first stop) or new image (exec's event) ptdb sees
 * before it runs: ptdb's bit stays on through the call and comes off
 * there (target_thread_pass_mask).  Off before the call, a tick faster
 * than a stop was pending again as the thread resumed and stopped it
 * before the call, every time, and fork and clone start over for a
 * signal pending as they begin: the call never ran, one handler run per
 * TIMER_STARVE_NS.  (vfork's child runs untraced: its mask is its own
 * from the start, so the bit comes off before.) */
static int new_task_seen(struct dbg_tracee *d, const struct user_regs_struct *r)
{
	uint64_t fl = r->rdi;

	if (r->rax == SYS_fork || r->rax == SYS_execve || r->rax == SYS_execveat)
		return 1;
	if (r->rax == SYS_clone3 && target_read_mem(d->proc, r->rdi, &fl, 8, NULL) < 0)
		return 0;
	return (r->rax == SYS_clone || r->rax == SYS_clone3) && !(fl & (CLONE_VFORK | CLONE_UNTRACED));
}

static void set_mask(struct dbg_tracee *d, struct trace_swc_thread *th, int want)
{
	struct dbg_swc_thread *s = &dbg_traced(th)->sw;

	if (s->timer_masked && s->timer_masked != want) {
		target_thread_block_signal(d->proc, th->tid, s->timer_masked, 0);
		s->timer_masked = 0;
	}
	/* (one the program blocks itself stays its own: 0 from the call) */
	if (want && !s->timer_masked && target_thread_block_signal(d->proc, th->tid, want, 1) == 1)
		s->timer_masked = want;
}

void dbg_swc_timer_mask(struct dbg_tracee *d, struct trace_swc_thread *th, int sig, const struct disasm_insn *in,
			const struct user_regs_struct *r)
{
	int passes = in && in->kind == DISASM_KIND_SYSCALL && passes_mask(r->rax);
	int seen = passes && !sig && new_task_seen(d, r);
	int own = !sig && in && in->kind != DISASM_KIND_INT && (!passes || seen), m;

	set_mask(d, th, own ? dbg_traced(th)->sw.timer_held : 0);
	m = dbg_traced(th)->sw.timer_masked;
	if (passes)
		target_thread_pass_mask(d->proc, th->tid, seen && m ? 1ull << (m - 1) : 0);
}

void dbg_swc_timer_call(struct dbg_tracee *d, struct trace_swc_thread *th, const struct disasm_insn *in,
			const struct user_regs_struct *r, struct dbg_swc_call *c)
{
	memset(c, 0, sizeof(*c));
	if (!in || in->kind != DISASM_KIND_SYSCALL || !(c->sig = dbg_traced(th)->sw.timer_masked))
		return;
	c->nr = r->rax;
	c->ret = in->addr + in->len;
	c->how = r->rdi;
	c->old = r->rdx;
	/* (what the program's rt_sigprocmask asks for: its own mask after) */
	if (c->nr == SYS_rt_sigprocmask && r->rsi && target_read_mem(d->proc, r->rsi, &c->set, 8, NULL) == 0)
		c->has_set = 1;
}

void dbg_swc_timer_called(struct dbg_tracee *d, struct trace_swc_thread *th, const struct dbg_swc_call *c)
{
	struct dbg_swc_thread *s = &dbg_traced(th)->sw;
	uint64_t bit = c->sig ? 1ull << (c->sig - 1) : 0, old;
	struct user_regs_struct r;
	struct target_sigsets ss;

	if (!bit || s->timer_masked != c->sig)
		return;
	if (c->nr == SYS_rt_sigprocmask && target_get_regs(d->proc, th->tid, &r, NULL) == 0 && r.rip == c->ret &&
	    r.rax == 0) {
		/* the mask it read back is its own; one it now blocks itself
		 * is its own too */
		if (c->old && target_read_mem(d->proc, c->old, &old, 8, NULL) == 0 && (old & bit)) {
			old &= ~bit;
			target_write_mem(d->proc, c->old, &old, 8, NULL);
		}
		if (c->has_set && (c->how == SIG_BLOCK || c->how == SIG_SETMASK) && (c->set & bit))
			s->timer_masked = 0;
	}
	/* (one that set the mask, rt_sigreturn's frame's, wherever it
	 * returned to: ptdb's bit gone, set again at the next turn; else
	 * the thread would resume with the signal open, and stop again) */
	if (target_thread_sigsets(d->pid, th->tid, &ss) == 0 && !(ss.blocked & bit))
		s->timer_masked = 0;
}

int dbg_swc_timer_park(struct dbg_tracee *d, struct trace_swc_thread *th)
{
	struct user_regs_struct r;
	int in, keep;

	if (!dbg_traced(th)->sw.timer_masked)
		return 1;
	/* (fork, exec: ptdb's bit kept through them, see new_task_seen) */
	keep = target_get_regs(d->proc, th->tid, &r, NULL) == 0 && passes_mask(r.rax) && new_task_seen(d, &r);
	/* (entered with the signal blocked, the next tick cannot stop it
	 * before; inside, the call may wait for it) */
	in = target_thread_enter_call(d->proc, th->tid);
	if (!keep)
		set_mask(d, th, 0);
	return in;
}

int dbg_swc_timer_turn_over(const struct trace_swc_thread *th)
{
	return dbg_traced(th)->sw.timer_masked && dbg_swc_timer_due(th, 0);
}

int dbg_swc_timers_masked(const struct dbg_tracee *d)
{
	for (int i = 0; d->trace && i < d->trace->nth; i++)
		if (dbg_traced(d->trace->th[i])->sw.timer_masked)
			return 1;
	return 0;
}

uint64_t dbg_swc_timer_deadline(const struct dbg_tracee *d)
{
	return dbg_swc_timers_masked(d) ? now_ns() + TIMER_MASK_NS : 0;
}

/* The timer signals held when the run ends: unmasked, pending again,
 * delivered when the threads resume. */
void dbg_swc_unhold_timers(struct dbg_tracee *d)
{
	for (int i = 0; d->trace && i < d->trace->nth; i++) {
		struct trace_swc_thread *th = d->trace->th[i];
		struct dbg_swc_thread *s = &dbg_traced(th)->sw;
		int live = target_thread_index(d->proc, th->tid) != 0;

		if (live)
			set_mask(d, th, 0);
		s->timer_masked = 0;
		if (s->timer_held && live && !target_pending_signal(d->proc, th->tid))
			target_set_pending_signal(d->proc, th->tid, s->timer_held);
		s->timer_held = 0;
	}
}
