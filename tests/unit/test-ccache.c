/* tests/unit/test-ccache.c: trace/ccache, the cache engine's translator:
 * original bytes in, cache bytes out.  Checks the record stub, copied
 * instructions and their moved RIP-relative displacements, the exits of
 * conditional branches and their links (near and far), direct calls that
 * push the original return address, indirect transfers through the
 * dispatcher, block ends at stops and at code the cache does not run, side
 * exits past conditional branches, and where a cache pc maps back to. */
#include "trace/ccache.h"
#include "tests/unit/test.h"
#include "tests/unit/ccache_code.h"

#include <string.h>

#define REGION 0x10000000ull
#define BASE (REGION + CCACHE_CODE_OFF + 0x100)
#define RECPTR 0x7f0000001000ull

static uint64_t Stop_at;

static int stop(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == Stop_at;
}

static const struct ccache_env Env = { REGION, RECPTR, REGION + CCACHE_CODE_OFF, dec, stop, NULL, 0, NULL, 0, 0 };
static const struct ccache_env Env_sys = { REGION, RECPTR, REGION + CCACHE_CODE_OFF, dec, stop, NULL, 1, NULL, 0, 0 };

static void code(const uint8_t *b, size_t n)
{
	memset(Code, 0x90, sizeof(Code));
	memcpy(Code, b, n);
	Stop_at = 0;
}

static int32_t rd32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The displacement of a RIP-relative field at off (the instruction ends
 * at end) resolved to an absolute address. */
static uint64_t abs_at(const struct ccache_block *b, uint32_t off, uint32_t end)
{
	return b->base + end + (uint64_t)(int64_t)rd32(b->code + off);
}

TEST(ccache_record_stub_then_copies_with_moved_rip_operand)
{
	struct ccache_block b;
	/* mov 0x100(%rip),%rax; cmp $1,%rax; jne +0x10 */
	code((const uint8_t[]){ 0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0x48, 0x83, 0xf8, 0x01,
				0x75, 0x10 }, 13);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 7, &b), 0);
	CHECK_INT(b.n, 3);
	/* mov %rax,R(%rip); movabs recptr,%rax; movl $7,(%rax); lea 4(%rax),%rax;
	 * movabs %rax,recptr; mov R(%rip),%rax */
	CHECK(b.code[0] == 0x48 && b.code[1] == 0x89 && b.code[2] == 0x05);
	CHECK(abs_at(&b, 3, 7) == REGION + CCACHE_SLOT_R);
	CHECK(b.code[7] == 0x48 && b.code[8] == 0xa1 && rd64(b.code + 9) == RECPTR);
	CHECK_INT(b.rec_off, 17);
	CHECK(b.code[17] == 0xc7 && b.code[18] == 0x00 && rd32(b.code + 19) == 7);
	CHECK(b.code[23] == 0x48 && b.code[24] == 0x8d && b.code[25] == 0x40 && b.code[26] == 4);
	CHECK(b.code[27] == 0x48 && b.code[28] == 0xa3 && rd64(b.code + 29) == RECPTR);
	CHECK(b.code[37] == 0x48 && b.code[38] == 0x8b && b.code[39] == 0x05);
	CHECK(abs_at(&b, 40, 44) == REGION + CCACHE_SLOT_R);
	/* the copy of mov 0x100(%rip) still reads ORIG + 7 + 0x100 */
	CHECK_INT(b.ins[0].coff, 44);
	CHECK(!memcmp(b.code + 44, "\x48\x8b\x05", 3));
	CHECK(abs_at(&b, 47, 51) == ORIG + 7 + 0x100);
	/* cmp copied as is */
	CHECK(!memcmp(b.code + 51, "\x48\x83\xf8\x01", 4));
	/* jne -> jne rel32 (taken exit) + jmp rel32 (fall-through exit),
	 * each after the NOPs that 4-align its rel32 (linked with one
	 * store while threads run it) */
	CHECK_INT(b.nexit, 2);
	CHECK(b.exit[0].patch_off >= 57 && b.exit[0].patch_off <= 60);
	CHECK(b.code[b.exit[0].patch_off - 2] == 0x0f && b.code[b.exit[0].patch_off - 1] == 0x85);
	CHECK(b.code[b.exit[1].patch_off - 1] == 0xe9 && b.exit[1].patch_off - b.exit[0].end_off <= 4);
	for (int k = 0; k < 2; k++)
		CHECK_INT((BASE + b.exit[k].patch_off) % 4, 0);
	CHECK(b.exit[0].target == ORIG + 13 + 0x10);
	CHECK(b.exit[1].target == ORIG + 13);
	/* unlinked exits go to their traps */
	for (int k = 0; k < 2; k++) {
		CHECK(b.exit[k].end_off + (int64_t)rd32(b.code + b.exit[k].patch_off) == b.exit[k].trap_off);
		CHECK_INT(b.code[b.exit[k].trap_off], 0xcc);
	}
	ccache_block_release(&b);
}

