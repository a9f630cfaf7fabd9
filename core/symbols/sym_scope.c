/* core/symbols/sym_scope.c: the DWARF functions of a compilation unit and the
 * calls inlined into them (DW_TAG_subprogram, DW_TAG_inlined_subroutine:
 * address ranges, names, call sites), read once per CU on first use.  They
 * give a function the name LLDB shows (its linkage name, demangled, else
 * its DW_AT_name: "__printf" where the symbol table says "printf") and a
 * stack frame its "[inlined]" frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

#include <dwarf.h>

#define SCOPE_MAX_DEPTH 48

struct scope_walk {
	struct sym_module *m;
	struct sym_cu *cu;
	size_t cap;
	uint64_t cu_base;
	Dwarf_Half ver;
	char **files;		/* dwarf_srcfiles, heap copies */
	Dwarf_Signed nfiles;
	uint64_t start;		/* the DIE's lowest range start, empty ranges
				 * included */
	int split;		/* walking a function of several ranges */
	Dwarf_Off last;		/* the offset of the DIE walked last */
};

void sym_scope_err(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

static char *scope_attr_string(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	char *s = NULL, *r = NULL;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return NULL;
	}
	if (dwarf_formstring(a, &s, &e) == DW_DLV_OK && s)
		r = xstrdup(s);
	sym_scope_err(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return r;
}

/* The DIE that at (abstract_origin, specification) refers to, or NULL. */
static Dwarf_Die scope_ref(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Off off;
	Dwarf_Die r = NULL;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return NULL;
	}
	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(m->dbg, off, 1, &r, &e) != DW_DLV_OK)
		r = NULL;
	sym_scope_err(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return r;
}

/* LLDB's function name: the linkage name demangled, else DW_AT_name,
 * through abstract_origin and specification.  Heap, or NULL. */
char *sym_scope_name(struct sym_module *m, Dwarf_Die die, int hops)
{
	static const Dwarf_Half refs[] = { DW_AT_abstract_origin, DW_AT_specification };
	char *s = scope_attr_string(m, die, DW_AT_linkage_name);

	if (!s)
		s = scope_attr_string(m, die, DW_AT_MIPS_linkage_name);
	if (s) {
		char *d = sym_demangle(s);

		if (d) {
			free(s);
			return d;
		}
		return s;
	}
	if ((s = scope_attr_string(m, die, DW_AT_name)))
		return s;
	for (int i = 0; i < 2 && hops < 4; i++) {
		Dwarf_Die o = scope_ref(m, die, refs[i]);

		if (o) {
			s = sym_scope_name(m, o, hops + 1);
			dwarf_dealloc(m->dbg, o, DW_DLA_DIE);
			if (s)
				return s;
		}
	}
	return NULL;
}

static unsigned scope_udata(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned v = 0;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return 0;
	}
	if (dwarf_formudata(a, &v, &e) != DW_DLV_OK) {
		Dwarf_Signed sv = 0;

		sym_scope_err(m, &e);
		/* an implicit_const is signed to libdwarf */
		v = dwarf_formsdata(a, &sv, &e) == DW_DLV_OK && sv > 0 ? (Dwarf_Unsigned)sv : 0;
	}
	sym_scope_err(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return v > 0xffffffu ? 0 : (unsigned)v;
}

static void scope_add(struct scope_walk *w, uint64_t lo, uint64_t hi, const struct sym_scope *tmpl)
{
	struct sym_cu *cu = w->cu;

	if (lo && lo < w->start)
		w->start = lo;
	if (hi <= lo || lo == 0)
		return;
	if (cu->nscopes == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		cu->scopes = xrealloc(cu->scopes, w->cap * sizeof(*cu->scopes));
	}
	cu->scopes[cu->nscopes] = *tmpl;
	cu->scopes[cu->nscopes].lo = lo;
	cu->scopes[cu->nscopes].hi = hi;
	cu->nscopes++;
}

/* An inlined call of no code (its ranges empty) at w->start: kept apart
 * from the scopes (no address lies in it) for breakpoints by name.  It
 * takes tmpl's name. */
