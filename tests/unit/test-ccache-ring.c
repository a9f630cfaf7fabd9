/* tests/unit/test-ccache-ring.c: the cache engine's record ring
 * (trace/ccache_ring.c, the record stub's limit check in trace/ccache.c
 * and the ring stub of trace/ccache_shm.c).  The ring's arithmetic:
 * spans across the wrap, the slot kept empty, a full ring, the tail at
 * the end of a lap read.  Then translated blocks run here for real, out
 * of an executable mapping of this process, writing their ids into a
 * ring of a few slots many times round: served by another thread (the
 * ring stub posts, waits on the futex while the ring is full, the
 * reader reads, raises the limit as it goes, and moves head and limit),
 * and with nobody serving (the
 * ring stub's trap, handled as the tracer does at a stop: everything
 * read, head and limit moved, on at slot RRET).  Every record comes out
 * once, in order; every register and flag the program had is kept; what
 * is left at the end (a stop) is read whole. */
#include "trace/ccache.h"
#include "trace/ccache_ring.h"
#include "tests/unit/test.h"
#include "tests/unit/ccache_code.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

TEST(ccache_ring_spans_wrap_and_full)
{
	struct ccache_ring r;
	uint64_t s[2][2], h, l;

	ccache_ring_init(&r, 0x10000, 0x400 + 8);	/* 256 slots (rounded down to CCACHE_RING_ALIGN) */
	CHECK(r.end == 0x10400);
	CHECK_INT(ccache_ring_spans(&r, 0x10000, 1000, s), 0);
	CHECK_INT(ccache_ring_room(&r, 0x10000, &h, &l), 1);
	CHECK(h == 0x10000 && l == 0x10400);
	/* a whole lap written: full (the head at the end, the tail at the start) */
	CHECK_INT(ccache_ring_room(&r, 0x10400, &h, &l), 0);
	CHECK_INT(ccache_ring_spans(&r, 0x10400, 1000, s), 1);
	CHECK(s[0][0] == 0x10000 && s[0][1] == 0x10400);
	/* 3 read: still full (the limit is a multiple of CCACHE_RING_ALIGN
	 * before the slot before the tail) */
	ccache_ring_consumed(&r, 0x10400, 3);
	CHECK(r.tail == 0x1000c);
	CHECK_INT(ccache_ring_room(&r, 0x10400, &h, &l), 0);
	/* 64 more read: the head wraps, up to the boundary before the tail */
	ccache_ring_consumed(&r, 0x10400, 64);
	CHECK(r.tail == 0x1010c);
	CHECK_INT(ccache_ring_room(&r, 0x10400, &h, &l), 1);
	CHECK(h == 0x10000 && l == 0x10100);
	/* 2 more written after the wrap: two spans, oldest first, at most max */
	CHECK_INT(ccache_ring_spans(&r, 0x10008, 1000, s), 2);
	CHECK(s[0][0] == 0x1010c && s[0][1] == 0x10400 && s[1][0] == 0x10000 && s[1][1] == 0x10008);
	CHECK_INT(ccache_ring_spans(&r, 0x10008, 190, s), 2);
	CHECK(s[1][1] == 0x10004);
	CHECK_INT(ccache_ring_room(&r, 0x10008, &h, &l), 1);
	CHECK(h == 0x10008 && l == 0x10100);
	/* written up to the limit: full (the slot before the tail stays empty) */
	CHECK_INT(ccache_ring_room(&r, 0x10100, &h, &l), 0);
	ccache_ring_consumed(&r, 0x10100, 189 + 63);
	CHECK(r.tail == 0x100fc);
	CHECK_INT(ccache_ring_spans(&r, 0x10100, 1000, s), 1);
	CHECK(s[0][0] == 0x100fc && s[0][1] == 0x10100);
	ccache_ring_consumed(&r, 0x10100, 1);
	CHECK_INT(ccache_ring_spans(&r, 0x10100, 1000, s), 0);
	CHECK_INT(ccache_ring_room(&r, 0x10100, &h, &l), 1);
	CHECK(h == 0x10100 && l == 0x10400);
	/* a lap read to its end with the head there, the head wraps, and a
	 * whole lap more is written: not an empty ring */
	ccache_ring_init(&r, 0x10000, 0x400);
	ccache_ring_consumed(&r, 0x10400, 256);
	CHECK_INT(ccache_ring_spans(&r, 0x10400, 1000, s), 0);
	CHECK_INT(ccache_ring_room(&r, 0x10400, &h, &l), 1);
	CHECK(h == 0x10000 && l == 0x10400);
	CHECK_INT(ccache_ring_spans(&r, 0x10400, 1000, s), 1);
	CHECK(s[0][0] == 0x10000 && s[0][1] == 0x10400);
	CHECK(!ccache_ring_head_ok(&r, 0x10002) && !ccache_ring_head_ok(&r, 0x10404));
}

