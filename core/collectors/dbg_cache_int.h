/* core/collectors/dbg_cache_int.h: what core/collectors/dbg_cache.c (the run, blocks, records)
 * and core/collectors/dbg_cache_mem.c (the inferior's memory: injected system calls,
 * regions, the code read for translation) share; not for use elsewhere. */
#ifndef PTDB_CORE_DBG_CACHE_INT_H
#define PTDB_CORE_DBG_CACHE_INT_H

#include "core/collectors/collector.h"
#include "target/target.h"
#include "trace/ccache.h"
#include "trace/ccache_pkt.h"
#include "trace/ccache_ring.h"

#include <sys/mman.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define REGION_SIZE (16u << 20)
#define REGION_REACH (1ull << 30)	/* code within this of its region */
#define REC_BYTES (256u << 10)	/* 65536 records between drains */
/* the record buffer's mapping: the pointer page, the records, the guard
 * page, then the control page (a memfd's page mapped over it when misses
 * are served: dbg_cache_shm.c; one mapping, so the program's own
 * mappings land where they land untraced) */
#define REC_MAP_BYTES (4096u + REC_BYTES + 4096u + 4096u)
#define CTL_OFF (4096u + REC_BYTES + 4096u)
#define MAX_REGIONS 16
#define GS_POOL_BYTES (1024u * 4096u)	/* per-thread slot pages (dbg_cache_gs.c) */
/* shared with ptdb (a memfd, dbg_cache_shm.c): the slot pages, each
 * thread's control block and ring header in its page, then each its
 * records (REC_BYTES) */
#define GS_RINGS 255u
#define GS_SLOT_BYTES ((GS_RINGS + 1) * 4096u)
#define GS_SHARED_BYTES ((uint64_t)GS_SLOT_BYTES + (uint64_t)GS_RINGS * REC_BYTES)
#define AHEAD 48
#define TKEY_BYTES ((CCACHE_TABLE_ENTRIES + 1) * sizeof(uint32_t))
#define TAGE_BYTES ((CCACHE_TABLE_ENTRIES + 1) * sizeof(uint16_t))
/* A thread's turn in the cache while other traced threads wait for theirs:
 * counted in full record buffers (65,536 blocks each), so the schedule
 * repeats from run to run, as the ptrace engine's (which counts steps);
 * the time is only for code that records no block (a loop of direct
 * jumps) and would otherwise never give its turn up. */
#define QUANTUM_FILLS 8
#define QUANTUM_NS 1000000000ull
/* the decode cache's largest size (48-byte entries: 1.5 MiB; twice as
 * many, 3 MiB, were a tenth of ptdb's peak tracing python3 and did not
 * translate it faster) */
#define DCACHE_SIZE (1u << 15)
#define DCACHE_MIN (1u << 12)			/* its first size (it grows) */

struct region {
	uint64_t addr, used;		/* code bytes used after the dispatcher */
	uint64_t disp_len;		/* the dispatcher's, rounded */
	uint64_t dispatch;
	uint32_t miss_off;
	uint64_t ring;			/* its ring stub (after the dispatcher) */
	uint32_t ring_trap;		/* the ring stub's trap, from ring */
	uint8_t *map;			/* the region mapped here too (a memfd:
					 * code written, exits linked live
					 * through it), or NULL */
	uint32_t *ids;			/* its blocks, in address order */
	size_t nids, cids;
	int watch_set;			/* its watched ranges written */
	uint32_t *tkey;			/* which original pc each lookup table
					 * slot holds (dbg_cache_mem.c: tkey_of),
					 * 0: none (TKEY_BYTES mapped, or NULL) */
	/* when each slot was last filled for a lookup that missed (or a
	 * return address: dbg_cache_tclock's count then, 0: entered only
	 * because its block was translated), which picks the slot a new
	 * entry takes when both of its probes hold others (heap, or NULL) */
	uint16_t *tage;
};