static void scope_add_empty(struct scope_walk *w, const struct sym_scope *tmpl)
{
	struct sym_cu *cu = w->cu;

	if (!(cu->nempties & (cu->nempties + 1)) || !cu->empties)
		cu->empties = xrealloc(cu->empties, (cu->nempties * 2 + 2) * sizeof(*cu->empties));
	cu->empties[cu->nempties] = *tmpl;
	cu->empties[cu->nempties].lo = cu->empties[cu->nempties].hi = w->start;
	cu->empties[cu->nempties].entry = cu->empties[cu->nempties].start = w->start;
	cu->empties[cu->nempties].owns_name = 1;
	cu->empties[cu->nempties].split = w->split;
	cu->nempties++;
}

/* DWARF 5 DW_AT_ranges (.debug_rnglists). */
static void scope_rnglists(struct scope_walk *w, Dwarf_Attribute a, Dwarf_Half form,
			   const struct sym_scope *tmpl)
{
	struct sym_module *m = w->m;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned v = 0, cnt = 0, goff;
	Dwarf_Off off;
	Dwarf_Rnglists_Head head = NULL;

	if (form == DW_FORM_rnglistx ? dwarf_formudata(a, &v, &e) != DW_DLV_OK
				     : dwarf_global_formref(a, &off, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return;
	}
	if (form != DW_FORM_rnglistx)
		v = off;
	if (dwarf_rnglists_get_rle_head(a, form, v, &head, &cnt, &goff, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return;
	}
	for (Dwarf_Unsigned i = 0; i < cnt; i++) {
		unsigned len, code;
		Dwarf_Unsigned r1, r2, c1, c2;
		Dwarf_Bool unavail = 0;

		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2, &unavail,
						      &c1, &c2, &e) != DW_DLV_OK) {
			sym_scope_err(m, &e);
			break;
		}
		if (!unavail && (code == DW_RLE_offset_pair || code == DW_RLE_start_end ||
				 code == DW_RLE_start_length || code == DW_RLE_startx_endx ||
				 code == DW_RLE_startx_length))
			scope_add(w, c1, c2, tmpl);
	}
	dwarf_dealloc_rnglists_head(head);
}

/* DWARF 4 DW_AT_ranges (.debug_ranges), relative to the CU's base. */
static void scope_ranges4(struct scope_walk *w, Dwarf_Die die, Dwarf_Attribute a,
			  const struct sym_scope *tmpl)
{
	struct sym_module *m = w->m;
	Dwarf_Error e = NULL;
	Dwarf_Off off, real;
	Dwarf_Ranges *r = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned bytes;
	uint64_t base = w->cu_base;

	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
	    dwarf_get_ranges_b(m->dbg, off, die, &real, &r, &n, &bytes, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return;
	}
	for (Dwarf_Signed i = 0; i < n; i++) {
		if (r[i].dwr_type == DW_RANGES_END)
			break;
		if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = r[i].dwr_addr2;
		else
			scope_add(w, base + r[i].dwr_addr1, base + r[i].dwr_addr2, tmpl);
	}
	dwarf_ranges_dealloc(m->dbg, r, n);
}

/* Adds die's address ranges as scopes like tmpl; 1 if it had any. */
static int scope_die_ranges(struct scope_walk *w, Dwarf_Die die, const struct sym_scope *tmpl)
{
	struct sym_module *m = w->m;
	Dwarf_Error e = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a;
	size_t before = w->cu->nscopes;

	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
		scope_add(w, lo, cls == DW_FORM_CLASS_CONSTANT ? lo + hi : hi, tmpl);
		return w->cu->nscopes > before;
	}
	sym_scope_err(m, &e);
	if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return 0;
	}
	if (dwarf_whatform(a, &form, &e) == DW_DLV_OK) {
		if (form == DW_FORM_rnglistx || w->ver >= 5)
			scope_rnglists(w, a, form, tmpl);
		else
			scope_ranges4(w, die, a, tmpl);
	}
	sym_scope_err(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return w->cu->nscopes > before;
}

static const char *scope_file(struct scope_walk *w, unsigned idx)
{
	/* DWARF 5 numbers files from 0, earlier versions from 1 */
	Dwarf_Signed i = w->ver >= 5 ? (Dwarf_Signed)idx : (Dwarf_Signed)idx - 1;

	return i >= 0 && i < w->nfiles ? w->files[i] : NULL;
}

