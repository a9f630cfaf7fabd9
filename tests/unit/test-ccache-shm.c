/* tests/unit/test-ccache-shm.c: trace/ccache_shm.c, misses served without
 * a stop.  The served dispatcher runs here for real, out of an executable
 * mapping of this process: a hit, a miss served by another thread (the
 * request posted in the control page, a futex wait, the entry filled,
 * the word set to 0 and a wake), and a miss nobody serves (the word at 2:
 * the miss trap, with the registers the stub used back).  Every path
 * keeps the flags and the registers the program had.  And a served
 * block's exits: to the dispatcher with their target, but the one to its
 * own SYSCALL, which keeps its trap. */
#include "trace/ccache.h"
#include "tests/unit/test.h"
#include "tests/unit/ccache_code.h"

#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define SIZE (CCACHE_CODE_OFF + 65536)

static uint8_t *Reg;		/* the region: slots, table, code */
static uint8_t *Ctl;		/* the control page */
static uint64_t Landing;	/* a block: ret */
static uint32_t Miss;
static volatile int Serve;	/* the server thread: 1 serves, 2 answers 2 */

static uint64_t reg(uint64_t off)
{
	return (uint64_t)(uintptr_t)Reg + off;
}

static uint32_t *req(void)
{
	return (uint32_t *)(Ctl + CCACHE_CTL_REQ);
}

static uint8_t *Greg;		/* a second region, its slots per thread */

static void table_put_in(uint8_t *region, uint64_t pc, uint64_t base)
{
	uint64_t *e = (uint64_t *)(region + CCACHE_TABLE_OFF + (pc & 0xffff) * 16);

	e[1] = base;
	__atomic_store_n(&e[0], (uint64_t)0 - pc, __ATOMIC_RELEASE);
}

static void table_put(uint64_t pc, uint64_t base)
{
	table_put_in(Reg, pc, base);
}

static int setup(void)
{
	uint8_t *code;
	size_t n;

	if (Reg)
		return 0;
	Reg = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	Ctl = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (Reg == MAP_FAILED || Ctl == MAP_FAILED)
		return -1;
	code = Reg + CCACHE_CODE_OFF;
	n = ccache_dispatcher_served(reg(0), (uint64_t)(uintptr_t)Ctl, code, 1024, &Miss);
	if (!n)
		return -1;
	code[1024] = 0xc3;	/* ret */
	Landing = reg(CCACHE_CODE_OFF + 1024);
	return 0;
}

/* Calls the dispatcher for target pc (as a block's end would: the target
 * in slot T) with known registers and CF, ZF set: what came back. */
static struct regs dispatch_at(uint64_t disp, uint8_t *slots, uint64_t pc);

static struct regs dispatch(uint64_t pc)
{
	return dispatch_at(reg(CCACHE_CODE_OFF), Reg, pc);
}

/* (slots: where the dispatcher's slots are, Reg's first page or, per
 * thread, the page the thread's gs base points at) */
static struct regs dispatch_at(uint64_t disp, uint8_t *slots, uint64_t pc)
{
	*(uint64_t *)(slots + CCACHE_SLOT_T) = pc;
	return call_known(disp);
}

static void *server(void *arg)
{
	uint64_t pc, rg;

	(void)arg;
	while (__atomic_load_n(req(), __ATOMIC_ACQUIRE) != 1)
		syscall(SYS_futex, req(), FUTEX_WAIT, 0, NULL, NULL, 0);
	memcpy(&pc, Ctl + CCACHE_CTL_TARGET, 8);
	memcpy(&rg, Ctl + CCACHE_CTL_REGION, 8);
	/* (the region's address, never with CCACHE_GS) */
	if (rg == reg(0) || (Greg && rg == (uint64_t)(uintptr_t)Greg))
		table_put_in((uint8_t *)(uintptr_t)rg, pc, Landing);
	__atomic_store_n(req(), 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, req(), FUTEX_WAKE, 1, NULL, NULL, 0);
	return NULL;
}

