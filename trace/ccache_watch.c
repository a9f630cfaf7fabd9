/* trace/ccache_watch.c: the check translated code runs before an
 * instruction that may touch a watched range (see ccache.h).  Like every
 * stub of the translator it keeps the stack and the red zone: the
 * registers it uses and the flags (lahf, seto: no pushf) go into slots of
 * its region, RIP-relative (or the thread's, at %gs:off: CCACHE_GS).  For each access it computes the range of
 * bytes the instruction may touch, [A, B) in rdx and rcx, and for each
 * watched range [lo, hi) whose kind the access is: A < hi and B > lo is a
 * hit.  The ranges are read from the region's table at run time, so the
 * code needs translating again only when their number or kinds change. */
#include "trace/ccache.h"
#include "trace/ccache_emit.h"

#include <string.h>

/* x86 register numbers (rax 0 ... r15 15) for DISASM_REG_*: -1 if the
 * register is not a general one. */
static int gpr(int r)
{
	static const signed char num[] = {
		[DISASM_REG_R15] = 15, [DISASM_REG_R14] = 14, [DISASM_REG_R13] = 13,
		[DISASM_REG_R12] = 12, [DISASM_REG_RBP] = 5, [DISASM_REG_RBX] = 3,
		[DISASM_REG_R11] = 11, [DISASM_REG_R10] = 10, [DISASM_REG_R9] = 9,
		[DISASM_REG_R8] = 8, [DISASM_REG_RAX] = 0, [DISASM_REG_RCX] = 1,
		[DISASM_REG_RDX] = 2, [DISASM_REG_RSI] = 6, [DISASM_REG_RDI] = 7,
		[DISASM_REG_ORIG_RAX] = -1, [DISASM_REG_RIP] = -1, [DISASM_REG_CS] = -1,
		[DISASM_REG_EFLAGS] = -1, [DISASM_REG_RSP] = 4,
	};

	if (r < 0 || r >= (int)sizeof(num))
		return -1;
	return num[r];
}

/* lea addr-of-m, %rdx (the original registers: rax, rcx, rdx are
 * reloaded from their slots before it).  -1: it cannot be written. */
static int lea_rdx(struct ccache_emit *e, const struct disasm_mem *m)
{
	int b = m->base == DISASM_REG_NONE ? -1 : gpr(m->base);
	int x = m->index == DISASM_REG_NONE ? -1 : gpr(m->index);
	int ss = m->scale == 8 ? 3 : m->scale == 4 ? 2 : m->scale == 2 ? 1 : 0;
	uint8_t op[8];
	size_t n = 0;

	if ((m->base != DISASM_REG_NONE && b < 0) || (m->index != DISASM_REG_NONE && x < 0) ||
	    (m->index == DISASM_REG_NONE && m->scale != 0) || x == 4 || m->addr32)
		return -1;
	if (b < 0 && x < 0) {
		/* an absolute address (RIP-relative originally) */
		int64_t d = (int64_t)((uint64_t)m->disp - (e->at + e->n + 7));

		if (ccache_fits32(d)) {
			ccache_put_rel(e, (const uint8_t[]){ 0x48, 0x8d, 0x15 }, 3, (uint64_t)m->disp);
		} else {
			ccache_put(e, (const uint8_t[]){ 0x48, 0xba }, 2);	/* movabs $abs,%rdx */
			ccache_put(e, &m->disp, 8);
		}
		return 0;
	}
	if (!ccache_fits32(m->disp))
		return -1;
	op[n++] = (uint8_t)(0x48 | (x >= 8 ? 2 : 0) | (b >= 8 ? 1 : 0));
	op[n++] = 0x8d;
	if (b < 0) {
		/* [index*scale + disp32]: mod 00, SIB base 101 */
		op[n++] = 0x14;
		op[n++] = (uint8_t)(ss << 6 | (x & 7) << 3 | 5);
	} else if (x < 0 && (b & 7) != 4) {
		op[n++] = (uint8_t)(0x80 | 2 << 3 | (b & 7));
	} else {
		op[n++] = 0x94;		/* mod 10, reg rdx, SIB */
		op[n++] = (uint8_t)(ss << 6 | (x < 0 ? 4 : x & 7) << 3 | (b & 7));
	}
	ccache_put(e, op, n);
	ccache_put32(e, (uint32_t)(int32_t)m->disp);
	return 0;
}