static void scope_walk_children(struct scope_walk *w, Dwarf_Die parent, int depth, int nest);

/* The declaration's line and file of a function or inlined call, through
 * abstract_origin and specification (a file only in this CU's table). */
static void scope_decl(struct scope_walk *w, Dwarf_Die die, struct sym_scope *t, int hops)
{
	static const Dwarf_Half refs[] = { DW_AT_abstract_origin, DW_AT_specification };
	struct sym_module *m = w->m;
	unsigned line = scope_udata(m, die, DW_AT_decl_line);

	if (line) {
		t->decl_line = line;
		t->decl_file = scope_file(w, scope_udata(m, die, DW_AT_decl_file));
		return;
	}
	for (int i = 0; i < 2 && hops < 4 && !t->decl_line; i++) {
		Dwarf_Die o = scope_ref(m, die, refs[i]);

		if (o) {
			scope_decl(w, o, t, hops + 1);
			dwarf_dealloc(m->dbg, o, DW_DLA_DIE);
		}
	}
}

/* A lexical block inside the inlined call at depth: its ranges, kept
 * apart from the scopes in cu->blocks (their depth the call's). */
static void scope_add_block(struct scope_walk *w, Dwarf_Die die, int depth)
{
	struct sym_cu *cu = w->cu;
	struct sym_scope t;
	size_t before = cu->nscopes, k;
	uint64_t start = w->start;

	memset(&t, 0, sizeof(t));
	t.depth = depth;
	if (scope_die_ranges(w, die, &t)) {
		k = cu->nscopes - before;
		cu->blocks = xrealloc(cu->blocks, (cu->nblocks + k) * sizeof(*cu->blocks));
		memcpy(cu->blocks + cu->nblocks, cu->scopes + before, k * sizeof(*cu->blocks));
		cu->nblocks += k;
		cu->nscopes = before;
	}
	w->start = start;
}

/* One DIE: a function or inlined call becomes scopes; blocks, namespaces
 * and classes are walked through. */
static void scope_walk_die(struct scope_walk *w, Dwarf_Die die, int depth, int nest)
{
	struct sym_module *m = w->m;
	Dwarf_Error e = NULL;
	Dwarf_Half tag;
	struct sym_scope t;
	size_t before;

	if (dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
		sym_scope_err(m, &e);
		return;
	}
	memset(&t, 0, sizeof(t));
	if (tag == DW_TAG_subprogram || (tag == DW_TAG_inlined_subroutine && depth > 0)) {
		char *name = NULL;
		int d = tag == DW_TAG_subprogram ? 0 : depth;

		if (tag == DW_TAG_subprogram && sym_die_flag(m, die, DW_AT_specification) &&
		    (sym_die_flag(m, die, DW_AT_low_pc) || sym_die_flag(m, die, DW_AT_ranges)))
			name = sym_func_dwarf_name(m, die);
		t.dwarf_named = name != NULL;
		if (!name)
			name = sym_scope_name(m, die, 0);

		if (!name)
			name = xstrdup("<unnamed>");
		t.name = name;
		t.depth = d;
		scope_decl(w, die, &t, 0);
		if (tag == DW_TAG_inlined_subroutine) {
			t.call_file = scope_file(w, scope_udata(m, die, DW_AT_call_file));
			t.call_line = scope_udata(m, die, DW_AT_call_line);
			t.call_col = scope_udata(m, die, DW_AT_call_column);
		}
		before = w->cu->nscopes;
		w->start = UINT64_MAX;
		if (scope_die_ranges(w, die, &t)) {
			struct sym_scope *sc = w->cu->scopes;
			uint64_t entry = UINT64_MAX;
			int outer = w->split;

			if (tag == DW_TAG_subprogram)
				w->split = w->cu->nscopes - before > 1;
			/* the DIE's first scope owns the name; all know its entry */
			for (size_t i = before; i < w->cu->nscopes; i++)
				entry = sc[i].lo < entry ? sc[i].lo : entry;
			for (size_t i = before; i < w->cu->nscopes; i++) {
				sc[i].owns_name = i == before;
				sc[i].entry = entry;
				sc[i].start = w->start < entry ? w->start : entry;
				sc[i].split = w->split;
			}
			scope_walk_children(w, die, d + 1, nest + 1);
			w->split = outer;
		} else if (tag == DW_TAG_inlined_subroutine && w->start != UINT64_MAX) {
			scope_add_empty(w, &t);	/* its ranges are all empty */
		} else {
			free(name);
			if (tag == DW_TAG_subprogram)
				scope_walk_children(w, die, 0, nest + 1);	/* nested declarations */
		}
		return;
	}
	if (tag == DW_TAG_lexical_block && depth >= 2)
		scope_add_block(w, die, depth - 1);
	if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	    tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
		scope_walk_children(w, die, depth, nest + 1);
}

