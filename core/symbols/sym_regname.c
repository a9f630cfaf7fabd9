/* core/symbols/sym_regname.c: the name lldb-16's 'register read' gives a
 * value that points into a module's data (not a function), by its rules:
 * the address must lie in a loaded segment (a PT_LOAD, except one a
 * PT_TLS at the same address replaces, whose range is then the PT_TLS's);
 * the symbol holding it is any symbol of the ELF table (objects, untyped
 * ones, functions), one without a size reaching to the next symbol or its
 * section's end; in '.data' and '.tdata' the symbol's name is printed
 * alone, elsewhere "module`name"; "+ N" when inside it; a spot in a
 * segment but in no section, held by a symbol of another section, is
 * "module.PT_LOAD[i] + N"; a spot in a section without a symbol is named
 * by nothing (lldb-16 prints the two spaces before the name all the
 * same). */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

/* How much LLDB prefers a symbol among those of one address and size:
 * a global one, then a weak one, then a local one */
static int rank(const struct sym_rsym *s)
{
	return s->bind == STB_GLOBAL ? 3 : s->bind == STB_WEAK ? 2 : 1;
}

/* LLDB's order: by address, then size (after the sizes are made), then
 * rank, then the symbol table's order */
static int cmp_rsym(const void *a, const void *b)
{
	const struct sym_rsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (rank(x) != rank(y))
		return rank(y) - rank(x);
	return x->index < y->index ? -1 : x->index > y->index;
}

static const Elf64_Shdr *shdrs(const uint8_t *map, size_t maplen, unsigned *n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;

	if (!map || maplen < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_shoff > maplen || eh->e_shnum > (maplen - eh->e_shoff) / sizeof(Elf64_Shdr))
		return NULL;
	*n = eh->e_shnum;
	return (const Elf64_Shdr *)(map + eh->e_shoff);
}

/* Whether an untyped symbol of section shndx has a type for LLDB, which
 * takes it from the section's: code (executable), data (.data, .tdata)
 * or zero-fill (.bss, .tbss); the others' (__GNU_EH_FRAME_HDR) name no
 * address. */
static int typed_by_section(const struct sym_module *m, unsigned shndx)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	unsigned nsh;
	const Elf64_Shdr *shs = shdrs(m->map, m->maplen, &nsh);
	const char *sn;

	if (!shs || shndx >= nsh)
		return 0;
	if (shs[shndx].sh_flags & SHF_EXECINSTR)
		return 1;
	if (eh->e_shstrndx >= nsh || shs[eh->e_shstrndx].sh_offset + shs[shndx].sh_name >= m->maplen)
		return 0;
	sn = (const char *)m->map + shs[eh->e_shstrndx].sh_offset + shs[shndx].sh_name;
	return !strcmp(sn, ".data") || !strcmp(sn, ".tdata") || !strcmp(sn, ".bss") ||
	       !strcmp(sn, ".tbss");
}