TEST(ccache_where_maps_cache_pcs_back)
{
	struct ccache_block b;
	int idx = -1;

	code((const uint8_t[]){ 0x48, 0x83, 0xc0, 0x01, 0x74, 0xfa }, 6);	/* add $1,%rax; je -6 */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK_INT(ccache_where(&b, BASE, &idx), CCACHE_AT_ENTRY);
	CHECK_INT(ccache_where(&b, BASE + 3, &idx), CCACHE_INSIDE);	/* in the record stub */
	CHECK_INT(ccache_where(&b, BASE + b.ins[1].coff, &idx), CCACHE_AT_INSN);
	CHECK_INT(idx, 1);
	CHECK_INT(ccache_where(&b, BASE + b.exit[1].trap_off + 1, &idx), CCACHE_AT_TRAP);
	CHECK_INT(idx, 1);
	CHECK_INT(ccache_where(&b, BASE + b.len + 1, &idx), CCACHE_OUTSIDE);
	CHECK_INT(ccache_where(&b, BASE - 1, &idx), CCACHE_OUTSIDE);
	ccache_block_release(&b);
}

TEST(ccache_link_near_and_far)
{
	struct ccache_block b;
	uint8_t rel[4], far[8];
	uint32_t o1, o2;

	code((const uint8_t[]){ 0x74, 0x00 }, 2);	/* je +0 */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	ccache_link(&b, 0, BASE + 0x1000, rel, &o1, far, &o2);
	CHECK(o1 == b.exit[0].patch_off && o2 == UINT32_MAX);
	CHECK(BASE + b.exit[0].end_off + (uint64_t)(int64_t)rd32(rel) == BASE + 0x1000);
	/* beyond rel32: through the far slot, jmp *0(%rip) then the address */
	ccache_link(&b, 0, BASE + (8ull << 30), rel, &o1, far, &o2);
	CHECK(o2 == (uint32_t)b.exit[0].far_off + 6 && rd64(far) == BASE + (8ull << 30));
	CHECK(b.exit[0].end_off + (int64_t)rd32(rel) == b.exit[0].far_off);
	CHECK(b.code[b.exit[0].far_off] == 0xff && b.code[b.exit[0].far_off + 1] == 0x25 &&
	      rd32(b.code + b.exit[0].far_off + 2) == 0);
	ccache_block_release(&b);
}

TEST(ccache_direct_call_pushes_original_return_address)
{
	struct ccache_block b;
	uint32_t p;

	/* call +1; nop; (target:) ret */
	code((const uint8_t[]){ 0xe8, 0x01, 0x00, 0x00, 0x00, 0x90, 0xc3 }, 7);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK_INT(b.n, 2);	/* the call, then the ret it leads to */
	CHECK(b.ins[0].kind == DISASM_KIND_CALL && b.ins[1].addr == ORIG + 6);
	p = b.ins[0].coff;
	CHECK(b.code[p] == 0xff && b.code[p + 1] == 0x35);	/* pushq c(%rip) */
	CHECK(rd64(b.code + (abs_at(&b, p + 2, p + 6) - BASE)) == ORIG + 5);
	/* the ret: rax into slot A, the target read into rax, rsp += 8, on
	 * to the dispatcher's second entry (the target in rax) */
	p = b.ins[1].coff;
	CHECK(abs_at(&b, p + 3, p + 7) == REGION + CCACHE_SLOT_A);
	CHECK(!memcmp(b.code + p + 7, "\x48\x8b\x04\x24", 4));
	CHECK(!memcmp(b.code + p + 11, "\x48\x8d\xa4\x24\x08\x00\x00\x00", 8));
	CHECK(b.code[p + 19] == 0xe9 &&
	      abs_at(&b, p + 20, p + 24) == REGION + CCACHE_CODE_OFF + ccache_dispatch_rax(REGION));
	CHECK_INT(b.nexit, 0);
	ccache_block_release(&b);
}

