/* tests/unit/test-disasm.c: disasm/ decoding, classification, text, cache. */
#include "disasm/disasm.h"
#include "tests/unit/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct disasm *D;
static struct ptdb_err E;
static struct disasm_insn I;

/* Decodes a byte string at addr into I; returns disasm_insn's result. */
#define DEC(addr, ...) dec_((addr), (const uint8_t[]){ __VA_ARGS__ }, \
	sizeof((const uint8_t[]){ __VA_ARGS__ }))
static int dec_(uint64_t addr, const uint8_t *b, size_t n)
{
	if (!D)
		D = disasm_new(&E);
	disasm_set_flavor(D, DISASM_ATT);
	return disasm_insn(D, b, n, addr, &I, &E);
}

TEST(mov_att)
{
	CHECK_INT(DEC(0x401000, 0xc7, 0x45, 0xfc, 0, 0, 0, 0), 0);
	CHECK_INT(I.len, 7);
	CHECK_INT(I.kind, DISASM_KIND_OTHER);
	CHECK_STR(I.mnemonic, "movl");
	CHECK_STR(I.operands, "$0x0, -0x4(%rbp)");
	CHECK_INT(I.bytes[1], 0x45);
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0xc7, 0x45, 0xfc, 0, 0, 0, 0 }, 7, 0), 7);
}

TEST(jcc_target)
{
	CHECK_INT(DEC(0x401109, 0x7e, 0x0e), 0);
	CHECK_INT(I.kind, DISASM_KIND_JCC);
	CHECK(I.has_target);
	CHECK_INT(I.target, 0x401119);
	CHECK_STR(I.mnemonic, "jle");
	CHECK_STR(I.operands, "0x401119");
}

TEST(jmp_rel8_rel32)
{
	CHECK_INT(DEC(0x401110, 0xeb, 0x0f), 0);
	CHECK_INT(I.kind, DISASM_KIND_JMP);
	CHECK_INT(I.target, 0x401121);
	CHECK_STR(I.operands, "0x401121");
	CHECK_INT(DEC(0x401000, 0xe9, 0x1c, 0x01, 0, 0), 0);
	CHECK_INT(I.len, 5);
	CHECK_INT(I.target, 0x401121);
	CHECK_INT(DEC(0x401000, 0xeb, 0xfe), 0);	/* jmp . */
	CHECK_INT(I.target, 0x401000);
}

TEST(call_rel32)
{
	CHECK_INT(DEC(0x401130, 0xe8, 0xfb, 0xfe, 0xff, 0xff), 0);
	CHECK_INT(I.kind, DISASM_KIND_CALL);
	CHECK(I.has_target);
	CHECK_INT(I.target, 0x401030);
	/* call with zero displacement (get-pc idiom) targets the next insn. */
	CHECK_INT(DEC(0x401000, 0xe8, 0, 0, 0, 0), 0);
	CHECK_INT(I.target, 0x401005);
}

TEST(call_ind_reg)
{
	CHECK_INT(DEC(0x401000, 0xff, 0xd0), 0);
	CHECK_INT(I.kind, DISASM_KIND_CALL_IND);
	CHECK(!I.has_target);
	CHECK(!I.ind.is_mem);
	CHECK_INT(I.ind.reg, 10);
	CHECK_INT(I.ind.reg, DISASM_REG_RAX);
	CHECK_INT(I.ind.reg_width, 64);
	CHECK_STR(I.operands, "*%rax");
	CHECK_INT(DEC(0x401000, 0x41, 0xff, 0xd3), 0);	/* call *%r11 */
	CHECK_INT(I.ind.reg, DISASM_REG_R11);
	CHECK_STR(disasm_reg_name(I.ind.reg), "r11");
}

TEST(call_ind_mem)
{
	CHECK_INT(DEC(0x401000, 0xff, 0x54, 0xcb, 0x08), 0);
	CHECK_INT(I.kind, DISASM_KIND_CALL_IND);
	CHECK(I.ind.is_mem);
	CHECK_INT(I.ind.base, DISASM_REG_RBX);
	CHECK_INT(I.ind.index, DISASM_REG_RCX);
	CHECK_INT(I.ind.scale, 8);
	CHECK_INT(I.ind.disp, 8);
	CHECK(!I.ind.rip_rel);
	CHECK(!I.ind.addr32);
	CHECK_STR(I.operands, "*0x8(%rbx, %rcx, 8)");
	/* call *(%eax): 0x67 address-size prefix. */
	CHECK_INT(DEC(0x401000, 0x67, 0xff, 0x10), 0);
	CHECK(I.ind.is_mem);
	CHECK_INT(I.ind.base, DISASM_REG_RAX);
	CHECK(I.ind.addr32);
	/* call *%fs:0x10 */
	CHECK_INT(DEC(0x401000, 0x64, 0xff, 0x14, 0x25, 0x10, 0, 0, 0), 0);
	CHECK_INT(I.ind.seg_fs_gs, DISASM_SEG_FS);
	CHECK_INT(I.ind.base, -1);
	CHECK_INT(I.ind.disp, 0x10);
}