TEST(ccache_shm_hit_and_served_miss_keep_registers_and_flags)
{
	struct regs r;
	pthread_t th;

	CHECK_INT(setup(), 0);
	table_put(0x401000, Landing);
	*req() = 2;
	r = dispatch(0x401000);
	CHECK(regs_kept(&r));
	/* a miss: posted, served by another thread, probed again */
	*req() = 0;
	CHECK_INT(pthread_create(&th, NULL, server, NULL), 0);
	r = dispatch(0x402345);
	pthread_join(th, NULL);
	CHECK(regs_kept(&r));
	CHECK_INT(*req(), 0);
	CHECK(*(uint64_t *)(Ctl + CCACHE_CTL_TARGET) == 0x402345);
	/* the stub's own registers are back from their slots */
	CHECK(*(uint64_t *)(Reg + CCACHE_SLOT_RDI) == 0xd1d1);
}

static sigjmp_buf Jb;
static uint64_t Trap_rip, Trap_rdi, Trap_rsi, Trap_r10, Trap_r11;

static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	Trap_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	Trap_rdi = (uint64_t)uc->uc_mcontext.gregs[REG_RDI];
	Trap_rsi = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
	Trap_r10 = (uint64_t)uc->uc_mcontext.gregs[REG_R10];
	Trap_r11 = (uint64_t)uc->uc_mcontext.gregs[REG_R11];
	siglongjmp(Jb, 1);
}

TEST(ccache_shm_miss_not_served_takes_the_trap)
{
	struct sigaction sa, old;

	CHECK_INT(setup(), 0);
	*req() = 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &old);
	Trap_rip = 0;
	if (!sigsetjmp(Jb, 1))
		dispatch(0x403000);
	sigaction(SIGTRAP, &old, NULL);
	CHECK(Trap_rip == reg(CCACHE_CODE_OFF) + Miss + 1);
	CHECK(Trap_rdi == 0xd1d1 && Trap_rsi == 0x5151 && Trap_r10 == 0x1010 && Trap_r11 == 0x1111);
	CHECK_INT(*req(), 2);	/* (left as it was) */
	/* the target, for the tracer that handles the trap */
	CHECK(*(uint64_t *)(Reg + CCACHE_SLOT_T) == 0x403000);
}

/* Per-thread slots (CCACHE_GS): a second dispatcher for the same region
 * (its table), its slots at %gs:off in a page of each thread.  Two
 * threads, each with its own page, run it at once: hits and a served
 * miss keep every register and flag; each thread's slots are its own
 * page's, the region's slot page untouched. */
static uint64_t Gdisp;

static void *gs_thread(void *arg)
{
	uint8_t *page = arg;
	uintptr_t ok = 1;

	if (syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, (unsigned long)(uintptr_t)page) != 0)
		return NULL;
	for (int i = 0; i < 100000 && ok; i++) {
		struct regs r = dispatch_at(Gdisp, page, 0x401000);

		ok = regs_kept(&r) && *(uint64_t *)(page + CCACHE_SLOT_J) == Landing;
	}
	syscall(SYS_arch_prctl, 0x1001, 0ul);
	return (void *)ok;
}

TEST(ccache_shm_per_thread_slots_through_gs)
{
	uint8_t *pages;
	uint32_t miss;
	size_t n;
	pthread_t th[2];
	void *ok[2];

	CHECK_INT(setup(), 0);
	pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(pages != MAP_FAILED);
	Greg = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(Greg != MAP_FAILED);
	n = ccache_dispatcher_served((uint64_t)(uintptr_t)Greg | CCACHE_GS, (uint64_t)(uintptr_t)Ctl,
				     Greg + CCACHE_CODE_OFF, 1024, &miss);
	CHECK(n > 0);
	Gdisp = (uint64_t)(uintptr_t)Greg + CCACHE_CODE_OFF;
	table_put_in(Greg, 0x401000, Landing);
	*req() = 2;
	for (int i = 0; i < 2; i++)
		CHECK_INT(pthread_create(&th[i], NULL, gs_thread, pages + 4096 * i), 0);
	for (int i = 0; i < 2; i++) {
		pthread_join(th[i], &ok[i]);
		CHECK(ok[i] != NULL);
	}
	for (int i = 0; i < 4096; i++)
		if (Greg[i]) {
			CHECK_INT(i, -1);
			break;
		}
	/* a served miss through the thread's page: its registers kept */
	{
		struct regs r;
		pthread_t sv;

		CHECK_INT((int)syscall(SYS_arch_prctl, 0x1001, (unsigned long)(uintptr_t)pages), 0);
		*req() = 0;
		CHECK_INT(pthread_create(&sv, NULL, server, NULL), 0);
		r = dispatch_at(Gdisp, pages, 0x404321);
		pthread_join(sv, NULL);
		syscall(SYS_arch_prctl, 0x1001, 0ul);
		CHECK(regs_kept(&r));
		CHECK(*(uint64_t *)(Ctl + CCACHE_CTL_REGION) == (uint64_t)(uintptr_t)Greg);
		CHECK(*(uint64_t *)(pages + CCACHE_SLOT_RDI) == 0xd1d1);
		CHECK(*(uint64_t *)(pages + CCACHE_SLOT_J) == Landing);
	}
	munmap(pages, 2 * 4096);
	munmap(Greg, SIZE);
	Greg = NULL;
}

