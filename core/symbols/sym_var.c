/* core/symbols/sym_var.c: which variables DWARF says are in scope at an address
 * (the function's parameters, its locals, those of the lexical blocks
 * holding the address) and a compile unit's globals, each with the
 * location expression that holds at that address — a single expression or
 * the matching entry of a DWARF 4 .debug_loc or DWARF 5 .debug_loclists
 * list.  Ranges: low/high pc, DWARF 4 .debug_ranges, DWARF 5 rnglists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

struct walk {
	struct sym_module *m;
	struct sym_cu *cu;
	uint64_t pc;		/* link address */
	uint64_t cu_base;
	int ver, cxx;
	struct sym_var *v;
	int n, cap;
	int found;
	int inl;		/* the inlined call whose variables are wanted:
				 * 0 the function, k the k-th nested call */
	struct sym_func_scope *sc;
};

static void errfree(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

static int ranges4(struct sym_module *m, Dwarf_Die die, uint64_t off, uint64_t base,
		   uint64_t pc)
{
	Dwarf_Ranges *r = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Unsigned bytes;
	Dwarf_Off real;
	Dwarf_Error e = NULL;
	int hit = 0;

	if (dwarf_get_ranges_b(m->dbg, off, die, &real, &r, &n, &bytes, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return 0;
	}
	for (Dwarf_Signed i = 0; i < n && !hit; i++) {
		if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = r[i].dwr_addr2;
		else if (r[i].dwr_type == DW_RANGES_ENTRY)
			hit = pc >= base + r[i].dwr_addr1 && pc < base + r[i].dwr_addr2;
	}
	dwarf_ranges_dealloc(m->dbg, r, n);
	return hit;
}

static int ranges5(struct sym_module *m, Dwarf_Attribute a, Dwarf_Half form,
		   uint64_t val, uint64_t pc)
{
	Dwarf_Rnglists_Head h = NULL;
	Dwarf_Unsigned n = 0, goff;
	Dwarf_Error e = NULL;
	int hit = 0;

	if (dwarf_rnglists_get_rle_head(a, form, val, &h, &n, &goff, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return 0;
	}
	for (Dwarf_Unsigned i = 0; i < n && !hit; i++) {
		unsigned len, code;
		Dwarf_Unsigned r1, r2, c1, c2;
		Dwarf_Bool unavail = 0;

		if (dwarf_get_rnglists_entry_fields_a(h, i, &len, &code, &r1, &r2, &unavail,
						      &c1, &c2, &e) != DW_DLV_OK) {
			errfree(m, &e);
			break;
		}
		if (!unavail && code != DW_RLE_base_address && code != DW_RLE_base_addressx &&
		    code != DW_RLE_end_of_list)
			hit = pc >= c1 && pc < c2;
	}
	dwarf_dealloc_rnglists_head(h);
	return hit;
}

/* 1 if the DIE's code ranges hold pc (link address). */
static int die_holds(struct walk *w, Dwarf_Die die)
{
	struct sym_module *m = w->m;
	Dwarf_Addr lo, hi;
	Dwarf_Half form = 0;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	int hit = 0;

	if (dwarf_lowpc(die, &lo, &e) == DW_DLV_OK) {
		if (dwarf_highpc_b(die, &hi, &form, &cls, &e) == DW_DLV_OK) {
			if (cls != DW_FORM_CLASS_ADDRESS)
				hi += lo;
			hit = w->pc >= lo && w->pc < hi;
		}
		errfree(m, &e);
		return hit;
	}
	errfree(m, &e);
	if (dwarf_attr(die, DW_AT_ranges, &a, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return 0;
	}
	dwarf_whatform(a, &form, &e);
	if (w->ver >= 5) {
		Dwarf_Unsigned v = 0;

		if (form == DW_FORM_rnglistx)
			dwarf_formudata(a, &v, &e);
		else {
			Dwarf_Off o = 0;

			dwarf_global_formref(a, &o, &e);
			v = o;
		}
		errfree(m, &e);
		hit = ranges5(m, a, form, v, w->pc);
	} else {
		Dwarf_Off o = 0;

		if (dwarf_global_formref(a, &o, &e) == DW_DLV_OK)
			hit = ranges4(m, die, o, w->cu_base, w->pc);
		errfree(m, &e);
	}
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return hit;
}

/* The DIE an attribute refers to (abstract origin, specification). */
static Dwarf_Die die_origin(struct sym_module *m, Dwarf_Die die)
{
	uint64_t off;
	Dwarf_Die o = NULL;
	Dwarf_Error e = NULL;

	if (sym_die_ref(m, die, DW_AT_abstract_origin, &off) < 0 &&
	    sym_die_ref(m, die, DW_AT_specification, &off) < 0)
		return NULL;
	if (dwarf_offdie_b(m->dbg, off, 1, &o, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return NULL;
	}
	return o;
}

static int copy_ops(struct sym_module *m, Dwarf_Locdesc_c ld, Dwarf_Unsigned nops,
		    struct sym_var *v)
{
	Dwarf_Error e = NULL;

	v->ops = xcalloc(nops ? nops : 1, sizeof(*v->ops));
	for (Dwarf_Unsigned j = 0; j < nops; j++) {
		Dwarf_Small atom;
		Dwarf_Unsigned o1, o2, o3, br;

		if (dwarf_get_location_op_value_c(ld, j, &atom, &o1, &o2, &o3, &br, &e) != DW_DLV_OK) {
			errfree(m, &e);
			return -1;
		}
		v->ops[j].atom = atom;
		v->ops[j].op1 = o1;
		v->ops[j].op2 = o2;
		v->ops[j].op3 = o3;
		if (atom == DW_OP_implicit_value || atom == DW_OP_entry_value ||
		    atom == DW_OP_GNU_entry_value)
			v->ops[j].block = (const uint8_t *)(uintptr_t)o2;
	}
	v->nops = (int)nops;
	return 0;
}

/* The location expression holding at pc (or the only one). */
static void var_location(struct walk *w, Dwarf_Die die, struct sym_var *v)
{
	struct sym_module *m = w->m;
	Dwarf_Attribute a;
	Dwarf_Loc_Head_c h = NULL;
	Dwarf_Unsigned cnt = 0;
	Dwarf_Error e = NULL;

	v->loc = SYM_VL_NONE;
	if (dwarf_attr(die, DW_AT_location, &a, &e) != DW_DLV_OK) {
		errfree(m, &e);
		v->loc = SYM_VL_ABSENT;
		if (sym_die_udata(m, die, DW_AT_const_value, (uint64_t *)&v->const_sval) == 0)
			v->loc = SYM_VL_CONST;
		return;
	}
	if (dwarf_get_loclist_c(a, &h, &cnt, &e) != DW_DLV_OK) {
		errfree(m, &e);
		dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
		return;
	}
	v->loc = SYM_VL_NOT_HERE;
	for (Dwarf_Unsigned i = 0; i < cnt; i++) {
		Dwarf_Small lle, src;
		Dwarf_Unsigned rlo, rhi, nops, eoff, loff;
		Dwarf_Bool unavail = 0;
		Dwarf_Addr lo, hi;
		Dwarf_Locdesc_c ld;

		if (dwarf_get_locdesc_entry_d(h, i, &lle, &rlo, &rhi, &unavail, &lo, &hi, &nops,
					      &ld, &src, &eoff, &loff, &e) != DW_DLV_OK) {
			errfree(m, &e);
			break;
		}
		if (src != 0 && (unavail || w->pc < lo || w->pc >= hi || !nops))
			continue;
		if (copy_ops(m, ld, nops, v) == 0)
			v->loc = nops ? SYM_VL_EXPR : SYM_VL_NONE;
		break;
	}
	dwarf_loc_head_c_dealloc(h);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
}

/* A DW_AT_decl_file's path: the unit's line-table file of that number,
 * when its table named it (a DWARF 5 table from GCC names them all) */
static const char *decl_file(struct walk *w, uint64_t idx)
{
	struct sym_cu *cu = w->cu;

	return cu && idx < cu->nfiles ? cu->files[idx] : NULL;
}

static void add_var(struct walk *w, Dwarf_Die die, int is_param)
{
	struct sym_module *m = w->m;
	Dwarf_Die org = die_origin(m, die);
	Dwarf_Die named = org ? org : die;
	struct sym_var *v;
	uint64_t off, line = 0;
	char *name = sym_die_name(m, die);

	if (!name)
		name = sym_die_name(m, named);
	if (!name && is_param)	/* "int f(int, int b)": "" (lldb-16 shows "(null)=0") */
		name = (char *)"";
	if (!name) {
		if (org)
			dwarf_dealloc(m->dbg, org, DW_DLA_DIE);
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->v = xrealloc(w->v, (size_t)w->cap * sizeof(*w->v));
	}
	v = &w->v[w->n++];
	memset(v, 0, sizeof(*v));
	v->name = name;
	v->is_param = is_param;
	v->artificial = sym_die_flag(m, named, DW_AT_artificial);
	if (sym_die_ref(m, die, DW_AT_type, &off) == 0 ||
	    sym_die_ref(m, named, DW_AT_type, &off) == 0)
		v->type = sym_type_at(m, off, w->cxx);
	if (sym_die_udata(m, named, DW_AT_decl_line, &line) == 0)
		v->decl_line = (unsigned)line;
	if (sym_die_udata(m, named, DW_AT_decl_column, &line) == 0)
		v->decl_col = (unsigned)line;
	if (sym_die_udata(m, named, DW_AT_decl_file, &line) == 0)
		v->decl_file = decl_file(w, line);
	var_location(w, die, v);
	if (v->loc == SYM_VL_EXPR && v->nops && v->ops[0].atom == DW_OP_addr)
		v->global = 1;
	if (org)
		dwarf_dealloc(m->dbg, org, DW_DLA_DIE);
}

/* Collects the variables of die (a function, a block or an inlined call
 * holding pc) when it is at inline depth w->inl, then descends into the
 * blocks and inlined calls that hold pc, down to that depth (LLDB: an
 * inlined call's frame shows its own scope, not its caller's). */
static void scope_vars(struct walk *w, Dwarf_Die die, int depth, int inl)
{
	struct sym_module *m = w->m;
	Dwarf_Die c;
	Dwarf_Error e = NULL;
	Dwarf_Die blocks[64];
	int nb = 0, binl[64];

	if (depth > 32)
		return;
	for (c = sym_die_child(m, die); c;) {
		Dwarf_Half tag = 0;
		int keep = 0;

		dwarf_tag(c, &tag, &e);
		if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) && inl == w->inl)
			add_var(w, c, tag == DW_TAG_formal_parameter);
		else if (tag == DW_TAG_lexical_block && nb < 64 && die_holds(w, c))
			keep = 1;
		else if (tag == DW_TAG_inlined_subroutine && inl < w->inl && nb < 64 &&
			 die_holds(w, c))
			keep = 2;
		if (keep) {
			binl[nb] = keep == 2 ? inl + 1 : inl;
			blocks[nb++] = c;
		}
		c = keep ? sym_die_next_keep(m, c) : sym_die_next(m, c);
	}
	errfree(m, &e);
	for (int i = 0; i < nb; i++) {
		scope_vars(w, blocks[i], depth + 1, binl[i]);
		sym_die_free(m, blocks[i]);
	}
}

static void frame_base_ops(struct walk *w, Dwarf_Die fn)
{
	struct sym_var tmp;

	memset(&tmp, 0, sizeof(tmp));
	{
		Dwarf_Attribute a;
		Dwarf_Loc_Head_c h = NULL;
		Dwarf_Unsigned cnt = 0;
		Dwarf_Error e = NULL;
		struct sym_module *m = w->m;

		if (dwarf_attr(fn, DW_AT_frame_base, &a, &e) != DW_DLV_OK) {
			errfree(m, &e);
			return;
		}
		if (dwarf_get_loclist_c(a, &h, &cnt, &e) == DW_DLV_OK) {
			for (Dwarf_Unsigned i = 0; i < cnt; i++) {
				Dwarf_Small lle, src;
				Dwarf_Unsigned rlo, rhi, nops, eoff, loff;
				Dwarf_Bool unavail = 0;
				Dwarf_Addr lo, hi;
				Dwarf_Locdesc_c ld;

				if (dwarf_get_locdesc_entry_d(h, i, &lle, &rlo, &rhi, &unavail, &lo,
							      &hi, &nops, &ld, &src, &eoff, &loff,
							      &e) != DW_DLV_OK)
					break;
				if (src != 0 && (w->pc < lo || w->pc >= hi))
					continue;
				if (copy_ops(m, ld, nops, &tmp) == 0) {
					w->sc->frame_base = tmp.ops;
					w->sc->nframe_base = tmp.nops;
				} else
					free(tmp.ops);
				break;
			}
			dwarf_loc_head_c_dealloc(h);
		}
		errfree(m, &e);
		dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	}
}

static void found_function(struct walk *w, Dwarf_Die fn)
{
	struct sym_module *m = w->m;
	Dwarf_Die org = die_origin(m, fn);
	uint64_t off;

	w->found = 1;
	w->sc->func = sym_die_name(m, fn);
	if (!w->sc->func && org)
		w->sc->func = sym_die_name(m, org);
	if (sym_die_ref(m, fn, DW_AT_type, &off) == 0 ||
	    (org && sym_die_ref(m, org, DW_AT_type, &off) == 0))
		w->sc->ret = sym_type_at(m, off, w->cxx);
	if (org)
		dwarf_dealloc(m->dbg, org, DW_DLA_DIE);
	frame_base_ops(w, fn);
	for (Dwarf_Die c = sym_die_child(m, fn); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		Dwarf_Error e = NULL;

		if (dwarf_tag(c, &tag, &e) != DW_DLV_OK)
			errfree(m, &e);
		if (tag == DW_TAG_unspecified_parameters)	/* "f(const char *, ...)" */
			w->sc->variadic = 1;
	}
	if (w->inl > 0)	/* an inlined call: no value of its own returns */
		w->sc->ret = NULL;
	scope_vars(w, fn, 0, 0);
}

/* Finds the subprogram holding pc under die (a unit or a namespace). */
static void find_function(struct walk *w, Dwarf_Die die, int depth)
{
	struct sym_module *m = w->m;
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 16)
		return;
	for (c = sym_die_child(m, die); c && !w->found; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_subprogram && die_holds(w, c))
			found_function(w, c);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
			 tag == DW_TAG_class_type)
			find_function(w, c, depth + 1);
	}
	sym_die_free(m, c);
	errfree(m, &e);
}