TEST(ccache_indirect_jump_operand_becomes_a_load)
{
	struct ccache_block b;
	uint32_t p;

	code((const uint8_t[]){ 0xff, 0x25, 0x10, 0x00, 0x00, 0x00 }, 6);	/* jmp *0x10(%rip) */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	p = b.ins[0].coff + 7;	/* after mov %rax,A(%rip) */
	CHECK(!memcmp(b.code + p, "\x48\x8b\x05", 3));
	CHECK(abs_at(&b, p + 3, p + 7) == ORIG + 6 + 0x10);
	ccache_block_release(&b);
	/* call *0x8(%rbx,%rcx,8): mov 0x8(%rbx,%rcx,8),%rax, then the push */
	code((const uint8_t[]){ 0xff, 0x54, 0xcb, 0x08 }, 4);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	p = b.ins[0].coff + 7;
	CHECK(!memcmp(b.code + p, "\x48\x8b\x44\xcb\x08", 5));
	p += 5;
	CHECK(b.code[p] == 0xff && b.code[p + 1] == 0x35);
	CHECK(rd64(b.code + (abs_at(&b, p + 2, p + 6) - BASE)) == ORIG + 4);
	ccache_block_release(&b);
	/* notrack jmp *%r11 (REX.B kept) */
	code((const uint8_t[]){ 0x3e, 0x41, 0xff, 0xe3 }, 4);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK(!memcmp(b.code + b.ins[0].coff + 7, "\x49\x8b\xc3", 3));	/* mov %r11,%rax */
	ccache_block_release(&b);
}

TEST(ccache_ends_before_stops_and_untranslatable_code)
{
	struct ccache_block b;

	/* nop; nop; syscall */
	code((const uint8_t[]){ 0x90, 0x90, 0x0f, 0x05 }, 4);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK_INT(b.n, 2);
	CHECK(b.nexit == 1 && b.exit[0].target == ORIG + 2);
	ccache_block_release(&b);
	/* a block cannot start at a syscall, an int3, ud2 or hlt */
	CHECK_INT(ccache_translate(&Env, ORIG + 2, BASE, 0, &b), -1);
	CHECK(b.code == NULL && b.ins == NULL);
	code((const uint8_t[]){ 0xcc }, 1);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), -1);
	code((const uint8_t[]){ 0x0f, 0x0b }, 2);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), -1);
	code((const uint8_t[]){ 0xf4 }, 1);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), -1);
	/* a stop (a breakpoint) ends the block before it; at the start it
	 * does not (the tracer enters there) */
	code((const uint8_t[]){ 0x90, 0x90, 0x90, 0xc3 }, 4);
	Stop_at = ORIG + 2;
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK(b.n == 2 && b.nexit == 1 && b.exit[0].target == ORIG + 2);
	ccache_block_release(&b);
	CHECK_INT(ccache_translate(&Env, ORIG + 2, BASE, 0, &b), 0);
	CHECK_INT(b.n, 2);
	ccache_block_release(&b);
	/* a RIP-relative operand out of reach of the cache */
	{
		struct ccache_env far = Env;

		far.region = REGION + (4ull << 30);
		far.dispatch = far.region + CCACHE_CODE_OFF;
		code((const uint8_t[]){ 0x90, 0x48, 0x8b, 0x05, 0x00, 0x00, 0xff, 0x7f }, 8);
		CHECK_INT(ccache_translate(&far, ORIG, far.dispatch + 0x100, 0, &b), 0);
		CHECK(b.n == 1 && b.exit[0].target == ORIG + 1);
		ccache_block_release(&b);
		CHECK_INT(ccache_translate(&far, ORIG + 1, far.dispatch + 0x100, 0, &b), -1);
	}
	/* a loop closed by a direct jump ends where it comes round */
	code((const uint8_t[]){ 0x90, 0xeb, 0xfd }, 3);	/* nop; jmp -3 */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK(b.n == 2 && b.nexit == 1 && b.exit[0].target == ORIG);
	ccache_block_release(&b);
}

TEST(ccache_loop_and_jrcxz_keep_their_opcode)
{
	struct ccache_block b;
	uint32_t p;

	code((const uint8_t[]){ 0xe2, 0xfe }, 2);	/* loop . */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	p = b.exit[0].patch_off - 3;	/* (NOPs from coff to there: rel32s 4-aligned) */
	CHECK(p >= b.ins[0].coff && p <= b.ins[0].coff + 3u);
	CHECK(b.code[p] == 0xe2 && b.code[p + 1] == 5 && b.code[p + 2] == 0xe9);
	/* (the loop jumps over the first jmp onto the second's NOPs) */
	CHECK(b.code[b.exit[1].patch_off - 1] == 0xe9 && b.exit[1].patch_off - 1 - (p + 7) <= 3);
	CHECK_INT((BASE + b.exit[0].patch_off) % 4, 0);
	CHECK_INT((BASE + b.exit[1].patch_off) % 4, 0);
	CHECK(b.exit[0].target == ORIG + 2 && b.exit[1].target == ORIG);
	ccache_block_release(&b);
	code((const uint8_t[]){ 0x67, 0xe3, 0x10 }, 3);	/* jecxz +0x10 */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	p = b.exit[0].patch_off - 4;
	CHECK(b.code[p] == 0x67 && b.code[p + 1] == 0xe3 && b.code[p + 2] == 5);
	CHECK(b.exit[1].target == ORIG + 3 + 0x10);
	ccache_block_release(&b);
}

