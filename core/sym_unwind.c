/* core/sym_unwind.c: one-frame unwinding — CFI from .eh_frame (found by
 * section name, else through PT_GNU_EH_FRAME) and .debug_frame, parsed
 * directly from the mapped ELF bytes (stripped libraries have .eh_frame but
 * no .debug_*, which libdwarf will not open), falling back to the rbp chain
 * when no FDE covers pc.  Each section's FDEs are parsed once into a table
 * sorted by address; the CFA program of one FDE is run per step. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "core/sym_int.h"

struct sym_cie {
	size_t off;		/* section offset of the entry */
	size_t ins, ins_end;	/* initial instructions, section offsets */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;		/* return address column */
	uint8_t fde_enc, has_z, addr_size, ok;
};

struct sym_fde {
	uint64_t lo, hi;	/* link addresses */
	size_t ins, ins_end;	/* instructions, section offsets */
	size_t cie;		/* index into cfi->cie (stable after parsing) */
	size_t cie_off;
};

/* ---- byte reader ---- */

struct uw_rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uw_fixed(struct uw_rd *r, int n)
{
	uint64_t v = 0;

	if (r->bad || (size_t)(r->end - r->p) < (size_t)n) {
		r->bad = 1;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

static uint64_t uw_uleb(struct uw_rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!r->bad) {
		uint8_t b;

		if (r->p >= r->end) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return r->bad ? 0 : v;
}

static int64_t uw_sleb(struct uw_rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = 1;
			break;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (r->bad)
		return 0;
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A DW_EH_PE_* encoded pointer; pcrel is relative to the field's link
 * address.  Indirect pointers are returned unresolved (only personality
 * routines use them, and those are skipped). */
static uint64_t uw_enc(struct uw_rd *r, const struct sym_cfi *c, uint8_t enc)
{
	uint64_t here = c->addr + (uint64_t)(r->p - c->data), v;

	if (enc == 0xff)	/* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: v = uw_fixed(r, 8); break;
	case 0x01: v = uw_uleb(r); break;
	case 0x02: v = uw_fixed(r, 2); break;
	case 0x03: v = uw_fixed(r, 4); break;
	case 0x04: v = uw_fixed(r, 8); break;
	case 0x09: v = (uint64_t)uw_sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)uw_fixed(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)uw_fixed(r, 4); break;
	case 0x0c: v = uw_fixed(r, 8); break;
	default: r->bad = 1; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += here; break;	/* pcrel */
	default: r->bad = 1; return 0;	/* textrel/datarel/funcrel/aligned */
	}
	return v;
}

/* ---- section parsing ---- */

/* One entry's header at section offset off: *len_end = end of the entry,
 * *id = CIE id / CIE pointer, *id_pos = offset of that field, *body = after
 * it.  0 ok, 1 terminator, -1 malformed. */
static int uw_entry(const struct sym_cfi *c, size_t off, size_t *end,
		    uint64_t *id, size_t *id_pos, size_t *body, int *is64)
{
	struct uw_rd r = { c->data + off, c->data + c->size, 0 };
	uint64_t len = uw_fixed(&r, 4);

	*is64 = 0;
	if (r.bad)
		return -1;
	if (len == 0)
		return 1;
	if (len == 0xffffffff) {
		len = uw_fixed(&r, 8);
		*is64 = 1;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p) || len < (*is64 ? 8u : 4u))
		return -1;
	*end = (size_t)(r.p - c->data) + (size_t)len;
	*id_pos = (size_t)(r.p - c->data);
	*id = uw_fixed(&r, *is64 ? 8 : 4);
	*body = (size_t)(r.p - c->data);
	return 0;
}

static int uw_is_cie(const struct sym_cfi *c, uint64_t id, int is64)
{
	if (c->is_eh)
		return id == 0;
	return is64 ? id == ~(uint64_t)0 : id == 0xffffffff;
}

static int uw_parse_cie(const struct sym_cfi *c, size_t off, struct sym_cie *out)
{
	size_t end, id_pos, body;
	uint64_t id;
	int is64;
	struct uw_rd r;
	const char *aug;
	size_t auglen;
	uint8_t ver;

	memset(out, 0, sizeof(*out));
	out->off = off;
	out->addr_size = 8;
	if (off >= c->size || uw_entry(c, off, &end, &id, &id_pos, &body, &is64) != 0 ||
	    !uw_is_cie(c, id, is64))
		return -1;
	r.p = c->data + body;
	r.end = c->data + end;
	r.bad = 0;
	ver = (uint8_t)uw_fixed(&r, 1);
	if (r.bad || (ver != 1 && ver != 3 && ver != 4))
		return -1;
	aug = (const char *)r.p;
	auglen = strnlen(aug, (size_t)(r.end - r.p));
	if (auglen == (size_t)(r.end - r.p))
		return -1;
	r.p += auglen + 1;
	if (aug[0] && aug[0] != 'z')
		return -1;	/* e.g. old "eh" augmentation: unsupported */
	if (ver == 4) {
		out->addr_size = (uint8_t)uw_fixed(&r, 1);
		(void)uw_fixed(&r, 1);	/* segment selector size */
		if (out->addr_size != 8 && out->addr_size != 4)
			return -1;
	}
	out->code_align = uw_uleb(&r);
	out->data_align = uw_sleb(&r);
	out->ra = ver == 1 ? uw_fixed(&r, 1) : uw_uleb(&r);
	if (aug[0] == 'z') {
		uint64_t zlen = uw_uleb(&r);
		const uint8_t *zend;

		if (r.bad || zlen > (uint64_t)(r.end - r.p))
			return -1;
		zend = r.p + zlen;
		out->has_z = 1;
		for (size_t i = 1; i < auglen && !r.bad; i++) {
			switch (aug[i]) {
			case 'R':
				out->fde_enc = (uint8_t)uw_fixed(&r, 1);
				break;
			case 'L':
				(void)uw_fixed(&r, 1);
				break;
			case 'P': {
				uint8_t e = (uint8_t)uw_fixed(&r, 1);
				(void)uw_enc(&r, c, (uint8_t)(e & 0x7f));
				break;
			}
			case 'S':
			case 'B':
				break;
			default:
				i = auglen;	/* unknown: the rest is skipped */
				break;
			}
		}
		r.p = zend;
	}
	if (r.bad)
		return -1;
	out->ins = (size_t)(r.p - c->data);
	out->ins_end = end;
	out->ok = 1;
	return 0;
}

/* Index of the CIE at section offset off (parsed on first use), or -1. */
static long uw_cie(struct sym_cfi *c, size_t off, size_t *cap)
{
	size_t lo = 0, hi = c->ncie;
	struct sym_cie cie;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->cie[mid].off == off)
			return c->cie[mid].ok ? (long)mid : -1;
		if (c->cie[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (uw_parse_cie(c, off, &cie) < 0)
		cie.ok = 0;
	cie.off = off;
	if (c->ncie == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->cie = realloc(c->cie, *cap * sizeof(*c->cie));
		if (!c->cie)
			abort();
	}
	memmove(&c->cie[lo + 1], &c->cie[lo], (c->ncie - lo) * sizeof(*c->cie));
	c->cie[lo] = cie;
	c->ncie++;
	return cie.ok ? (long)lo : -1;
}

static int uw_cmp_fde(const void *a, const void *b)
{
	const struct sym_fde *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static void uw_parse_section(struct sym_cfi *c)
{
	size_t off = 0, ccap = 0, fcap = 0;

	while (off < c->size) {
		size_t end, id_pos, body;
		uint64_t id;
		int is64, rc = uw_entry(c, off, &end, &id, &id_pos, &body, &is64);
		size_t cie_off;
		long ci;
		struct sym_cie *cie;
		struct uw_rd r;
		uint64_t lo, range;

		if (rc == 1 && c->is_eh)
			break;	/* terminator */
		if (rc == 1) {	/* zero length in .debug_frame: padding */
			off += 4;
			continue;
		}
		if (rc < 0)
			break;
		if (uw_is_cie(c, id, is64))
			goto next;
		if (c->is_eh) {
			if (id > id_pos)
				goto next;
			cie_off = id_pos - (size_t)id;
		} else {
			cie_off = (size_t)id;
		}
		ci = uw_cie(c, cie_off, &ccap);
		if (ci < 0)
			goto next;
		cie = &c->cie[ci];
		r.p = c->data + body;
		r.end = c->data + end;
		r.bad = 0;
		if (c->is_eh) {
			lo = uw_enc(&r, c, cie->fde_enc);
			range = uw_enc(&r, c, (uint8_t)(cie->fde_enc & 0x0f));
		} else {
			lo = uw_fixed(&r, cie->addr_size);
			range = uw_fixed(&r, cie->addr_size);
		}
		if (cie->has_z) {
			uint64_t zlen = uw_uleb(&r);

			if (zlen > (uint64_t)(r.end - r.p))
				r.bad = 1;
			else
				r.p += zlen;
		}
		if (r.bad || lo == 0 || range == 0 || lo + range < lo)
			goto next;	/* malformed or discarded by the linker */
		if (c->nfde == fcap) {
			fcap = fcap ? fcap * 2 : 256;
			c->fde = realloc(c->fde, fcap * sizeof(*c->fde));
			if (!c->fde)
				abort();
		}
		c->fde[c->nfde].lo = lo;
		c->fde[c->nfde].hi = lo + range;
		c->fde[c->nfde].ins = (size_t)(r.p - c->data);
		c->fde[c->nfde].ins_end = end;
		c->fde[c->nfde].cie_off = cie_off;
		c->nfde++;
next:
		off = end;
	}
	/* CIE indices move while CIEs are inserted: resolve them at the end */
	for (size_t i = 0; i < c->nfde; i++) {
		size_t lo = 0, hi = c->ncie;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (c->cie[mid].off < c->fde[i].cie_off)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->fde[i].cie = lo;
	}
	if (c->nfde)
		qsort(c->fde, c->nfde, sizeof(*c->fde), uw_cmp_fde);
}

/* File bytes of the link address range [addr, addr+?) via PT_LOAD: the
 * offset and the bytes left in that segment, or 0. */
static size_t uw_vaddr_off(const struct sym_module *m, uint64_t addr,
			   size_t *left)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff >= m->maplen ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > m->maplen - eh->e_phoff)
		return 0;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || addr < ph[i].p_vaddr ||
		    addr - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		if (ph[i].p_offset + ph[i].p_filesz > m->maplen ||
		    ph[i].p_offset + ph[i].p_filesz < ph[i].p_offset)
			return 0;
		*left = (size_t)(ph[i].p_filesz - (addr - ph[i].p_vaddr));
		return (size_t)(ph[i].p_offset + (addr - ph[i].p_vaddr));
	}
	return 0;
}

