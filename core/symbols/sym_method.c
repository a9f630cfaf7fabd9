/* core/symbols/sym_method.c: a class's member functions as its DWARF
 * declares them (DW_TAG_subprogram children of the class): the return
 * type a call of one has where the function itself has no DWARF (a
 * method of libstdc++'s, "s.size()"), as LLDB reads it. */
#include <dwarf.h>
#include <string.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

int sym_type_is_const(const struct sym_type *t)
{
	for (int i = 0; t && i < 16; i++, t = t->target)
		if (t->kind == SYM_T_CONST)
			return 1;
		else if (t->kind != SYM_T_TYPEDEF && t->kind != SYM_T_VOLATILE)
			return 0;
	return 0;
}

/* Whether method f's this points to a const object (a const method). */
static int const_method(struct sym_module *m, Dwarf_Die f, int cxx)
{
	int r = 0;

	for (Dwarf_Die p = sym_die_child(m, f); p; p = sym_die_next(m, p)) {
		Dwarf_Half tag = 0;
		Dwarf_Error e = NULL;
		const struct sym_type *t;
		uint64_t off;

		if (dwarf_tag(p, &tag, &e) != DW_DLV_OK || tag != DW_TAG_formal_parameter) {
			if (e)
				dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
			continue;
		}
		if (sym_die_flag(m, p, DW_AT_artificial) && sym_die_ref(m, p, DW_AT_type, &off) == 0 &&
		    (t = sym_type_strip(sym_type_at(m, off, cxx))) && t->kind == SYM_T_POINTER)
			r = sym_type_is_const(t->target);
		sym_die_free(m, p);
		break;
	}
	return r;
}

int sym_type_method_ret(const struct sym_type *cls, const char *name, int is_const,
			struct sym_type **ret)
{
	struct sym_module *m = NULL;
	Dwarf_Die die = NULL, c;
	Dwarf_Error e = NULL;
	int found = -1;

	cls = sym_type_strip(cls);
	if (!cls || !(m = cls->mod) || !m->dbg ||
	    (cls->kind != SYM_T_STRUCT && cls->kind != SYM_T_CLASS && cls->kind != SYM_T_UNION) ||
	    dwarf_offdie_b(m->dbg, cls->die & ~SYM_DIE_TYPES, !(cls->die & SYM_DIE_TYPES), &die,
			   &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
		return -1;
	}
	for (c = sym_die_child(m, die); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		const char *n;
		uint64_t off;
		int k;

		if (dwarf_tag(c, &tag, &e) != DW_DLV_OK || tag != DW_TAG_subprogram ||
		    !(n = sym_die_name(m, c)) || strcmp(n, name))
			continue;
		k = const_method(m, c, cls->is_cxx) == is_const;
		if (found < 0 || k) {	/* the first so named, unless an overload fits */
			*ret = sym_die_ref(m, c, DW_AT_type, &off) == 0 ?
			       sym_type_at(m, off, cls->is_cxx) : NULL;
			found = !k;
		}
		if (!found) {
			sym_die_free(m, c);
			break;
		}
	}
	dwarf_dealloc(m->dbg, die, DW_DLA_DIE);
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	return found < 0 ? -1 : 0;
}
