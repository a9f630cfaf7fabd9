/* tests/unit/ccache_code.h: original code for the cache engine's
 * translator (trace/ccache) in its unit tests: the bytes at ORIG are
 * Code's, and dec (a struct ccache_env's decode callback) decodes them;
 * addresses outside Code do not decode.  Included by test-ccache.c,
 * test-ccache-shm.c and test-ccache-ring.c. */
#ifndef PTDB_TESTS_CCACHE_CODE_H
#define PTDB_TESTS_CCACHE_CODE_H

#include "base/err.h"
#include "disasm/disasm.h"

#include <stdint.h>

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

#endif