/* .eh_frame through PT_GNU_EH_FRAME -> .eh_frame_hdr's eh_frame_ptr, for
 * files without section headers. */
static int uw_eh_from_phdr(struct sym_module *m, struct sym_cfi *c)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;
	struct sym_cfi hdr = { 0 };
	struct uw_rd r;
	size_t off, left;
	uint64_t ptr;
	uint8_t enc;

	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phoff >= m->maplen ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > m->maplen - eh->e_phoff)
		return -1;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_GNU_EH_FRAME)
			continue;
		if (ph[i].p_offset >= m->maplen || ph[i].p_filesz < 8 ||
		    ph[i].p_filesz > m->maplen - ph[i].p_offset)
			return -1;
		hdr.data = m->map + ph[i].p_offset;
		hdr.size = (size_t)ph[i].p_filesz;
		hdr.addr = ph[i].p_vaddr;
		r.p = hdr.data;
		r.end = hdr.data + hdr.size;
		r.bad = 0;
		if (uw_fixed(&r, 1) != 1)
			return -1;
		enc = (uint8_t)uw_fixed(&r, 1);
		(void)uw_fixed(&r, 2);	/* fde_count_enc, table_enc */
		ptr = uw_enc(&r, &hdr, enc);
		if (r.bad || !(off = uw_vaddr_off(m, ptr, &left)))
			return -1;
		c->data = m->map + off;
		c->size = left;
		c->addr = ptr;
		return 0;
	}
	return -1;
}