/* ---- the stubs, run ---- */

#define SIZE (CCACHE_CODE_OFF + 65536)
#define SLOTS (4 * CCACHE_RING_ALIGN / 4)
#define NBLK 3

static uint8_t *Reg;		/* the region: slots, (table,) code */
static uint8_t *Hdr;		/* the ring's header (shared page, or the
				 * thread's slot page: CCACHE_GS_CTL) */
static uint8_t *Shared;
static uint32_t Bell;		/* the doorbell (CCACHE_GS_CTL) */
static _Alignas(CCACHE_RING_ALIGN) uint32_t Recs[SLOTS];
static uint64_t Blk[NBLK];	/* the blocks' cache addresses */
static uint32_t Trap;		/* the ring stub's trap, from its start */
static struct ccache_ring Ring;
static uint32_t Next;		/* the id the next record must hold */
static long Read, Bad;

static int nostop(void *ctx, uint64_t addr)
{
	(void)ctx;
	(void)addr;
	return 0;
}

static uint64_t at(uint64_t off)
{
	return (uint64_t)(uintptr_t)Reg + off;
}

static uint64_t *hdr64(int off)
{
	return (uint64_t *)(Hdr + off);
}

static uint32_t *word(void)
{
	return (uint32_t *)(Hdr + CCACHE_RING_WORD);
}

/* The region: the ring stub, a landing ret, and NBLK blocks of "je
 * +0" (ids 1..NBLK), both exits linked to the landing. */
static int Gs = -1;		/* the code made for slots at %gs: (CCACHE_GS;
				 * 2: the ring's header there too) */

static int setup_as(int gs)
{
	uint64_t hdr, ring, region;
	uint8_t *code;

	if (Reg && Gs == gs)
		return 0;
	if (!Reg) {
		Reg = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		Shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (Reg == MAP_FAILED || Shared == MAP_FAILED)
			return -1;
	}
	Gs = -1;	/* (until made whole) */
	region = at(0) | (gs ? CCACHE_GS : 0) | (gs == 2 ? CCACHE_GS_CTL : 0);
	Hdr = gs == 2 ? Reg + CCACHE_SLOT_CTL + CCACHE_CTL_RING : Shared;
	*(uint64_t *)(Reg + CCACHE_SLOT_SELF) = at(0);
	hdr = (uint64_t)(uintptr_t)Hdr;
	code = Reg + CCACHE_CODE_OFF;
	ring = at(CCACHE_CODE_OFF);
	if (!ccache_ring_code(ring, region, gs == 2 ? 0 : hdr, gs == 2 ? (uint64_t)(uintptr_t)&Bell : hdr + CCACHE_RING_WORD,
			      code, 512, &Trap))
		return -1;
	code[512] = 0xc3;
	memcpy(Code, (const uint8_t[]){ 0x74, 0x00, 0x90 }, 3);
	for (int i = 0; i < NBLK; i++) {
		struct ccache_env env = { region, gs == 2 ? 0 : hdr, 0, dec, nostop, NULL, 0, NULL, 0, ring };
		struct ccache_block b;

		Blk[i] = at(CCACHE_CODE_OFF + 1024 + 512 * (uint64_t)i);
		if (ccache_translate(&env, ORIG, Blk[i], (uint32_t)i + 1, &b) < 0 || b.nexit != 2 || b.len > 512)
			return -1;
		if (gs == 2 && memmem(b.code, b.len, &hdr, 4))
			return -1;	/* (the header's address in the code: not the thread's) */
		for (int k = 0; k < 2; k++) {
			uint8_t rel[4], far[8];
			uint32_t o1, o2;

			ccache_link(&b, k, at(CCACHE_CODE_OFF + 512), rel, &o1, far, &o2);
			if (o2 != UINT32_MAX)
				return -1;
			memcpy(b.code + o1, rel, 4);
		}
		memcpy(Reg + (Blk[i] - at(0)), b.code, b.len);
		ccache_block_release(&b);
	}
	Gs = gs;
	return 0;
}

