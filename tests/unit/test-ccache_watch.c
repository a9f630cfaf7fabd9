/* tests/unit/test-ccache_watch.c: trace/ccache_watch, the check translated
 * code runs before an access when software watchpoints are checked.  The
 * checks are run here, natively, in a page that holds a region's slots
 * and the ranges: each is followed by a ret (the instruction it guards is
 * not run), and its int3 (a hit) is caught as SIGTRAP.  Addressing forms
 * (base, index, r12/r13, index only, RIP-relative, fs-relative), rep
 * stosq forwards and backwards, the range edges, the kinds (a load is not
 * checked for a write watchpoint), and rax, rcx, rdx and the flags kept. */
#include "trace/ccache.h"
#include "tests/unit/test.h"

#include <signal.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct disasm *D;
static uint8_t *Page;		/* region: slots, ranges; code at +4096 */
static volatile int Hits;
void *Tw_fn;
static struct ccache_watch W;
static int Gs;			/* per-thread slots: at %gs:off, the third page */
/* (the asm's, RIP-relative: the stack moves under it) */
int Tw_df;
uint64_t Tw_rax;
uint8_t Tw_before, Tw_after;

static int mem(void *ctx, const struct disasm_insn *in, struct disasm_mem *m, int max)
{
	(void)ctx;
	return disasm_mem_access(D, in->bytes, in->len, in->addr, m, max);
}

static void on_trap(int sig)
{
	(void)sig;
	Hits++;
}

static void setup(void)
{
	struct ptdb_err e;

	if (Page)
		return;
	D = disasm_new(&e);
	Page = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	signal(SIGTRAP, on_trap);
	W.mem = mem;
	W.fsgsbase = (getauxval(AT_HWCAP2) & 2) != 0;
}

struct regs {
	uint64_t rax, rcx, rdx, rbx, rsi, rdi, r12, r13;
	int df;			/* run with the direction flag set */
};

/* Runs the check for the instruction bytes (decoded at addr) against one
 * range [lo, lo + n) of kind acc: 1 hit, 0 not, -1 no check written.
 * The registers come back in *r; *flags_kept: the carry and zero flags
 * were the same after it. */
static int check(const uint8_t *bytes, size_t len, uint64_t addr, uint64_t lo, uint64_t n, int acc,
		 struct regs *r, int *flags_kept)
{
	struct disasm_insn in;
	struct ptdb_err e;
	uint8_t *code;
	int k;
	uint64_t tab[2] = { lo, lo + n };
	uint8_t before, after;

	setup();
	if (disasm_insn(D, bytes, len, addr, &in, &e) < 0)
		return -2;
	W.n = 1;
	W.access[0] = acc;
	memcpy(Page + CCACHE_WATCH_OFF, tab, sizeof(tab));
	code = Page + 4096;
	if (Gs) {
		uint64_t self = (uint64_t)(uintptr_t)(Page + 8192);

		memcpy(Page + 8192 + CCACHE_SLOT_SELF, &self, 8);
		if (syscall(SYS_arch_prctl, 0x1001 /* ARCH_SET_GS */, (unsigned long)self) != 0)
			return -2;
	}
	k = ccache_watch_code(&W, NULL, (uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)Page | (Gs ? CCACHE_GS : 0),
			      &in, code, 4096);
	if (k <= 0)
		return -1;
	code[k] = 0xc3;		/* ret */
	Tw_fn = code;
	Hits = 0;
	Tw_df = r->df;
	Tw_rax = r->rax;
	{
		/* (set after every call: a call may clobber them) */
		register uint64_t a __asm__("rax") = r->rax;
		register uint64_t c __asm__("rcx") = r->rcx;
		register uint64_t d __asm__("rdx") = r->rdx;
		register uint64_t b __asm__("rbx") = r->rbx;
		register uint64_t s __asm__("rsi") = r->rsi;
		register uint64_t di __asm__("rdi") = r->rdi;
		register uint64_t x12 __asm__("r12") = r->r12;
		register uint64_t x13 __asm__("r13") = r->r13;
		/* (below the red zone; carry and zero set before, read after) */
		__asm__ volatile("sub $256, %%rsp\n\t"
				 "cmpl $0, Tw_df(%%rip)\n\t"
				 "je 1f\n\t"
				 "std\n"
				 "1:\n\t"
				 "cmp %%rax, %%rax\n\t"
				 "stc\n\t"
				 "lahf\n\t"
				 "mov %%ah, Tw_before(%%rip)\n\t"
				 "mov Tw_rax(%%rip), %%rax\n\t"
				 "call *Tw_fn(%%rip)\n\t"
				 "mov %%rax, Tw_rax(%%rip)\n\t"
				 "lahf\n\t"
				 "mov %%ah, Tw_after(%%rip)\n\t"
				 "mov Tw_rax(%%rip), %%rax\n\t"
				 "cld\n\t"
				 "add $256, %%rsp"
				 : "+a"(a), "+c"(c), "+d"(d), "+b"(b), "+S"(s), "+D"(di), "+r"(x12), "+r"(x13)
				 :
				 : "r8", "r9", "r10", "r11", "memory", "cc");
		before = Tw_before;
		after = Tw_after;
		r->rax = a;
		r->rcx = c;
		r->rdx = d;
	}
	if (Gs)
		syscall(SYS_arch_prctl, 0x1001, 0ul);
	/* (CF set by the last stc, ZF from the cmp: both must survive) */
	*flags_kept = (after & 0x41) == (before & 0x41);
	return Hits ? 1 : 0;
}

