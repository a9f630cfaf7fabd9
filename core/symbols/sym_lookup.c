/* core/symbols/sym_lookup.c: lookups through a module's function symbols — by
 * address (the covering symbol, the line), by name (LLDB's matching of
 * plain, qualified and versioned names) — and LLDB's symbol-context
 * formatting ("mod`f + off [inlined] g at file:line"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

/* Length of a demangled name without its parameter list. */
size_t sym_name_stem_len(const char *d)
{
	int depth = 0;

	for (size_t i = 0; d[i]; i++) {
		if (!strncmp(d + i, "(anonymous namespace)", 21))
			i += 20;
		else if (d[i] == '<')
			depth++;
		else if (d[i] == '>' && depth > 0)
			depth--;
		else if (d[i] == '(' && depth == 0 && i > 0)
			return i;
	}
	return strlen(d);
}

/* Where the qualified name starts in a demangled name of length len: after
 * a return type ("int ns::twice<int>(int)"), outside template arguments. */
static size_t sym_name_start(const char *d, size_t len)
{
	size_t start = 0;
	int depth = 0;

	for (size_t i = 0; i < len; i++) {
		if (d[i] == '<')
			depth++;
		else if (d[i] == '>' && depth > 0)
			depth--;
		else if (d[i] == ' ' && depth == 0 && i + 1 < len)
			start = i + 1;
	}
	return start;
}

/* 1 if the candidate [c, c+cl) is name or ends with "::name". */
static int sym_name_tail(const char *c, size_t cl, const char *name, size_t nl)
{
	if (cl == nl)
		return !strncmp(c, name, nl);
	return cl > nl + 2 && !strncmp(c + cl - nl, name, nl) && c[cl - nl - 1] == ':' &&
	       c[cl - nl - 2] == ':';
}

/* LLDB's name matching: the mangled name (with or without its symbol
 * version), the demangled one, or its
 * qualified name without parameters ("ns::f", "f"), a template's without
 * its arguments ("ns::twice"), with parameters when name has them
 * ("over(double)"); a destructor by "~Rect". */
static int sym_name_matches(struct sym_sym *s, const char *name)
{
	const char *d, *base = name, *p, *last;
	size_t stem, start, nl = strlen(name), bl, cl;

	if (!strcmp(s->name, name))
		return 1;
	/* a versioned symbol of the symbol table: "f@@GLIBC_2.34", "f@GLIBC_2.2.5" */
	if (!strncmp(s->name, name, nl) && s->name[nl] == '@')
		return 1;
	if (strncmp(s->name, "_Z", 2) != 0)
		return 0;
	/* Cheap filter before demangling: the base name is in the mangling. */
	while ((p = strstr(base, "::")) && (!strchr(base, '(') || p < strchr(base, '(')))
		base = p + 2;
	last = base;
	if (*base == '~')
		base++;
	bl = strcspn(base, "(<[");	/* "[abi:cxx11]": not in the mangling */
	if (bl == 0 || !memmem(s->name, strlen(s->name), base, bl))
		return 0;
	d = sym_sym_name(s);
	if (!strcmp(d, name))
		return 1;
	stem = sym_name_stem_len(d);
	start = sym_name_start(d, stem);
	if (strchr(name, '('))	/* with parameters: compare them too */
		return sym_name_tail(d + start, strlen(d + start), name, nl);
	cl = stem - start;
	if (sym_name_tail(d + start, cl, name, nl))
		return 1;
	/* a template without its arguments, unless name gives them */
	if (!strchr(last, '<') && cl && d[start + cl - 1] == '>') {
		int depth = 0;

		for (size_t i = cl; i > 0; i--) {
			char c = d[start + i - 1];

			depth += c == '>' ? 1 : c == '<' ? -1 : 0;
			if (depth == 0) {
				cl = i - 1;
				break;
			}
		}
		return sym_name_tail(d + start, cl, name, nl);
	}
	return 0;
}

/* The cold part GCC splits off a function ("f.cold", "f.cold.3"): no
 * function's entry, so no breakpoint location of its name, as in lldb-16
 * ("b testing::internal::UnitTestImpl::RunAllTests" at -O2: one). */
static int cold_part(const char *mangled)
{
	const char *c = strstr(mangled, ".cold");

	return c && (c[5] == 0 || c[5] == '.');
}

typedef int (*name_match_fn)(struct sym_sym *s, const void *ctx);