/* 0, or -1 when the unit's DIE cannot be read (units are read on first
 * use: sym_cu_die). */
static int walk_init(struct walk *w, struct sym_module *m, struct sym_cu *cu)
{
	Dwarf_Half ver = 0, offsz = 0;
	Dwarf_Addr lo = 0;
	Dwarf_Error e = NULL;
	uint64_t lang = 0;

	w->m = m;
	w->cu = cu;
	if (sym_cu_die(m, cu) < 0)
		return -1;
	if (dwarf_get_version_of_die(cu->die, &ver, &offsz) == DW_DLV_OK)
		w->ver = ver;
	if (dwarf_lowpc(cu->die, &lo, &e) == DW_DLV_OK)
		w->cu_base = lo;
	errfree(m, &e);
	if (sym_die_udata(m, cu->die, DW_AT_language, &lang) == 0)
		w->cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
	return 0;
}

int sym_scope_vars(struct sym_module *m, uint64_t pc, int inl, struct sym_func_scope *sc,
		   struct sym_var **out, struct ptdb_err *err)
{
	struct walk w;
	struct sym_cu *cu = NULL;

	memset(sc, 0, sizeof(*sc));
	memset(&w, 0, sizeof(w));
	*out = NULL;
	if (sym_dwarf_init(m) < 0 || (sym_find_row(m, pc - m->bias, &cu), !cu) ||
	    walk_init(&w, m, cu) < 0)
		return ptdb_err_set(err, "no debug information for this frame");
	w.pc = pc - m->bias;
	w.inl = inl > 0 ? inl : 0;
	w.sc = sc;
	sc->is_cxx = w.cxx;
	find_function(&w, cu->die, 0);
	if (!w.found) {
		free(w.v);
		return ptdb_err_set(err, "no debug information for this frame");
	}
	*out = w.v;
	return w.n;
}