TEST(jmp_ind_rip)
{
	/* PLT stub: target = load64(addr + len + disp) = load64(0x404018). */
	CHECK_INT(DEC(0x401030, 0xff, 0x25, 0xe2, 0x2f, 0, 0), 0);
	CHECK_INT(I.kind, DISASM_KIND_JMP_IND);
	CHECK(I.ind.is_mem);
	CHECK(I.ind.rip_rel);
	CHECK_INT(I.ind.base, DISASM_REG_RIP);
	CHECK_INT(I.ind.disp, 0x2fe2);
	CHECK_INT(I.ind.rip_ea, 0x404018);
	CHECK_STR(I.operands, "*0x2fe2(%rip)");
	/* bnd jmp / notrack jmp still classify as indirect jumps. */
	CHECK_INT(DEC(0x401030, 0xf2, 0xff, 0x25, 0xe2, 0x2f, 0, 0), 0);
	CHECK_INT(I.kind, DISASM_KIND_JMP_IND);
	CHECK_INT(I.ind.rip_ea, 0x404019);
	CHECK_INT(DEC(0x401000, 0x3e, 0xff, 0xe0), 0);
	CHECK_INT(I.kind, DISASM_KIND_JMP_IND);
	CHECK_INT(I.ind.reg, DISASM_REG_RAX);
}

TEST(ret_forms)
{
	CHECK_INT(DEC(0x401000, 0xc3), 0);
	CHECK_INT(I.kind, DISASM_KIND_RET);
	CHECK_INT(I.ret_imm, 0);
	CHECK_INT(DEC(0x401000, 0xc2, 0x10, 0x00), 0);
	CHECK_INT(I.kind, DISASM_KIND_RET);
	CHECK_INT(I.len, 3);
	CHECK_INT(I.ret_imm, 0x10);
	CHECK_INT(DEC(0x401000, 0xf3, 0xc3), 0);	/* repz ret */
	CHECK_INT(I.kind, DISASM_KIND_RET);
	CHECK_INT(I.len, 2);
	CHECK_INT(DEC(0x401000, 0xf2, 0xc3), 0);	/* bnd ret */
	CHECK_INT(I.kind, DISASM_KIND_RET);
	CHECK_INT(DEC(0x401000, 0x48, 0xcf), 0);	/* iretq */
	CHECK_INT(I.kind, DISASM_KIND_FAR);
	CHECK_INT(DEC(0x401000, 0xcb), 0);		/* lret */
	CHECK_INT(I.kind, DISASM_KIND_FAR);
}

TEST(syscall_int)
{
	CHECK_INT(DEC(0x401000, 0x0f, 0x05), 0);
	CHECK_INT(I.kind, DISASM_KIND_SYSCALL);
	CHECK_STR(I.mnemonic, "syscall");
	CHECK_INT(DEC(0x401000, 0xcc), 0);
	CHECK_INT(I.kind, DISASM_KIND_INT);
	CHECK_STR(I.mnemonic, "int3");
	CHECK_INT(DEC(0x401000, 0xcd, 0x80), 0);
	CHECK_INT(I.kind, DISASM_KIND_INT);
	CHECK_STR(I.operands, "$0x80");
	CHECK_INT(DEC(0x401000, 0xf4), 0);
	CHECK_INT(I.kind, DISASM_KIND_HLT);
}

TEST(loop_jrcxz)
{
	CHECK_INT(DEC(0x401010, 0xe2, 0xfb), 0);
	CHECK_INT(I.kind, DISASM_KIND_LOOP);
	CHECK(I.has_target);
	CHECK_INT(I.target, 0x40100d);
	CHECK_INT(DEC(0x401010, 0xe1, 0x02), 0);	/* loope */
	CHECK_INT(I.kind, DISASM_KIND_LOOP);
	CHECK_INT(DEC(0x401010, 0xe0, 0x02), 0);	/* loopne */
	CHECK_INT(I.kind, DISASM_KIND_LOOP);
	CHECK_INT(DEC(0x401010, 0xe3, 0x04), 0);
	CHECK_INT(I.kind, DISASM_KIND_JRCXZ);
	CHECK_STR(I.mnemonic, "jrcxz");
	CHECK_INT(I.target, 0x401016);
	CHECK_INT(DEC(0x401010, 0x67, 0xe3, 0x04), 0);	/* jecxz */
	CHECK_INT(I.kind, DISASM_KIND_JRCXZ);
	CHECK_INT(I.target, 0x401017);
}