TEST(ccache_dispatcher_looks_up_and_traps_on_a_miss)
{
	uint8_t buf[256];
	uint32_t miss;
	size_t n = ccache_dispatcher(REGION, buf, sizeof(buf), &miss);

	CHECK(n > 40 && n < 200);
	/* rax into A, T into rax: the second entry (the target in rax) */
	CHECK(!memcmp(buf, "\x48\x89\x05", 3) && !memcmp(buf + 7, "\x48\x8b\x05", 3));
	CHECK_INT(ccache_dispatch_rax(REGION), 14);
	CHECK(!memcmp(buf + 14, "\x48\x89\x0d", 3));	/* mov %rcx,C */
	CHECK_INT(buf[miss], 0xcc);
	/* a miss: the target into T (mov %rax,T), then the trap */
	CHECK(!memcmp(buf + miss - 7, "\x48\x89\x05", 3));
	CHECK(REGION + CCACHE_CODE_OFF + miss + (uint64_t)(int64_t)rd32(buf + miss - 4) == REGION + CCACHE_SLOT_T);
	CHECK(buf[miss - 9] == 0xe3 && buf[miss - 8] == 8);	/* jrcxz over them */
	/* the second probe: the next entry's key, and its entry on a hit */
	CHECK(!memcmp(buf + miss - 17, "\x48\x8b\x4a\x10", 4));
	CHECK(!memcmp(buf + miss + 1, "\x48\x8d\x52\x10", 4));
	CHECK(buf[miss - 19] == 0xe3 && buf[miss - 18] == 0x16);	/* the first hit: past it all */
	CHECK(!memcmp(buf + miss + 5, "\x48\x8b\x42\x08", 4));
	/* it ends in jmp *J(%rip) */
	CHECK(buf[n - 6] == 0xff && buf[n - 5] == 0x25);
	CHECK(REGION + CCACHE_CODE_OFF + n + (uint64_t)(int64_t)rd32(buf + n - 4) == REGION + CCACHE_SLOT_J);
	CHECK_INT(ccache_dispatcher(REGION, buf, 10, &miss), 0);	/* no room: 0 */
}

/* 0x66-prefixed RIP-relative forms (capstone reports their displacement
 * size wrongly) run in the cache with the displacement moved; an
 * EIP-relative one (0x67) does not. */
TEST(ccache_word_and_sse_rip_operands_are_moved)
{
	struct ccache_block b;
	struct disasm_insn in;

	/* cmpw $0x0,0x558ec0(%rip); paddq 0x220f48(%rip),%xmm0; ret */
	code((const uint8_t[]){ 0x66, 0x83, 0x3d, 0xc0, 0x8e, 0x55, 0x00, 0x00,
				0x66, 0x0f, 0xd4, 0x05, 0x48, 0x0f, 0x22, 0x00, 0xc3 }, 17);
	CHECK_INT(dec(NULL, ORIG, &in), 0);
	CHECK(ccache_translatable(&in));
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 3, &b), 0);
	CHECK_INT(b.n, 3);
	CHECK(!memcmp(b.code + b.ins[0].coff, "\x66\x83\x3d", 3));
	CHECK_INT(b.code[b.ins[0].coff + 7], 0x00);	/* the immediate stays */
	CHECK(abs_at(&b, b.ins[0].coff + 3, b.ins[0].coff + 8) == ORIG + 8 + 0x558ec0);
	CHECK(!memcmp(b.code + b.ins[1].coff, "\x66\x0f\xd4\x05", 4));
	CHECK(abs_at(&b, b.ins[1].coff + 4, b.ins[1].coff + 8) == ORIG + 16 + 0x220f48);
	ccache_block_release(&b);
	/* addr32 cmpw $0x0,0x10(%eip) */
	code((const uint8_t[]){ 0x67, 0x66, 0x83, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x00 }, 9);
	if (dec(NULL, ORIG, &in) == 0)
		CHECK(!ccache_translatable(&in));
}

