/* trace/xfer.c: computes where an x86-64 control transfer goes without
 * running it (see xfer.h). */
#include "trace/xfer.h"

#include <string.h>

enum { CF = 1, PF = 4, ZF = 0x40, SF = 0x80, OF = 0x800 };

int xfer_jcc_taken(const char *mn, uint64_t fl)
{
	const char *sp = strrchr(mn, ' ');
	int cf = !!(fl & CF), pf = !!(fl & PF), zf = !!(fl & ZF), sf = !!(fl & SF),
	    of = !!(fl & OF);
	/* the condition codes of the Intel manual's Jcc table, in order */
	static const struct { const char *n; int cc; } tab[] = {
		{ "jo", 0 }, { "jno", 1 }, { "jb", 2 }, { "jc", 2 }, { "jnae", 2 },
		{ "jae", 3 }, { "jnb", 3 }, { "jnc", 3 }, { "je", 4 }, { "jz", 4 },
		{ "jne", 5 }, { "jnz", 5 }, { "jbe", 6 }, { "jna", 6 }, { "ja", 7 },
		{ "jnbe", 7 }, { "js", 8 }, { "jns", 9 }, { "jp", 10 }, { "jpe", 10 },
		{ "jnp", 11 }, { "jpo", 11 }, { "jl", 12 }, { "jnge", 12 }, { "jge", 13 },
		{ "jnl", 13 }, { "jle", 14 }, { "jng", 14 }, { "jg", 15 }, { "jnle", 15 },
	};
	int v;

	if (sp)
		mn = sp + 1;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (strcmp(tab[i].n, mn))
			continue;
		switch (tab[i].cc >> 1) {
		case 0: v = of; break;
		case 1: v = cf; break;
		case 2: v = zf; break;
		case 3: v = cf || zf; break;
		case 4: v = sf; break;
		case 5: v = pf; break;
		case 6: v = sf != of; break;
		default: v = zf || sf != of; break;
		}
		return (tab[i].cc & 1) ? !v : v;	/* odd codes negate */
	}
	return -1;
}

int xfer_indirect_target(const struct user_regs_struct *r, const struct disasm_insn *in,
			 xfer_read_fn read, void *ctx, uint64_t *out)
{
	const uint64_t *regs = (const uint64_t *)r;
	const int nregs = (int)(sizeof(*r) / 8);
	uint64_t ea;

	if (!in->ind.is_mem) {
		if (in->ind.reg < 0 || in->ind.reg >= nregs || in->ind.reg_width != 64)
			return -1;
		*out = regs[in->ind.reg];
		return 0;
	}
	if (in->ind.rip_rel) {
		ea = in->ind.rip_ea;
	} else {
		if (in->ind.base >= nregs || in->ind.index >= nregs)
			return -1;
		ea = (uint64_t)in->ind.disp;
		if (in->ind.base >= 0)
			ea += regs[in->ind.base];
		if (in->ind.index >= 0)
			ea += regs[in->ind.index] * (uint64_t)in->ind.scale;
		if (in->ind.addr32)
			ea &= 0xffffffffu;
	}
	if (in->ind.seg_fs_gs == DISASM_SEG_FS)
		ea += r->fs_base;
	else if (in->ind.seg_fs_gs == DISASM_SEG_GS)
		ea += r->gs_base;
	return read(ctx, ea, out) < 0 ? -1 : 0;
}

static int loop_taken(const struct disasm_insn *in, uint64_t rcx, uint64_t fl)
{
	int zf = !!(fl & ZF);

	if (strstr(in->mnemonic, "loopne") || strstr(in->mnemonic, "loopnz"))
		return rcx && !zf;
	if (strstr(in->mnemonic, "loope") || strstr(in->mnemonic, "loopz"))
		return rcx && zf;
	return rcx != 0;
}

int xfer_compute(const struct user_regs_struct *r, const struct disasm_insn *in,
		 xfer_read_fn read, void *ctx, struct xfer_outcome *out)
{
	uint64_t nlip = in->addr + in->len, t;

	memset(out, 0, sizeof(*out));
	out->rsp = r->rsp;
	out->rcx = r->rcx;
	out->taken = -1;
	switch (in->kind) {
	case DISASM_KIND_JCC:
		if (!in->has_target || (out->taken = xfer_jcc_taken(in->mnemonic, r->eflags)) < 0)
			return -1;
		out->next = out->taken ? in->target : nlip;
		return 0;
	case DISASM_KIND_JRCXZ:
		if (!in->has_target)
			return -1;
		t = strstr(in->mnemonic, "jecxz") ? (r->rcx & 0xffffffffu) : r->rcx;
		out->taken = t == 0;
		out->next = out->taken ? in->target : nlip;
		return 0;
	case DISASM_KIND_LOOP:
		/* the 32-bit counter forms (loopl, addr32) are not modelled */
		if (!in->has_target || strstr(in->mnemonic, "l ") || in->ind.addr32)
			return -1;
		out->rcx = r->rcx - 1;
		out->taken = loop_taken(in, out->rcx, r->eflags);
		out->next = out->taken ? in->target : nlip;
		return 0;
	case DISASM_KIND_RET:
		if (read(ctx, r->rsp, &t) < 0)
			return -1;
		out->rsp = r->rsp + 8 + in->ret_imm;
		out->next = t;
		return 0;
	case DISASM_KIND_JMP_IND:
		if (xfer_indirect_target(r, in, read, ctx, &t) < 0)
			return -1;
		out->next = t;
		return 0;
	case DISASM_KIND_CALL_IND:
		if (xfer_indirect_target(r, in, read, ctx, &t) < 0)
			return -1;
		out->rsp = r->rsp - 8;
		out->push = 1;
		out->ret_addr = nlip;
		out->next = t;
		return 0;
	default:
		return -1;
	}
}

void xfer_apply(struct user_regs_struct *r, const struct xfer_outcome *out)
{
	r->rip = out->next;
	r->rsp = out->rsp;
	r->rcx = out->rcx;
}