/* The functions whose symbol match takes (sym_lookup_func's filling). */
static int lookup_by(struct sym_module *m, name_match_fn match, const void *name, uint64_t *entry,
		     uint64_t *after_prologue, int max)
{
	int n = 0;

	for (size_t i = 0; i < m->nsyms && n < max; i++) {
		struct sym_sym *s = &m->syms[i];
		uint64_t end;

		if (s->stub || !match(s, name) || cold_part(s->name))
			continue;
		end = s->size ? s->addr + s->size :
		      i + 1 < m->nsyms ? m->syms[i + 1].addr : s->addr + 1;
		entry[n] = s->addr + m->bias;
		if (after_prologue)
			after_prologue[n] = sym_after_prologue(m, s->addr, end,
							       sym_func_split(m, s->addr)) + m->bias;
		n++;
	}
	/* aliases: the function of the symbol kept at their address */
	for (size_t i = 0; i < m->nalias && n < max; i++) {
		struct sym_sym *s = &m->alias[i], *k;
		uint64_t end;
		int dup = 0;

		if (!match(s, name) || cold_part(s->name) || !(k = sym_find_sym(m, s->addr)) ||
		    k->addr != s->addr)
			continue;
		for (int j = 0; j < n; j++)
			dup |= entry[j] == s->addr + m->bias;
		if (dup)
			continue;
		end = k->size ? k->addr + k->size : k->addr + 1;
		entry[n] = s->addr + m->bias;
		if (after_prologue)
			after_prologue[n] = sym_after_prologue(m, s->addr, end,
							       sym_func_split(m, s->addr)) + m->bias;
		n++;
	}
	return n;
}

static int match_name(struct sym_sym *s, const void *name)
{
	return sym_name_matches(s, name);
}

int sym_lookup_func(struct sym_module *m, const char *name, uint64_t *entry,
		    uint64_t *after_prologue, int max)
{
	return lookup_by(m, match_name, name, entry, after_prologue, max);
}

/* a name regex re finds: the demangled one, or the mangled one */
static int match_regex(struct sym_sym *s, const void *re)
{
	return !regexec(re, sym_sym_name(s), 0, NULL, 0) || !regexec(re, s->name, 0, NULL, 0);
}

int sym_lookup_func_regex(struct sym_module *m, const regex_t *re, uint64_t *entry,
			  uint64_t *after_prologue, int max)
{
	return lookup_by(m, match_regex, re, entry, after_prologue, max);
}

int sym_addr_is_ifunc(struct sym_module *m, uint64_t addr)
{
	uint64_t link = addr - m->bias;

	for (size_t i = 0; i < m->nsyms; i++)
		if (m->syms[i].addr == link && m->syms[i].ifunc)
			return 1;
	for (size_t i = 0; i < m->nalias; i++)
		if (m->alias[i].addr == link && m->alias[i].ifunc)
			return 1;
	return 0;
}

int sym_lookup_addr(struct sym_module *m, uint64_t addr, struct sym_loc *out)
{
	uint64_t a = addr - m->bias;
	struct sym_sym *s = sym_find_sym(m, a);
	const struct sym_row *r = sym_find_row(m, a, NULL);

	const struct sym_scope *fn;

	memset(out, 0, sizeof(*out));
	if (s) {
		out->func = sym_sym_name(s);
		out->func_addr = s->addr + m->bias;
	}
	/* a DWARF function's own name wins, as in LLDB (__printf) */
	if (sym_scopes_at(m, a, &fn, 1) == 1) {
		/* offsets count from the start of the piece holding addr (a
		 * function split into hot and cold parts has two) */
		out->func = fn->name;
		out->func_whole = fn->dwarf_named;
		out->func_addr = (s && s->addr >= fn->lo ? s->addr : fn->lo) + m->bias;
		/* GCC gives a function of an anonymous namespace no linkage
		 * name, so its DWARF name is bare ("run"); LLDB names it from
		 * its context, as the symbol's demangled name has it:
		 * "(anonymous namespace)::Runner::run(int) const" */
		if (s && fn->name && !strchr(fn->name, ':') && !strchr(fn->name, '(') &&
		    !strncmp(s->name, "_Z", 2) && s->addr >= fn->lo && s->addr < fn->hi) {
			const char *d = sym_sym_name(s);

			size_t st = sym_name_stem_len(d);

			/* in a namespace or class only: a static function's
			 * frame keeps its bare name, as lldb-16's does */
			if (sym_name_tail(d, st, fn->name, strlen(fn->name)) && memmem(d, st, "::", 2))
				out->func = d;
		}
	}
	if (r) {
		out->file = r->file;
		out->line = r->line;
		out->column = r->col;
	}
	return s || r ? 0 : -1;
}

