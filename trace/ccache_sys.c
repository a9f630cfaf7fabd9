/* trace/ccache_sys.c: a SYSCALL that runs in the code cache (see
 * ccache.h).  The check before it keeps the flags (they live across a
 * system call: the kernel gives them back), the stack and the red zone:
 * rcx and r11 (which the SYSCALL clobbers anyway) hold the number's
 * parts and the table's address, saved in two slots (the region's, or
 * the thread's: CCACHE_GS) for
 * the path that leaves the cache instead.  The number is taken as the
 * kernel takes it (eax, sign-extended: the upper half of rax is
 * ignored), so a number the table does not list (>= 512, x32's) leaves
 * the cache too.  The layout is fixed; ccache_sys_where reads it. */
#include "trace/ccache.h"

#include <string.h>

/* offsets in the code below (a slot's mov is 9 bytes either way: two
 * ds prefixes, ignored in 64-bit mode, before the RIP-relative form; a
 * gs prefix and an absolute disp32 in the per-thread form) */
enum {
	SYS_RCX_SAVED = 9,	/* after mov %rcx,S1 */
	SYS_BOTH_SAVED = 18,	/* after mov %r11,S2 */
	SYS_OUT = 20,		/* rcx, r11 back, then exit 0 */
	SYS_EXIT0 = 38,
	SYS_CHECK = 43,
	SYS_TABLE = 70,		/* lea table(%rip),%r11 */
	SYS_INSN = 84,		/* the SYSCALL */
	SYS_AFTER = 86,		/* movabs $next,%rcx (two prefixes first) */
	SYS_EXIT1 = 98,
	SYS_LEN = 103
};

static int rel32(uint8_t *p, uint64_t at, uint32_t end, uint64_t target)
{
	int64_t d = (int64_t)(target - (at + end));
	int32_t v = (int32_t)d;

	if (d != v)
		return -1;
	memcpy(p, &v, 4);
	return 0;
}

/* The slot mov at p (9 bytes, ending at end) for slot off of region. */
static int slot_mov(uint8_t *p, uint64_t at, uint32_t end, uint64_t region, uint32_t off)
{
	if (!(region & CCACHE_GS))
		return rel32(p + 5, at, end, region + off);
	p[0] = 0x65;			/* gs; REX, opcode; ModRM r/m 100; SIB 0x25 */
	p[1] = p[2];
	p[2] = p[3];
	p[3] = (uint8_t)((p[4] & ~7) | 4);
	p[4] = 0x25;
	memcpy(p + 5, &off, 4);
	return 0;
}

int ccache_sys_code(uint64_t at, uint64_t region, const struct disasm_insn *in, struct ccache_sys_code *o)
{
	static const uint8_t tmpl[SYS_LEN] = {
		0x3e, 0x3e, 0x48, 0x89, 0x0d, 0, 0, 0, 0,	/*  0 mov %rcx,S1(%rip) */
		0x3e, 0x3e, 0x4c, 0x89, 0x1d, 0, 0, 0, 0,	/*  9 mov %r11,S2(%rip) */
		0xeb, SYS_CHECK - SYS_OUT,			/* 18 jmp check */
		0x3e, 0x3e, 0x48, 0x8b, 0x0d, 0, 0, 0, 0,	/* 20 out: mov S1(%rip),%rcx */
		0x3e, 0x3e, 0x4c, 0x8b, 0x1d, 0, 0, 0, 0,	/* 29 mov S2(%rip),%r11 */
		0xe9, 0, 0, 0, 0,				/* 38 jmp exit 0 */
		0x89, 0xc1,					/* 43 check: mov %eax,%ecx */
		0x0f, 0xc9,					/* 45 bswap %ecx */
		0x0f, 0xb7, 0xc9,				/* 47 movzwl %cx,%ecx: bits 16-31 */
		0xe3, 0x02,					/* 50 jrcxz 54 */
		0xeb, (uint8_t)(SYS_OUT - 54),			/* 52 jmp out */
		0x0f, 0xb6, 0xcc,				/* 54 movzbl %ah,%ecx: bits 8-15 */
		0xe3, 0x08,					/* 57 jrcxz 67 */
		0x48, 0x8d, 0x49, 0xff,				/* 59 lea -1(%rcx),%rcx */
		0xe3, 0x02,					/* 63 jrcxz 67 (bits 8-15 were 1) */
		0xeb, (uint8_t)(SYS_OUT - 67),			/* 65 jmp out */
		0x0f, 0xb7, 0xc8,				/* 67 movzwl %ax,%ecx (< 512) */
		0x4c, 0x8d, 0x1d, 0, 0, 0, 0,			/* 70 lea table(%rip),%r11 */
		0x41, 0x0f, 0xb6, 0x0c, 0x0b,			/* 77 movzbl (%r11,%rcx),%ecx */
		0xe3, (uint8_t)(SYS_OUT - 84),			/* 82 jrcxz out (not listed) */
		0x0f, 0x05,					/* 84 syscall */
		/* (ds ds: exit 1's rel32 60 bytes after exit 0's, both
		 * 4-aligned when one is: CCACHE_SYS_EXIT0_REL) */
		0x3e, 0x3e, 0x48, 0xb9, 0, 0, 0, 0, 0, 0, 0, 0,	/* 86 movabs $next,%rcx */
		0xe9, 0, 0, 0, 0,				/* 98 jmp exit 1 */
	};
	uint64_t next = in->addr + in->len, reg = ccache_region_addr(region);
	uint64_t slots = region & CCACHE_GS ? region : reg;
	uint8_t *p = o->code;

	if (in->kind != DISASM_KIND_SYSCALL || in->len != 2 || in->bytes[0] != 0x0f || in->bytes[1] != 0x05)
		return -1;
	memcpy(p, tmpl, SYS_LEN);
	if (slot_mov(p, at, SYS_RCX_SAVED, slots, CCACHE_SLOT_S1) < 0 ||
	    slot_mov(p + SYS_RCX_SAVED, at, SYS_BOTH_SAVED, slots, CCACHE_SLOT_S2) < 0 ||
	    slot_mov(p + SYS_OUT, at, SYS_OUT + 9, slots, CCACHE_SLOT_S1) < 0 ||
	    slot_mov(p + SYS_OUT + 9, at, SYS_EXIT0, slots, CCACHE_SLOT_S2) < 0 ||
	    rel32(p + SYS_TABLE + 3, at, SYS_TABLE + 7, reg + CCACHE_SYSTAB_OFF) < 0)
		return -1;
	memcpy(p + SYS_AFTER + 4, &next, 8);
	o->len = SYS_LEN;
	_Static_assert(SYS_EXIT0 + 1 == CCACHE_SYS_EXIT0_REL && (SYS_EXIT1 - SYS_EXIT0) % 4 == 0, "exit rel32s");
	o->patch_off[0] = SYS_EXIT0 + 1;
	o->end_off[0] = SYS_EXIT0 + 5;
	o->patch_off[1] = SYS_EXIT1 + 1;
	o->end_off[1] = SYS_EXIT1 + 5;
	return 0;
}

int ccache_sys_where(uint32_t coff, uint32_t off, unsigned *saved)
{
	uint32_t d;

	if (off < coff)
		return 0;
	d = off - coff;
	if (d == SYS_RCX_SAVED) {
		*saved = 1;
		return 1;
	}
	if (d >= SYS_BOTH_SAVED && d <= SYS_INSN) {
		*saved = 3;
		return 1;
	}
	return d == SYS_AFTER || d == SYS_EXIT1 ? 2 : 0;
}