/* A SYSCALL in the cache: its number checked against the region's
 * table (rcx and r11 saved first), then run, rcx made the original next
 * pc, on through exit 1; not listed: rcx and r11 back, exit 0 to the
 * SYSCALL itself.  Never a block's first instruction. */
TEST(ccache_syscall_runs_in_place_after_a_check)
{
	struct ccache_block b;
	int idx = -1;
	uint32_t o;

	/* mov $39,%eax; syscall; nop */
	code((const uint8_t[]){ 0xb8, 0x27, 0x00, 0x00, 0x00, 0x0f, 0x05 }, 7);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK_INT(b.n, 1);	/* (off: the block ends before it) */
	CHECK(b.exit[0].target == ORIG + 5);
	ccache_block_release(&b);
	CHECK_INT(ccache_translate(&Env_sys, ORIG, BASE, 0, &b), 0);
	CHECK_INT(b.n, 2);
	CHECK_INT(b.nexit, 2);
	CHECK(b.exit[0].target == ORIG + 5);
	CHECK(b.exit[1].target == ORIG + 7);
	o = b.ins[1].coff;
	/* (each slot's mov 9 bytes: two ds prefixes, or gs per thread) */
	CHECK(!memcmp(b.code + o, "\x3e\x3e\x48\x89\x0d", 5));
	CHECK(abs_at(&b, o + 5, o + 9) == REGION + CCACHE_SLOT_S1);
	CHECK(!memcmp(b.code + o + 9, "\x3e\x3e\x4c\x89\x1d", 5));
	CHECK(abs_at(&b, o + 14, o + 18) == REGION + CCACHE_SLOT_S2);
	CHECK(abs_at(&b, o + 73, o + 77) == REGION + CCACHE_SYSTAB_OFF);
	CHECK(!memcmp(b.code + o + 84, "\x0f\x05\x3e\x3e\x48\xb9", 6));
	CHECK(rd64(b.code + o + 90) == ORIG + 7);
	CHECK(b.exit[0].patch_off == o + CCACHE_SYS_EXIT0_REL && (BASE + b.exit[0].patch_off) % 4 == 0);
	CHECK_INT((BASE + b.exit[1].patch_off) % 4, 0);
	for (int k = 0; k < 2; k++) {
		CHECK(b.exit[k].end_off + (int64_t)rd32(b.code + b.exit[k].patch_off) == b.exit[k].trap_off);
		CHECK_INT(b.code[b.exit[k].trap_off], 0xcc);
	}
	CHECK_INT(ccache_where(&b, BASE + o, &idx), CCACHE_AT_INSN);
	CHECK_INT(ccache_where(&b, BASE + o + 9, &idx), CCACHE_AT_SYSCALL);
	CHECK_INT(idx, 1);
	CHECK_INT(ccache_where(&b, BASE + o + 84, &idx), CCACHE_AT_SYSCALL);
	CHECK_INT(ccache_where(&b, BASE + o + 86, &idx), CCACHE_AT_SYSRET);
	CHECK_INT(ccache_where(&b, BASE + o + 98, &idx), CCACHE_AT_SYSRET);
	CHECK_INT(ccache_where(&b, BASE + b.exit[0].trap_off + 1, &idx), CCACHE_AT_TRAP);
	CHECK_INT(idx, 0);
	{
		unsigned saved = 0;

		CHECK_INT(ccache_sys_where(o, o + 9, &saved), 1);
		CHECK_INT(saved, 1);
		CHECK_INT(ccache_sys_where(o, o + 38, &saved), 1);
		CHECK_INT(saved, 3);
		CHECK_INT(ccache_sys_where(o, o + 101, &saved), 0);
	}
	ccache_block_release(&b);
	/* per-thread slots: the same layout, the slots at %gs:off */
	{
		struct ccache_env g = Env_sys;

		g.region |= CCACHE_GS;
		CHECK_INT(ccache_translate(&g, ORIG, BASE, 0, &b), 0);
		o = b.ins[1].coff;
		CHECK(!memcmp(b.code + o, "\x65\x48\x89\x0c\x25", 5));
		CHECK(rd32(b.code + o + 5) == CCACHE_SLOT_S1);
		CHECK(!memcmp(b.code + o + 29, "\x65\x4c\x8b\x1c\x25", 5));
		CHECK(rd32(b.code + o + 34) == CCACHE_SLOT_S2);
		CHECK(abs_at(&b, o + 73, o + 77) == REGION + CCACHE_SYSTAB_OFF);
		CHECK_INT(ccache_where(&b, BASE + o + 84, &idx), CCACHE_AT_SYSCALL);
	}
	ccache_block_release(&b);
	/* a block that starts at one: not in the cache */
	CHECK_INT(ccache_translate(&Env_sys, ORIG + 5, BASE, 0, &b), -1);
}

