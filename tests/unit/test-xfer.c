/* tests/unit/test-xfer.c: trace/xfer, the computed outcome of every
 * transfer kind the software collector emulates, against the Intel
 * manual's definitions written out independently here. */
#include "trace/syscalls.h"
#include "trace/xfer.h"
#include "tests/unit/test.h"



static struct disasm *D;
static struct ptdb_err E;
static struct disasm_insn I;

#define DEC(addr, ...) dec_((addr), (const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))
static int dec_(uint64_t addr, const uint8_t *b, size_t n)
{
	if (!D)
		D = disasm_new(&E);
	return disasm_insn(D, b, n, addr, &I, &E);
}

/* a tiny memory: 8-byte words at fixed addresses; reads elsewhere fail */
static struct { uint64_t addr, val; } Mem[8];
static int Nmem, Nreads;
static uint64_t Last_read;

static void mem_set(uint64_t addr, uint64_t val)
{
	Mem[Nmem].addr = addr;
	Mem[Nmem++].val = val;
}

static int mem_read(void *ctx, uint64_t addr, uint64_t *val)
{
	(void)ctx;
	Nreads++;
	Last_read = addr;
	for (int i = 0; i < Nmem; i++)
		if (Mem[i].addr == addr) {
			*val = Mem[i].val;
			return 0;
		}
	return -1;
}

static struct user_regs_struct R;
static struct xfer_outcome O;

static void reset(void)
{
	memset(&R, 0, sizeof(R));
	memset(&O, 0xa5, sizeof(O));
	Nmem = Nreads = 0;
	Last_read = 0;
	R.rip = 0x401000;
	R.rsp = 0x7ffe0000;
}

static int compute(void)
{
	return xfer_compute(&R, &I, mem_read, NULL, &O);
}

/* The manual's condition for code cc (0..15) written from the flags. */
static int manual_cc(int cc, int cf, int pf, int zf, int sf, int of)
{
	static const int neg[16] = { 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1 };
	int v;

	switch (cc) {
	case 0: case 1: v = of == 1; break;
	case 2: case 3: v = cf == 1; break;
	case 4: case 5: v = zf == 1; break;
	case 6: case 7: v = cf == 1 || zf == 1; break;
	case 8: case 9: v = sf == 1; break;
	case 10: case 11: v = pf == 1; break;
	case 12: case 13: v = sf != of; break;
	default: v = zf == 1 || sf != of; break;
	}
	return neg[cc] ? !v : v;
}

/* every jcc (short 0x7X and near 0x0f 0x8X forms) on all 32 combinations
 * of CF PF ZF SF OF */
TEST(jcc_each_condition_each_flag_combination)
{
	for (int cc = 0; cc < 16; cc++)
		for (int near = 0; near < 2; near++)
			for (int f = 0; f < 32; f++) {
				int cf = f & 1, pf = f >> 1 & 1, zf = f >> 2 & 1, sf = f >> 3 & 1,
				    of = f >> 4 & 1, want = manual_cc(cc, cf, pf, zf, sf, of);
				uint64_t nlip;

				reset();
				if (near)
					CHECK_INT(DEC(0x401000, 0x0f, (uint8_t)(0x80 + cc), 0x10, 0, 0, 0), 0);
				else
					CHECK_INT(DEC(0x401000, (uint8_t)(0x70 + cc), 0x10), 0);
				CHECK_INT(I.kind, DISASM_KIND_JCC);
				nlip = 0x401000 + I.len;
				R.eflags = 0x202 | (uint64_t)cf | (uint64_t)pf << 2 | (uint64_t)zf << 6 |
					   (uint64_t)sf << 7 | (uint64_t)of << 11;
				CHECK_INT(compute(), 0);
				CHECK_INT(O.taken, want);
				CHECK_INT(O.next, want ? nlip + 0x10 : nlip);
				CHECK_INT(O.rsp, R.rsp);
				CHECK_INT(O.rcx, R.rcx);
				CHECK_INT(O.push, 0);
				CHECK_INT(Nreads, 0);
			}
}

TEST(jcc_mnemonic_aliases_and_prefixes)
{
	CHECK_INT(xfer_jcc_taken("jz", 0x40), 1);
	CHECK_INT(xfer_jcc_taken("jnae", 1), 1);
	CHECK_INT(xfer_jcc_taken("jpo", 4), 0);
	CHECK_INT(xfer_jcc_taken("bnd jne", 0x40), 0);
	CHECK_INT(xfer_jcc_taken("jmp", 0), -1);
	CHECK_INT(xfer_jcc_taken("", 0), -1);
}

