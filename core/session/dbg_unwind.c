/* core/session/dbg_unwind.c: unwinding a live thread one frame at a time where CFI
 * leaves off — code without CFI (glibc's clone3 after its syscall, hand
 * written assembly, JIT code) — without inventing frames: a candidate
 * return address counts only if the instruction before it is a call. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "target/target.h"

#include <stdlib.h>
#include <string.h>

#define STACK_SPAN (8u << 20)	/* a frame pointer this far off is not one */

static int rd(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct dbg *d = ctx;

	return target_read_mem(d->proc, addr, buf, n, NULL) < 0 ? -1 : 0;
}

/* 1 if ra follows a call instruction in a module's code. */
static int is_return_addr(struct dbg *d, uint64_t ra)
{
	static const unsigned lens[] = { 5, 2, 3, 6, 7, 4 };
	struct disasm_insn in;

	if (ra < 8 || !dbg_module_for(d, ra))
		return 0;
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		if (dbg_insn_at(d, ra - lens[i], &in) == 0 && in.len == lens[i] &&
		    (in.kind == DISASM_KIND_CALL || in.kind == DISASM_KIND_CALL_IND))
			return 1;
	return 0;
}

/* ra at addr, if it is one. */
static int ra_at(struct dbg *d, uint64_t addr, uint64_t *ra)
{
	return rd(d, addr, ra, 8) == 0 && is_return_addr(d, *ra) ? 0 : -1;
}

/* The stack pointer's distance below the CFA's return address at pc, read
 * from the function's instructions from its start (as LLDB's
 * instruction-emulation unwind does): pushes, pops and constant
 * adjustments of rsp on a straight path; *rbp_at the distance of a pushed
 * rbp (-1: none).  -1 when another write of rsp, a jump or a ret lies on
 * the way, or the function is not known. */
static int64_t stack_depth(struct dbg *d, struct dbg_module *m, uint64_t pc, int64_t *rbp_at)
{
	struct sym_loc loc;
	struct disasm_insn in;
	int64_t off = 0;
	uint64_t a;

	*rbp_at = -1;
	if (!m || sym_lookup_addr(m->sym, pc, &loc) < 0 || !loc.func || pc < loc.func_addr ||
	    pc - loc.func_addr > 4096)
		return -1;
	for (a = loc.func_addr; a < pc; a += in.len) {
		const char *op = in.operands;
		size_t n;

		if (dbg_insn_at(d, a, &in) < 0 || !in.len)
			return -1;
		op = in.operands;
		n = strlen(op);
		if (in.kind == DISASM_KIND_RET || in.kind == DISASM_KIND_JMP ||
		    in.kind == DISASM_KIND_JMP_IND || in.kind == DISASM_KIND_FAR)
			return -1;
		if (!strncmp(in.mnemonic, "push", 4)) {
			off += 8;
			if (!strcmp(op, "%rbp") && *rbp_at < 0)
				*rbp_at = off;
		} else if (!strncmp(in.mnemonic, "pop", 3))
			off -= 8;
		else if (n >= 6 && !strcmp(op + n - 6, ", %rsp") && op[0] == '$' &&
			 (!strcmp(in.mnemonic, "subq") || !strcmp(in.mnemonic, "addq"))) {
			int64_t imm = (int64_t)strtoll(op + 1, NULL, 0);

			off += in.mnemonic[0] == 's' ? imm : -imm;
		} else if ((n >= 4 && !strcmp(op + n - 4, "%rsp")) || !strncmp(in.mnemonic, "leave", 5) ||
			   !strncmp(in.mnemonic, "enter", 5))
			return -1;	/* rsp set otherwise */
		if (off < 0)
			return -1;
	}
	return off;
}

int dbg_unwind_step(struct dbg *d, uint64_t pc, uint64_t look, uint64_t rsp, uint64_t rbp,
		    int first, uint64_t *cpc, uint64_t *crsp, uint64_t *crbp)
{
	struct dbg_module *m = dbg_module_for(d, look);
	struct disasm_insn in;
	struct sym_loc loc;
	uint64_t v[2];
	int rc = m ? sym_unwind_cfi(m->sym, look, rsp, rbp, rd, d, cpc, crsp, crbp) : 1;

	if (rc <= 0)
		return rc;
	/* at a ret, or at a function's first instruction: [rsp] */
	if (first && ((dbg_insn_at(d, pc, &in) == 0 && in.kind == DISASM_KIND_RET) ||
		      (m && sym_lookup_addr(m->sym, pc, &loc) == 0 && loc.func && loc.func_addr == pc)) &&
	    ra_at(d, rsp, cpc) == 0) {
		*crsp = rsp + 8;
		*crbp = rbp;
		return 0;
	}
	/* the function's own instructions up to pc (glibc's clone3 after its
	 * syscall: no CFI there, rbp no frame pointer) */
	if (first) {
		int64_t rbp_at, off = stack_depth(d, m, pc, &rbp_at);

		if (off >= 0 && ra_at(d, rsp + (uint64_t)off, cpc) == 0 &&
		    (rbp_at < 0 || rd(d, rsp + (uint64_t)(off - rbp_at), crbp, 8) == 0)) {
			*crsp = rsp + (uint64_t)off + 8;
			if (rbp_at < 0)
				*crbp = rbp;
			return 0;
		}
	}
	/* the rbp chain, when rbp points into this stack */
	if (rbp > rsp && rbp - rsp < STACK_SPAN && rd(d, rbp, v, sizeof(v)) == 0 &&
	    is_return_addr(d, v[1])) {
		*cpc = v[1];
		*crsp = rbp + 16;
		*crbp = v[0];
		return 0;
	}
	return -1;
}

int dbg_unwind_regs(struct dbg *d, const struct sym_regs *in, int first, struct sym_regs *out)
{
	uint64_t look = in->r[16], pc, sp, bp;
	struct dbg_module *m = dbg_module_for(d, look);
	int rc = m && m->sym ? sym_unwind_step_regs(m->sym, in, rd, d, out) : 1;

	if (rc <= 0)
		return rc;
	if (!(in->valid >> 6 & 1) || !(in->valid >> 7 & 1) ||
	    dbg_unwind_step(d, look, look, in->r[7], in->r[6], first, &pc, &sp, &bp) < 0)
		return -1;
	memset(out, 0, sizeof(*out));
	out->valid = in->valid & (1u << 3 | 0xfu << 12);
	for (int r = 0; r < 16; r++)
		if (out->valid >> r & 1)
			out->r[r] = in->r[r];
	out->r[16] = pc;
	out->r[7] = sp;
	out->r[6] = bp;
	out->valid |= 1u << 16 | 1u << 7 | 1u << 6;
	return 0;
}
