/* tests/unit/test-disasm-mem.c: disasm_mem_access, the memory accesses
 * software watchpoints check: explicit operands with their read/write
 * access, rip-relative addresses folded, the implicit stack accesses,
 * stores capstone 4 calls reads, AVX-512, and instructions that name
 * memory without touching it. */
#include "disasm/disasm.h"
#include "tests/unit/test.h"

static int acc(const uint8_t *b, size_t n, struct disasm_mem *m, int max)
{
	struct disasm *d = disasm_new(NULL);
	int r = disasm_mem_access(d, b, n, 0x401000, m, max);

	disasm_free(d);
	return r;
}

TEST(store_rip_relative)
{
	/* movl %eax, 0x2ed9(%rip) */
	static const uint8_t b[] = { 0x89, 0x05, 0xd9, 0x2e, 0x00, 0x00 };
	struct disasm_mem m[4];

	CHECK_INT(acc(b, sizeof(b), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].base, DISASM_REG_NONE);
	CHECK_INT(m[0].disp, 0x401006 + 0x2ed9);
	CHECK_INT(m[0].size, 4);
}

TEST(load_base_index)
{
	/* movq 0x8(%rbx,%rcx,4), %rdx */
	static const uint8_t b[] = { 0x48, 0x8b, 0x54, 0x8b, 0x08 };
	struct disasm_mem m[4];

	CHECK_INT(acc(b, sizeof(b), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_READ);
	CHECK_INT(m[0].base, DISASM_REG_RBX);
	CHECK_INT(m[0].index, DISASM_REG_RCX);
	CHECK_INT(m[0].scale, 4);
	CHECK_INT(m[0].disp, 8);
	CHECK_INT(m[0].size, 8);
}

TEST(read_modify_write)
{
	/* addl $0x2, -0x4(%rbp) */
	static const uint8_t b[] = { 0x83, 0x45, 0xfc, 0x02 };
	struct disasm_mem m[4];

	CHECK_INT(acc(b, sizeof(b), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_READ | DISASM_MEM_WRITE);
	CHECK_INT(m[0].disp, -4);
}

TEST(implicit_stack)
{
	static const uint8_t push[] = { 0x55 }, ret[] = { 0xc3 }, leave[] = { 0xc9 };
	static const uint8_t call[] = { 0xe8, 0x00, 0x00, 0x00, 0x00 };
	struct disasm_mem m[4];

	CHECK_INT(acc(push, 1, m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].base, DISASM_REG_RSP);
	CHECK_INT(m[0].disp, -8);
	CHECK_INT(acc(call, 5, m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].disp, -8);
	CHECK_INT(acc(ret, 1, m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_READ);
	CHECK_INT(m[0].base, DISASM_REG_RSP);
	CHECK_INT(acc(leave, 1, m, 4), 1);
	CHECK_INT(m[0].base, DISASM_REG_RBP);
}

TEST(string_move)
{
	/* movsb (%rsi), %es:(%rdi) */
	static const uint8_t b[] = { 0xa4 };
	struct disasm_mem m[4];
	int n = acc(b, 1, m, 4), r = -1, w = -1;

	CHECK_INT(n, 2);
	for (int i = 0; i < n; i++) {
		if (m[i].base == DISASM_REG_RSI)
			r = m[i].access;
		if (m[i].base == DISASM_REG_RDI)
			w = m[i].access;
	}
	CHECK(r & DISASM_MEM_READ);
	CHECK(w & DISASM_MEM_WRITE);
}

TEST(no_access)
{
	/* lea 0x8(%rax), %rdx; nopw 0x0(%rax,%rax,1); mov %eax, %ebx; prefetchnta (%rdi) */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x50, 0x08 };
	static const uint8_t nop[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const uint8_t mov[] = { 0x89, 0xc3 };
	static const uint8_t pf[] = { 0x0f, 0x18, 0x07 };
	static const uint8_t bad[] = { 0x0f, 0xff };
	struct disasm_mem m[4];

	CHECK_INT(acc(lea, sizeof(lea), m, 4), 0);
	CHECK_INT(acc(nop, sizeof(nop), m, 4), 0);
	CHECK_INT(acc(mov, sizeof(mov), m, 4), 0);
	CHECK_INT(acc(pf, sizeof(pf), m, 4), 0);
	CHECK_INT(acc(bad, 1, m, 4), -1);
}

/* Stores capstone 4 marks as reads (a write watchpoint would miss them). */
TEST(vector_and_string_stores)
{
	static const uint8_t movups[] = { 0x0f, 0x11, 0x07 };	/* movups %xmm0, (%rdi) */
	static const uint8_t movdqa[] = { 0x66, 0x0f, 0x7f, 0x07 };	/* movdqa %xmm0, (%rdi) */
	static const uint8_t movq[] = { 0x66, 0x0f, 0xd6, 0x07 };	/* movq %xmm0, (%rdi) */
	static const uint8_t stosb[] = { 0xf3, 0xaa };			/* rep stosb */
	static const uint8_t movnti[] = { 0x0f, 0xc3, 0x07 };		/* movnti %eax, (%rdi) */
	/* vmovdqu64 %zmm16, 0x40(%rdi) */
	static const uint8_t evex[] = { 0x62, 0xe1, 0xfe, 0x48, 0x7f, 0x47, 0x01 };
	struct disasm_mem m[4];

	CHECK_INT(acc(movups, sizeof(movups), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].size, 16);
	CHECK_INT(acc(movdqa, sizeof(movdqa), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(acc(movq, sizeof(movq), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].size, 8);
	CHECK_INT(acc(stosb, sizeof(stosb), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].base, DISASM_REG_RDI);
	CHECK_INT(acc(movnti, sizeof(movnti), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(acc(evex, sizeof(evex), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_WRITE);
	CHECK_INT(m[0].disp, 0x40);
	CHECK_INT(m[0].size, 64);
}

/* AVX-512 mask and EVEX instructions (glibc's string
 * functions on these CPUs), some of which capstone 4 cannot decode. */
TEST(avx512_mask_and_evex)
{
	static const uint8_t kmovd[] = { 0xc4, 0xe1, 0xf9, 0x90, 0x0f };	/* kmovd (%rdi), %k1 */
	/* vmovdqu8 %zmm16, (%rdi){%k1} */
	static const uint8_t vmov[] = { 0x62, 0xe1, 0x7f, 0x49, 0x7f, 0x07 };
	/* vptestnmb %ymm16, %ymm16, %k1 */
	static const uint8_t vpt[] = { 0x62, 0xb2, 0x7e, 0x20, 0x26, 0xc8 };
	struct disasm_mem m[4];

	CHECK_INT(acc(kmovd, sizeof(kmovd), m, 4), 1);
	CHECK_INT(m[0].access, DISASM_MEM_READ);
	CHECK_INT(m[0].base, DISASM_REG_RDI);
	CHECK_INT(m[0].size, 4);
	CHECK_INT(acc(vmov, sizeof(vmov), m, 4), 1);
	CHECK(m[0].access & DISASM_MEM_WRITE);
	CHECK_INT(m[0].base, DISASM_REG_RDI);
	CHECK_INT(m[0].size, 64);
	CHECK_INT(acc(vpt, sizeof(vpt), m, 4), 0);
}

TEST_MAIN(store_rip_relative, load_base_index, read_modify_write, implicit_stack, string_move,
	  no_access, vector_and_string_stores, avx512_mask_and_evex)