/* With a ring, the record stub keeps one register (rcx) and no flags,
 * and leaves the limit to the ring stub at each CCACHE_RING_ALIGN
 * boundary: its slow part after the block's code when a jrcxz reaches
 * it, else inline, jumped over. */
TEST(ccache_ring_record_stub_keeps_one_register)
{
	struct ccache_env r = Env;
	struct ccache_block b;
	uint8_t many[160];
	uint32_t j;

	r.recptr = REGION + 4096 - 64;	/* (in reach: RIP-relative) */
	r.ring = REGION + CCACHE_CODE_OFF;
	code((const uint8_t[]){ 0x90, 0xc3 }, 2);	/* nop; ret */
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 5, &b), 0);
	/* mov %rcx,RC; mov head,%rcx; movl $5,(%rcx); lea 4(%rcx),%rcx;
	 * mov %rcx,head; movzbl %cl,%ecx; jrcxz slow; mov RC,%rcx */
	CHECK(!memcmp(b.code, "\x48\x89\x0d", 3) && abs_at(&b, 3, 7) == REGION + CCACHE_SLOT_RC);
	CHECK(!memcmp(b.code + 7, "\x48\x8b\x0d", 3) && abs_at(&b, 10, 14) == r.recptr);
	CHECK_INT(b.rec_off, 14);
	CHECK(!memcmp(b.code + 14, "\xc7\x01", 2) && rd32(b.code + 16) == 5);
	CHECK(!memcmp(b.code + 20, "\x48\x8d\x49\x04", 4));
	CHECK(!memcmp(b.code + 24, "\x48\x89\x0d", 3) && abs_at(&b, 27, 31) == r.recptr);
	CHECK(!memcmp(b.code + 31, "\x0f\xb6\xc9\xe3", 4));
	CHECK(!memcmp(b.code + 36, "\x48\x8b\x0d", 3) && abs_at(&b, 39, 43) == REGION + CCACHE_SLOT_RC);
	CHECK_INT(b.ins[0].coff, 43);
	/* the slow part after the block's code: lea back,%rcx (back: the
	 * restore); mov %rcx,RRET; jmp ring */
	j = 36u + b.code[35];
	CHECK(j > 43 && j + 19 <= b.len);
	CHECK(!memcmp(b.code + j, "\x48\x8d\x0d", 3) && abs_at(&b, j + 3, j + 7) == BASE + 36);
	CHECK(!memcmp(b.code + j + 7, "\x48\x89\x0d", 3) && abs_at(&b, j + 10, j + 14) == REGION + CCACHE_SLOT_RRET);
	CHECK(b.code[j + 14] == 0xe9 && abs_at(&b, j + 15, j + 19) == r.ring);
	CHECK_INT(ccache_where(&b, BASE + j, (int[]){ 0 }), CCACHE_INSIDE);
	ccache_block_release(&b);
	/* 150 nops; ret: out of a jrcxz's reach, jrcxz slow; jmp back; slow */
	memset(many, 0x90, sizeof(many));
	many[150] = 0xc3;
	code(many, sizeof(many));
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 5, &b), 0);
	CHECK_INT(b.n, 151);
	CHECK(!memcmp(b.code + 34, "\xe3\x02\xeb\x13\x48\x8d\x0d", 7) && abs_at(&b, 41, 45) == BASE + 57);
	CHECK(b.code[52] == 0xe9 && abs_at(&b, 53, 57) == r.ring);
	CHECK(!memcmp(b.code + 57, "\x48\x8b\x0d", 3) && abs_at(&b, 60, 64) == REGION + CCACHE_SLOT_RC);
	CHECK_INT(b.ins[0].coff, 64);
	ccache_block_release(&b);
	/* a header out of RIP-relative reach: through rax, back before the jrcxz */
	r.recptr = RECPTR;
	code((const uint8_t[]){ 0x90, 0xc3 }, 2);
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 5, &b), 0);
	CHECK(!memcmp(b.code + 7, "\x48\x89\x05", 3) && abs_at(&b, 10, 14) == REGION + CCACHE_SLOT_R);
	CHECK(!memcmp(b.code + 14, "\x48\xa1", 2) && rd64(b.code + 16) == RECPTR);
	CHECK(!memcmp(b.code + 24, "\x48\x89\xc1\xc7\x01", 5));
	CHECK_INT(b.rec_off, 27);
	CHECK(!memcmp(b.code + 37, "\x48\x89\xc8\x48\xa3", 5) && rd64(b.code + 42) == RECPTR);
	CHECK(!memcmp(b.code + 50, "\x48\x8b\x05", 3) && abs_at(&b, 53, 57) == REGION + CCACHE_SLOT_R);
	CHECK(!memcmp(b.code + 57, "\x0f\xb6\xc9\xe3", 4));
	ccache_block_release(&b);
}

