/* core/sym_scope.c: the DWARF functions of a compilation unit and the
 * calls inlined into them (DW_TAG_subprogram, DW_TAG_inlined_subroutine:
 * address ranges, names, call sites), read once per CU on first use.  They
 * give a function the name LLDB shows (its linkage name, demangled, else
 * its DW_AT_name: "__printf" where the symbol table says "printf") and a
 * stack frame its "[inlined]" frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sym_int.h"

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
};

static void scope_err(struct sym_module *m, Dwarf_Error *e)
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
		scope_err(m, &e);
		return NULL;
	}
	if (dwarf_formstring(a, &s, &e) == DW_DLV_OK && s)
		r = xstrdup(s);
	scope_err(m, &e);
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
		scope_err(m, &e);
		return NULL;
	}
	if (dwarf_global_formref(a, &off, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(m->dbg, off, 1, &r, &e) != DW_DLV_OK)
		r = NULL;
	scope_err(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return r;
}

/* LLDB's function name: the linkage name demangled, else DW_AT_name,
 * through abstract_origin and specification.  Heap, or NULL. */
static char *scope_name(struct sym_module *m, Dwarf_Die die, int hops)
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
			s = scope_name(m, o, hops + 1);
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
		scope_err(m, &e);
		return 0;
	}
	if (dwarf_formudata(a, &v, &e) != DW_DLV_OK) {
		Dwarf_Signed sv = 0;

		scope_err(m, &e);
		/* an implicit_const is signed to libdwarf */
		v = dwarf_formsdata(a, &sv, &e) == DW_DLV_OK && sv > 0 ? (Dwarf_Unsigned)sv : 0;
	}
	scope_err(m, &e);
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
		scope_err(m, &e);
		return;
	}
	if (form != DW_FORM_rnglistx)
		v = off;
	if (dwarf_rnglists_get_rle_head(a, form, v, &head, &cnt, &goff, &e) != DW_DLV_OK) {
		scope_err(m, &e);
		return;
	}
	for (Dwarf_Unsigned i = 0; i < cnt; i++) {
		unsigned len, code;
		Dwarf_Unsigned r1, r2, c1, c2;
		Dwarf_Bool unavail = 0;

		if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2, &unavail,
						      &c1, &c2, &e) != DW_DLV_OK) {
			scope_err(m, &e);
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
		scope_err(m, &e);
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
	scope_err(m, &e);
	if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK) {
		scope_err(m, &e);
		return 0;
	}
	if (dwarf_whatform(a, &form, &e) == DW_DLV_OK) {
		if (form == DW_FORM_rnglistx || w->ver >= 5)
			scope_rnglists(w, a, form, tmpl);
		else
			scope_ranges4(w, die, a, tmpl);
	}
	scope_err(m, &e);
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
		scope_err(m, &e);
		return;
	}
	memset(&t, 0, sizeof(t));
	if (tag == DW_TAG_subprogram || (tag == DW_TAG_inlined_subroutine && depth > 0)) {
		char *name = scope_name(m, die, 0);
		int d = tag == DW_TAG_subprogram ? 0 : depth;

		if (!name)
			name = xstrdup("<unnamed>");
		t.name = name;
		t.depth = d;
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

			/* the DIE's first scope owns the name; all know its entry */
			for (size_t i = before; i < w->cu->nscopes; i++)
				entry = sc[i].lo < entry ? sc[i].lo : entry;
			for (size_t i = before; i < w->cu->nscopes; i++) {
				sc[i].owns_name = i == before;
				sc[i].entry = entry;
				sc[i].start = w->start < entry ? w->start : entry;
			}
			scope_walk_children(w, die, d + 1, nest + 1);
		} else {
			free(name);
			if (tag == DW_TAG_subprogram)
				scope_walk_children(w, die, 0, nest + 1);	/* nested declarations */
		}
		return;
	}
	if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
	    tag == DW_TAG_structure_type || tag == DW_TAG_union_type)
		scope_walk_children(w, die, depth, nest + 1);
}

static void scope_walk_children(struct scope_walk *w, Dwarf_Die parent, int depth, int nest)
{
	struct sym_module *m = w->m;
	Dwarf_Error e = NULL;
	Dwarf_Die c = NULL, next;

	if (nest > SCOPE_MAX_DEPTH || dwarf_child(parent, &c, &e) != DW_DLV_OK) {
		scope_err(m, &e);
		return;
	}
	while (c) {
		scope_walk_die(w, c, depth, nest);
		next = NULL;
		if (dwarf_siblingof_b(m->dbg, c, 1, &next, &e) != DW_DLV_OK) {
			scope_err(m, &e);
			next = NULL;
		}
		dwarf_dealloc(m->dbg, c, DW_DLA_DIE);
		c = next;
	}
}