TEST(jrcxz_and_jecxz)
{
	reset();
	CHECK_INT(DEC(0x401000, 0xe3, 0x20), 0);	/* jrcxz */
	CHECK_INT(I.kind, DISASM_KIND_JRCXZ);
	R.rcx = 0;
	CHECK_INT(compute(), 0);
	CHECK_INT(O.taken, 1);
	CHECK_INT(O.next, 0x401022);
	R.rcx = 0x100000000ull;	/* rcx nonzero, ecx zero */
	CHECK_INT(compute(), 0);
	CHECK_INT(O.taken, 0);
	CHECK_INT(O.next, 0x401002);
	CHECK_INT(DEC(0x401000, 0x67, 0xe3, 0x20), 0);	/* jecxz */
	CHECK_INT(I.kind, DISASM_KIND_JRCXZ);
	CHECK_INT(compute(), 0);
	CHECK_INT(O.taken, 1);
	CHECK_INT(O.next, 0x401023);
	CHECK_INT(O.rcx, 0x100000000ull);	/* not changed */
}

TEST(loop_loope_loopne)
{
	/* e2 loop, e1 loope, e0 loopne: rcx is decremented first */
	static const struct { uint8_t op; uint64_t rcx; int zf, taken; } c[] = {
		{ 0xe2, 1, 0, 0 }, { 0xe2, 2, 0, 1 }, { 0xe2, 2, 1, 1 }, { 0xe2, 0, 0, 1 },
		{ 0xe1, 2, 1, 1 }, { 0xe1, 2, 0, 0 }, { 0xe1, 1, 1, 0 },
		{ 0xe0, 2, 0, 1 }, { 0xe0, 2, 1, 0 }, { 0xe0, 1, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		reset();
		CHECK_INT(DEC(0x401000, c[i].op, 0xf0), 0);
		CHECK_INT(I.kind, DISASM_KIND_LOOP);
		R.rcx = c[i].rcx;
		R.eflags = c[i].zf ? 0x246 : 0x202;
		CHECK_INT(compute(), 0);
		CHECK_INT(O.rcx, c[i].rcx - 1);
		CHECK_INT(O.taken, c[i].taken);
		CHECK_INT(O.next, c[i].taken ? 0x400ff2 : 0x401002);
		xfer_apply(&R, &O);
		CHECK_INT(R.rcx, c[i].rcx - 1);
		CHECK_INT(R.rip, O.next);
	}
}

TEST(ret_and_ret_imm)
{
	reset();
	mem_set(0x7ffe0000, 0x401234);
	CHECK_INT(DEC(0x401000, 0xc3), 0);
	CHECK_INT(I.kind, DISASM_KIND_RET);
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x401234);
	CHECK_INT(O.rsp, 0x7ffe0008);
	CHECK_INT(O.taken, -1);
	CHECK_INT(DEC(0x401000, 0xc2, 0x10, 0x00), 0);	/* ret $0x10 */
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x401234);
	CHECK_INT(O.rsp, 0x7ffe0018);
	CHECK_INT(DEC(0x401000, 0xf3, 0xc3), 0);	/* repz ret */
	CHECK_INT(compute(), 0);
	CHECK_INT(O.rsp, 0x7ffe0008);
	/* an unreadable stack: not modelled, nothing changed */
	R.rsp = 0x1000;
	CHECK_INT(compute(), -1);
	CHECK_INT(R.rip, 0x401000);
}

TEST(indirect_through_registers)
{
	reset();
	R.rax = 0x401500;
	R.r11 = 0x402600;
	CHECK_INT(DEC(0x401000, 0xff, 0xe0), 0);	/* jmp *%rax */
	CHECK_INT(I.kind, DISASM_KIND_JMP_IND);
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x401500);
	CHECK_INT(O.push, 0);
	CHECK_INT(O.rsp, R.rsp);
	CHECK_INT(DEC(0x401000, 0x41, 0xff, 0xe3), 0);	/* jmp *%r11 */
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x402600);
	CHECK_INT(DEC(0x401000, 0x3e, 0xff, 0xe0), 0);	/* notrack jmp *%rax */
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x401500);
	CHECK_INT(DEC(0x401000, 0x41, 0xff, 0xd3), 0);	/* call *%r11 */
	CHECK_INT(I.kind, DISASM_KIND_CALL_IND);
	CHECK_INT(compute(), 0);
	CHECK_INT(O.next, 0x402600);
	CHECK_INT(O.push, 1);
	CHECK_INT(O.ret_addr, 0x401003);
	CHECK_INT(O.rsp, 0x7ffdfff8);
	CHECK_INT(Nreads, 0);
	xfer_apply(&R, &O);
	CHECK_INT(R.rip, 0x402600);
	CHECK_INT(R.rsp, 0x7ffdfff8);
}

/* every memory form: base, base+disp8/32, base+index*scale+disp, index
 * only, absolute, RIP-relative, fs/gs segment, addr32 truncation */