/* Per-thread slots (CCACHE_GS): the record stub's and the indirect
 * end's slots at %gs:off; the program's own gs code ends the block
 * before it (it would see the slot page), or, first, is not run. */
TEST(ccache_per_thread_slots_through_gs)
{
	struct ccache_env g = Env;
	struct ccache_block b;

	g.region |= CCACHE_GS;
	/* nop; ret */
	code((const uint8_t[]){ 0x90, 0xc3 }, 2);
	CHECK_INT(ccache_translate(&g, ORIG, BASE, 3, &b), 0);
	/* mov %rax,%gs:R; movabs recptr,%rax; ...; mov %gs:R,%rax */
	CHECK(!memcmp(b.code, "\x65\x48\x89\x04\x25", 5) && rd32(b.code + 5) == CCACHE_SLOT_R);
	CHECK(b.code[9] == 0x48 && b.code[10] == 0xa1 && rd64(b.code + 11) == RECPTR);
	CHECK(!memcmp(b.code + 39, "\x65\x48\x8b\x04\x25", 5) && rd32(b.code + 44) == CCACHE_SLOT_R);
	/* nop, then the return: mov %rax,%gs:A */
	CHECK_INT(b.ins[1].coff, 49);
	CHECK(!memcmp(b.code + 49, "\x65\x48\x89\x04\x25", 5) && rd32(b.code + 54) == CCACHE_SLOT_A);
	ccache_block_release(&b);
	/* nop; mov %gs:0x10,%rax */
	code((const uint8_t[]){ 0x90, 0x65, 0x48, 0x8b, 0x04, 0x25, 0x10, 0, 0, 0 }, 10);
	CHECK_INT(ccache_translate(&g, ORIG, BASE, 3, &b), 0);
	CHECK_INT(b.n, 1);
	CHECK(b.exit[0].target == ORIG + 1);
	ccache_block_release(&b);
	CHECK_INT(ccache_translate(&g, ORIG + 1, BASE, 3, &b), -1);
	/* (without per-thread slots it runs in the cache) */
	CHECK_INT(ccache_translate(&Env, ORIG + 1, BASE, 3, &b), 0);
	ccache_block_release(&b);
}

/* An instruction's record is 16 bytes (ptdb keeps one per instruction of
 * every block): a direct target kept as its distance from the next pc,
 * either way, and none read as 0; a target an int32 cannot reach (no
 * x86-64 rel8/rel32 does) is not run in the cache. */
TEST(ccache_insn_keeps_targets_in_16_bytes)
{
	struct ccache_block b;
	struct disasm_insn in;

	CHECK_INT(sizeof(struct ccache_insn), 16);
	/* jmp back to itself; call forward by 0x7ffffff0 */
	code((const uint8_t[]){ 0xeb, 0xfe }, 2);
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK(b.ins[0].has_target && ccache_insn_target(&b.ins[0]) == ORIG);
	ccache_block_release(&b);
	code((const uint8_t[]){ 0x90, 0xe8, 0xf0, 0xff, 0xff, 0x7f }, 6);
	Stop_at = ORIG + 6 + 0x7ffffff0ull;
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 0, &b), 0);
	CHECK_INT(b.n, 2);
	CHECK(!b.ins[0].has_target && ccache_insn_target(&b.ins[0]) == 0);
	CHECK(ccache_insn_target(&b.ins[1]) == ORIG + 6 + 0x7ffffff0ull);
	ccache_block_release(&b);
	memset(&in, 0, sizeof(in));
	in.kind = DISASM_KIND_JMP;
	in.addr = 0x400000;
	in.len = 5;
	in.has_target = 1;
	in.target = 0x400005 - 0x80000000ull;
	CHECK(ccache_translatable(&in));
	in.target = 0x400005 - 0x80000001ull;
	CHECK(!ccache_translatable(&in));
	in.target = 0x7ffff7a00000ull;
	CHECK(!ccache_translatable(&in));
}