static void ring_reset(uint32_t w)
{
	ccache_ring_init(&Ring, (uint64_t)(uintptr_t)Recs, sizeof(Recs));
	*hdr64(CCACHE_RING_HEAD) = Ring.start;
	*hdr64(CCACHE_RING_LIMNEG) = (uint64_t)0 - Ring.end;
	*hdr64(CCACHE_RING_ENDNEG) = (uint64_t)0 - Ring.end;
	*hdr64(CCACHE_RING_START) = Ring.start;
	*hdr64(CCACHE_RING_WRAPNEG) = 0;
	*word() = w;
	Next = 1;
	Read = Bad = 0;
}

/* Reads up to max records, checking their order. */
static long read_some(size_t max)
{
	uint64_t h = __atomic_load_n(hdr64(CCACHE_RING_HEAD), __ATOMIC_ACQUIRE), s[2][2];
	int k = ccache_ring_spans(&Ring, h, max, s);
	long n = 0;

	for (int i = 0; i < k; i++)
		for (uint64_t a = s[i][0]; a < s[i][1]; a += 4, n++) {
			Bad += *(uint32_t *)(uintptr_t)a != Next;
			Next = Next % NBLK + 1;
		}
	ccache_ring_consumed(&Ring, h, (size_t)n);
	Read += n;
	return n;
}

/* Head and limit moved for a thread at its limit (after reading what
 * must be read for room): 0, or -1. */
static int make_room(size_t slice)
{
	uint64_t h = *hdr64(CCACHE_RING_HEAD), nh, nl;

	while (!ccache_ring_room(&Ring, h, &nh, &nl))
		if (read_some(slice) <= 0)
			return -1;
	*hdr64(CCACHE_RING_HEAD) = nh;
	*hdr64(CCACHE_RING_WRAPNEG) = (uint64_t)0 - ccache_ring_wrap(&Ring, nh);
	*hdr64(CCACHE_RING_LIMNEG) = (uint64_t)0 - nl;
	return 0;
}

/* Runs block i as a program would (ZF and CF set, known registers). */
static struct regs run_block(int i)
{
	return call_known(Blk[i]);
}

/* The limit for a wrap published, then the limit raised as far as the
 * records read allow, while the thread runs (as ptdb's reader does after
 * each pass, dbg_cache_rec.c): the limit read before the head, both
 * now. */
static void raise_limit(void)
{
	uint64_t cur = (uint64_t)0 - __atomic_load_n(hdr64(CCACHE_RING_LIMNEG), __ATOMIC_ACQUIRE);
	uint64_t h = __atomic_load_n(hdr64(CCACHE_RING_HEAD), __ATOMIC_ACQUIRE), lim;

	__atomic_store_n(hdr64(CCACHE_RING_WRAPNEG), (uint64_t)0 - ccache_ring_wrap(&Ring, h), __ATOMIC_RELEASE);
	lim = ccache_ring_limit(&Ring, h);
	if (h != Ring.end && cur < lim)
		__atomic_store_n(hdr64(CCACHE_RING_LIMNEG), (uint64_t)0 - lim, __ATOMIC_RELEASE);
}