/* A set of pages (open addressing; slot 0 unused as a key: page 0 is
 * never code). */
struct pset {
	uint64_t *key;
	uint8_t **val;
	size_t cap, n;
	size_t last;			/* the slot found last, + 1 (0: none) */
};

struct dbg_cache {
	struct dbg_cache_stats st;
	/* one run's state */
	int ready, broken;
	uint64_t magic;
	uint64_t sc;			/* a syscall instruction */
	uint64_t rec;			/* buffer mapping: pointer page,
					 * records, guard page */
	/* the record ring (trace/ccache_ring.h): its header in the
	 * inferior (in the control page when misses are served, else in the
	 * pointer page) and here (NULL: not shared, read and written
	 * through the process), the reader's side */
	struct rring {
		uint64_t hdr;
		uint8_t *map;
		struct ccache_ring ring;
		int64_t cur;	/* its thread's block whose records are
				 * read but whose instructions are not
				 * out yet (-1: none) */
	} rr0, *rr;			/* rr: the running thread's (its own
					 * with per-thread rings, else rr0) */
	struct region reg[MAX_REGIONS];
	int nreg;
	struct ccache_block *blk;	/* by id */
	/* the blocks' instructions (their ins), packed in chunks rather
	 * than one allocation each (a heap header and rounding a block):
	 * freed with the blocks (dbg_cache_ins_free) */
	struct ins_chunk {
		struct ins_chunk *next;
		size_t used, cap;
		struct ccache_insn ins[];
	} *ichunk;
	/* by id: what reading a record back writes, in one allocation (a
	 * record costs a few cache lines, not the block's four arrays): the
	 * instructions that write packets, each after the run of those that
	 * do not (counted at once) */
	struct plan {
		uint64_t start;
		uint32_t nseg, tail;	/* tail: the run after the last */
		struct seg {
			uint64_t addr, target, next;	/* next 0: the block's
							 * successor */
			uint32_t run, idx;		/* idx: in the block */
			uint8_t len, kind, has_target;
		} seg[];
	} **plan;
	/* by id, the same as a packet plan (trace/ccache_pkt.h): what its
	 * record writes, without a walk over its instructions (the plans
	 * above serve the blocks it does not cover) */
	struct ccache_pkt *pk;
	uint32_t nblk, cblk;
	uint32_t *hval;			/* original start -> id + 1 (the
					 * key: the block's start) */
	size_t hcap, hn;
	uint32_t *ids;			/* the records read (REC_BYTES; heap) */
	/* instructions decoded for translation (DCACHE_SIZE, heap) */
	struct dcent {
		uint64_t addr, target;
		uint8_t bytes[16];
		uint8_t len, kind, has_target, riprel_off, riprel_odd;
		uint16_t ret_imm;
		char mnem[8];		/* the mnemonic's start, NUL-padded */
	} *dcache;
	/* its entries (DCACHE_MIN..DCACHE_SIZE: twice those kept, so a
	 * program whose code is small touches few pages), and those kept */
	size_t ndcache, dcache_kept;
	/* translated code not written into the inferior yet (written in one
	 * go before the thread runs): stage_len bytes for stage_base */
	int sched_fd;			/* the traced thread's schedstat, or 0 */
	pid_t sched_tid;
	uint8_t *stage;
	uint64_t stage_base;
	size_t stage_len, stage_cap;
	uint64_t run_bytes;
	/* the code the cache may translate: read-only executable mappings
	 * (writable code is a JIT's: the ptrace engine runs it), re-read
	 * after the program maps, unmaps or protects memory */
	struct target_map *maps;
	int nmaps, maps_stale;
	uint64_t mcall_pc;		/* a mapping call there, not run yet */
	pid_t mcall_tid;
	struct pset pages;		/* original code read: page -> bytes
					 * (the trace's copy where there is one,
					 * the value's low bit set) */
	struct pset tpages;		/* pages translated code came from */
	int need_flush;			/* the ptrace engine ran meanwhile */
	int sys_masked;			/* rt_sigprocmask out of the regions'
					 * tables (dbg_cache_sys_sync) */
	/* a signal (or an interrupt) that stopped an injected call before it
	 * ran: the caller's event, not lost */
	struct target_stop ev;
	int have_ev;
	/* exits not linked yet, by target: linked when it is translated */
	struct pend {
		uint64_t target;
		uint32_t id;
		int k;
		int64_t next;		/* the next for the same target, -1 */
	} *pend;
	size_t npend, cpend;
	size_t pend_free;		/* (index + 1) of the first free entry, 0: none */
	struct pset pend_head;		/* target -> (index + 1) in a pointer */
	/* lookup table entries not written into the inferior yet (in one
	 * system call before the thread runs): where, and the entry */
	struct tput {
		uint64_t addr, e[2];
	} *tq;
	size_t ntq, ctq;
	uint16_t tclock;		/* lookup table fills that replace */
	struct dbg_tracee *d;
	const struct dbg_goal *goals;
	int ngoals;
	pid_t tid;			/* the thread that ran in the cache */
	/* several traced threads: one at a time in the cache, each turn
	 * ending after QUANTUM_FILLS full record buffers (or, for code that
	 * records nothing, at deadline: monotonic ns; 0: no end) or when
	 * another thread has an event, the thread then brought back to an
	 * original pc */
	uint64_t deadline;
	unsigned fills;
	int yield;
	struct target_stop *held;	/* other threads' events meanwhile */
	size_t nheld, cheld;
	/* mappings still in the inferior (a run could not remove them) */
	/* records read while the thread runs (dbg_cache_live.c) */
	struct dbg_cache_live *live;
	int live_failed;
	struct left {
		uint64_t addr, len, magic_off, magic;
	} left[MAX_REGIONS + 2];
	int nleft;
	pid_t left_pid;
	/* the memfd's descriptor where a close of it did not run (a
	 * signal came first): closed at the next chance, this file only;
	 * as many as came (each left out stayed open in the program) */
	struct left_fd {
		int fd;
		uint64_t dev, ino;
	} *left_fd;
	int nleft_fd, cleft_fd;
	/* watchpoints checked in the cache (core/collectors/dbg_cache_watch.c):
	 * nothing recorded, the ranges in every region's table; wth: the
	 * thread's stand-in trace (nothing written into it); wquantum: a
	 * turn's length with other threads waiting (ns, 0: none); whit: the
	 * last stop was a check's */
	int watch;
	struct ccache_watch wdesc;
	uint64_t wlo[CCACHE_WATCH_MAX], whi[CCACHE_WATCH_MAX];
	struct trace_swc_thread wth;
	uint64_t wquantum;
	int whit;
	uint64_t wtraps, wruns;		/* checks that trapped; runs in the cache */
	/* per-thread slots (dbg_cache_gs.c): the pool in the inferior (0:
	 * none, the slots are the regions'), each thread's page, the gs
	 * base the program gave it, and whether ours is set now */
	uint64_t gs_pool;
	struct gs_thread {
		pid_t tid;
		int in;
		uint64_t page, prog;
		struct rring *rr;	/* its ring (NULL: rr0) */
		uint8_t *ctl;		/* its control block here (NULL: none) */
	} *gs;
	size_t ngs, cgs;
	/* the pool shared (a memfd: per-thread rings and requests, pt),
	 * in the inferior and here, its size */
	int pt;
	uint64_t gs_shared, gs_bytes;
	uint8_t *gs_map;
	/* misses served without a stop (dbg_cache_shm.c): the control page,
	 * in the inferior (0: none) and here; translating for a request */
	uint64_t ctl;
	uint8_t *ctl_map;
	int serving;
	/* translating ahead while the thread runs: no code it may be
	 * running is patched (links wait here), and the table entries are
	 * written after the code, each in an order a probe never misreads */
	int defer_links, hold_tables;
	struct dlink {
		uint32_t id;
		int k;
		uint64_t dest;
	} *dl;
	size_t ndl, cdl;
	/* threads in the cache at once (dbg_cache_crew.c): the run's own
	 * thread first, then the others the collector offered (crew_offer:
	 * up to the next run's end); each its trace, its registers, whether
	 * it runs now (resumed, not stopped: its ring and requests served)
	 * and whether the kernel's signal for it was let come first.
	 * crew_live: some run while ptdb changes code (links wait, table
	 * entries published in order); crew_waiting: other traced threads
	 * wait for a turn (the crew then stops after a quantum). */
	struct crew {
		pid_t tid;
		struct trace_swc_thread *th;
		struct user_regs_struct r;
		int run, kicked;
	} *crew;
	size_t ncrew, ccrew;
	int crew_live, crew_waiting;
	/* where the run entered its own thread (an original pc), and its
	 * trace's instruction count then */
	pid_t entry_tid;
	uint64_t entry_pc, entry_insns;
};