static void scope_walk_children(struct scope_walk *w, Dwarf_Die parent, int depth, int nest)
{
	Dwarf_Die c;

	if (nest > SCOPE_MAX_DEPTH)
		return;
	for (c = sym_die_child(w->m, parent); c; c = sym_die_next(w->m, c)) {
		Dwarf_Off off = 0;

		/* a walk meets the DIEs in the order of their offsets; one
		 * met again is damaged DWARF whose sibling links lead back
		 * into a subtree walked already (endless, or exponential) */
		if (dwarf_dieoffset(c, &off, NULL) != DW_DLV_OK || off <= w->last) {
			sym_die_free(w->m, c);
			return;
		}
		w->last = off;
		scope_walk_die(w, c, depth, nest);
	}
}

void sym_scope_load(struct sym_module *m, struct sym_cu *cu)
{
	struct scope_walk w;
	Dwarf_Error e = NULL;
	Dwarf_Half offsz;
	Dwarf_Addr base;
	char **sf = NULL;

	cu->scopes_loaded = 1;
	if (sym_cu_die(m, cu) < 0)
		return;
	memset(&w, 0, sizeof(w));
	w.m = m;
	w.cu = cu;
	if (dwarf_lowpc(cu->die, &base, &e) == DW_DLV_OK)
		w.cu_base = base;
	sym_scope_err(m, &e);
	dwarf_get_version_of_die(cu->die, &w.ver, &offsz);
	if (dwarf_srcfiles(cu->die, &sf, &w.nfiles, &e) == DW_DLV_OK && w.nfiles > 0) {
		cu->scope_files = xcalloc((size_t)w.nfiles, sizeof(char *));
		for (Dwarf_Signed i = 0; i < w.nfiles; i++) {
			cu->scope_files[i] = xstrdup(sf[i]);
			dwarf_dealloc(m->dbg, sf[i], DW_DLA_STRING);
		}
		dwarf_dealloc(m->dbg, sf, DW_DLA_LIST);
		cu->nscope_files = (size_t)w.nfiles;
		w.files = cu->scope_files;
	} else {
		w.nfiles = 0;
	}
	sym_scope_err(m, &e);
	scope_walk_children(&w, cu->die, 0, 0);
}

void sym_scope_free_cu(struct sym_cu *cu)
{
	for (size_t i = 0; i < cu->nscopes; i++)
		if (cu->scopes[i].owns_name)
			free((char *)cu->scopes[i].name);
	free(cu->scopes);
	free(cu->blocks);
	for (size_t i = 0; i < cu->nempties; i++)
		free((char *)cu->empties[i].name);
	free(cu->empties);
	for (size_t i = 0; i < cu->nscope_files; i++)
		free(cu->scope_files[i]);
	free(cu->scope_files);
}

/* The compile unit whose line rows cover a, its scopes loaded; NULL if none. */
static struct sym_cu *scopes_cu(struct sym_module *m, uint64_t a)
{
	struct sym_cu *cu = NULL;

	sym_find_row(m, a, &cu);
	if (cu && !cu->scopes_loaded)
		sym_scope_load(m, cu);
	return cu;
}

int sym_func_split(struct sym_module *m, uint64_t a)
{
	struct sym_cu *cu;

	if (!m->has_debug || sym_dwarf_init(m) < 0 || !(cu = scopes_cu(m, a)))
		return 0;
	for (size_t i = 0; i < cu->nscopes; i++)
		if (cu->scopes[i].depth == 0 && a >= cu->scopes[i].lo && a < cu->scopes[i].hi)
			return cu->scopes[i].split;
	return 0;
}