/* The scope of a global: its declaration's (DW_AT_specification) or its
 * own, as the namespaces and classes around it name it. */
static const char *var_scope(struct sym_module *m, Dwarf_Die die, const char **raw)
{
	uint64_t off, parent;
	Dwarf_Off own = 0;
	Dwarf_Error e = NULL;
	const char *prefix;

	if (sym_die_ref(m, die, DW_AT_specification, &off) < 0) {
		if (dwarf_dieoffset(die, &own, &e) != DW_DLV_OK) {
			errfree(m, &e);
			*raw = "";
			return "";
		}
		off = own;
	}
	*raw = sym_type_scope_raw(m, off);
	return sym_type_scope(m, off, &prefix, &parent) < 0 ? "" : prefix;
}

static void unit_globals(struct walk *w, Dwarf_Die die, int depth)
{
	struct sym_module *m = w->m;
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 16)
		return;
	for (c = sym_die_child(m, die); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_variable && !sym_die_flag(m, c, DW_AT_declaration) &&
		    (sym_die_flag(m, c, DW_AT_location) || sym_die_flag(m, c, DW_AT_const_value))) {
			add_var(w, c, 0);
			w->v[w->n - 1].global = 1;
			w->v[w->n - 1].scope = var_scope(w->m, c, &w->v[w->n - 1].scope_raw);
		} else if (tag == DW_TAG_namespace)
			unit_globals(w, c, depth + 1);
	}
	errfree(m, &e);
}