static inline uint64_t rec_start(const struct dbg_cache *c)
{
	return c->rec + 4096;
}

uint64_t dbg_cache_find_syscall(struct dbg_tracee *d);
int dbg_cache_inject(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, long nr, const uint64_t a[6], int64_t *ret);
int dbg_cache_syscall_step(struct dbg_tracee *d, pid_t t, const struct user_regs_struct *save, uint64_t sc,
			   long nr, const uint64_t a[6], struct target_stop *ts, int64_t *ret);
int dbg_cache_signal_waits(const struct dbg_tracee *d, pid_t t);
int dbg_cache_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t);
struct region *dbg_cache_region_near(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t addr, uint64_t need);
uint8_t **dbg_cache_pset_find(struct pset *p, uint64_t pg);
void dbg_cache_pset_add(struct pset *p, uint64_t pg, uint8_t *v);
/* pg taken out of p (its value is the caller's) */
void dbg_cache_pset_del(struct pset *p, uint64_t pg);
void dbg_cache_pset_clear(struct pset *p, int free_vals);
int dbg_cache_decode(void *ctx, uint64_t addr, struct disasm_insn *in);
void dbg_cache_unmap_left(struct dbg_tracee *d, struct dbg_cache *c);
/* The lookup table entry of region g for original pc: its block at base
 * (replacing what the slot holds, or only into an empty slot); the same
 * into every region's table where free; the entries queued, written;
 * all slots empty (the tables were zeroed). */
