/* trace/xfer.h: the outcome of an x86-64 control transfer, computed from
 * the registers and memory before it runs (the software collector applies
 * it instead of running the instruction: one trap per transfer).  Pure:
 * registers and a memory-read callback in, outcome out; it writes nothing. */
#ifndef PTDB_TRACE_XFER_H
#define PTDB_TRACE_XFER_H

#include <stdint.h>
#include <sys/user.h>

#include "disasm/disasm.h"

/* Reads the 8 bytes at addr into *val: 0, or -1 when unreadable. */
typedef int (*xfer_read_fn)(void *ctx, uint64_t addr, uint64_t *val);

struct xfer_outcome {
	uint64_t next;		/* where control goes */
	uint64_t rsp;		/* rsp afterwards (ret pops, call pushes) */
	uint64_t rcx;		/* rcx afterwards (loop decrements it) */
	int taken;		/* conditional kinds: 1 taken, 0 not; else -1 */
	int push;		/* a call: store ret_addr at the new rsp */
	uint64_t ret_addr;
};

/* 1 if the jcc named by mnemonic ("jne", "bnd jle", ...) is taken under
 * rflags, 0 if not, -1 if the mnemonic is not a jcc. */
int xfer_jcc_taken(const char *mnemonic, uint64_t rflags);

/* The target of an indirect jmp/call (register or memory operand, any
 * base/index/scale/disp, RIP-relative, fs/gs, addr32).  0, or -1 if the
 * operand is not modelled or the read failed. */
int xfer_indirect_target(const struct user_regs_struct *r, const struct disasm_insn *in,
			 xfer_read_fn read, void *ctx, uint64_t *out);

/* The outcome of in (which must be at r->rip and not yet run): jcc,
 * jrcxz/jecxz, loop/loope/loopne, ret/ret imm, indirect jmp and call.
 * 0 with *out, or -1 if the kind is not modelled or a read failed. */
int xfer_compute(const struct user_regs_struct *r, const struct disasm_insn *in,
		 xfer_read_fn read, void *ctx, struct xfer_outcome *out);

/* Applies an outcome's register effects (rip, rsp, rcx) to *r; the
 * caller stores ret_addr first when out->push. */
void xfer_apply(struct user_regs_struct *r, const struct xfer_outcome *out);

#endif