static void uw_load(struct sym_module *m, struct sym_cfi *c, int is_eh)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const char *want = is_eh ? ".eh_frame" : ".debug_frame";

	c->state = -1;
	c->is_eh = is_eh;
	if (m->maplen < sizeof(*eh))
		return;
	if (eh->e_shoff && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	    eh->e_shoff < m->maplen && eh->e_shstrndx < eh->e_shnum &&
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= m->maplen - eh->e_shoff) {
		const Elf64_Shdr *shs = (const Elf64_Shdr *)(m->map + eh->e_shoff);
		const Elf64_Shdr *ss = &shs[eh->e_shstrndx];

		if (ss->sh_offset > m->maplen || ss->sh_size > m->maplen - ss->sh_offset)
			goto noshdr;
		for (unsigned i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *sh = &shs[i];
			const char *nm;

			if (sh->sh_name >= ss->sh_size)
				continue;
			nm = (const char *)m->map + ss->sh_offset + sh->sh_name;
			if (strnlen(nm, ss->sh_size - sh->sh_name) != strlen(want) ||
			    memcmp(nm, want, strlen(want)))
				continue;
			if (sh->sh_type == SHT_NOBITS || (sh->sh_flags & SHF_COMPRESSED) ||
			    sh->sh_offset > m->maplen || sh->sh_size > m->maplen - sh->sh_offset)
				break;
			c->data = m->map + sh->sh_offset;
			c->size = (size_t)sh->sh_size;
			c->addr = sh->sh_addr;
			break;
		}
	}