static volatile int Done;
static long Served, Full;

/* The tracer's thread: reads slowly (a few records a pass), serves
 * each request, sleeps on the word between passes. */
static void *reader(void *arg)
{
	(void)arg;
	while (!Done) {
		struct timespec to = { 0, 200000 };

		if (__atomic_load_n(word(), __ATOMIC_ACQUIRE) == CCACHE_RING_POSTED) {
			uint64_t h = *hdr64(CCACHE_RING_HEAD), nh, nl;

			Full += !ccache_ring_room(&Ring, h, &nh, &nl);
			if (make_room(3) < 0)
				Bad++;
			Served++;
			__atomic_store_n(word(), CCACHE_RING_IDLE, __ATOMIC_RELEASE);
			syscall(SYS_futex, word(), FUTEX_WAKE, 1, NULL, NULL, 0);
			continue;
		}
		read_some(3);
		raise_limit();
		syscall(SYS_futex, word(), FUTEX_WAIT, CCACHE_RING_IDLE, &to, NULL, 0);
	}
	return NULL;
}

/* With per-thread slots (CCACHE_GS) the stubs keep their registers at
 * %gs:off: the thread's gs base at the region's slot page, so the
 * checks read the same slots. */
static void gs_base(uint64_t v)
{
	syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, (unsigned long)v);
}

static void served_as(int gs)
{
	enum { RUNS = 2000 };
	pthread_t th;
	int kept = 1;

	CHECK_INT(setup_as(gs), 0);
	if (gs)
		gs_base(at(0));
	ring_reset(CCACHE_RING_IDLE);
	Bell = 0;
	Done = 0;
	Served = Full = 0;
	CHECK_INT(pthread_create(&th, NULL, reader, NULL), 0);
	for (int i = 0; i < RUNS; i++) {
		struct regs r = run_block(i % NBLK);

		kept &= regs_kept(&r);
	}
	Done = 1;
	pthread_join(th, NULL);
	CHECK(kept);
	/* the stop: what is left read whole */
	read_some(SLOTS);
	CHECK_INT(Read, RUNS);
	CHECK_INT(Bad, 0);
	CHECK(Full > 0);		/* (the thread waited for the reader) */
	CHECK_INT(*word(), CCACHE_RING_IDLE);
	CHECK(*(uint64_t *)(Reg + CCACHE_SLOT_RDI) == 0xd1d1);
	CHECK_INT(Bell, gs == 2 ? 1 : 0);	/* (rung by each post) */
	if (gs)
		gs_base(0);
}

TEST(ccache_ring_served_wraps_and_waits_while_full)
{
	served_as(0);
}

/* the record stub's slow part is longer at %gs: (its jump over it
 * measured, not assumed: a wrong one ran into the middle of a store) */
TEST(ccache_ring_served_with_slots_through_gs)
{
	served_as(1);
}

/* Per-thread rings (CCACHE_GS_CTL): the head, the limit and the request
 * word in the thread's slot page (%gs:), no absolute address in the
 * record stub, and the doorbell rung before the tracer is woken. */
TEST(ccache_ring_served_with_the_ring_in_the_slot_page)
{
	served_as(2);
}

static long Traps;

/* The ring stub's trap, as the tracer takes it at a stop: everything
 * read, head and limit moved, on at slot RRET. */
static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)si;
	if (rip != at(CCACHE_CODE_OFF) + Trap + 1 || uc->uc_mcontext.gregs[REG_RDI] != 0xd1d1 ||
	    uc->uc_mcontext.gregs[REG_R11] != 0x1111 || uc->uc_mcontext.gregs[REG_RDX] != 0xdddd) {
		Bad++;
		_exit(3);
	}
	Traps++;
	read_some(SLOTS);
	if (make_room(SLOTS) < 0)
		Bad++;
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t) * (uint64_t *)(Reg + CCACHE_SLOT_RRET);
}