/* The unit's source path, joined to its DW_AT_comp_dir when relative. */
static const char *unit_path(struct sym_module *m, struct sym_cu *cu)
{
	const char *name = sym_die_name(m, cu->die);
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	char *dir = NULL;

	if (!name || name[0] == '/')
		return name;
	if (!cu->path && dwarf_attr(cu->die, DW_AT_comp_dir, &a, &e) == DW_DLV_OK) {
		if (dwarf_formstring(a, &dir, &e) == DW_DLV_OK && dir) {
			size_t n = strlen(dir) + strlen(name) + 2;

			cu->path = xmalloc(n);
			snprintf(cu->path, n, "%s/%s", dir, name);
		}
		dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	}
	errfree(m, &e);
	return cu->path ? cu->path : name;
}

int sym_global_vars(struct sym_module *m, uint64_t pc, const char **cu_name,
		    struct sym_var **out, struct ptdb_err *err)
{
	struct walk w;
	struct sym_cu *cu = NULL;

	*out = NULL;
	*cu_name = NULL;
	if (sym_dwarf_init(m) < 0)
		return ptdb_err_set(err, "no debug information");
	memset(&w, 0, sizeof(w));
	if (pc) {
		sym_find_row(m, pc - m->bias, &cu);
		if (!cu || walk_init(&w, m, cu) < 0)
			return ptdb_err_set(err, "no debug information for this address");
		*cu_name = unit_path(m, cu);
		unit_globals(&w, cu->die, 0);
	} else {
		for (size_t i = 0; i < m->ncus; i++) {
			if (walk_init(&w, m, &m->cus[i]) == 0)
				unit_globals(&w, m->cus[i].die, 0);
		}
	}
	*out = w.v;
	return w.n;
}

