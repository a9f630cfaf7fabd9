/* core/symbols/sym_data.c: a module's data symbols (STT_OBJECT), read
 * from its ELF symbol table (the debug file's, else the module's symtab,
 * else its dynsym) on the first lookup: LLDB names a data address by the
 * symbol holding it, in image lookup -a and in a disassembly's comment on
 * a RIP-relative operand. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

static int cmp_data(const void *a, const void *b)
{
	const struct sym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* of two at one address, the global and the sized one first */
	if (x->bind != y->bind)
		return x->bind == STB_GLOBAL ? -1 : y->bind == STB_GLOBAL ? 1 : 0;
	return (x->size == 0) - (y->size == 0);
}

/* The data symbols of map's table of type want; 0 when it has none. */
static size_t load_data(struct sym_module *m, const uint8_t *map, size_t maplen, unsigned want)
{
	const char *strs, *name;
	size_t n, strsz;
	const Elf64_Sym *st = sym_elf_table(map, maplen, want, &n, &strs, &strsz);

	if (!st)
		return 0;
	m->dsyms = xcalloc(n ? n : 1, sizeof(*m->dsyms));
	for (size_t k = 0; k < n; k++) {
		if (ELF64_ST_TYPE(st[k].st_info) != STT_OBJECT || st[k].st_shndx == SHN_UNDEF ||
		    !st[k].st_value || !(name = sym_elf_sym_name(&st[k], strs, strsz)))
			continue;
		m->dsyms[m->ndsyms].addr = st[k].st_value;
		m->dsyms[m->ndsyms].size = st[k].st_size;
		m->dsyms[m->ndsyms].name = name;
		m->dsyms[m->ndsyms].bind = (uint8_t)ELF64_ST_BIND(st[k].st_info);
		m->ndsyms++;
	}
	qsort(m->dsyms, m->ndsyms, sizeof(*m->dsyms), cmp_data);
	return m->ndsyms;
}

int sym_data_at(struct sym_module *m, uint64_t addr, const char **name, uint64_t *off)
{
	uint64_t a = addr - m->bias;
	size_t lo = 0, hi;

	if (!m->data_done) {
		m->data_done = 1;
		if (!load_data(m, m->dmap, m->dmaplen, SHT_SYMTAB)) {
			free(m->dsyms);
			m->dsyms = NULL;
			if (!load_data(m, m->map, m->maplen, SHT_SYMTAB)) {
				free(m->dsyms);
				m->dsyms = NULL;
				load_data(m, m->map, m->maplen, SHT_DYNSYM);
			}
		}
	}
	/* the last symbol starting at or below a */
	hi = m->ndsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->dsyms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	{
		const struct sym_sym *s = &m->dsyms[lo - 1];
		uint64_t first = lo - 1;

		while (first > 0 && m->dsyms[first - 1].addr == s->addr)
			first--;	/* the preferred one of that address */
		s = &m->dsyms[first];
		if (a >= s->addr + (s->size ? s->size : 1))
			return -1;
		*name = s->name;
		*off = a - s->addr;
	}
	return 0;
}

/* name is s's table name, or that name before its version ("fread" of
 * "fread@GLIBC_2.2.5", "fread@@GLIBC_2.2.5") */
static int named(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s, name, n) && (!s[n] || s[n] == '@');
}

static int symbols_in(const uint8_t *map, size_t maplen, unsigned want, uint64_t bias,
		      const char *name, const regex_t *re, struct sym_symbol *out, int max)
{
	const char *strs, *sn;
	size_t n, strsz;
	const Elf64_Sym *st = sym_elf_table(map, maplen, want, &n, &strs, &strsz);
	int k = 0;

	if (!st)
		return -1;
	for (size_t i = 0; i < n && k < max; i++) {
		unsigned type = ELF64_ST_TYPE(st[i].st_info);

		if (type == STT_SECTION || type == STT_FILE || !(sn = sym_elf_sym_name(&st[i], strs, strsz)) ||
		    !*sn || (re ? regexec(re, sn, 0, NULL, 0) != 0 : !named(sn, name)))
			continue;
		out[k].name = sn;
		out[k].undef = st[i].st_shndx == SHN_UNDEF;
		out[k].addr = out[k].undef ? 0 : st[i].st_value + bias;
		k++;
	}
	return k;
}

int sym_lookup_symbols(struct sym_module *m, const char *name, const regex_t *re,
		       struct sym_symbol *out, int max)
{
	int k = symbols_in(m->dmap, m->dmaplen, SHT_SYMTAB, m->bias, name, re, out, max);

	if (k < 0)
		k = symbols_in(m->map, m->maplen, SHT_SYMTAB, m->bias, name, re, out, max);
	if (k < 0)
		k = symbols_in(m->map, m->maplen, SHT_DYNSYM, m->bias, name, re, out, max);
	return k < 0 ? 0 : k;
}