TEST(ud2_endbr)
{
	CHECK_INT(DEC(0x401000, 0x0f, 0x0b), 0);
	CHECK_INT(I.kind, DISASM_KIND_UD);
	CHECK_STR(I.mnemonic, "ud2");
	CHECK_INT(DEC(0x401000, 0xf3, 0x0f, 0x1e, 0xfa), 0);
	CHECK_INT(I.kind, DISASM_KIND_OTHER);
	CHECK_STR(I.mnemonic, "endbr64");
}

TEST(intel_flavor)
{
	static const uint8_t mov[] = { 0xc7, 0x45, 0xfc, 0, 0, 0, 0 };
	static const uint8_t call[] = { 0xff, 0x54, 0xcb, 0x08 };

	CHECK(dec_(0, mov, 0) < 0);	/* creates D; n = 0 fails */
	disasm_set_flavor(D, DISASM_INTEL);
	CHECK_INT(disasm_get_flavor(D), DISASM_INTEL);
	CHECK_INT(disasm_insn(D, mov, sizeof(mov), 0x401000, &I, &E), 0);
	CHECK_STR(I.mnemonic, "mov");
	CHECK_STR(I.operands, "dword ptr [rbp - 0x4], 0x0");
	CHECK_INT(disasm_insn(D, call, sizeof(call), 0x401000, &I, &E), 0);
	CHECK_STR(I.operands, "qword ptr [rbx + rcx*8 + 0x8]");
	CHECK_INT(I.ind.scale, 8);
	disasm_set_flavor(D, DISASM_ATT);
}

TEST(zydis_fallback)
{
	/* kmovd %k0,%eax and vptestnmb %ymm1,%ymm0,%k0 (__strchrnul_evex):
	 * capstone 4.0.2 rejects these. */
	CHECK_INT(DEC(0x7ffff7f1a000, 0xc5, 0xfb, 0x93, 0xc0), 0);
	CHECK_INT(I.len, 4);
	CHECK_INT(I.kind, DISASM_KIND_OTHER);
	CHECK_STR(I.mnemonic, "kmovd");
	CHECK_STR(I.operands, "%k0, %eax");
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0xc5, 0xfb, 0x93, 0xc0 }, 4, 0), 4);
	CHECK_INT(DEC(0x7ffff7f1a000, 0x62, 0xf2, 0x7e, 0x28, 0x26, 0xc1), 0);
	CHECK_INT(I.len, 6);
	CHECK_STR(I.mnemonic, "vptestnmb");
	CHECK_STR(I.operands, "%ymm1, %ymm0, %k0");
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0x62, 0xf2, 0x7e, 0x28, 0x26, 0xc1 },
			     6, 0), 6);
	disasm_set_flavor(D, DISASM_INTEL);
	CHECK_INT(disasm_insn(D, (const uint8_t[]){ 0xc5, 0xfb, 0x93, 0xc0 }, 4, 0, &I, &E), 0);
	CHECK_STR(I.operands, "eax, k0");
	disasm_set_flavor(D, DISASM_ATT);
}

TEST(invalid_bytes)
{
	CHECK_INT(DEC(0x401000, 0x06), -1);	/* push %es: invalid in 64-bit */
	CHECK_STR(E.msg, "cannot decode instruction at 0x401000");
	CHECK_INT(I.len, 0);
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0x06 }, 1, 0x401000), -1);
}

TEST(truncated)
{
	CHECK_INT(DEC(0x401234, 0xe8, 0x00, 0x00, 0x00), -1);
	CHECK_STR(E.msg, "cannot decode instruction at 0x401234");
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0xe8, 0, 0, 0 }, 4, 0), -1);
	CHECK_INT(disasm_len(D, (const uint8_t[]){ 0xe8, 0, 0, 0, 0 }, 5, 0), 5);
}