static void scope_load(struct sym_module *m, struct sym_cu *cu)
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
	scope_err(m, &e);
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
	scope_err(m, &e);
	scope_walk_children(&w, cu->die, 0, 0);
}

void sym_scope_free_cu(struct sym_cu *cu)
{
	for (size_t i = 0; i < cu->nscopes; i++)
		if (cu->scopes[i].owns_name)
			free((char *)cu->scopes[i].name);
	free(cu->scopes);
	for (size_t i = 0; i < cu->nscope_files; i++)
		free(cu->scope_files[i]);
	free(cu->scope_files);
}

int sym_scopes_at(struct sym_module *m, uint64_t a, const struct sym_scope **out, int max)
{
	struct sym_cu *cu = NULL;
	int n = 0;

	if (!m->has_debug || max <= 0)
		return 0;
	sym_find_row(m, a, &cu);
	if (!cu)
		return 0;
	if (!cu->scopes_loaded)
		scope_load(m, cu);
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

/* Breakpoints by name at inlined copies, as LLDB places them: the module's
 * functions declared inline (a DW_TAG_subprogram with DW_AT_inline, the
 * abstract origin of its inlined calls), found by walking the top-level
 * DIEs of every unit once, the first time a name is looked up; then only
 * the units declaring that name have their calls read. */
struct sym_inl_name {
	char *name;
	size_t cu;
};

static void inl_index_add(struct sym_module *m, char *name, size_t cu, size_t *cap)
{
	if (m->ninl_names == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		m->inl_names = xrealloc(m->inl_names, *cap * sizeof(*m->inl_names));
	}
	m->inl_names[m->ninl_names].name = name;
	m->inl_names[m->ninl_names].cu = cu;
	m->ninl_names++;
}

static int scope_has(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error e = NULL;

	if (dwarf_hasattr(die, at, &has, &e) != DW_DLV_OK)
		has = 0;
	scope_err(m, &e);
	return has != 0;
}

static void inl_index_children(struct sym_module *m, Dwarf_Die parent, size_t cu, size_t *cap,
			       int nest)
{
	Dwarf_Error e = NULL;
	Dwarf_Die c = NULL, next;

	if (nest > 8 || dwarf_child(parent, &c, &e) != DW_DLV_OK) {
		scope_err(m, &e);
		return;
	}
	while (c) {
		Dwarf_Half tag = 0;

		if (dwarf_tag(c, &tag, &e) != DW_DLV_OK)
			scope_err(m, &e);
		if (tag == DW_TAG_subprogram && scope_has(m, c, DW_AT_inline)) {
			char *name = scope_name(m, c, 0);

			if (name)
				inl_index_add(m, name, cu, cap);
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
			inl_index_children(m, c, cu, cap, nest + 1);
		}
		next = NULL;
		if (dwarf_siblingof_b(m->dbg, c, 1, &next, &e) != DW_DLV_OK) {
			scope_err(m, &e);
			next = NULL;
		}
		dwarf_dealloc(m->dbg, c, DW_DLA_DIE);
		c = next;
	}
}

/* The raw reading of .debug_info that finds the functions declared inline
 * without libdwarf's per-DIE cost (as LLDB's own index reads it): each
 * unit's abbreviations, then its DIEs in order, attributes skipped by
 * form.  A unit it cannot read is left to inl_index_children. */
struct raw_abbrev {
	uint64_t tag;
	const uint8_t *attrs;	/* (name, form[, implicit const]) pairs */
};

struct raw_unit {
	const uint8_t *end;
	unsigned addrsz, offsz, ver;
	const uint8_t *str, *lstr;
	size_t strlen_, lstrlen;
};

static int raw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static uint64_t raw_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/* Skips an attribute of form f; *str is set for a name's string forms. */
static int raw_skip(const struct raw_unit *u, const uint8_t **p, uint64_t f, const char **str)
{
	const uint8_t *end = u->end;
	uint64_t n = 0, off;
	int fixed = -1;

	*str = NULL;
	switch (f) {
	case DW_FORM_addr: fixed = (int)u->addrsz; break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: fixed = 1; break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: fixed = 2; break;
	case DW_FORM_strx3: case DW_FORM_addrx3: fixed = 3; break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4: fixed = 4; break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: fixed = 8; break;
	case DW_FORM_data16: fixed = 16; break;
	case DW_FORM_flag_present: case DW_FORM_implicit_const: fixed = 0; break;
	case DW_FORM_ref_addr: fixed = u->ver <= 2 ? (int)u->addrsz : (int)u->offsz; break;
	case DW_FORM_sec_offset: case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt: fixed = (int)u->offsz; break;
	case DW_FORM_strp: case DW_FORM_line_strp:
		if (end - *p < (long)u->offsz)
			return -1;
		off = raw_le(*p, u->offsz);
		*p += u->offsz;
		if (f == DW_FORM_strp ? off < u->strlen_ : off < u->lstrlen)
			*str = (const char *)(f == DW_FORM_strp ? u->str : u->lstr) + off;
		return 0;
	case DW_FORM_string:
		*str = (const char *)*p;
		while (*p < end && **p)
			(*p)++;
		if (*p >= end)
			return -1;
		(*p)++;
		return 0;
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
	case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return raw_uleb(p, end, &n);
	case DW_FORM_block1: if (end - *p < 1) return -1; n = **p; *p += 1; break;
	case DW_FORM_block2: if (end - *p < 2) return -1; n = raw_le(*p, 2); *p += 2; break;
	case DW_FORM_block4: if (end - *p < 4) return -1; n = raw_le(*p, 4); *p += 4; break;
	case DW_FORM_block: case DW_FORM_exprloc:
		if (raw_uleb(p, end, &n) < 0)
			return -1;
		break;
	case DW_FORM_indirect:
		if (raw_uleb(p, end, &n) < 0 || n == DW_FORM_indirect)
			return -1;
		return raw_skip(u, p, n, str);
	default:
		return -1;
	}
	if (fixed >= 0)
		n = (uint64_t)fixed;
	if ((uint64_t)(end - *p) < n)
		return -1;
	*p += n;
	return 0;
}

/* One unit's DIEs [p, u->end) with the abbreviations at abbr: 0, or -1
 * (nothing added) when something in it is not understood. */
static int raw_unit_scan(struct sym_module *m, const struct raw_unit *u, const uint8_t *p,
			 const uint8_t *abbr, const uint8_t *aend, const uint8_t *info, size_t cu,
			 size_t *cap)
{
	struct raw_abbrev *ab = NULL;
	size_t nab = 0, before = m->ninl_names;
	const uint8_t *q = abbr;
	int rc = -1;

	for (;;) {	/* the unit's abbreviation table */
		uint64_t code, tag, at, form, ic;

		if (raw_uleb(&q, aend, &code) < 0)
			goto out;
		if (code == 0)
			break;
		if (code > 100000 || raw_uleb(&q, aend, &tag) < 0 || q >= aend)
			goto out;
		if (code >= nab) {
			size_t nn = code + 16;

			ab = xrealloc(ab, nn * sizeof(*ab));
			memset(ab + nab, 0, (nn - nab) * sizeof(*ab));
			nab = nn;
		}
		ab[code].tag = tag;
		ab[code].attrs = ++q;	/* past the children byte */
		do {
			if (raw_uleb(&q, aend, &at) < 0 || raw_uleb(&q, aend, &form) < 0 ||
			    (form == DW_FORM_implicit_const && raw_uleb(&q, aend, &ic) < 0))
				goto out;
		} while (at || form);
	}
	while (p < u->end) {
		const uint8_t *die = p, *a;
		uint64_t code, at = 0, form = 0, ic;
		int inl = 0, other = 0;
		const char *name = NULL, *str;

		if (raw_uleb(&p, u->end, &code) < 0)
			goto out;
		if (code == 0)
			continue;
		if (code >= nab || !ab[code].attrs)
			goto out;
		a = ab[code].attrs;
		for (;;) {
			raw_uleb(&a, aend, &at);
			raw_uleb(&a, aend, &form);
			if (!at && !form)
				break;
			if (form == DW_FORM_implicit_const)
				raw_uleb(&a, aend, &ic);
			if (raw_skip(u, &p, form, &str) < 0)
				goto out;
			if (at == DW_AT_inline)
				inl = 1;
			else if (at == DW_AT_name)
				name = str;
			else if (at == DW_AT_linkage_name || at == DW_AT_MIPS_linkage_name ||
				 at == DW_AT_specification || at == DW_AT_abstract_origin)
				other = 1;
		}
		if (ab[code].tag != DW_TAG_subprogram || !inl)
			continue;
		if (name && !other) {
			inl_index_add(m, xstrdup(name), cu, cap);
		} else {
			/* a C++ name (linkage name, declaration elsewhere):
			 * LLDB's name, through libdwarf */
			Dwarf_Die d = NULL;
			Dwarf_Error e = NULL;
			char *nm;

			if (dwarf_offdie_b(m->dbg, (Dwarf_Off)(die - info), 1, &d, &e) != DW_DLV_OK) {
				scope_err(m, &e);
				continue;
			}
			if ((nm = scope_name(m, d, 0)))
				inl_index_add(m, nm, cu, cap);
			dwarf_dealloc(m->dbg, d, DW_DLA_DIE);
		}
	}
	rc = 0;
out:
	free(ab);
	if (rc < 0) {
		for (size_t i = before; i < m->ninl_names; i++)
			free(m->inl_names[i].name);
		m->ninl_names = before;
	}
	return rc;
}

/* The index of the module's functions declared inline, from its raw
 * .debug_info where it can be read so, else through libdwarf. */
static void inl_index_build(struct sym_module *m)
{
	size_t ilen = 0, alen = 0, cap = 0, j = 0;
	const uint8_t *info = sym_dwobj_section(m, ".debug_info", &ilen);
	const uint8_t *abbr = sym_dwobj_section(m, ".debug_abbrev", &alen);
	struct raw_unit u;
	unsigned char *done = xcalloc(m->ncus + 1, 1);

	memset(&u, 0, sizeof(u));
	u.str = sym_dwobj_section(m, ".debug_str", &u.strlen_);
	u.lstr = sym_dwobj_section(m, ".debug_line_str", &u.lstrlen);
	for (size_t off = 0; info && abbr && off + 11 <= ilen;) {
		const uint8_t *h = info + off;
		uint64_t len = raw_le(h, 4), aoff;
		size_t hdr;
		unsigned ut = DW_UT_compile;

		if (len >= 0xfffffff0u || len > ilen - off - 4)
			break;	/* 64-bit DWARF or damage: libdwarf does the rest */
		u.ver = (unsigned)raw_le(h + 4, 2);
		u.offsz = 4;
		if (u.ver >= 5) {
			ut = h[6];
			u.addrsz = h[7];
			aoff = raw_le(h + 8, 4);
			hdr = 12;
		} else {
			aoff = raw_le(h + 6, 4);
			u.addrsz = h[10];
			hdr = 11;
		}
		u.end = h + 4 + len;
		if ((ut == DW_UT_compile || ut == DW_UT_partial) && hdr <= 4 + len && aoff < alen &&
		    (u.addrsz == 4 || u.addrsz == 8)) {
			/* the unit's entry in m->cus, by its DIE offset */
			while (j < m->ncus && m->cus[j].off < off + hdr)
				j++;
			if (j < m->ncus && m->cus[j].off == off + hdr &&
			    raw_unit_scan(m, &u, h + hdr, abbr + aoff, abbr + alen, info, j, &cap) == 0)
				done[j] = 1;
		}
		off += 4 + len;
	}
	for (size_t i = 0; i < m->ncus; i++)
		if (!done[i] && sym_cu_die(m, &m->cus[i]) == 0)
			inl_index_children(m, m->cus[i].die, i, &cap, 0);
	free(done);
}

void sym_scope_free_index(struct sym_module *m)
{
	for (size_t i = 0; i < m->ninl_names; i++)
		free(m->inl_names[i].name);
	free(m->inl_names);
	m->inl_names = NULL;
	m->ninl_names = 0;
	m->inl_done = 0;
}

/* 1 if a DWARF function name ("f", "ns::f(int)") is what a breakpoint by
 * name asks for: the same, or without its parameters, or its last
 * qualified part. */
static int inl_name_matches(const char *fn, const char *name)
{
	size_t fl = strlen(fn), nl = strlen(name);

	if (!strcmp(fn, name))
		return 1;
	if (!strchr(name, '(')) {
		const char *p = strchr(fn, '(');

		if (p && p > fn)
			fl = (size_t)(p - fn);
	}
	if (fl == nl)
		return !strncmp(fn, name, nl);
	return fl > nl + 2 && !strncmp(fn + fl - nl, name, nl) && fn[fl - nl - 1] == ':' &&
	       fn[fl - nl - 2] == ':';
}

int sym_lookup_inlined(struct sym_module *m, const char *name, uint64_t *addrs, int max)
{
	size_t last_cu = (size_t)-1;
	int n = 0;

	if (!m->has_debug || max <= 0 || sym_dwarf_init(m) < 0)
		return 0;
	if (!m->inl_done) {
		m->inl_done = 1;
		inl_index_build(m);
	}
	for (size_t i = 0; i < m->ninl_names && n < max; i++) {
		struct sym_cu *cu;
		const char *fn = m->inl_names[i].name;

		if (m->inl_names[i].cu == last_cu || !inl_name_matches(fn, name))
			continue;
		last_cu = m->inl_names[i].cu;
		cu = &m->cus[last_cu];
		if (!cu->scopes_loaded)
			scope_load(m, cu);
		for (size_t k = 0; k < cu->nscopes && n < max; k++) {
			const struct sym_scope *s = &cu->scopes[k];

			if (s->depth > 0 && s->owns_name && inl_name_matches(s->name, name))
				addrs[n++] = s->start + m->bias;
		}
	}
	return n;
}
