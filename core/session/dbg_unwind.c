/* core/session/dbg_unwind.c: unwinding a live thread one frame at a time where CFI
 * leaves off — code without CFI (glibc's clone3 after its syscall, hand
 * written assembly, JIT code) — without inventing frames: a candidate
 * return address counts only if the instruction before it is a call. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "target/target.h"

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
