/* core/symbols/sym_names.c: names for code that has none in the symbol table —
 * a function with an FDE in .eh_frame but no symbol (a stripped program's
 * static functions, libc without its debug file) is named
 * "___lldb_unnamed_symbol<N>" as lldb-16 names it (N: LLDB's user id of
 * the symbol, the ELF table's symbols and the PLT's counted first, then
 * the unnamed ones by address), so that frames and call trees never show
 * a bare address inside a module — and the name of a shared library as
 * the dynamic loader's link map has it (LLDB's module name). */
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/symbols/sym_int.h"

/* 1 if a symbol starts at lo or a sized one covers it. */
static int sym_named(const struct sym_module *m, uint64_t lo)
{
	size_t a = 0, b = m->nsyms;

	while (a < b) {		/* first symbol with addr > lo */
		size_t mid = a + (b - a) / 2;

		if (m->syms[mid].addr <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (size_t i = a, k = 0; i > 0 && k < 8; i--, k++) {
		const struct sym_sym *s = &m->syms[i - 1];

		if (s->addr == lo || (s->size && lo < s->addr + s->size))
			return 1;
	}
	return 0;
}

static int sym_cmp_addr(const void *x, const void *y)
{
	const struct sym_sym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

void sym_synth_names(struct sym_module *m)
{
	uint64_t (*r)[2] = NULL;
	size_t n, add = 0, base;

	if (m->synth_done)
		return;
	m->synth_done = 1;
	if (m->raw)
		return;
	n = sym_unwind_fdes(m, &r);
	base = m->nsyms;
	for (size_t i = 0; i < n; i++) {
		struct sym_sym *s;

		if (r[i][1] <= r[i][0] || sym_named(m, r[i][0]))
			continue;
		if (add == 0)
			m->syms = xrealloc(m->syms, (base + n) * sizeof(*m->syms));
		s = &m->syms[base + add++];
		memset(s, 0, sizeof(*s));
		s->addr = r[i][0];
		s->size = r[i][1] - r[i][0];
		s->bind = 0;	/* STB_LOCAL */
	}
	free(r);
	if (!add)
		return;
	/* numbered as LLDB numbers them: after its other symbols, by address */
	qsort(m->syms + base, add, sizeof(*m->syms), sym_cmp_addr);
	for (size_t i = 0; i < add; i++) {
		struct sym_sym *s = &m->syms[base + i];

		s->dem = xmalloc(48);
		snprintf(s->dem, 48, "___lldb_unnamed_symbol%zu", m->lldb_nsyms + 1 + i);
		s->name = s->dem;
		s->dem_done = 1;
	}
	m->nsyms = base + add;
	/* stable for equal addresses: none, sym_named excluded them */
	qsort(m->syms, m->nsyms, sizeof(*m->syms), sym_cmp_addr);
}

/* The qualified name of a demangled one, into buf: "int ns::twice<int>(int)"
 * -> "ns::twice<int>". */
static const char *sym_plain(const char *d, char *buf, size_t n)
{
	size_t end = 0, start = 0;
	int depth = 0;

	for (size_t i = 0; d[i]; i++) {
		if (d[i] == '<')
			depth++;
		else if (d[i] == '>' && depth > 0)
			depth--;
		else if (d[i] == ' ' && depth == 0)
			start = i + 1;
		else if (d[i] == '(' && depth == 0 && i > 0 && strncmp(d + start, "operator", 8)) {
			end = i;
			break;
		}
	}
	if (!end)
		return d;
	snprintf(buf, n, "%.*s", (int)(end - start), d + start);
	return buf;
}

static int sym_names_of(struct sym_sym *v, size_t nv, const char *prefix,
			int (*fn)(void *ctx, const char *name), void *ctx)
{
	size_t pl = strlen(prefix);
	char buf[1024];

	for (size_t i = 0; i < nv; i++) {
		struct sym_sym *s = &v[i];
		const char *name;
		int rc;

		if (s->stub || s->name == s->dem || strchr(s->name, '@'))
			continue;	/* PLT entries, synthesized and versioned names */
		if (strncmp(s->name, "_Z", 2)) {
			if (strncmp(s->name, prefix, pl))
				continue;
			name = s->name;
		} else {
			name = sym_plain(sym_sym_name(s), buf, sizeof(buf));
			if (strncmp(name, prefix, pl))
				continue;
		}
		if ((rc = fn(ctx, name)) < 0)
			return rc;
	}
	return 0;
}

int sym_module_names(struct sym_module *m, const char *prefix,
		     int (*fn)(void *ctx, const char *name), void *ctx)
{
	int rc = sym_names_of(m->syms, m->nsyms, prefix, fn, ctx);

	return rc < 0 ? rc : sym_names_of(m->alias, m->nalias, prefix, fn, ctx);
}

/* The dynamic section's DT_SONAME of m's file, or NULL. */
static const char *sym_soname(const struct sym_module *m)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Shdr *shs;

	if (m->maplen < sizeof(*eh) || eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > m->maplen ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > m->maplen - eh->e_shoff)
		return NULL;
	shs = (const Elf64_Shdr *)(m->map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *dyn = &shs[i], *str;

		if (dyn->sh_type != SHT_DYNAMIC || dyn->sh_link >= eh->e_shnum ||
		    dyn->sh_offset > m->maplen || dyn->sh_size > m->maplen - dyn->sh_offset)
			continue;
		str = &shs[dyn->sh_link];
		if (str->sh_offset > m->maplen || str->sh_size > m->maplen - str->sh_offset)
			return NULL;
		for (size_t k = 0; k + 1 <= dyn->sh_size / sizeof(Elf64_Dyn); k++) {
			const Elf64_Dyn *e = (const Elf64_Dyn *)(m->map + dyn->sh_offset) + k;

			if (e->d_tag == DT_NULL)
				break;
			if (e->d_tag == DT_SONAME && e->d_un.d_val < str->sh_size &&
			    memchr(m->map + str->sh_offset + e->d_un.d_val, 0,
				   str->sh_size - e->d_un.d_val))
				return (const char *)m->map + str->sh_offset + e->d_un.d_val;
		}
		return NULL;
	}
	return NULL;
}

void sym_link_map_name(struct sym_module *m, const char *path)
{
	const char *so = sym_soname(m), *slash = strrchr(path, '/');
	char link[PATH_MAX];
	struct stat a, b;

	if (!so || strchr(so, '/') || !slash || !strcmp(so, m->name) ||
	    snprintf(link, sizeof(link), "%.*s/%s", (int)(slash - path), path, so) >=
		    (int)sizeof(link) ||
	    stat(link, &a) < 0 || stat(path, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return;
	free(m->name);
	m->name = xstrdup(so);
}

/* ---- the symbol covering an address, a symbol's name ---- */

struct sym_sym *sym_find_sym(struct sym_module *m, uint64_t a)
{
	size_t lo = 0, hi;
	struct sym_sym *s;

	if (!m->synth_done)
		sym_synth_names(m);
	hi = m->nsyms;
	while (lo < hi) {	/* first symbol with addr > a */
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &m->syms[lo - 1];
	/* a symbol of size 0 (_init, _fini) names its address and covers
	 * nothing beyond it */
	if (s->size ? a >= s->addr + s->size : a != s->addr)
		return NULL;
	return s;
}

const char *sym_sym_name(struct sym_sym *s)
{
	if (!s->dem_done) {
		s->dem = sym_demangle(s->name);
		s->dem_done = 1;
	}
	return s->dem ? s->dem : s->name;
}