noshdr:
	if (!c->data && is_eh && uw_eh_from_phdr(m, c) < 0)
		return;
	if (!c->data)
		return;
	uw_parse_section(c);
	c->state = c->nfde ? 1 : -1;
}

static const struct sym_fde *uw_find_fde(struct sym_cfi *c, uint64_t pc)
{
	size_t lo = 0, hi = c->nfde;

	while (lo < hi) {	/* first FDE with lo > pc */
		size_t mid = (lo + hi) / 2;

		if (c->fde[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* overlaps are rare; look back a little for one that covers pc */
	for (size_t i = lo, n = 0; i > 0 && n < 4; i--, n++)
		if (pc < c->fde[i - 1].hi)
			return &c->fde[i - 1];
	return NULL;
}

/* ---- CFA program ---- */

enum { UW_SAME, UW_UNDEF, UW_OFF, UW_VALOFF, UW_REG, UW_EXPR, UW_VALEXPR };
#define UW_NREG 17	/* rax..r15 + return address */
#define UW_RBP 6
#define UW_RSP 7
#define UW_RIP 16
#define UW_STATES 16

struct uw_rule {
	uint8_t kind;
	int64_t off;
	uint64_t reg;
	const uint8_t *expr;
	size_t elen;
};

struct uw_row {
	struct uw_rule r[UW_NREG];
	int cfa_expr;		/* CFA is an expression (else reg + off) */
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *expr;
	size_t elen;
};

struct uw_regs {		/* what is known in the frame being unwound */
	uint64_t pc, rsp, rbp;
	sym_read_fn rd;
	void *ctx;
	const struct sym_regs *all;	/* the other registers, or NULL */
};

static int uw_reg_val(const struct uw_regs *g, uint64_t reg, uint64_t *v)
{
	switch (reg) {
	case UW_RBP: *v = g->rbp; return 0;
	case UW_RSP: *v = g->rsp; return 0;
	case UW_RIP: *v = g->pc; return 0;
	default:
		if (g->all && reg < 16 && (g->all->valid >> reg & 1)) {
			*v = g->all->r[reg];
			return 0;
		}
		return -1;
	}
}

/* The callee-saved registers of the caller (rbx, r12-r15) by the row's
 * rules; a register without a rule kept its value. */
static void uw_saved(const struct uw_regs *g, const struct uw_row *row, uint64_t cfa,
		     struct sym_regs *out);

/* Runs instructions [p, end) from location *loc up to pc.  init is the row
 * after the CIE's instructions (NULL while running them).  0 ok, -1
 * unsupported or malformed. */
static int uw_run(const struct sym_cfi *c, const struct sym_cie *cie,
		  const uint8_t *p, const uint8_t *end, uint64_t loc, uint64_t pc,
		  struct uw_row *row, const struct uw_row *init)
{
	struct uw_rd r = { p, end, 0 };
	struct uw_row *stack = NULL;
	int depth = 0, rc = 0;

	while (r.p < r.end && !r.bad) {
		uint8_t op = (uint8_t)uw_fixed(&r, 1), lowop = op & 0x3f;
		uint64_t reg = 0, delta;
		struct uw_rule rule;

		memset(&rule, 0, sizeof(rule));
		switch (op & 0xc0) {
		case 0x40:	/* DW_CFA_advance_loc */
			delta = lowop;
			goto advance;
		case 0x80:	/* DW_CFA_offset */
			reg = lowop;
			rule.kind = UW_OFF;
			rule.off = (int64_t)uw_uleb(&r) * cie->data_align;
			goto set;
		case 0xc0:	/* DW_CFA_restore */
			reg = lowop;
			goto restore;
		}
		switch (op) {
		case 0x00:	/* nop */
			continue;
		case 0x01:	/* set_loc */
			delta = c->is_eh ? uw_enc(&r, c, cie->fde_enc)
					 : uw_fixed(&r, cie->addr_size);
			if (r.bad)
				goto bad;
			if (delta > pc)
				goto done;
			loc = delta;
			continue;
		case 0x02: delta = uw_fixed(&r, 1); goto advance;
		case 0x03: delta = uw_fixed(&r, 2); goto advance;
		case 0x04: delta = uw_fixed(&r, 4); goto advance;
		case 0x05:	/* offset_extended */
			reg = uw_uleb(&r);
			rule.kind = UW_OFF;
			rule.off = (int64_t)uw_uleb(&r) * cie->data_align;
			goto set;
		case 0x06:	/* restore_extended */
			reg = uw_uleb(&r);
			goto restore;
		case 0x07:	/* undefined */
			reg = uw_uleb(&r);
			rule.kind = UW_UNDEF;
			goto set;
		case 0x08:	/* same_value */
			reg = uw_uleb(&r);
			rule.kind = UW_SAME;
			goto set;
		case 0x09:	/* register */
			reg = uw_uleb(&r);
			rule.kind = UW_REG;
			rule.reg = uw_uleb(&r);
			goto set;
		case 0x0a:	/* remember_state */
			if (depth == UW_STATES)
				goto bad;
			if (!stack && !(stack = malloc(UW_STATES * sizeof(*stack))))
				abort();
			stack[depth++] = *row;
			continue;
		case 0x0b:	/* restore_state (the CFA rule too, as libgcc) */
			if (depth == 0)
				goto bad;
			*row = stack[--depth];
			continue;
		case 0x0c:	/* def_cfa */
			row->cfa_expr = 0;
			row->cfa_reg = uw_uleb(&r);
			row->cfa_off = (int64_t)uw_uleb(&r);
			continue;
		case 0x0d:	/* def_cfa_register */
			row->cfa_expr = 0;
			row->cfa_reg = uw_uleb(&r);
			continue;
		case 0x0e:	/* def_cfa_offset */
			row->cfa_off = (int64_t)uw_uleb(&r);
			continue;
		case 0x0f:	/* def_cfa_expression */
			row->elen = (size_t)uw_uleb(&r);
			if (r.bad || row->elen > (size_t)(r.end - r.p))
				goto bad;
			row->cfa_expr = 1;
			row->expr = r.p;
			r.p += row->elen;
			continue;
		case 0x10:	/* expression */
		case 0x16:	/* val_expression */
			reg = uw_uleb(&r);
			rule.kind = op == 0x10 ? UW_EXPR : UW_VALEXPR;
			rule.elen = (size_t)uw_uleb(&r);
			if (r.bad || rule.elen > (size_t)(r.end - r.p))
				goto bad;
			rule.expr = r.p;
			r.p += rule.elen;
			goto set;
		case 0x11:	/* offset_extended_sf */
			reg = uw_uleb(&r);
			rule.kind = UW_OFF;
			rule.off = uw_sleb(&r) * cie->data_align;
			goto set;
		case 0x12:	/* def_cfa_sf */
			row->cfa_expr = 0;
			row->cfa_reg = uw_uleb(&r);
			row->cfa_off = uw_sleb(&r) * cie->data_align;
			continue;
		case 0x13:	/* def_cfa_offset_sf */
			row->cfa_off = uw_sleb(&r) * cie->data_align;
			continue;
		case 0x14:	/* val_offset */
			reg = uw_uleb(&r);
			rule.kind = UW_VALOFF;
			rule.off = (int64_t)uw_uleb(&r) * cie->data_align;
			goto set;
		case 0x15:	/* val_offset_sf */
			reg = uw_uleb(&r);
			rule.kind = UW_VALOFF;
			rule.off = uw_sleb(&r) * cie->data_align;
			goto set;
		case 0x2e:	/* GNU_args_size */
			(void)uw_uleb(&r);
			continue;
		case 0x2f:	/* GNU_negative_offset_extended */
			reg = uw_uleb(&r);
			rule.kind = UW_OFF;
			rule.off = -(int64_t)uw_uleb(&r) * cie->data_align;
			goto set;
		default:
			goto bad;
		}
advance:
		if (r.bad)
			goto bad;
		delta *= cie->code_align;
		if (loc + delta > pc)
			goto done;
		loc += delta;
		continue;
set:
		if (r.bad)
			goto bad;
		if (reg < UW_NREG)
			row->r[reg] = rule;
		continue;
restore:
		if (r.bad || !init)
			goto bad;
		if (reg < UW_NREG)
			row->r[reg] = init->r[reg];
		continue;
	}
	if (r.bad)
		goto bad;
done:
	free(stack);
	return rc;
bad:
	rc = -1;
	goto done;
}

/* A DWARF expression (the common stack-machine subset).  push is pushed
 * first (the CFA for DW_CFA_expression rules) when has_push.  0 ok. */
static int uw_eval(const struct uw_regs *g, const uint8_t *p, size_t len,
		   int has_push, uint64_t push, uint64_t *out)
{
	uint64_t st[64];
	int sp = 0;
	struct uw_rd r = { p, p + len, 0 };

	if (has_push)
		st[sp++] = push;
	while (r.p < r.end) {
		uint8_t op = (uint8_t)uw_fixed(&r, 1);
		uint64_t a, b, v;
		int64_t s;

		if (sp >= 62)
			return -1;
		if (op >= 0x30 && op <= 0x4f) {	/* lit0..31 */
			st[sp++] = op - 0x30;
			continue;
		}
		if (op >= 0x70 && op <= 0x8f) {	/* breg0..31 */
			s = uw_sleb(&r);
			if (uw_reg_val(g, op - 0x70, &v) < 0)
				return -1;
			st[sp++] = v + (uint64_t)s;
			continue;
		}
		if (op >= 0x50 && op <= 0x6f) {	/* reg0..31 */
			if (uw_reg_val(g, op - 0x50, &v) < 0)
				return -1;
			st[sp++] = v;
			continue;
		}
		switch (op) {
		case 0x03: st[sp++] = uw_fixed(&r, 8); continue;	/* addr */
		case 0x08: st[sp++] = uw_fixed(&r, 1); continue;
		case 0x09: st[sp++] = (uint64_t)(int64_t)(int8_t)uw_fixed(&r, 1); continue;
		case 0x0a: st[sp++] = uw_fixed(&r, 2); continue;
		case 0x0b: st[sp++] = (uint64_t)(int64_t)(int16_t)uw_fixed(&r, 2); continue;
		case 0x0c: st[sp++] = uw_fixed(&r, 4); continue;
		case 0x0d: st[sp++] = (uint64_t)(int64_t)(int32_t)uw_fixed(&r, 4); continue;
		case 0x0e: case 0x0f: st[sp++] = uw_fixed(&r, 8); continue;
		case 0x10: st[sp++] = uw_uleb(&r); continue;
		case 0x11: st[sp++] = (uint64_t)uw_sleb(&r); continue;
		case 0x12:	/* dup */
			if (sp < 1)
				return -1;
			st[sp] = st[sp - 1];
			sp++;
			continue;
		case 0x13:	/* drop */
			if (sp < 1)
				return -1;
			sp--;
			continue;
		case 0x14:	/* over */
			if (sp < 2)
				return -1;
			st[sp] = st[sp - 2];
			sp++;
			continue;
		case 0x15:	/* pick */
			a = uw_fixed(&r, 1);
			if (a >= (uint64_t)sp)
				return -1;
			st[sp] = st[sp - 1 - (int)a];
			sp++;
			continue;
		case 0x16:	/* swap */
			if (sp < 2)
				return -1;
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			continue;
		case 0x06:	/* deref */
			if (sp < 1 || g->rd(g->ctx, st[sp - 1], &v, 8) < 0)
				return -1;
			st[sp - 1] = v;
			continue;
		case 0x1f:	/* neg */
		case 0x20:	/* not */
			if (sp < 1)
				return -1;
			st[sp - 1] = op == 0x1f ? (uint64_t)0 - st[sp - 1] : ~st[sp - 1];
			continue;
		case 0x23:	/* plus_uconst */
			if (sp < 1)
				return -1;
			st[sp - 1] += uw_uleb(&r);
			continue;
		case 0x2f:	/* skip */
		case 0x28:	/* bra */
			s = (int16_t)uw_fixed(&r, 2);
			if (op == 0x28) {
				if (sp < 1)
					return -1;
				if (!st[--sp])
					continue;
			}
			if ((s < 0 && (size_t)-s > (size_t)(r.p - p)) ||
			    (s > 0 && (size_t)s > (size_t)(r.end - r.p)))
				return -1;
			r.p += s;
			continue;
		case 0x96:	/* nop */
			continue;
		}
		/* binary operators */
		if (sp < 2)
			return -1;
		b = st[--sp];
		a = st[sp - 1];
		switch (op) {
		case 0x1a: v = a & b; break;
		case 0x1c: v = a - b; break;
		case 0x1e: v = a * b; break;
		case 0x21: v = a | b; break;
		case 0x22: v = a + b; break;
		case 0x24: v = b < 64 ? a << b : 0; break;
		case 0x25: v = b < 64 ? a >> b : 0; break;
		case 0x26: v = b < 64 ? (uint64_t)((int64_t)a >> b) : ((int64_t)a < 0 ? ~(uint64_t)0 : 0); break;
		case 0x27: v = a ^ b; break;
		case 0x29: v = a == b; break;
		case 0x2a: v = (int64_t)a >= (int64_t)b; break;
		case 0x2b: v = (int64_t)a > (int64_t)b; break;
		case 0x2c: v = (int64_t)a <= (int64_t)b; break;
		case 0x2d: v = (int64_t)a < (int64_t)b; break;
		case 0x2e: v = a != b; break;
		default: return -1;	/* unsupported */
		}
		st[sp - 1] = v;
	}
	if (r.bad || sp < 1)
		return -1;
	*out = st[sp - 1];
	return 0;
}

/* The value of register reg in the caller.  1 if it has no rule (same
 * value), 0 ok, -1 memory unreadable, -2 unsupported, -3 undefined. */
static int uw_apply(const struct uw_regs *g, const struct uw_row *row,
		    uint64_t cfa, uint64_t reg, uint64_t *out)
{
	const struct uw_rule *ru = &row->r[reg];
	uint64_t a;

	switch (ru->kind) {
	case UW_SAME:
		return 1;
	case UW_UNDEF:
		return -3;
	case UW_OFF:
		return g->rd(g->ctx, cfa + (uint64_t)ru->off, out, 8) < 0 ? -1 : 0;
	case UW_VALOFF:
		*out = cfa + (uint64_t)ru->off;
		return 0;
	case UW_REG:
		return uw_reg_val(g, ru->reg, out) < 0 ? -2 : 0;
	case UW_EXPR:
		if (uw_eval(g, ru->expr, ru->elen, 1, cfa, &a) < 0)
			return -2;
		return g->rd(g->ctx, a, out, 8) < 0 ? -1 : 0;
	case UW_VALEXPR:
		return uw_eval(g, ru->expr, ru->elen, 1, cfa, out) < 0 ? -2 : 0;
	}
	return -2;
}

/* 0 ok, -1 failure (no fallback), 1 no usable CFI (try the rbp chain). */
static int uw_cfi_step(struct sym_module *m, struct sym_cfi *c,
		       const struct uw_regs *g, uint64_t *cpc, uint64_t *crsp,
		       uint64_t *crbp, struct sym_regs *saved)
{
	uint64_t link = g->pc - m->bias, cfa, ra, bp;
	const struct sym_fde *f;
	const struct sym_cie *cie;
	struct uw_row *row, init;
	int rc;

	if (c->state == 0)
		uw_load(m, c, c == &m->eh);
	if (c->state != 1 || !(f = uw_find_fde(c, link)))
		return 1;
	cie = &c->cie[f->cie];
	if (cie->ra >= UW_NREG)
		return 1;
	row = malloc(sizeof(*row));
	if (!row)
		abort();
	memset(row, 0, sizeof(*row));
	rc = 1;
	if (uw_run(c, cie, c->data + cie->ins, c->data + cie->ins_end, f->lo,
		   UINT64_MAX, row, NULL) < 0)
		goto out;
	init = *row;
	if (uw_run(c, cie, c->data + f->ins, c->data + f->ins_end, f->lo, link,
		   row, &init) < 0)
		goto out;
	if (row->cfa_expr) {
		if (uw_eval(g, row->expr, row->elen, 0, 0, &cfa) < 0)
			goto out;
	} else {
		if (uw_reg_val(g, row->cfa_reg, &cfa) < 0)
			goto out;
		cfa += (uint64_t)row->cfa_off;
	}
	switch (uw_apply(g, row, cfa, cie->ra, &ra)) {
	case 0: break;
	case -1: case -3: rc = -1; goto out;	/* unreadable / outermost frame */
	default: goto out;
	}
	switch (uw_apply(g, row, cfa, UW_RBP, &bp)) {
	case 0: break;
	case 1: bp = g->rbp; break;
	case -1: rc = -1; goto out;
	case -3: bp = 0; break;
	default: goto out;
	}
	if (ra == 0) {
		rc = -1;
		goto out;
	}
	*cpc = ra;
	*crsp = cfa;
	*crbp = bp;
	if (saved)
		uw_saved(g, row, cfa, saved);
	rc = 0;
out:
	free(row);
	return rc;
}

void sym_unwind_free(struct sym_module *m)
{
	struct sym_cfi *cs[2] = { &m->eh, &m->dframe };

	for (int i = 0; i < 2; i++) {
		free(cs[i]->cie);
		free(cs[i]->fde);
		memset(cs[i], 0, sizeof(*cs[i]));
	}
}

int sym_unwind_step(struct sym_module *m, uint64_t pc, uint64_t rsp,
		    uint64_t rbp, sym_read_fn rd, void *ctx, uint64_t *cpc,
		    uint64_t *crsp, uint64_t *crbp)
{
	struct uw_regs g = { pc, rsp, rbp, rd, ctx, NULL };
	uint64_t v[2];
	int rc = 1;

	if (m) {
		rc = uw_cfi_step(m, &m->eh, &g, cpc, crsp, crbp, NULL);
		if (rc == 1)
			rc = uw_cfi_step(m, &m->dframe, &g, cpc, crsp, crbp, NULL);
	}
	if (rc != 1)
		return rc;
	/* no CFI: the frame pointer chain */
	if (!rbp || rd(ctx, rbp, v, sizeof(v)) < 0 || v[1] == 0)
		return -1;
	*crbp = v[0];
	*cpc = v[1];
	*crsp = rbp + 16;
	return 0;
}

static void uw_saved(const struct uw_regs *g, const struct uw_row *row, uint64_t cfa,
		     struct sym_regs *out)
{
	static const int callee[] = { 3, 12, 13, 14, 15 };	/* rbx, r12-r15 */

	for (size_t i = 0; i < sizeof(callee) / sizeof(callee[0]); i++) {
		int r = callee[i];
		uint64_t v;

		switch (uw_apply(g, row, cfa, (uint64_t)r, &v)) {
		case 0:
			out->r[r] = v;
			out->valid |= 1u << r;
			break;
		case 1:
			if (g->all && (g->all->valid >> r & 1)) {
				out->r[r] = g->all->r[r];
				out->valid |= 1u << r;
			}
			break;
		default:
			break;
		}
	}
}

int sym_unwind_step_regs(struct sym_module *m, const struct sym_regs *in, sym_read_fn rd,
			 void *ctx, struct sym_regs *out)
{
	struct uw_regs g = { in->r[16], in->r[7], in->r[6], rd, ctx, in };
	uint64_t pc, sp, bp;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = uw_cfi_step(m, &m->eh, &g, &pc, &sp, &bp, out);
	if (rc == 1)
		rc = uw_cfi_step(m, &m->dframe, &g, &pc, &sp, &bp, out);
	if (rc != 0)
		return rc;
	out->r[16] = pc;
	out->r[7] = sp;
	out->r[6] = bp;
	out->valid |= 1u << 16 | 1u << 7 | 1u << 6;
	return 0;
}

size_t sym_unwind_fdes(struct sym_module *m, uint64_t (**ranges)[2])
{
	size_t n;

	if (!m->eh.state)
		uw_load(m, &m->eh, 1);
	n = m->eh.state > 0 ? m->eh.nfde : 0;
	*ranges = n ? xcalloc(n, sizeof(**ranges)) : NULL;
	for (size_t i = 0; i < n; i++) {
		(*ranges)[i][0] = m->eh.fde[i].lo;
		(*ranges)[i][1] = m->eh.fde[i].hi;
	}
	return n;
}

int sym_unwind_cfi(struct sym_module *m, uint64_t pc, uint64_t rsp, uint64_t rbp,
		   sym_read_fn rd, void *ctx, uint64_t *cpc, uint64_t *crsp, uint64_t *crbp)
{
	struct uw_regs g = { pc, rsp, rbp, rd, ctx, NULL };
	int rc = uw_cfi_step(m, &m->eh, &g, cpc, crsp, crbp, NULL);

	return rc == 1 ? uw_cfi_step(m, &m->dframe, &g, cpc, crsp, crbp, NULL) : rc;
}