char *sym_format_loc(struct sym_module *m, uint64_t addr, char *buf, size_t n)
{
	struct sym_inline inl;
	struct sym_loc loc;
	size_t len;

	if (n == 0)
		return buf;
	if (sym_lookup_addr(m, addr, &loc) < 0 || !loc.func) {
		const char *data;
		uint64_t off;

		if (sym_data_at(m, addr, &data, &off) == 0 && off)
			snprintf(buf, n, "%s`%s + %" PRIu64, m->name, data, off);
		else if (sym_data_at(m, addr, &data, &off) == 0)
			snprintf(buf, n, "%s`%s", m->name, data);
		else
			snprintf(buf, n, "%s`0x%" PRIx64, m->name, addr);
		return buf;
	}
	if (addr != loc.func_addr)
		snprintf(buf, n, "%s`%s + %" PRIu64, m->name, loc.func,
			 addr - loc.func_addr);
	else
		snprintf(buf, n, "%s`%s", m->name, loc.func);
	len = strlen(buf);
	/* in an inlined call: LLDB's " [inlined] g + off", the innermost */
	if (sym_inlines_at(m, addr, &inl, 1) == 1 && len < n) {
		if (addr != inl.lo)
			snprintf(buf + len, n - len, " [inlined] %s + %" PRIu64, inl.name, addr - inl.lo);
		else
			snprintf(buf + len, n - len, " [inlined] %s", inl.name);
		len = strlen(buf);
	}
	if (loc.file && loc.line && len < n) {
		const char *base = strrchr(loc.file, '/');

		base = base ? base + 1 : loc.file;
		if (loc.column)
			snprintf(buf + len, n - len, " at %s:%u:%u", base,
				 loc.line, loc.column);
		else
			snprintf(buf + len, n - len, " at %s:%u", base, loc.line);
	}
	return buf;
}

const char *sym_main_file(struct sym_module *m)
{
	uint64_t e;
	const struct sym_row *r;

	if (m->main_file_done)
		return m->main_file;
	m->main_file_done = 1;
	if (sym_lookup_func(m, "main", &e, NULL, 1) != 1)
		return NULL;
	r = sym_find_row(m, e - m->bias, NULL);
	if (r && r->file)
		m->main_file = xstrdup(r->file);
	return m->main_file;
}

int sym_stub_target(struct sym_module *m, uint64_t addr, char *name, size_t n)
{
	struct sym_sym *s = sym_find_sym(m, addr - m->bias);

	if (!s || !s->stub || !s->name || n == 0)
		return -1;
	snprintf(name, n, "%.*s", (int)strcspn(s->name, "@"), s->name);
	return 0;
}

static int sym_exported_as(const struct sym_sym *s, const char *name, size_t nl)
{
	return !s->stub && !s->ifunc && (s->bind == STB_GLOBAL || s->bind == STB_WEAK) &&
	       !strncmp(s->name, name, nl) && (s->name[nl] == 0 || s->name[nl] == '@');
}

int sym_lookup_exported(struct sym_module *m, const char *name, uint64_t *entry, int max)
{
	size_t nl = strlen(name);
	int n = 0;

	for (size_t i = 0; i < m->nsyms && n < max; i++)
		if (sym_exported_as(&m->syms[i], name, nl))
			entry[n++] = m->syms[i].addr + m->bias;
	for (size_t i = 0; i < m->nalias && n < max; i++) {
		int dup = 0;

		if (!sym_exported_as(&m->alias[i], name, nl))
			continue;
		for (int j = 0; j < n; j++)
			dup |= entry[j] == m->alias[i].addr + m->bias;
		if (!dup)
			entry[n++] = m->alias[i].addr + m->bias;
	}
	return n;
}

int sym_lookup_line_bp(struct sym_module *m, const char *file, unsigned line,
		       uint64_t *addrs, int max)
{
	int n = sym_lookup_line(m, file, line, addrs, max, NULL), k = 0;

	for (int i = 0; i < n; i++) {
		const struct sym_scope *sc[16];
		int ns = sym_scopes_at(m, addrs[i] - m->bias, sc, 16);
		const struct sym_scope *in = ns > 0 ? sc[ns - 1] : NULL;

		/* LLDB's filter: not in a function (or inlined one) declared
		 * after the line asked for, in the same file (the line just
		 * before its declaration is its: "int\nf(void)") */
		if (in && in->decl_line > line + 1 && in->decl_file &&
		    sym_same_file(in->decl_file, file))
			continue;
		addrs[k++] = addrs[i];
	}
	return k;
}

unsigned sym_func_decl_line(struct sym_module *m, uint64_t addr)
{
	const struct sym_scope *sc[16];
	int ns = sym_scopes_at(m, addr - m->bias, sc, 16);

	return ns > 0 ? sc[0]->decl_line : 0;
}