/* Zeroed memory that costs only the pages touched (a large calloc may
 * come from the heap, zeroed and faulted in whole), or NULL; its free. */
void *dbg_cache_zalloc(size_t n);
void dbg_cache_zfree(void *p, size_t n);
/* The blocks' instructions freed (c->ichunk), their ins pointers NULL. */
void dbg_cache_ins_free(struct dbg_cache *c);
void dbg_cache_table_put(struct dbg_cache *c, struct region *g, uint64_t pc, uint64_t base, int replace);
void dbg_cache_table_enter(struct dbg_cache *c, uint64_t pc, uint64_t base);
void dbg_cache_table_flush(struct dbg_cache *c);
/* The entries queued for regions mapped here too written through the
 * mapping, in an order a probe never misreads (out of the queue). */
void dbg_cache_table_store_mapped(struct dbg_cache *c);
void dbg_cache_table_reset(struct dbg_cache *c);
void dbg_cache_leave_behind(struct dbg_tracee *d, struct dbg_cache *c, uint64_t addr, uint64_t len, uint64_t magic_off);
void dbg_cache_close_fd(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, int64_t fd);

/* dbg_cache_rec.c: records into the trace.  The first k instructions of
 * b, the k-th going on to next; the records since the last drain (0, -1
 * on a broken buffer); the last block ran to its end and went on to pc. */