/* A rep-prefixed string instruction (its accesses reach rcx elements). */
static int rep_string(const struct disasm_insn *in)
{
	int rep = 0;

	for (int i = 0; i < in->len; i++) {
		uint8_t c = in->bytes[i];

		if (c == 0xf2 || c == 0xf3) {
			rep = 1;
			continue;
		}
		if (c == 0x66 || c == 0x67 || c == 0x2e || c == 0x3e || c == 0x26 || c == 0x36 ||
		    c == 0x64 || c == 0x65 || (c & 0xf0) == 0x40)
			continue;
		return rep && ((c >= 0xa4 && c <= 0xa7) || (c >= 0xaa && c <= 0xaf) ||
			       (c >= 0x6c && c <= 0x6f));
	}
	return 0;
}

/* mov %reg,slot or mov slot,%reg (load): slot off of region, RIP-relative
 * or at %gs:off (CCACHE_GS) */
static void wslot(struct ccache_emit *e, int load, int reg, uint64_t region, uint32_t off)
{
	ccache_put_slot(e, (const uint8_t[]){ 0x48, load ? 0x8b : 0x89, (uint8_t)(0x05 | reg << 3) }, 3,
			region, off);
}

/* lea slot,%reg (rsi 6 or rax 0): with CCACHE_GS from the slot page's
 * address in its SELF slot */
static void wslot_addr(struct ccache_emit *e, int reg, uint64_t region, uint32_t off)
{
	if (region & CCACHE_GS) {
		wslot(e, 1, reg, region, CCACHE_SLOT_SELF);
		ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, (uint8_t)(0x80 | reg << 3 | reg) }, 3);
		ccache_put32(e, off);
		return;
	}
	ccache_put_rel(e, (const uint8_t[]){ 0x48, 0x8d, (uint8_t)(0x05 | reg << 3) }, 3, region + off);
}

/* A rep string access of element size s from rdx (rcx elements, the
 * original count in slot WC): [A, B) in rdx, rcx, forwards or backwards
 * as the direction flag says.  A lodsb from slot WP tells (rsi saved in
 * WS meanwhile; the flags, saved, are free to change). */
static void rep_range(struct ccache_emit *e, uint64_t region, unsigned s)
{
	int ss = s == 8 ? 3 : s == 4 ? 2 : s == 2 ? 1 : 0;
	size_t j1, j2;

	/* lea 0(,%rcx,s),%rcx: the bytes it reaches */
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, (uint8_t)(ss << 6 | 1 << 3 | 5), 0, 0, 0, 0 }, 8);
	wslot(e, 0, 6, region, CCACHE_SLOT_WS);
	wslot_addr(e, 6, region, CCACHE_SLOT_WP);					/* lea WP,%rsi */
	ccache_put(e, (const uint8_t[]){ 0xac }, 1);						/* lodsb */
	wslot_addr(e, 0, region, CCACHE_SLOT_WP);					/* lea WP,%rax */
	ccache_put(e, (const uint8_t[]){ 0x48, 0x39, 0xc6 }, 3);				/* cmp %rax,%rsi */
	wslot(e, 1, 6, region, CCACHE_SLOT_WS);
	ccache_put(e, (const uint8_t[]){ 0x77, 0 }, 2);					/* ja forwards */
	j1 = e->n;
	/* backwards: A = rdx - n + s, B = rdx + s */
	ccache_put(e, (const uint8_t[]){ 0x48, 0x29, 0xca }, 3);				/* sub %rcx,%rdx */
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x92 }, 3);				/* lea s(%rdx),%rdx */
	ccache_put32(e, s);
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x0a }, 4);			/* lea (%rdx,%rcx),%rcx */
	ccache_put(e, (const uint8_t[]){ 0xeb, 0 }, 2);					/* jmp done */
	j2 = e->n;
	if (!e->bad)
		e->p[j1 - 1] = (uint8_t)(e->n - j1);
	/* forwards: A = rdx, B = rdx + n */
	ccache_put(e, (const uint8_t[]){ 0x48, 0x8d, 0x0c, 0x0a }, 4);			/* lea (%rdx,%rcx),%rcx */
	if (!e->bad)
		e->p[j2 - 1] = (uint8_t)(e->n - j2);
}

/* Flags back from slot WF, then rax, rcx, rdx. */
static void restore(struct ccache_emit *e, uint64_t region)
{
	wslot(e, 1, 0, region, CCACHE_SLOT_WF);
	ccache_put(e, (const uint8_t[]){ 0x04, 0x7f, 0x9e }, 3);	/* add $0x7f,%al (OF); sahf */
	wslot(e, 1, 0, region, CCACHE_SLOT_WA);
	wslot(e, 1, 1, region, CCACHE_SLOT_WC);
	wslot(e, 1, 2, region, CCACHE_SLOT_WD);
}

