/* core/symbols/sym_cfi.c: the CFI tables — .eh_frame (found by section name, else
 * through PT_GNU_EH_FRAME) and .debug_frame, parsed directly from the
 * mapped ELF bytes (stripped libraries have .eh_frame but no .debug_*,
 * which libdwarf will not open).  Each section's FDEs are parsed once into
 * a table sorted by address; core/symbols/sym_unwind.c runs their CFA programs. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_cfi.h"

/* ---- byte reader ---- */



uint64_t uw_fixed(struct uw_rd *r, int n)
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

/* A LEB128's bits; *shift is how many, *last its last byte. */
static uint64_t uw_leb(struct uw_rd *r, unsigned *shift, uint8_t *last)
{
	uint64_t v = 0;

	*shift = 0;
	*last = 0;
	while (!r->bad) {
		if (r->p >= r->end) {
			r->bad = 1;
			break;
		}
		*last = *r->p++;
		if (*shift < 64)
			v |= (uint64_t)(*last & 0x7f) << *shift;
		*shift += 7;
		if (!(*last & 0x80))
			break;
	}
	return r->bad ? 0 : v;
}

uint64_t uw_uleb(struct uw_rd *r)
{
	unsigned shift;
	uint8_t b;

	return uw_leb(r, &shift, &b);
}

int64_t uw_sleb(struct uw_rd *r)
{
	unsigned shift;
	uint8_t b;
	uint64_t v = uw_leb(r, &shift, &b);

	if (r->bad)
		return 0;
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A DW_EH_PE_* encoded pointer; pcrel is relative to the field's link
 * address.  Indirect pointers are returned unresolved (only personality
 * routines use them, and those are skipped). */
uint64_t uw_enc(struct uw_rd *r, const struct sym_cfi *c, uint8_t enc)
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

void uw_load(struct sym_module *m, struct sym_cfi *c, int is_eh)
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
			if ((sh->sh_flags & SHF_COMPRESSED) && !is_eh && !m->dw_debug &&
			    sh->sh_type != SHT_NOBITS) {
				/* Go writes its .debug_frame compressed (and no
				 * .eh_frame): inflated once, kept with the table */
				size_t len = 0;
				uint8_t *copy = NULL;
				const uint8_t *p = sym_dwobj_bytes(m, want, &len);

				if (p) {	/* the table outlives the DWARF's copy */
					copy = xmalloc(len ? len : 1);
					memcpy(copy, p, len);
				}
				c->owned = copy;
				c->data = copy;
				c->size = copy ? len : 0;
				c->addr = sh->sh_addr;
				break;
			}
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

const struct sym_fde *uw_find_fde(struct sym_cfi *c, uint64_t pc)
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

void sym_unwind_free(struct sym_module *m)
{
	struct sym_cfi *cs[2] = { &m->eh, &m->dframe };

	for (int i = 0; i < 2; i++) {
		free(cs[i]->cie);
		free(cs[i]->fde);
		free(cs[i]->owned);
		memset(cs[i], 0, sizeof(*cs[i]));
	}
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
