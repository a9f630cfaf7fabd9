/* tests/unit/ccache_code.h: original code for the cache engine's
 * translator (trace/ccache) in its unit tests: the bytes at ORIG are
 * Code's, and dec (a struct ccache_env's decode callback) decodes them;
 * addresses outside Code do not decode.  And what translated code is
 * run with: call_known() calls it as a program would, regs_kept() says
 * whether the registers came back as they went in.  Included by
 * test-ccache.c, test-ccache-shm.c and test-ccache-ring.c. */
#ifndef PTDB_TESTS_CCACHE_CODE_H
#define PTDB_TESTS_CCACHE_CODE_H

#include "base/err.h"
#include "disasm/disasm.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ORIG 0x400000ull

static struct disasm *D;
static uint8_t Code[256];

static int dec(void *ctx, uint64_t addr, struct disasm_insn *in)
{
	struct ptdb_err e;

	(void)ctx;
	if (!D)
		D = disasm_new(&e);
	if (addr < ORIG || addr >= ORIG + sizeof(Code))
		return -1;
	return disasm_insn(D, Code + (addr - ORIG), sizeof(Code) - (addr - ORIG), addr, in, &e);
}

struct regs {
	uint64_t rax, rcx, rdx, rdi, rsi, r10, r11;
	uint8_t cf, zf;
};

/* Calls the code at addr (a block, or the dispatcher: as a block's end
 * would) below a 128-byte red zone, with known registers and CF, ZF set:
 * what came back. */
static inline struct regs call_known(uint64_t addr)
{
	register uint64_t r10 __asm__("r10") = 0x1010;
	register uint64_t r11 __asm__("r11") = 0x1111;
	uint64_t rax = 0xaaaa, rcx = 0xcccc, rdx = 0xdddd, rdi = 0xd1d1, rsi = 0x5151;
	uint8_t cf, zf;

	__asm__ volatile("lea -128(%%rsp),%%rsp\n\t"
		     "push %[a]\n\t"
		     "cmp %%rax,%%rax\n\t"	/* ZF */
		     "stc\n\t"			/* CF */
		     "call *(%%rsp)\n\t"
		     "setc %[cf]\n\t"
		     "setz %[zf]\n\t"
		     "lea 136(%%rsp),%%rsp"
		     : "+a"(rax), "+c"(rcx), "+d"(rdx), "+D"(rdi), "+S"(rsi), "+r"(r10), "+r"(r11),
		       [cf] "=&r"(cf), [zf] "=&r"(zf)
		     : [a] "r"(addr)
		     : "memory");
	return (struct regs){ rax, rcx, rdx, rdi, rsi, r10, r11, cf, zf };
}

/* Whether r is what call_known() went in with (SHM_DEBUG: said). */
static inline int regs_kept(const struct regs *r)
{
	if (getenv("SHM_DEBUG"))
		printf("# %lx %lx %lx %lx %lx %lx %lx cf %d zf %d\n", (long)r->rax, (long)r->rcx, (long)r->rdx,
		       (long)r->rdi, (long)r->rsi, (long)r->r10, (long)r->r11, r->cf, r->zf);
	return r->rax == 0xaaaa && r->rcx == 0xcccc && r->rdx == 0xdddd && r->rdi == 0xd1d1 &&
	       r->rsi == 0x5151 && r->r10 == 0x1010 && r->r11 == 0x1111 && r->cf == 1 && r->zf == 1;
}

#endif