void sym_vars_free(struct sym_var *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].ops);
	free(v);
}

/* ---- call sites: the values DW_OP_entry_value asks for ---- */

struct cs_walk {
	struct walk w;
	uint64_t ret;		/* the call's return address (link) */
	unsigned reg;		/* the callee's parameter register */
	struct sym_var out;	/* ops of DW_AT_call_value */
	int found;
};

static int param_reg(struct sym_module *m, Dwarf_Die p, unsigned *reg)
{
	const uint8_t *b;
	size_t len;

	if (sym_die_exprloc(m, p, DW_AT_location, &b, &len) < 0 || len != 1 ||
	    b[0] < DW_OP_reg0 || b[0] > DW_OP_reg31)
		return -1;
	*reg = b[0] - DW_OP_reg0;
	return 0;
}

static void call_value_ops(struct cs_walk *cw, Dwarf_Die p)
{
	struct sym_module *m = cw->w.m;
	Dwarf_Attribute a;
	Dwarf_Loc_Head_c h = NULL;
	Dwarf_Unsigned cnt = 0;
	Dwarf_Error e = NULL;

	if (dwarf_attr(p, DW_AT_call_value, &a, &e) != DW_DLV_OK &&
	    (errfree(m, &e), dwarf_attr(p, DW_AT_GNU_call_site_value, &a, &e) != DW_DLV_OK)) {
		errfree(m, &e);
		return;
	}
	if (dwarf_get_loclist_c(a, &h, &cnt, &e) == DW_DLV_OK && cnt) {
		Dwarf_Small lle, src;
		Dwarf_Unsigned rlo, rhi, nops, eoff, loff;
		Dwarf_Bool unavail = 0;
		Dwarf_Addr lo, hi;
		Dwarf_Locdesc_c ld;

		if (dwarf_get_locdesc_entry_d(h, 0, &lle, &rlo, &rhi, &unavail, &lo, &hi, &nops,
					      &ld, &src, &eoff, &loff, &e) == DW_DLV_OK && nops &&
		    copy_ops(m, ld, nops, &cw->out) == 0)
			cw->found = 1;
	}
	if (h)
		dwarf_loc_head_c_dealloc(h);
	errfree(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
}

static int die_addr(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Addr addr;
	int rc = -1;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return -1;
	}
	if (dwarf_formaddr(a, &addr, &e) == DW_DLV_OK) {
		*v = addr;
		rc = 0;
	}
	errfree(m, &e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return rc;
}

static void call_sites(struct cs_walk *cw, Dwarf_Die die, int depth)
{
	struct sym_module *m = cw->w.m;
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 32)
		return;
	for (c = sym_die_child(m, die); c && !cw->found; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		uint64_t ret = 0;
		Dwarf_Addr gnu_ret = 0;
		unsigned reg;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)
			call_sites(cw, c, depth + 1);
		else if ((tag == DW_TAG_call_site && die_addr(m, c, DW_AT_call_return_pc, &ret) == 0 &&
			  ret == cw->ret) ||
			 (tag == DW_TAG_GNU_call_site && dwarf_lowpc(c, &gnu_ret, &e) == DW_DLV_OK &&
			  gnu_ret == cw->ret)) {
			for (Dwarf_Die p = sym_die_child(m, c); p; p = sym_die_next(m, p))
				if (!cw->found && param_reg(m, p, &reg) == 0 && reg == cw->reg)
					call_value_ops(cw, p);
		}
		errfree(m, &e);
	}
	sym_die_free(m, c);
	errfree(m, &e);
}