void dbg_cache_emit(struct trace_swc_thread *th, const struct ccache_block *b, int k, uint64_t next);
void dbg_cache_emit_side(struct trace_swc_thread *th, const struct ccache_block *b, int k);
/* b's compact plan (c->plan's; xmalloc'd). */
struct plan *dbg_cache_plan_new(const struct ccache_block *b);
int dbg_cache_drain(struct dbg_cache *c, struct trace_swc_thread *th);
/* The ring's head as the stub wrote it (0: unreadable); up to max of
 * the records before it read into the trace (the number, or -1); its
 * head and limit written (the thread waits in, or stopped at, its ring
 * stub, or stopped anywhere for the limit alone: head 0 leaves it),
 * and its request word. */
uint64_t dbg_cache_ring_head(struct dbg_cache *c);
long dbg_cache_ring_read(struct dbg_cache *c, struct trace_swc_thread *th, size_t max);
int dbg_cache_ring_set(struct dbg_cache *c, uint64_t head, uint64_t lim);
uint32_t *dbg_cache_ring_word(struct dbg_cache *c);
void dbg_cache_emit_ids(struct dbg_cache *c, struct trace_swc_thread *th, const uint32_t *ids, size_t n);
/* The same for ring rr (any thread's, not c->rr), read by reader rd:
 * the ring, the buffer its records are copied into (REC_BYTES) and the
 * figures it adds to (the engine's, or a drainer's own while several
 * read at once: dbg_cache_live.c, merged once they are idle). */
struct reader {
	struct rring *rr;
	uint32_t *ids;
	struct dbg_cache_stats *st;
};
uint64_t dbg_cache_rr_head(struct dbg_cache *c, const struct rring *rr);
long dbg_cache_rd_read(struct dbg_cache *c, const struct reader *rd, struct trace_swc_thread *th, size_t max);
int dbg_cache_rr_set(struct dbg_cache *c, struct rring *rr, uint64_t head, uint64_t lim);
uint32_t *dbg_cache_rr_word(const struct rring *rr);
void dbg_cache_rr_emit(struct dbg_cache *c, struct rring *rr, struct trace_swc_thread *th, const uint32_t *ids,
		       size_t n);

/* core/collectors/dbg_cache_live.c: records read while the thread runs,
 * from dbg_cache_live_begin (the thread resumed) to dbg_cache_live_end
 * (it stopped: returns once the reader is idle); the reader ended. */
void dbg_cache_live_begin(struct dbg_cache *c, struct trace_swc_thread *th);
void dbg_cache_live_end(struct dbg_cache *c);
void dbg_cache_live_free(struct dbg_cache *c);
void dbg_cache_sync_done(struct dbg_cache *c, struct trace_swc_thread *th, uint64_t pc);
/* The engine's time figures: monotonic nanoseconds, ptdb's CPU time, and
 * the CPU time thread t of pid has run (its schedstat, kept open; 0 if
 * unknown). */
uint64_t dbg_cache_now_ns(void);
uint64_t dbg_cache_cpu_ns(void);
uint64_t dbg_cache_thread_cpu_ns(struct dbg_cache *c, pid_t pid, pid_t t);


/* core/collectors/dbg_cache.c: everything translated dropped (the thread
 * at an original pc, its records out); a mapping call at r->rip noted
 * (and the cache flushed if it touches translated code); the event that
 * stopped an injected call handed on (DBG_CACHE_EVENT).
 * core/collectors/dbg_cache_run.c: the thread at a cache pc run until
 * its turn ends (DBG_CACHE_*), the events held meanwhile given back. */
void dbg_cache_flush(struct dbg_cache *c);
void dbg_cache_mapping_call(struct dbg_cache *c, pid_t t, const struct user_regs_struct *r);
int dbg_cache_take_event(struct dbg_cache *c, struct trace_swc_thread *th, const struct user_regs_struct *r,
			 struct target_stop *ts);