/* With a ring, a block runs on past a conditional branch along its
 * fall-through: the branch goes to a side exit's stub, which writes the
 * side exit's record and then leaves through a patchable exit; a branch
 * back into the block, or to its own fall-through, ends the block. */
TEST(ccache_side_exits_run_on_past_conditional_branches)
{
	struct ccache_env r = Env;
	struct ccache_block b;
	uint32_t side = CCACHE_REC_SIDE + 1;
	int idx;

	r.ring = REGION + CCACHE_CODE_OFF;
	/* cmp $1,%rax; jne +0x10; cmp $2,%rax; je +0x20; ret */
	code((const uint8_t[]){ 0x48, 0x83, 0xf8, 0x01, 0x75, 0x10, 0x48, 0x83, 0xf8, 0x02, 0x74, 0x20, 0xc3 }, 13);
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 7, &b), 0);
	CHECK_INT(b.n, 5);
	CHECK_INT(b.nside, 2);
	CHECK_INT(b.nexit, 2);
	CHECK(b.exit[0].target == ORIG + 6 + 0x10 && b.exit[1].target == ORIG + 12 + 0x20);
	CHECK(ccache_rec_side(CCACHE_REC_SIDE + 1) == 1 && ccache_rec_side(7) == -1);
	for (int k = 0; k < 2; k++) {
		uint32_t j = b.ins[2 * k + 1].coff, stub = j + 6 + (uint32_t)rd32(b.code + j + 2);

		/* jne/je rel32 to the stub, the instruction after it right there */
		CHECK(b.code[j] == 0x0f && b.code[j + 1] == (k ? 0x84 : 0x85));
		CHECK_INT(b.ins[2 * k + 2].coff, j + 6);
		CHECK(stub > b.ins[4].coff && stub < b.exit[k].patch_off);
		/* the stub's record: movl $CCACHE_REC_SIDE + k,(%rcx) */
		side = CCACHE_REC_SIDE + (uint32_t)k;
		CHECK(memmem(b.code + stub, b.exit[k].patch_off - stub, (const uint8_t[]){ 0xc7, 0x01 }, 2) != NULL);
		CHECK(memmem(b.code + stub, b.exit[k].patch_off - stub, &side, 4) != NULL);
		/* then its exit, unlinked: to its trap */
		CHECK_INT((BASE + b.exit[k].patch_off) % 4, 0);
		CHECK(b.exit[k].end_off + (int64_t)rd32(b.code + b.exit[k].patch_off) == b.exit[k].trap_off);
		CHECK_INT(ccache_where(&b, BASE + b.exit[k].trap_off + 1, &idx), CCACHE_AT_TRAP);
		CHECK_INT(idx, k);
		CHECK_INT(ccache_where(&b, BASE + stub, &idx), CCACHE_INSIDE);
	}
	ccache_block_release(&b);
	/* without a ring (nothing but the block's own record stub may be
	 * where a full buffer faults): the branch ends the block */
	CHECK_INT(ccache_translate(&Env, ORIG, BASE, 7, &b), 0);
	CHECK(b.n == 2 && b.nside == 0 && b.nexit == 2);
	ccache_block_release(&b);
	/* cmp; jne back to the block's start; jne to its own fall-through */
	code((const uint8_t[]){ 0x48, 0x83, 0xf8, 0x01, 0x75, 0xfa }, 6);
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 7, &b), 0);
	CHECK(b.n == 2 && b.nside == 0 && b.nexit == 2 && b.exit[0].target == ORIG);
	ccache_block_release(&b);
	code((const uint8_t[]){ 0x48, 0x83, 0xf8, 0x01, 0x75, 0x00 }, 6);
	CHECK_INT(ccache_translate(&r, ORIG, BASE, 7, &b), 0);
	CHECK(b.n == 2 && b.nside == 0 && b.nexit == 2);
	ccache_block_release(&b);
}

TEST_MAIN(ccache_record_stub_then_copies_with_moved_rip_operand, ccache_ring_record_stub_keeps_one_register,
	  ccache_per_thread_slots_through_gs, ccache_where_maps_cache_pcs_back,
	  ccache_link_near_and_far, ccache_direct_call_pushes_original_return_address,
	  ccache_indirect_jump_operand_becomes_a_load, ccache_ends_before_stops_and_untranslatable_code,
	  ccache_loop_and_jrcxz_keep_their_opcode, ccache_dispatcher_looks_up_and_traps_on_a_miss,
	  ccache_word_and_sse_rip_operands_are_moved, ccache_syscall_runs_in_place_after_a_check,
	  ccache_insn_keeps_targets_in_16_bytes, ccache_side_exits_run_on_past_conditional_branches)