TEST(indirect_through_memory_every_form)
{
	static const struct { uint8_t b[10]; int n; uint64_t ea; } c[] = {
		{ { 0xff, 0x23 }, 2, 0x600000 },			/* jmp *(%rbx) */
		{ { 0xff, 0x63, 0x10 }, 3, 0x600010 },			/* jmp *0x10(%rbx) */
		{ { 0xff, 0xa3, 0x00, 0x01, 0, 0 }, 6, 0x600100 },	/* jmp *0x100(%rbx) */
		{ { 0xff, 0x64, 0xcb, 0x10 }, 4, 0x600000 + 3 * 8 + 0x10 }, /* jmp *0x10(%rbx,%rcx,8) */
		{ { 0xff, 0x24, 0x8d, 0x00, 0x10, 0x60, 0 }, 7, 0x601000 + 3 * 4 }, /* jmp *0x601000(,%rcx,4) */
		{ { 0xff, 0x24, 0x25, 0x00, 0x20, 0x60, 0 }, 7, 0x602000 },	/* jmp *0x602000 */
		{ { 0xff, 0x25, 0x00, 0x02, 0, 0 }, 6, 0x401006 + 0x200 },	/* jmp *0x200(%rip) */
		{ { 0x64, 0xff, 0x24, 0x25, 0x28, 0, 0, 0 }, 8, 0x7000028 },	/* jmp *%fs:0x28 */
		{ { 0x65, 0xff, 0x23 }, 3, 0x8000000 + 0x600000 },	/* jmp *%gs:(%rbx) */
		{ { 0x67, 0xff, 0x20 }, 3, 0x00000040 },		/* jmp *(%eax), addr32 */
		{ { 0x41, 0xff, 0x64, 0x24, 0xf8 }, 5, 0x700000 - 8 },	/* jmp *-8(%r12) */
		{ { 0x42, 0xff, 0x24, 0xc5, 0, 0, 0x60, 0 }, 8, 0x600000 + 8 * 5 }, /* jmp *0x600000(,%r8,8) */
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (int call = 0; call < 2; call++) {
			uint8_t b[10];

			reset();
			R.rbx = 0x600000;
			R.rcx = 3;
			R.rax = 0xffffffff00000040ull;	/* addr32 keeps the low half */
			R.r12 = 0x700000;
			R.r8 = 5;
			R.fs_base = 0x7000000;
			R.gs_base = 0x8000000;
			memcpy(b, c[i].b, sizeof(b));
			if (call) {
				/* the /2 (call) encoding of the same operand */
				int op = b[0] == 0xff ? 0 : b[1] == 0xff ? 1 : 2;

				b[op + 1] = (uint8_t)((b[op + 1] & ~0x38) | 0x10);
			}
			CHECK_INT(dec_(0x401000, b, (size_t)c[i].n), 0);
			CHECK_INT(I.kind, call ? DISASM_KIND_CALL_IND : DISASM_KIND_JMP_IND);
			mem_set(c[i].ea, 0x405000 + i);
			CHECK_INT(compute(), 0);
			CHECK_INT(Last_read, c[i].ea);
			CHECK_INT(O.next, 0x405000 + i);
			CHECK_INT(O.push, call);
			if (call) {
				CHECK_INT(O.ret_addr, 0x401000 + (uint64_t)c[i].n);
				CHECK_INT(O.rsp, 0x7ffe0000 - 8);
			}
			/* the word unreadable: not modelled */
			Nmem = 0;
			CHECK_INT(compute(), -1);
		}
	}
}

TEST(kinds_not_modelled)
{
	reset();
	CHECK_INT(DEC(0x401000, 0xe8, 0, 0, 0, 0), 0);	/* direct call: followed, not computed */
	CHECK_INT(compute(), -1);
	CHECK_INT(DEC(0x401000, 0x0f, 0x05), 0);	/* syscall */
	CHECK_INT(compute(), -1);
	CHECK_INT(DEC(0x401000, 0x90), 0);
	CHECK_INT(compute(), -1);
}

TEST(syscalls_that_return_at_once)
{
	CHECK_INT(trace_syscall_returns_at_once(9, 0), 1);	/* mmap */
	CHECK_INT(trace_syscall_returns_at_once(15, 0), 1);	/* rt_sigreturn */
	CHECK_INT(trace_syscall_returns_at_once(435, 0), 1);	/* clone3 */
	CHECK_INT(trace_syscall_returns_at_once(318, 0), 1);	/* getrandom */
	CHECK_INT(trace_syscall_returns_at_once(0, 0), 0);	/* read blocks */
	CHECK_INT(trace_syscall_returns_at_once(61, 0), 0);	/* wait4 */
	CHECK_INT(trace_syscall_returns_at_once(202, 1), 1);	/* futex wake */
	CHECK_INT(trace_syscall_returns_at_once(202, 0x81), 1);	/* FUTEX_WAKE_PRIVATE */
	CHECK_INT(trace_syscall_returns_at_once(202, 0), 0);	/* futex wait */
	CHECK_INT(trace_syscall_returns_at_once(202, 0x80), 0);
}

TEST_MAIN(jcc_each_condition_each_flag_combination, jcc_mnemonic_aliases_and_prefixes,
	  jrcxz_and_jecxz, loop_loope_loopne, ret_and_ret_imm, indirect_through_registers,
	  indirect_through_memory_every_form, kinds_not_modelled, syscalls_that_return_at_once)
