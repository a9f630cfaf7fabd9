/* trace/ccache.h: the cache engine's translator.  Turns a basic block of
 * original x86-64 code into code that runs out of a code cache in the
 * inferior and records which block ran: every translated block starts with
 * a stub that stores its 4-byte id through a record pointer (no flags, no
 * stack touched), copies the original instructions (RIP-relative operands
 * moved), follows direct jumps and calls (a call pushes the ORIGINAL return
 * address), runs on past a few conditional branches along their
 * fall-through (a taken one leaves through a side exit that writes a
 * record of its own), and ends in its transfer: a conditional one as two
 * patchable exits, an indirect one or a return through the region's dispatcher (a
 * lookup table original -> cache that the tracer fills; a miss traps).
 * Pure: bytes and addresses in, bytes out; the caller writes them into the
 * inferior and turns the records back into instructions. */
#ifndef PTDB_TRACE_CCACHE_H
#define PTDB_TRACE_CCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "disasm/disasm.h"

/* A region's layout: one page of slots, then the lookup table, then code. */
enum {
	CCACHE_SLOT_MAGIC = 0, CCACHE_SLOT_R = 8, CCACHE_SLOT_A = 16, CCACHE_SLOT_T = 24,
	CCACHE_SLOT_C = 32, CCACHE_SLOT_D = 40, CCACHE_SLOT_J = 48,
	/* rcx and r11 while a system call's number is checked */
	CCACHE_SLOT_S1 = 56, CCACHE_SLOT_S2 = 64,
	/* rax, rcx, rdx and the flags while a watchpoint check runs
	 * (ccache_watch.c), and the watched ranges it compares with */
	CCACHE_SLOT_WA = 72, CCACHE_SLOT_WC = 80, CCACHE_SLOT_WD = 88, CCACHE_SLOT_WF = 96,
	CCACHE_SLOT_WS = 104, CCACHE_SLOT_WP = 112,	/* rsi; a byte lodsb reads */
	/* per-thread slots (CCACHE_GS): the slot page's own address, which
	 * the tracer writes there (a lea cannot address %gs) */
	CCACHE_SLOT_SELF = 120,
	CCACHE_WATCH_OFF = 2048,
	/* r11, rdi, rsi, r10 while a miss waits to be served (ccache_shm.c) */
	CCACHE_SLOT_R11 = 256, CCACHE_SLOT_RDI = 264, CCACHE_SLOT_RSI = 272, CCACHE_SLOT_R10 = 280,
	/* the record stub's rcx, and, in its ring stub (ccache_shm.c), rdx
	 * and where the record stub goes on (the ring stub's trap: there;
	 * while the ring stub runs, RRET is its own way back, the record
	 * stub's in RB) */
	CCACHE_SLOT_RC = 288, CCACHE_SLOT_RDX = 296, CCACHE_SLOT_RRET = 304, CCACHE_SLOT_RB = 312,
	/* with CCACHE_GS_CTL, the thread's own control block in its slot
	 * page: its request word, target and region (CCACHE_CTL_REQ, ...),
	 * and its record ring's header (CCACHE_CTL_RING), at these offsets
	 * from here */
	CCACHE_SLOT_CTL = 3072,
	/* the control page shared with the tracer (ccache_shm.c): the
	 * request word (u32 futex: 0 idle, 1 posted, 2 not served), the
	 * target and the region of the request */
	CCACHE_CTL_REQ = 64, CCACHE_CTL_TARGET = 72, CCACHE_CTL_REGION = 80,
	/* the doorbell (u32 futex, CCACHE_GS_CTL): a stub that posts in its
	 * thread's word sets it to 1, then wakes the tracer waiting on it */
	CCACHE_CTL_BELL = 128,
	/* the record ring's header there (trace/ccache_ring.h) */
	CCACHE_CTL_RING = 192,
	CCACHE_TABLE_OFF = 4096,
	/* indexed by the target's low 16 bits: the dispatcher probes that
	 * entry and the next (one more follows the last) */
	CCACHE_TABLE_ENTRIES = 65536,
	CCACHE_CODE_OFF = CCACHE_TABLE_OFF + CCACHE_TABLE_ENTRIES * 16 + 4096,
	/* between the lookup table and the code: one byte per system call
	 * number below CCACHE_SYSTAB_ENTRIES, nonzero if it runs in the cache
	 * (any other number, and 0 entries, leave the cache before it) */
	CCACHE_SYSTAB_OFF = CCACHE_TABLE_OFF + (CCACHE_TABLE_ENTRIES + 4) * 16,
	CCACHE_SYSTAB_ENTRIES = 512,
	CCACHE_BLOCK_MAX_INSNS = 256,
	CCACHE_BLOCK_MAX_BYTES = 8192,
	/* a block runs on past up to this many conditional branches along
	 * their fall-through, each taken branch a side exit */
	CCACHE_SIDE_MAX = 4,
	CCACHE_EXITS_MAX = CCACHE_SIDE_MAX + 2
};