/* The symbols of map's table of type want; 0 when it has none. */
static size_t load_rsyms(struct sym_module *m, const uint8_t *map, size_t maplen, unsigned want)
{
	const char *strs, *name;
	size_t n, strsz;
	const Elf64_Sym *st = sym_elf_table(map, maplen, want, &n, &strs, &strsz);

	if (!st)
		return 0;
	m->rsyms = xcalloc(n ? n : 1, sizeof(*m->rsyms));
	for (size_t k = 0; k < n; k++) {
		unsigned t = ELF64_ST_TYPE(st[k].st_info);

		if ((t != STT_OBJECT && t != STT_NOTYPE && t != STT_FUNC && t != STT_GNU_IFUNC) ||
		    st[k].st_shndx == SHN_UNDEF ||
		    (t == STT_NOTYPE && !typed_by_section(m, st[k].st_shndx)) ||
		    st[k].st_shndx >= SHN_LORESERVE || !(name = sym_elf_sym_name(&st[k], strs, strsz)))
			continue;
		m->rsyms[m->nrsyms].addr = st[k].st_value;
		m->rsyms[m->nrsyms].size = st[k].st_size;
		m->rsyms[m->nrsyms].name = name;
		m->rsyms[m->nrsyms].index = k;
		m->rsyms[m->nrsyms].bind = (uint8_t)ELF64_ST_BIND(st[k].st_info);
		m->nrsyms++;
	}
	qsort(m->rsyms, m->nrsyms, sizeof(*m->rsyms), cmp_rsym);	/* by address */
	return m->nrsyms;
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The end of the section holding link address a, as LLDB finds it (the
 * last section starting at or below a, if it reaches past a); 0 if none. */
static uint64_t section_end(const uint64_t *ranges, size_t n, uint64_t a)
{
	size_t k = 0;

	while (k < n && ranges[2 * k] <= a)
		k++;
	if (k && a < ranges[2 * (k - 1)] + ranges[2 * (k - 1) + 1])
		return ranges[2 * (k - 1)] + ranges[2 * (k - 1) + 1];
	return 0;
}

static void rsyms_load(struct sym_module *m)
{
	unsigned nsh;
	const Elf64_Shdr *shs = shdrs(m->map, m->maplen, &nsh);
	uint64_t *ranges = xcalloc(2 * (nsh ? nsh : 1), sizeof(*ranges));
	size_t nr = 0;

	m->rn_done = 1;
	if (!load_rsyms(m, m->dmap, m->dmaplen, SHT_SYMTAB)) {
		free(m->rsyms);
		m->rsyms = NULL;
		if (!load_rsyms(m, m->map, m->maplen, SHT_SYMTAB)) {
			free(m->rsyms);
			m->rsyms = NULL;
			load_rsyms(m, m->map, m->maplen, SHT_DYNSYM);
		}
	}
	for (unsigned i = 1; shs && i < nsh; i++)
		if (shs[i].sh_size) {
			ranges[2 * nr] = shs[i].sh_addr;
			ranges[2 * nr++ + 1] = shs[i].sh_size;
		}
	qsort(ranges, nr, 2 * sizeof(*ranges), cmp_range);
	/* a size for the symbols without one (LLDB's Symtab): to the end of
	 * the section holding its address, or to the next symbol's address
	 * if that is nearer */
	for (size_t i = 0; i < m->nrsyms; i++) {
		struct sym_rsym *s = &m->rsyms[i];
		uint64_t end = section_end(ranges, nr, s->addr);

		if (s->size)
			continue;
		for (size_t j = i + 1; j < m->nrsyms; j++)
			if (m->rsyms[j].addr > s->addr) {
				if (!end || m->rsyms[j].addr < end)
					end = m->rsyms[j].addr;
				break;
			}
		s->size = end ? end - s->addr : 0;
	}
	free(ranges);
	qsort(m->rsyms, m->nrsyms, sizeof(*m->rsyms), cmp_rsym);
}

/* The symbol holding link address a, NULL if none, found as LLDB's
 * Symtab finds it: from the last symbol starting at or below a, back
 * while the symbols hold a (of several at one address the smallest). */
static const struct sym_rsym *rsym_at(struct sym_module *m, uint64_t a)
{
	size_t k = 0;

	if (!m->rn_done)
		rsyms_load(m);
	while (k < m->nrsyms && m->rsyms[k].addr <= a)
		k++;
	while (k > 0 && a - m->rsyms[k - 1].addr < m->rsyms[k - 1].size)
		k--;
	if (k < m->nrsyms && m->rsyms[k].addr <= a && a - m->rsyms[k].addr < m->rsyms[k].size)
		return &m->rsyms[k];
	return NULL;
}

/* The PT_LOAD segment holding link address a as LLDB loads them (one a
 * PT_TLS at its address replaces has the PT_TLS's range): its number among
 * the PT_LOADs and its start, -1 if none. */
static int load_segment(const struct sym_module *m, uint64_t a, uint64_t *lo_out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;
	unsigned load = 0;
	int seg = -1;

	if (!m->map || m->maplen < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phoff > m->maplen || eh->e_phnum > (m->maplen - eh->e_phoff) / sizeof(*ph))
		return -1;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		uint64_t lo = ph[i].p_vaddr, hi = lo + ph[i].p_memsz;

		if (ph[i].p_type != PT_LOAD)
			continue;
		for (unsigned j = 0; j < eh->e_phnum; j++)
			if (ph[j].p_type == PT_TLS && ph[j].p_vaddr == lo)
				hi = lo + ph[j].p_memsz;	/* it replaces this one */
		if (a >= lo && a < hi) {
			seg = (int)load;
			*lo_out = lo;
		}
		load++;
	}
	return seg;
}

int sym_load_segment(const struct sym_module *m, uint64_t addr)
{
	uint64_t lo;

	return load_segment(m, addr - m->bias, &lo);
}

int sym_reg_name(struct sym_module *m, uint64_t addr, char *buf, size_t n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Shdr *shs;
	const struct sym_rsym *s;
	unsigned nsh;
	uint64_t a = addr - m->bias, seg_lo = 0;
	int seg = load_segment(m, a, &seg_lo);

	buf[0] = 0;
	if (seg < 0)
		return -1;
	shs = shdrs(m->map, m->maplen, &nsh);
	for (unsigned i = 1; shs && i < nsh; i++) {
		const Elf64_Shdr *sh = &shs[i];
		const char *sn;

		if (!(sh->sh_flags & SHF_ALLOC) || a < sh->sh_addr || a >= sh->sh_addr + sh->sh_size)
			continue;
		if (!(s = rsym_at(m, a)))
			return 0;
		sn = eh->e_shstrndx < nsh && shs[eh->e_shstrndx].sh_offset + sh->sh_name < m->maplen
			     ? (const char *)m->map + shs[eh->e_shstrndx].sh_offset + sh->sh_name : "";
		if (!strcmp(sn, ".data") || !strcmp(sn, ".tdata"))
			snprintf(buf, n, "%s", s->name);
		else
			snprintf(buf, n, "%s`%s", m->name, s->name);
		if (a > s->addr)
			snprintf(buf + strlen(buf), n - strlen(buf), " + %" PRIu64, a - s->addr);
		return 0;
	}
	/* in the segment, in no section */
	if (rsym_at(m, a))
		snprintf(buf, n, "%s.PT_LOAD[%d] + %" PRIu64, m->name, seg, a - seg_lo);
	return 0;
}

const char *sym_module_interp(const struct sym_module *m)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Phdr *ph;

	if (!m->map || m->maplen < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_phoff > m->maplen || eh->e_phnum > (m->maplen - eh->e_phoff) / sizeof(*ph))
		return NULL;
	ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_INTERP && ph[i].p_filesz && ph[i].p_offset < m->maplen &&
		    ph[i].p_filesz <= m->maplen - ph[i].p_offset &&
		    !m->map[ph[i].p_offset + ph[i].p_filesz - 1])
			return (const char *)m->map + ph[i].p_offset;
	return NULL;
}
