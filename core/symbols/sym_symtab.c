/* core/symbols/sym_symtab.c: a module's function symbols from an ELF
 * symbol table (symtab, dynsym, or a debug file's), sorted by address;
 * below sym_elf.c (opening a module) and sym_debugfile.c (its debug
 * file), on sym_img.c (the section table). */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

static int sym_bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

int sym_cmp_sym(const void *a, const void *b)
{
	const struct sym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Sized symbols first so the survivor of a duplicate has a size. */
	if ((x->size == 0) != (y->size == 0))
		return x->size ? -1 : 1;
	/* then the name LLDB shows: global over weak over local, then the
	 * one with the fewest leading underscores (printf, not _IO_printf) */
	if (x->bind != y->bind)
		return sym_bind_rank(x->bind) - sym_bind_rank(y->bind);
	if (!strchr(x->name, '@') != !strchr(y->name, '@'))
		return strchr(x->name, '@') ? 1 : -1;
	if (strspn(x->name, "_") != strspn(y->name, "_"))
		return strspn(x->name, "_") < strspn(y->name, "_") ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Loads the function symbols of one SHT_SYMTAB/SHT_DYNSYM section of the
 * ELF image im (the module's, or its debug file's). */
void sym_load_symtab(struct sym_module *m, const struct sym_img *im, const Elf64_Shdr *sh)
{
	const Elf64_Sym *st;
	const char *strs;
	size_t n, cap, strsz;

	if (!sym_img_table_in(im, sh) || !(strs = sym_img_strtab(im, sh, &strsz)))
		return;
	st = (const Elf64_Sym *)(im->map + sh->sh_offset);
	n = sh->sh_size / sizeof(Elf64_Sym);
	cap = n;
	m->syms = xcalloc(cap ? cap : 1, sizeof(*m->syms));
	m->nsyms = 0;
	for (size_t i = 0; i < n; i++) {
		int type = ELF64_ST_TYPE(st[i].st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    st[i].st_shndx == SHN_UNDEF || st[i].st_value == 0 ||
		    st[i].st_name >= strsz)
			continue;
		/* The string table must be NUL-terminated somewhere. */
		if (!memchr(strs + st[i].st_name, 0, strsz - st[i].st_name))
			continue;
		m->syms[m->nsyms].addr = st[i].st_value;
		m->syms[m->nsyms].size = st[i].st_size;
		m->syms[m->nsyms].name = strs + st[i].st_name;
		m->syms[m->nsyms].bind = (uint8_t)ELF64_ST_BIND(st[i].st_info);
		m->syms[m->nsyms].ifunc = type == STT_GNU_IFUNC;
		m->nsyms++;
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), sym_cmp_sym);
	/* Keep one symbol per address; the other names stay findable. */
	size_t j = 0;
	for (size_t i = 0; i < m->nsyms; i++) {
		if (j == 0 || m->syms[j - 1].addr != m->syms[i].addr) {
			m->syms[j++] = m->syms[i];
			continue;
		}
		m->alias = xrealloc(m->alias, (m->nalias + 1) * sizeof(*m->alias));
		m->alias[m->nalias++] = m->syms[i];
	}
	m->nsyms = j;
}

/* The section named name, or NULL. */

void sym_free_syms(struct sym_module *m)
{
	for (size_t i = 0; i < m->nsyms; i++)
		free(m->syms[i].dem);
	free(m->syms);
	for (size_t i = 0; i < m->nalias; i++)
		free(m->alias[i].dem);
	free(m->alias);
	m->syms = m->alias = NULL;
	m->nsyms = m->nalias = 0;
}

const Elf64_Sym *sym_elf_table(const uint8_t *map, size_t maplen, unsigned want, size_t *n,
			       const char **strs, size_t *strsz)
{
	struct sym_img im;

	if (sym_img_init(&im, map, maplen) < 0)
		return NULL;
	for (unsigned i = 0; i < im.nsh; i++) {
		const Elf64_Shdr *sh = &im.shs[i];

		if (sh->sh_type != want || !sym_img_table_in(&im, sh) ||
		    !(*strs = sym_img_strtab(&im, sh, strsz)))
			continue;
		*n = sh->sh_size / sizeof(Elf64_Sym);
		return (const Elf64_Sym *)(map + sh->sh_offset);
	}
	return NULL;
}

const char *sym_elf_sym_name(const Elf64_Sym *s, const char *strs, size_t strsz)
{
	if (s->st_name >= strsz || !memchr(strs + s->st_name, 0, strsz - s->st_name) || !strs[s->st_name])
		return NULL;
	return strs + s->st_name;
}