/* A ring that traps when the head meets its limit, set up for gs (the
 * layout setup_as made), with no trap counted yet and on_trap installed
 * for SIGTRAP (the handler before it in *old). */
static void trapping(int gs, struct sigaction *old)
{
	struct sigaction sa;

	if (gs)
		gs_base(at(0));
	ring_reset(CCACHE_RING_TRAP);
	Traps = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, old);
}

static void trapped_as(int gs)
{
	enum { RUNS = 10 * SLOTS + 5 };
	struct sigaction old;
	int kept = 1;

	CHECK_INT(setup_as(gs), 0);
	trapping(gs, &old);
	for (int i = 0; i < RUNS; i++) {
		struct regs r = run_block(i % NBLK);

		kept &= regs_kept(&r);
	}
	sigaction(SIGTRAP, &old, NULL);
	CHECK(kept);
	read_some(SLOTS);
	CHECK_INT(Read, RUNS);
	CHECK_INT(Bad, 0);
	/* a trap each time the head met the end: a lap each (the tail is
	 * where the head is after each) */
	CHECK_INT(Traps, RUNS / SLOTS);
	CHECK_INT(*word(), CCACHE_RING_TRAP);
	if (gs)
		gs_base(0);
}

TEST(ccache_ring_not_served_traps_and_reads_at_the_stop)
{
	trapped_as(0);
}

TEST(ccache_ring_trapped_with_slots_through_gs)
{
	trapped_as(1);
}

TEST(ccache_ring_trapped_with_the_ring_in_the_slot_page)
{
	trapped_as(2);
}

/* The head wraps by itself at the ring's end when the reader has
 * published how far it may go at the start (records read there), and
 * waits (here: the trap) only when it meets that limit with the ring
 * full: three quarters written and read, a quarter more to the end, a
 * quarter past the wrap, no trap; the next quarter meets the slot before
 * the tail: a trap.  Every record once, in order. */
static void wraps_as(int gs)
{
	enum { Q = CCACHE_RING_ALIGN / 4 };
	struct sigaction old;
	int kept = 1, n = 0;
	long traps[4];

	CHECK_INT(setup_as(gs), 0);
	trapping(gs, &old);
	for (int q = 0; q < 4; q++) {
		for (int i = 0; i < (q ? Q : 3 * Q); i++, n++) {
			struct regs r = run_block(n % NBLK);

			kept &= regs_kept(&r);
		}
		if (!q) {
			read_some(SLOTS);
			raise_limit();	/* (the wrap's limit: half the ring) */
			CHECK(*hdr64(CCACHE_RING_WRAPNEG) == (uint64_t)0 - (Ring.start + 2 * CCACHE_RING_ALIGN));
		}
		traps[q] = Traps;
	}
	sigaction(SIGTRAP, &old, NULL);
	CHECK(kept);
	/* (the quarter to the end and the one past the wrap: no trap; the
	 * one after met the limit before the tail) */
	CHECK_INT(traps[1], 0);
	CHECK_INT(traps[2], 0);
	CHECK_INT(traps[3], 1);
	read_some(SLOTS);
	CHECK_INT(Read, n);
	CHECK_INT(Bad, 0);
	if (gs)
		gs_base(0);
}

TEST(ccache_ring_wraps_by_itself_when_the_start_is_read)
{
	wraps_as(0);
}

TEST(ccache_ring_wraps_by_itself_with_the_ring_in_the_slot_page)
{
	wraps_as(2);
}

TEST_MAIN(ccache_ring_wraps_by_itself_when_the_start_is_read, ccache_ring_wraps_by_itself_with_the_ring_in_the_slot_page,
	  ccache_ring_spans_wrap_and_full, ccache_ring_served_wraps_and_waits_while_full,
	  ccache_ring_not_served_traps_and_reads_at_the_stop, ccache_ring_served_with_slots_through_gs,
	  ccache_ring_trapped_with_slots_through_gs, ccache_ring_served_with_the_ring_in_the_slot_page,
	  ccache_ring_trapped_with_the_ring_in_the_slot_page)