/* A side exit k taken writes its own record, CCACHE_REC_SIDE + k, after
 * its block's (ids of blocks stay below it): the block ran up to its k-th
 * conditional branch (its k-th instruction of kind DISASM_KIND_JCC: the
 * first nside are its side exits, in order), not taking those before,
 * taking that one.  Without one,
 * the block ran to its end.  Any two exits may go to the same address. */
#define CCACHE_REC_SIDE 0xfffffff0u
static inline int ccache_rec_side(uint32_t rec)
{
	return rec >= CCACHE_REC_SIDE ? (int)(rec - CCACHE_REC_SIDE) : -1;
}

/* Per-thread slots.  A region's address given to the translator (env's
 * region, and the region argument of every function below) may carry
 * CCACHE_GS: its stubs then address their slots (CCACHE_SLOT_*) at
 * %gs:offset, in a slot page of the running thread that the tracer points
 * the thread's gs base at, rather than in the region's first page, so
 * several threads may run the same code at once; the lookup table, the
 * system-call table and the watched ranges stay the region's.  Code that
 * uses gs itself (a gs prefix, rdgsbase, wrgsbase) does not run in the
 * cache then. */
/* With CCACHE_GS_CTL too, the record ring's header and the request word
 * of a miss are the thread's as well (CCACHE_SLOT_CTL in its slot page:
 * every thread its own ring, and its own request, served by one tracer
 * thread woken through the control page's doorbell), not at recptr and
 * in the control page. */
enum { CCACHE_GS = 1, CCACHE_GS_CTL = 2 };
static inline uint64_t ccache_region_addr(uint64_t region)
{
	return region & ~(uint64_t)(CCACHE_GS | CCACHE_GS_CTL);
}

/* 1 if the instruction at addr must not run in the cache unseen (a user
 * breakpoint, a goal of the run): a block ends before it. */
typedef int (*ccache_stop_fn)(void *ctx, uint64_t addr);
/* Decodes the original instruction at addr: 0, or -1. */
typedef int (*ccache_decode_fn)(void *ctx, uint64_t addr, struct disasm_insn *in);

struct ccache_env {
	uint64_t region;	/* the region's address (slots at its start),
				 * or'ed with CCACHE_GS: slots per thread */
	uint64_t recptr;	/* absolute address of the record pointer (the
				 * ring's header: trace/ccache_ring.h) */
	uint64_t dispatch;	/* the region's dispatcher */
	ccache_decode_fn decode;
	ccache_stop_fn stop;
	void *ctx;
	int syscalls;		/* a SYSCALL (not a block's first) runs in the
				 * cache, its number checked (ccache_sys.c) */
	/* NULL, or watchpoints checked: no record stub, and before each
	 * instruction that may touch a watched range a check that traps
	 * (ccache_watch.c) */
	const struct ccache_watch *watch;
	int served;		/* an exit not linked yet goes through the
				 * dispatcher (its miss served: ccache_shm.c)
				 * rather than to its trap */
	uint64_t ring;		/* the region's ring stub (ccache_ring_code):
				 * the stub calls it when the head meets the
				 * limit; 0: no limit, the store past the
				 * buffer's end faults (a guard page) */
};

/* trace/ccache_watch.c: watched ranges checked by translated code.  The
 * ranges live in the region's slot page (CCACHE_WATCH_OFF: n pairs of
 * 8-byte lo, hi, hi exclusive), written by the tracer; access[i] says
 * which accesses range i stops (CCACHE_WATCH_READ | CCACHE_WATCH_WRITE,
 * as DISASM_MEM_READ / WRITE).  mem gives an instruction's memory
 * accesses (disasm_mem_access). */
enum { CCACHE_WATCH_MAX = 16, CCACHE_WATCH_READ = DISASM_MEM_READ, CCACHE_WATCH_WRITE = DISASM_MEM_WRITE };
struct ccache_watch {
	int n;
	int access[CCACHE_WATCH_MAX];
	int fsgsbase;		/* rdfsbase/rdgsbase run here (the kernel
				 * allows them): fs/gs-relative accesses
				 * are checked, else they always trap */
	int (*mem)(void *ctx, const struct disasm_insn *in, struct disasm_mem *m, int max);
};
/* The check before in, for cache address at in a region at region:
 * flags, rax, rcx and rdx saved in the W* slots, the address range of
 * each access that a range's kind stops computed (lea: original
 * registers, plus the fs or gs base; a rep string instruction's whole
 * reach from rcx, in the direction flag's direction) and compared with the ranges, everything restored, then
 * either a jump over an int3 that is the check's last byte (no hit) or
 * that int3 (a hit: the original state before in).  An access it cannot
 * compute (fs/gs-relative without fsgsbase, 32-bit addressing, a vector index, more than
 * a few operands) makes the check the int3 alone.  Returns its length
 * (0: in touches no range's kind of memory), or -1 (out of room). */