/* Per-thread requests (CCACHE_GS_CTL): the miss is posted in the
 * thread's own control block (in its slot page, CCACHE_SLOT_CTL, reached
 * through %gs:SELF), the control page's doorbell is rung and woken, and
 * the control page's own word is never touched: one server, woken by the
 * bell, finds the request in the thread's word. */
static uint8_t *Tctl;

static void *bell_server(void *arg)
{
	uint32_t *bell = (uint32_t *)(Ctl + CCACHE_CTL_BELL), *w = (uint32_t *)(Tctl + CCACHE_CTL_REQ);
	uint64_t pc, rg;

	(void)arg;
	while (__atomic_load_n(bell, __ATOMIC_ACQUIRE) == 0)
		syscall(SYS_futex, bell, FUTEX_WAIT, 0, NULL, NULL, 0);
	if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != 1)
		return NULL;
	memcpy(&pc, Tctl + CCACHE_CTL_TARGET, 8);
	memcpy(&rg, Tctl + CCACHE_CTL_REGION, 8);
	if (rg == (uint64_t)(uintptr_t)Greg)
		table_put_in(Greg, pc, Landing);
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
	syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0);
	return (void *)1;
}

TEST(ccache_shm_per_thread_request_rings_the_doorbell)
{
	uint8_t *page;
	uint32_t miss;
	pthread_t sv;
	struct regs r;
	void *ok;

	CHECK_INT(setup(), 0);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	Greg = mmap(NULL, SIZE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED && Greg != MAP_FAILED);
	CHECK(ccache_dispatcher_served((uint64_t)(uintptr_t)Greg | CCACHE_GS | CCACHE_GS_CTL, (uint64_t)(uintptr_t)Ctl,
				       Greg + CCACHE_CODE_OFF, 1024, &miss) > 0);
	Gdisp = (uint64_t)(uintptr_t)Greg + CCACHE_CODE_OFF;
	*(uint64_t *)(page + CCACHE_SLOT_SELF) = (uint64_t)(uintptr_t)page;
	Tctl = page + CCACHE_SLOT_CTL;
	*(uint32_t *)(Tctl + CCACHE_CTL_REQ) = 0;
	*(uint32_t *)(Ctl + CCACHE_CTL_BELL) = 0;
	*req() = 2;
	CHECK_INT((int)syscall(SYS_arch_prctl, 0x1001, (unsigned long)(uintptr_t)page), 0);
	CHECK_INT(pthread_create(&sv, NULL, bell_server, NULL), 0);
	r = dispatch_at(Gdisp, page, 0x405678);
	pthread_join(sv, &ok);
	syscall(SYS_arch_prctl, 0x1001, 0ul);
	CHECK(ok != NULL);
	CHECK(regs_kept(&r));
	CHECK(*(uint64_t *)(Tctl + CCACHE_CTL_TARGET) == 0x405678);
	CHECK(*(uint64_t *)(Tctl + CCACHE_CTL_REGION) == (uint64_t)(uintptr_t)Greg);
	CHECK_INT(*(uint32_t *)(Ctl + CCACHE_CTL_BELL), 1);
	CHECK_INT(*req(), 2);	/* (the control page's word: not this thread's) */
	CHECK(*(uint64_t *)(page + CCACHE_SLOT_J) == Landing);
	/* nobody serves (the word 2): the miss trap, the word as it was */
	*(uint32_t *)(Tctl + CCACHE_CTL_REQ) = 2;
	{
		struct sigaction sa, old;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_trap;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGTRAP, &sa, &old);
		Trap_rip = 0;
		CHECK_INT((int)syscall(SYS_arch_prctl, 0x1001, (unsigned long)(uintptr_t)page), 0);
		if (!sigsetjmp(Jb, 1))
			dispatch_at(Gdisp, page, 0x406000);
		syscall(SYS_arch_prctl, 0x1001, 0ul);
		sigaction(SIGTRAP, &old, NULL);
		CHECK(Trap_rip == Gdisp + miss + 1);
		CHECK_INT(*(uint32_t *)(Tctl + CCACHE_CTL_REQ), 2);
	}
	munmap(page, 4096);
	munmap(Greg, SIZE);
	Greg = NULL;
}