static struct regs R(uint64_t rbx, uint64_t rcx)
{
	struct regs r = { 0x1111, rcx, 0x3333, rbx, 0, 0, 0, 0, 0 };

	return r;
}

TEST(watch_base_index_disp)
{
	/* mov %rax,0x10(%rbx,%rcx,4): 8 bytes at B + 28 */
	static const uint8_t i[] = { 0x48, 0x89, 0x44, 0x8b, 0x10 };
	uint64_t B = 0x500000;
	struct regs r = R(B, 3);
	int fk;

	CHECK_INT(check(i, sizeof(i), 0x400000, B + 28, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK(fk);
	CHECK_INT(r.rax, 0x1111);
	CHECK_INT(r.rcx, 3);
	CHECK_INT(r.rdx, 0x3333);
	r = R(B, 3);
	CHECK_INT(check(i, sizeof(i), 0x400000, B + 36, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK(fk);
	CHECK_INT(r.rax, 0x1111);
	r = R(B, 3);
	CHECK_INT(check(i, sizeof(i), 0x400000, B + 24, 4, CCACHE_WATCH_WRITE, &r, &fk), 0);
	r = R(B, 3);
	CHECK_INT(check(i, sizeof(i), 0x400000, B + 35, 1, CCACHE_WATCH_WRITE, &r, &fk), 1);
	/* a read watchpoint: a store is not checked */
	r = R(B, 3);
	CHECK_INT(check(i, sizeof(i), 0x400000, B + 28, 8, CCACHE_WATCH_READ, &r, &fk), -1);
}

TEST(watch_rax_rcx_rdx_operands)
{
	/* mov %edx,(%rax,%rdx,2): the check's own scratch registers as operands */
	static const uint8_t i[] = { 0x89, 0x14, 0x50 };
	struct regs r = R(0, 0);
	int fk;

	r.rax = 0x600000;
	r.rdx = 0x10;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x600020, 4, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(r.rax, 0x600000);
	CHECK_INT(r.rdx, 0x10);
	r = R(0, 0);
	r.rax = 0x600000;
	r.rdx = 0x10;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x600024, 4, CCACHE_WATCH_WRITE, &r, &fk), 0);
}

TEST(watch_r12_r13_index_only_riprel)
{
	static const uint8_t r12[] = { 0x41, 0x89, 0x04, 0x24 };		/* mov %eax,(%r12) */
	static const uint8_t r13[] = { 0x41, 0x89, 0x45, 0x08 };		/* mov %eax,8(%r13) */
	static const uint8_t idx[] = { 0x89, 0x04, 0xcd, 0x00, 0x10, 0x00, 0x00 };	/* mov %eax,0x1000(,%rcx,8) */
	static const uint8_t rip[] = { 0x89, 0x05, 0x00, 0x01, 0x00, 0x00 };	/* mov %eax,0x100(%rip) */
	struct regs r = R(0, 0);
	int fk;

	r.r12 = 0x700000;
	CHECK_INT(check(r12, sizeof(r12), 0x400000, 0x700000, 4, CCACHE_WATCH_WRITE, &r, &fk), 1);
	r.r13 = 0x700000;
	CHECK_INT(check(r13, sizeof(r13), 0x400000, 0x700008, 4, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(check(r13, sizeof(r13), 0x400000, 0x700000, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	r = R(0, 5);
	CHECK_INT(check(idx, sizeof(idx), 0x400000, 0x1028, 4, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(check(idx, sizeof(idx), 0x400000, 0x1020, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK_INT(check(rip, sizeof(rip), 0x400000, 0x400106, 4, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(check(rip, sizeof(rip), 0x400000, 0x40010a, 4, CCACHE_WATCH_WRITE, &r, &fk), 0);
}

TEST(watch_fs_relative)
{
	/* mov %rax,%fs:0x10 */
	static const uint8_t i[] = { 0x64, 0x48, 0x89, 0x04, 0x25, 0x10, 0x00, 0x00, 0x00 };
	uint64_t fs = (uint64_t)(uintptr_t)__builtin_thread_pointer();
	struct regs r = R(0, 0);
	int fk;

	CHECK_INT(check(i, sizeof(i), 0x400000, fs + 0x10, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	r = R(0, 0);
	/* (without fsgsbase every fs-relative store traps: no miss either way) */
	CHECK_INT(check(i, sizeof(i), 0x400000, fs + 0x18, 8, CCACHE_WATCH_WRITE, &r, &fk), !W.fsgsbase);
}

TEST(watch_rep_stos_both_directions)
{
	static const uint8_t i[] = { 0xf3, 0x48, 0xab };	/* rep stos %rax,(%rdi) */
	struct regs r = R(0, 4);
	int fk;

	r.rdi = 0x800000;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800018, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK(fk);
	CHECK_INT(r.rcx, 4);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800020, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x7ffff8, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	/* backwards: the 4 quadwords ending with the one at rdi */
	r.df = 1;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x7fffe8, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800008, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x7fffe0, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK(fk);
}

/* Per-thread slots (CCACHE_GS): the same checks with the registers and
 * flags kept in the gs page, the rep string's direction read through its
 * SELF slot; the region's slot page is not written. */
TEST(watch_per_thread_slots_through_gs)
{
	static const uint8_t i[] = { 0xf3, 0x48, 0xab };	/* rep stos %rax,(%rdi) */
	static const uint8_t j[] = { 0x48, 0x89, 0x44, 0x8b, 0x10 };	/* mov %rax,0x10(%rbx,%rcx,4) */
	struct regs r = R(0, 4);
	int fk;

	setup();
	memset(Page, 0, 2048);
	Gs = 1;
	r.rdi = 0x800000;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800018, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK(fk);
	CHECK_INT(r.rcx, 4);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800020, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	r.df = 1;
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x7fffe8, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x800008, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	CHECK(fk);
	r = R(0x600000, 2);
	CHECK_INT(check(j, sizeof(j), 0x400000, 0x600018, 8, CCACHE_WATCH_WRITE, &r, &fk), 1);
	CHECK(fk && r.rax == 0x1111 && r.rcx == 2 && r.rdx == 0x3333);
	CHECK_INT(check(j, sizeof(j), 0x400000, 0x600020, 8, CCACHE_WATCH_WRITE, &r, &fk), 0);
	Gs = 0;
	for (int k = 0; k < 2048; k++)
		if (Page[k]) {
			CHECK_INT(k, -1);
			break;
		}
}

TEST(watch_load_for_read_watchpoint)
{
	static const uint8_t i[] = { 0x48, 0x8b, 0x03 };	/* mov (%rbx),%rax */
	struct regs r = R(0x900000, 0);
	int fk;

	CHECK_INT(check(i, sizeof(i), 0x400000, 0x900000, 8, CCACHE_WATCH_WRITE, &r, &fk), -1);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x900004, 4, CCACHE_WATCH_READ, &r, &fk), 1);
	CHECK_INT(check(i, sizeof(i), 0x400000, 0x900008, 4, CCACHE_WATCH_READ | CCACHE_WATCH_WRITE, &r, &fk), 0);
}

TEST_MAIN(watch_base_index_disp, watch_rax_rcx_rdx_operands, watch_r12_r13_index_only_riprel,
	  watch_fs_relative, watch_rep_stos_both_directions, watch_per_thread_slots_through_gs,
	  watch_load_for_read_watchpoint)