/* Finds the subprogram holding w->pc under die and searches its calls. */
static void call_site_fn(struct cs_walk *cw, Dwarf_Die die, int depth)
{
	struct sym_module *m = cw->w.m;
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 16)
		return;
	for (c = sym_die_child(m, die); c && !cw->w.found; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_subprogram && die_holds(&cw->w, c)) {
			cw->w.found = 1;
			call_sites(cw, c, 0);
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
			   tag == DW_TAG_class_type)
			call_site_fn(cw, c, depth + 1);
	}
	sym_die_free(m, c);
	errfree(m, &e);
}

int sym_call_site_value(struct sym_module *m, uint64_t ret_pc, unsigned reg,
			struct sym_op **ops, struct ptdb_err *err)
{
	struct cs_walk cw;
	struct sym_cu *cu = NULL;

	*ops = NULL;
	if (sym_dwarf_init(m) < 0 || (sym_find_row(m, ret_pc - 1 - m->bias, &cu), !cu))
		return ptdb_err_set(err, "no debug information for the caller");
	memset(&cw, 0, sizeof(cw));
	if (walk_init(&cw.w, m, cu) < 0)
		return ptdb_err_set(err, "no debug information for the caller");
	cw.w.pc = ret_pc - 1 - m->bias;
	cw.ret = ret_pc - m->bias;
	cw.reg = reg;
	call_site_fn(&cw, cu->die, 0);
	if (!cw.found) {
		free(cw.out.ops);
		return ptdb_err_set(err, "no call site value for the register");
	}
	*ops = cw.out.ops;
	return cw.out.nops;
}