static int nostop(void *ctx, uint64_t addr)
{
	(void)ctx;
	(void)addr;
	return 0;
}

TEST(ccache_shm_served_exits_go_through_the_dispatcher)
{
	uint64_t region = 0x10000000ull, base = region + CCACHE_CODE_OFF + 0x100;
	struct ccache_env env = { region, 0x7f0000001000ull, region + CCACHE_CODE_OFF, dec, nostop, NULL, 1, NULL, 1, 0 };
	struct ccache_block b;

	/* add $1,%rax; je -6 */
	memset(Code, 0x90, sizeof(Code));
	memcpy(Code, (const uint8_t[]){ 0x48, 0x83, 0xc0, 0x01, 0x74, 0xfa }, 6);
	CHECK_INT(ccache_translate(&env, ORIG, base, 0, &b), 0);
	CHECK_INT(b.nexit, 2);
	for (int k = 0; k < 2; k++) {
		uint32_t to = (uint32_t)(b.exit[k].end_off + (int64_t)(int32_t)(b.code[b.exit[k].patch_off] |
			      b.code[b.exit[k].patch_off + 1] << 8 | b.code[b.exit[k].patch_off + 2] << 16 |
			      (uint32_t)b.code[b.exit[k].patch_off + 3] << 24));
		uint64_t t;

		CHECK(to != b.exit[k].trap_off);
		CHECK(!memcmp(b.code + to, "\x48\x89\x05", 3));	/* mov %rax,A */
		CHECK(!memcmp(b.code + to + 7, "\x48\xb8", 2));
		memcpy(&t, b.code + to + 9, 8);
		CHECK(t == b.exit[k].target);
		CHECK_INT(b.code[to + 17], 0xe9);			/* jmp dispatcher (second entry) */
		CHECK_INT(b.code[b.exit[k].trap_off], 0xcc);		/* (the trap stays) */
	}
	ccache_block_release(&b);
	/* mov $39,%eax; syscall: the exit to the SYSCALL itself keeps its trap */
	memcpy(Code, (const uint8_t[]){ 0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05 }, 7);
	CHECK_INT(ccache_translate(&env, ORIG, base, 0, &b), 0);
	CHECK_INT(b.nexit, 2);
	CHECK(b.exit[0].target == ORIG + 5);
	{
		int32_t rel;

		memcpy(&rel, b.code + b.exit[0].patch_off, 4);
		CHECK(b.exit[0].end_off + rel == b.exit[0].trap_off);
		memcpy(&rel, b.code + b.exit[1].patch_off, 4);
		CHECK(b.exit[1].end_off + rel != b.exit[1].trap_off);
	}
	ccache_block_release(&b);
}

TEST_MAIN(ccache_shm_hit_and_served_miss_keep_registers_and_flags, ccache_shm_miss_not_served_takes_the_trap,
	  ccache_shm_served_exits_go_through_the_dispatcher, ccache_shm_per_thread_slots_through_gs,
	  ccache_shm_per_thread_request_rings_the_doorbell)