TEST(cache)
{
	uint8_t code[] = { 0xe8, 0xfb, 0xfe, 0xff, 0xff, 0x90 };
	struct disasm_insn a, b;
	uint64_t h0, m0, h1, m1;

	dec_(0, code, 1);
	disasm_cache_clear(D);
	disasm_cache_stats(D, &h0, &m0);
	CHECK_INT(disasm_cached(D, 0x401130, code, sizeof(code), &a, &E), 0);
	CHECK_INT(disasm_cached(D, 0x401130, code, sizeof(code), &b, &E), 0);
	disasm_cache_stats(D, &h1, &m1);
	CHECK_INT(h1 - h0, 1);
	CHECK_INT(m1 - m0, 1);
	CHECK(!memcmp(&a, &b, sizeof(a)));
	CHECK_INT(b.target, 0x401030);
	CHECK_INT(disasm_len(D, code, sizeof(code), 0x401130), 5);
	/* A breakpoint written over the insn must not be served stale. */
	code[0] = 0xcc;
	CHECK_INT(disasm_cached(D, 0x401130, code, sizeof(code), &b, &E), 0);
	CHECK_INT(b.kind, DISASM_KIND_INT);
	CHECK_INT(b.len, 1);
	/* Flavor change drops cached text. */
	disasm_set_flavor(D, DISASM_INTEL);
	code[0] = 0xe8;
	CHECK_INT(disasm_cached(D, 0x401130, code, sizeof(code), &b, &E), 0);
	CHECK_STR(b.mnemonic, "call");
	disasm_set_flavor(D, DISASM_ATT);
	/* Errors are not cached and report the address. */
	CHECK_INT(disasm_cached(D, 0x500000, (const uint8_t[]){ 0x06 }, 1, &b, &E), -1);
	CHECK_STR(E.msg, "cannot decode instruction at 0x500000");
	/* Many addresses: bounded table keeps working. */
	for (uint64_t i = 0; i < 20000; i++)
		CHECK_INT(disasm_cached(D, 0x600000 + i * 5, code, 5, &b, &E), 0);
	CHECK_INT(b.target, 0x600000 + 19999 * 5 + 5 - 0x105);
}

TEST(reg_names)
{
	CHECK_STR(disasm_reg_name(DISASM_REG_R15), "r15");
	CHECK_STR(disasm_reg_name(DISASM_REG_RIP), "rip");
	CHECK_STR(disasm_reg_name(-1), "?");
	disasm_free(D);
	D = NULL;
	disasm_free(NULL);
}


/* disasm_flow gives what disasm_insn gives for everything a code copier
 * reads, over every instruction of a linear sweep of this process's
 * executable mappings (the program, libc, ld.so, capstone, Zydis).  But
 * riprel_odd: capstone 4 gives some 0x66-prefixed RIP-relative forms
 * (cmpw $0, x(%rip), movdqa x(%rip), %xmm0) a displacement size other than
 * 4 and so calls them odd where Zydis does not; the offset agrees, and a
 * copier judges those forms from the bytes (trace/ccache.c). */
static void flow_cmp(const uint8_t *p, size_t len, uint64_t addr, unsigned *n, unsigned *bad)
{
	struct disasm_insn a, b;

	for (size_t off = 0; off < len;) {
		size_t m = len - off > 16 ? 16 : len - off;

		if (disasm_insn(D, p + off, m, addr + off, &a, NULL) < 0) {
			off++;
			continue;
		}
		(*n)++;
		if (disasm_flow(D, p + off, m, addr + off, &b) < 0 || a.len != b.len || a.kind != b.kind ||
		    a.has_target != b.has_target || (a.has_target && a.target != b.target) ||
		    a.ret_imm != b.ret_imm || a.riprel_off != b.riprel_off ||
		    (a.riprel_odd != b.riprel_odd && !a.riprel_off) ||
		    (!strncmp(a.mnemonic, "xbegin", 6)) != (!strncmp(b.mnemonic, "xbegin", 6)) ||
		    memcmp(a.bytes, b.bytes, a.len)) {
			if (*bad < 20)
				fprintf(stderr, "flow differs at %#llx (%s %s): len %d/%d kind %d/%d tgt %#llx/%#llx "
					"rip %d,%d/%d,%d\n", (unsigned long long)(addr + off), a.mnemonic, a.operands,
					a.len, b.len, a.kind, b.kind, (unsigned long long)a.target,
					(unsigned long long)b.target, a.riprel_off, a.riprel_odd, b.riprel_off,
					b.riprel_odd);
			(*bad)++;
		}
		off += a.len;
	}
}

TEST(flow_equals_insn)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned n = 0, bad = 0;

	if (!D)
		D = disasm_new(&E);
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[8];

		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && perm[2] == 'x' && perm[0] == 'r' &&
		    !strstr(line, "[v"))
			flow_cmp((const uint8_t *)lo, hi - lo, lo, &n, &bad);
	}
	if (f)
		fclose(f);
	fprintf(stderr, "# %u instructions compared\n", n);
	CHECK(n > 100000);
	CHECK_INT(bad, 0);
}

TEST_MAIN(mov_att, jcc_target, jmp_rel8_rel32, call_rel32, call_ind_reg, call_ind_mem,
	  jmp_ind_rip, ret_forms, syscall_int, loop_jrcxz, ud2_endbr, intel_flavor,
	  zydis_fallback, invalid_bytes, truncated, cache, reg_names, flow_equals_insn)