int ccache_watch_code(const struct ccache_watch *w, void *ctx, uint64_t at, uint64_t region,
		      const struct disasm_insn *in, uint8_t *out, size_t cap);

/* (16 bytes: the tracer keeps one per instruction of every block for as
 * long as the cache lives, the largest of what it keeps a block; a
 * direct transfer's target is within an int32 of its next pc, as
 * ccache_translatable makes sure) */
struct ccache_insn {
	uint64_t addr;
	int32_t trel;		/* the target - (addr + len), with has_target */
	uint16_t coff;		/* where its translation starts in the block
				 * (< CCACHE_BLOCK_MAX_BYTES) */
	uint8_t len : 7, has_target : 1;
	uint8_t kind;
};

/* ci's direct target (0: none), and set (after its addr and len). */
static inline uint64_t ccache_insn_target(const struct ccache_insn *ci)
{
	return ci->has_target ? ci->addr + ci->len + (uint64_t)(int64_t)ci->trel : 0;
}

static inline void ccache_insn_set_target(struct ccache_insn *ci, uint64_t target)
{
	ci->has_target = 1;
	ci->trel = (int32_t)(target - (ci->addr + ci->len));
}

/* A direct exit: a jmp/jcc whose rel32 (at patch_off, relative to end_off)
 * goes to its trap (an int3 at trap_off) until the tracer links it to the
 * target's block, directly or through the far jump at far_off. */
/* (offsets in a block's code: 16 bits, as CCACHE_BLOCK_MAX_BYTES; the
 * tracer keeps a block for as long as the cache lives, so its size is
 * much of what ptdb keeps a block) */
struct ccache_exit {
	uint64_t target;
	uint16_t patch_off, end_off, trap_off, far_off;
};

struct ccache_block {
	uint64_t start, base;	/* original start; cache address of code[0] */
	uint32_t id, len;
	uint16_t rec_off;	/* the record store (without a ring, a full
				 * buffer faults there) */
	uint8_t nexit;
	uint8_t nside;		/* exit[0..nside): the side exits, in order;
				 * the block's own end's after them */
	int n;
	uint8_t side_n[CCACHE_SIDE_MAX];	/* instructions through side
						 * exit k's jcc */
	uint8_t side_push[CCACHE_SIDE_MAX];	/* the direct calls before it
						 * that push */
	struct ccache_insn *ins;	/* heap */
	struct ccache_exit exit[CCACHE_EXITS_MAX];
	uint8_t *code;		/* heap, len bytes */
};

/* How many of the direct calls ins[0..n) push (a call to the next
 * instruction does not): a block's side_push. */
static inline int ccache_side_pushes(const struct ccache_insn *ins, int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += ins[i].kind == DISASM_KIND_CALL && !(ins[i].has_target && ins[i].trel == 0);
	return c;
}

/* 1 if in can run in the cache (its effect does not depend on its
 * address, or the translator rewrites it). */
int ccache_translatable(const struct disasm_insn *in);

/* Translates the block at start for the cache address base with id.  The
 * first instruction is not checked with env->stop (the tracer enters a
 * block at a stop it has handled).  0 with *b filled, -1 if the first
 * instruction cannot run in the cache (b is then empty). */
int ccache_translate(const struct ccache_env *env, uint64_t start, uint64_t base, uint32_t id,
		     struct ccache_block *b);
void ccache_block_release(struct ccache_block *b);

/* The dispatcher's second entry, this far into its code: the target in
 * rax (the program's rax in slot A), not in slot T (a block's indirect
 * end and an exit's stub come here: no round trip through the slots). */
static inline uint64_t ccache_dispatch_rax(uint64_t region)
{
	return (region & CCACHE_GS) ? 18 : 14;
}

/* The dispatcher for a region at base (its code starts at base +
 * CCACHE_CODE_OFF): writes it into buf (cap bytes) and returns its length;
 * *miss_off is the offset of its miss trap (an int3: the target is in slot
 * T, rax/rcx/rdx in slots A/C/D). */
size_t ccache_dispatcher(uint64_t region, uint8_t *buf, size_t cap, uint32_t *miss_off);
/* The same whose miss is first posted to the tracer through the control
 * page at ctl and waited for (ccache_shm.c); the miss trap (*miss_off)
 * comes only when the tracer does not serve it. */
size_t ccache_dispatcher_served(uint64_t region, uint64_t ctl, uint8_t *buf, size_t cap, uint32_t *miss_off);