int sym_scopes_at(struct sym_module *m, uint64_t a, const struct sym_scope **out, int max)
{
	struct sym_cu *cu;
	int n = 0;

	if (!m->has_debug || max <= 0 || !(cu = scopes_cu(m, a)))
		return 0;
	/* the subprogram holding a, then each inlined call in it by depth */
	for (int depth = 0; depth < max; depth++) {
		const struct sym_scope *best = NULL;

		for (size_t i = 0; i < cu->nscopes; i++) {
			const struct sym_scope *s = &cu->scopes[i];

			if (s->depth == depth && a >= s->lo && a < s->hi) {
				best = s;
				break;
			}
		}
		if (!best)
			break;
		out[n++] = best;
	}
	return n;
}

/* The start of s's range as LLDB sees it: the DIE's ranges that touch
 * (one ending where the next starts) merged into one. */
static uint64_t scope_merged_lo(const struct sym_cu *cu, const struct sym_scope *s)
{
	const struct sym_scope *first = s, *end = s + 1, *lim = cu->scopes + cu->nscopes;
	uint64_t lo = s->lo;
	int again = 1;

	if (s < cu->scopes || s >= lim)
		return lo;
	/* a DIE's scopes are adjacent in cu->scopes and share its name */
	while (first > cu->scopes && first[-1].name == s->name && first[-1].depth == s->depth)
		first--;
	while (end < lim && end->name == s->name && end->depth == s->depth)
		end++;
	while (again) {
		again = 0;
		for (const struct sym_scope *o = first; o < end; o++)
			if (o->lo < lo && o->hi >= lo) {
				lo = o->lo;
				again = 1;
			}
	}
	return lo;
}

int sym_inlines_at(struct sym_module *m, uint64_t addr, struct sym_inline *out, int max)
{
	const struct sym_scope *sc[64];
	int n = sym_scopes_at(m, addr - m->bias, sc, 64), k = 0;

	struct sym_cu *cu = NULL;

	if (n > 1)
		sym_find_row(m, addr - m->bias, &cu);
	for (int i = n - 1; i >= 1 && k < max; i--, k++) {
		out[k].name = sc[i]->name;
		out[k].lo = (cu ? scope_merged_lo(cu, sc[i]) : sc[i]->lo) + m->bias;
		out[k].call_file = sc[i]->call_file;
		out[k].call_line = sc[i]->call_line;
		out[k].call_col = sc[i]->call_col;
	}
	return k;
}

int sym_inline_in_block(struct sym_module *m, uint64_t addr)
{
	const struct sym_scope *sc[64];
	uint64_t a = addr - m->bias;
	int n = sym_scopes_at(m, a, sc, 64);
	struct sym_cu *cu;

	if (n < 2 || !(cu = scopes_cu(m, a)))
		return 0;
	for (size_t i = 0; i < cu->nblocks; i++)
		if (cu->blocks[i].depth == n - 1 && a >= cu->blocks[i].lo && a < cu->blocks[i].hi)
			return 1;
	return 0;
}

/* A step's range of lines (sym.h), here above the line tables: an
 * inlined call's lines count as its call site's. */
/* Whether an inlined call holding addr (or a call holding that one) was
 * made at file:line. */
static int sym_inlined_from(struct sym_module *m, uint64_t addr, const char *file, unsigned line)
{
	struct sym_inline inl[16];
	int n = sym_inlines_at(m, addr, inl, 16);

	for (int k = 0; k < n; k++)
		if (inl[k].call_line == line && sym_same_file(inl[k].call_file, file))
			return 1;
	return 0;
}

int sym_step_range(struct sym_module *m, uint64_t addr, const char *file, unsigned line,
		   int inlined, uint64_t *lo, uint64_t *hi)
{
	struct sym_line_entry e;

	if (sym_line_entry_at(m, addr, &e) < 0)
		return -1;
	*lo = e.lo;
	*hi = e.hi;
	while (sym_line_entry_at(m, *hi, &e) == 0 && e.lo == *hi) {
		if (sym_same_file(e.file, file) && (e.line == 0 || e.line == line))
			*hi = e.hi;
		else if (inlined && sym_inlined_from(m, *hi, file, line))
			*hi = e.hi;
		else
			break;
	}
	return 0;
}