int dbg_cache_enter(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		    struct target_stop *ts, struct ptdb_err *err);

/* core/collectors/dbg_cache_run.c: one stop of thread t in the cache
 * (ts, its registers in r; c->tid and c->rr its): STOP_GO_ON (resumed
 * already if *resumed), DBG_CACHE_AT_MCALL (DBG_CACHE_AT at a system
 * call the caller notes with dbg_cache_mapping_call, once no thread
 * runs in the cache), else a DBG_CACHE_* result with t at an original
 * pc, or -1.  Thread t gone: its records dropped. */
enum { STOP_GO_ON = 100, DBG_CACHE_AT_MCALL = 101 };
int dbg_cache_one_stop(struct dbg_cache *c, struct trace_swc_thread *th, pid_t t, struct user_regs_struct *r,
		       struct target_stop *ts, int *kicked, int *resumed, struct ptdb_err *err);
void dbg_cache_discard(struct dbg_cache *c);
void dbg_cache_hold(struct dbg_cache *c, const struct target_stop *ts);

/* core/collectors/dbg_cache_crew.c: threads in parallel.  The others
 * of c->crew (after the run's own thread, entered already) entered at
 * their blocks (those that cannot stay out: crew shrinks); all run
 * until one needs the collector (returned as dbg_cache_enter returns,
 * for the run's own thread; another's result held as its event), the
 * others then stopped and brought back to original pcs. */
void dbg_cache_crew_enter(struct dbg_cache *c);
int dbg_cache_crew_run(struct dbg_cache *c, struct user_regs_struct *r, struct target_stop *ts, struct ptdb_err *err);
/* core/collectors/dbg_cache_live.c for the crew: the drainer serving
 * every running member's ring (each into its own trace), paused (idle
 * once this returns: the engine is the caller's, the lock between the
 * two) and let go again. */
void dbg_cache_live_crew(struct dbg_cache *c);
void dbg_cache_live_pause(struct dbg_cache *c);
void dbg_cache_live_go(struct dbg_cache *c);
/* The thread c->tid stopped (its ring and request words 2: traps, a
 * waiter woken), or about to resume (both 0: served). */
void dbg_cache_words_trap(struct dbg_cache *c);
void dbg_cache_words_idle(struct dbg_cache *c);
/* The staged code and queued table entries written, in that order
 * (dbg_cache_shm.c); links deferred written (every thread stopped). */
void dbg_cache_shm_publish(struct dbg_cache *c);
void dbg_cache_shm_links_now(struct dbg_cache *c);

/* core/collectors/dbg_cache_sys.c: system calls run in the cache.  Whether
 * nr runs there; its region's table written; a thread at a cache pc
 * where ccache_where said CCACHE_AT_SYSCALL or CCACHE_AT_SYSRET (where)
 * for instruction idx of b in region g, its registers made the original
 * ones (r->rip included): 0, or -1. */
int dbg_cache_sys_runs(unsigned nr);
int dbg_cache_sys_table_write(struct dbg_tracee *d, uint64_t region);
/* rt_sigprocmask runs in the cache unless ptdb blocks a held timer signal
 * in a thread's mask (core/collectors/dbg_swc_timer.c): the regions'
 * tables say so before a thread enters. */
void dbg_cache_sys_sync(struct dbg_cache *c);
int dbg_cache_sys_back(struct dbg_cache *c, const struct region *g, const struct ccache_block *b, int where,
		       int idx, struct user_regs_struct *r);

/* core/collectors/dbg_cache_watch.c: the translator's env->watch (NULL
 * when not checking watchpoints), region g's ranges written first. */
const struct ccache_watch *dbg_cache_watch_env(struct dbg_cache *c, struct region *g);
/* core/collectors/dbg_cache_shm.c: misses served while the thread runs.
 * The control page mapped (0, or -1: misses trap) and unmapped; the
 * service opened before the thread resumes, closed once it stopped
 * (and ptdb's thread is idle); ptdb's thread woken, or waiting up to ns
 * for a request; a request served (1), or none posted (0). */