/* trace/ccache_shm.c.  The served miss's code for cache address at (the
 * dispatcher's probe again at probe when served): its length (0: no
 * room or out of reach), *trap_off the offset of its trap.  An exit's
 * stub: rax into slot A, the target into rax, then the dispatcher's
 * second entry (ccache_dispatch_rax): its length. */
size_t ccache_serve_code(uint64_t at, uint64_t region, uint64_t ctl, uint64_t probe, uint8_t *buf, size_t cap,
			 uint32_t *trap_off);
size_t ccache_exit_stub(uint64_t at, uint64_t region, uint64_t target, uint64_t dispatch, uint8_t *buf,
			size_t cap);
/* The region's ring stub for cache address at: a record stub whose head
 * landed on a CCACHE_RING_ALIGN boundary comes here (rcx in slot RC,
 * where to go on in slot RRET); the head compared with the ring's limit
 * (rax kept in slot R meanwhile); short of it, back at once.  At it, the
 * stub posts 1 in the ring's request word (header at ring), wakes the
 * tracer (a FUTEX_WAKE at wake: the word its thread waits on) and waits
 * until the tracer answers 0 (head and limit moved: back to the record
 * stub) or 2 (or finds 2 posted: nobody serves): its trap, *trap_off,
 * with every register but rax and rcx the program's (the tracer then
 * moves head and limit and sends the thread to slot RRET: the stub's
 * own way back, which puts rax back and goes on at slot RB).  Its
 * length, 0 if out of room or reach.  With CCACHE_GS_CTL in region the
 * header is the thread's (ring unused) and wake the doorbell, set to 1
 * before the wake. */
size_t ccache_ring_code(uint64_t at, uint64_t region, uint64_t ring, uint64_t wake, uint8_t *buf, size_t cap,
			uint32_t *trap_off);

/* Where a cache pc is in b.  CCACHE_AT_ENTRY: before its record (the
 * original state at b->start); CCACHE_AT_INSN: before instruction *idx
 * (its original state; several may share an offset: the first);
 * CCACHE_AT_TRAP: just after exit *idx's trap (the block done, going to
 * the exit's target); CCACHE_INSIDE: in a stub, not an original state. */
enum { CCACHE_OUTSIDE, CCACHE_AT_ENTRY, CCACHE_AT_INSN, CCACHE_AT_TRAP, CCACHE_INSIDE,
       CCACHE_AT_SYSCALL, CCACHE_AT_SYSRET };
/* CCACHE_AT_SYSCALL: in the check before a SYSCALL run in the cache (the
 * block's last instruction, *idx): the original state before it, with
 * rcx and r11 in slots S1/S2 as ccache_sys_where says; CCACHE_AT_SYSRET:
 * the SYSCALL has run: the original state after it, but for rcx (the
 * kernel put a cache address there: the original next pc belongs). */
int ccache_where(const struct ccache_block *b, uint64_t pc, int *idx);

/* trace/ccache_sys.c.  A SYSCALL run in the cache, ending its block: rcx
 * and r11 into slots S1/S2, the number (eax, as the kernel takes it)
 * looked up in the region's system call table (no flags touched), then
 * either the SYSCALL, rcx set to the original next pc and exit 1 (to the
 * fall-through), or rcx/r11 back and exit 0 (to the SYSCALL itself: the
 * tracer runs it).  at: the cache address of code[0].  0, or -1 if the
 * table is out of rel32 reach. */
struct ccache_sys_code {
	uint8_t code[128];
	uint32_t len;
	uint32_t patch_off[2], end_off[2];	/* each exit's rel32, and its end */
};
int ccache_sys_code(uint64_t at, uint64_t region, const struct disasm_insn *in, struct ccache_sys_code *out);
/* Where exit 0's rel32 is in that code (exit 1's a multiple of 4 after):
 * the translator aligns the code so both are 4-aligned. */
enum { CCACHE_SYS_EXIT0_REL = 39 };
/* Where offset off of a block is, for a SYSCALL whose code starts at
 * coff: 1 (CCACHE_AT_SYSCALL) with *saved (bit 0: rcx is in slot S1, bit
 * 1: r11 in S2), 2 (CCACHE_AT_SYSRET), 0: neither. */
int ccache_sys_where(uint32_t coff, uint32_t off, unsigned *saved);

/* The rel32 that links exit k of b to code at dest (4-aligned in the
 * block's code, as the far slot is 8-aligned, when the block's base is
 * 16-aligned: the tracer writes each with one store): writes the 4 bytes
 * (and, when dest is beyond rel32, the far slot's 8 bytes) to patch at
 * the block offsets *off1 (4 bytes) and *off2 (8 bytes, or UINT32_MAX). */
void ccache_link(const struct ccache_block *b, int k, uint64_t dest, uint8_t rel[4], uint32_t *off1,
		 uint8_t far[8], uint32_t *off2);

#endif