int ccache_watch_code(const struct ccache_watch *w, void *ctx, uint64_t at, uint64_t region,
		      const struct disasm_insn *in, uint8_t *out, size_t cap)
{
	struct disasm_mem m[4];
	struct ccache_emit e = { out, 0, cap, at, 0 };
	int nm = w->mem(ctx, in, m, 4), any = 0, rep = rep_string(in);
	/* the jumps to the hit path, patched at the end */
	uint32_t hits[4 * CCACHE_WATCH_MAX];
	int nh = 0;
	size_t over;

	for (int k = 0; k < nm; k++)
		for (int i = 0; i < w->n; i++)
			any |= (m[k].access & w->access[i]) != 0;
	if (nm == 0 || (nm > 0 && !any))
		return 0;
	if (nm < 0 || nm > 2)
		goto always;
	wslot(&e, 0, 0, region, CCACHE_SLOT_WA);
	wslot(&e, 0, 1, region, CCACHE_SLOT_WC);
	wslot(&e, 0, 2, region, CCACHE_SLOT_WD);
	ccache_put(&e, (const uint8_t[]){ 0x9f, 0x0f, 0x90, 0xc0 }, 4);	/* lahf; seto %al */
	wslot(&e, 0, 0, region, CCACHE_SLOT_WF);
	for (int k = 0; k < nm; k++) {
		int used = 0;

		for (int i = 0; i < w->n; i++)
			used |= (m[k].access & w->access[i]) != 0;
		if (!used)
			continue;
		wslot(&e, 1, 0, region, CCACHE_SLOT_WA);
		wslot(&e, 1, 1, region, CCACHE_SLOT_WC);
		wslot(&e, 1, 2, region, CCACHE_SLOT_WD);
		if ((m[k].seg_fs_gs && !w->fsgsbase) || lea_rdx(&e, &m[k]) < 0 || m[k].size == 0 ||
		    m[k].size > 0x10000)
			goto always;
		if (m[k].seg_fs_gs) {
			/* rd{fs,gs}base %rcx; add %rcx,%rdx (the flags are saved) */
			ccache_put(&e, (const uint8_t[]){ 0xf3, 0x48, 0x0f, 0xae,
						    (uint8_t)(m[k].seg_fs_gs == DISASM_SEG_FS ? 0xc1 : 0xc9) }, 5);
			ccache_put(&e, (const uint8_t[]){ 0x48, 0x01, 0xca }, 3);
		}
		if (rep && (m[k].size == 1 || m[k].size == 2 || m[k].size == 4 || m[k].size == 8)) {
			rep_range(&e, region, m[k].size);
		} else if (rep) {
			goto always;
		} else {
			ccache_put(&e, (const uint8_t[]){ 0x48, 0x8d, 0x8a }, 3);	/* lea size(%rdx),%rcx */
			ccache_put32(&e, m[k].size);
		}
		for (int i = 0; i < w->n; i++) {
			uint64_t lo = ccache_region_addr(region) + CCACHE_WATCH_OFF + 16u * (unsigned)i;

			if (!(m[k].access & w->access[i]))
				continue;
			/* cmp hi,%rdx; jae next; cmp lo,%rcx; ja hit */
			ccache_put_rel(&e, (const uint8_t[]){ 0x48, 0x3b, 0x15 }, 3, lo + 8);
			ccache_put(&e, (const uint8_t[]){ 0x73, 13 }, 2);
			ccache_put_rel(&e, (const uint8_t[]){ 0x48, 0x3b, 0x0d }, 3, lo);
			ccache_put(&e, (const uint8_t[]){ 0x0f, 0x87 }, 2);
			hits[nh++] = (uint32_t)e.n;
			ccache_put32(&e, 0);
		}
	}
	restore(&e, region);
	over = e.n;
	ccache_put(&e, (const uint8_t[]){ 0xe9, 0, 0, 0, 0 }, 5);	/* jmp past the int3 */
	for (int h = 0; h < nh && !e.bad; h++) {
		int32_t d = (int32_t)(e.n - (hits[h] + 4));

		memcpy(e.p + hits[h], &d, 4);
	}
	restore(&e, region);
	ccache_put(&e, (const uint8_t[]){ 0xcc }, 1);
	if (!e.bad) {
		int32_t d = (int32_t)(e.n - (over + 5));

		memcpy(e.p + over + 1, &d, 4);
	}
	return e.bad ? -1 : (int)e.n;
always:
	if (cap < 1)
		return -1;
	out[0] = 0xcc;
	return 1;
}