int dbg_cache_shm_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t);
void dbg_cache_shm_close(struct dbg_cache *c);
void dbg_cache_shm_begin(struct dbg_cache *c);
void dbg_cache_shm_end(struct dbg_cache *c);
void dbg_cache_shm_kick(struct dbg_cache *c);
int dbg_cache_shm_wait(struct dbg_cache *c, long ns);
int dbg_cache_shm_serve(struct dbg_cache *c);
int dbg_cache_shm_posted(struct dbg_cache *c);
/* The ring's request served (1; 0: none posted): the records read
 * until there is room, head and limit moved, the thread woken. */
int dbg_cache_ring_serve(struct dbg_cache *c, const struct reader *rd, struct trace_swc_thread *th);
void dbg_cache_shm_defer_link(struct dbg_cache *c, uint32_t id, int k, uint64_t dest);
/* Region a (mapped private, anonymous, by thread t) made a memfd's mapped
 * shared there and here: ptdb's view (NULL: a stays as it was). */
uint8_t *dbg_cache_shm_region(struct dbg_tracee *d, struct dbg_cache *c, pid_t t, uint64_t a);

/* core/collectors/dbg_cache_gs.c: per-thread slots.  The pool mapped
 * (-1: none, the regions' slots serve); where thread t's slots are (its
 * page, or region g's first); a region's address as the translator
 * takes it (CCACHE_GS with the pool); t's gs base made its page in r
 * as it enters the cache (-1: no page for it, it runs outside), and
 * the program's put back in r and in the thread as it leaves; the pool
 * left to unmap (d NULL: gone with the process). */
int dbg_cache_gs_setup(struct dbg_tracee *d, struct dbg_cache *c, pid_t t);
uint64_t dbg_cache_slots(struct dbg_cache *c, const struct region *g, pid_t t);
uint64_t dbg_cache_gs_region(const struct dbg_cache *c, uint64_t region);
int dbg_cache_gs_enter(struct dbg_cache *c, pid_t t, struct user_regs_struct *r);
void dbg_cache_gs_leave(struct dbg_cache *c, pid_t t, struct user_regs_struct *r);
/* Thread t's record ring: its own (per-thread rings, c->pt), or rr0. */
struct rring *dbg_cache_gs_ring(struct dbg_cache *c, pid_t t);
void dbg_cache_gs_finish(struct dbg_tracee *d, struct dbg_cache *c);
/* Every ring's block in progress forgotten (the blocks are gone). */
void dbg_cache_gs_forget_cur(struct dbg_cache *c);

/* core/collectors/dbg_cache_xl.c: translating, linking, the lookup tables */
int dbg_cache_is_stop(void *ctx, uint64_t addr);
struct region *dbg_cache_region_of(struct dbg_cache *c, uint64_t pc);
struct ccache_block *dbg_cache_block_of(struct dbg_cache *c, struct region *g, uint64_t pc);
void dbg_cache_stage_flush(struct dbg_cache *c);
/* n bytes of code written at addr: through the region's mapping here
 * (the inferior's view of it is not writable), else into the process. */
void dbg_cache_code_write(struct dbg_cache *c, uint64_t addr, const void *buf, size_t n);
/* The links waiting that can be written while threads run (their region
 * mapped here), written: after the code they lead to is (published). */
void dbg_cache_links_live(struct dbg_cache *c);
void dbg_cache_write_link(struct dbg_cache *c, const struct ccache_block *b, int k, uint64_t dest, uint8_t *local);
int64_t dbg_cache_block_for(struct dbg_cache *c, pid_t t, uint64_t pc, int private);
void dbg_cache_table_fill(struct dbg_cache *c, struct region *g, uint64_t pc, uint64_t base);
void dbg_cache_ahead(struct dbg_cache *c, pid_t t, int64_t id);

#endif
