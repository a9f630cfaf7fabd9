/* core/symbols/sym_method.c: a class's member functions as its DWARF
 * declares them (DW_TAG_subprogram children of the class): the return
 * type a call of one has where the function itself has no DWARF (a
 * method of libstdc++'s, "s.size()"), as LLDB reads it. */
#include <dwarf.h>
#include <stdlib.h>
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

/* The DIE cls was read from, in its module *m: 0, or -1 (none). */
static int class_die(const struct sym_type *cls, struct sym_module **m, Dwarf_Die *die)
{
	Dwarf_Error e = NULL;

	*m = cls->mod;
	if (!*m || !(*m)->dbg)
		return -1;
	if (dwarf_offdie_b((*m)->dbg, cls->die & ~SYM_DIE_TYPES, !(cls->die & SYM_DIE_TYPES), die, &e) ==
	    DW_DLV_OK)
		return 0;
	if (e)
		dwarf_dealloc((*m)->dbg, e, DW_DLA_ERROR);
	return -1;
}

int sym_type_method_ret(const struct sym_type *cls, const char *name, int is_const,
			struct sym_type **ret)
{
	struct sym_module *m = NULL;
	Dwarf_Die die = NULL, c;
	Dwarf_Error e = NULL;
	int found = -1;

	cls = sym_type_strip(cls);
	if (!cls || (cls->kind != SYM_T_STRUCT && cls->kind != SYM_T_CLASS && cls->kind != SYM_T_UNION) ||
	    class_die(cls, &m, &die) < 0)
		return -1;
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

/* DW_AT_vtable_elem_location's slot (DW_OP_constu N), -1 without one. */
static int vtable_slot(struct sym_module *m, Dwarf_Die f)
{
	const uint8_t *b;
	size_t len;
	uint64_t v = 0;
	unsigned shift = 0;

	if (sym_die_exprloc(m, f, DW_AT_vtable_elem_location, &b, &len) < 0 || len < 2 ||
	    b[0] != DW_OP_constu)
		return -1;
	for (size_t i = 1; i < len && shift < 32; i++, shift += 7) {
		v |= (uint64_t)(b[i] & 0x7f) << shift;
		if (!(b[i] & 0x80))
			break;
	}
	return (int)v;
}

/* The function type of method f (its parameters after this), made and
 * chained to cls. */
static struct sym_type *method_type(struct sym_module *m, struct sym_type *cls, Dwarf_Die f,
				    const char *name)
{
	struct sym_type *ft = xcalloc(1, sizeof(*ft)), *mp = xcalloc(1, sizeof(*mp));
	uint64_t off;

	ft->kind = SYM_T_FUNC;
	ft->is_cxx = 1;
	ft->name = xstrdup(name);	/* found again by it; not printed */
	ft->target = sym_die_ref(m, f, DW_AT_type, &off) == 0 ? sym_type_at(m, off, 1) : NULL;
	ft->const_this = const_method(m, f, 1);
	for (Dwarf_Die p = sym_die_child(m, f); p; p = sym_die_next(m, p)) {
		Dwarf_Half tag = 0;
		Dwarf_Error e = NULL;

		if (dwarf_tag(p, &tag, &e) != DW_DLV_OK || tag != DW_TAG_formal_parameter ||
		    sym_die_flag(m, p, DW_AT_artificial)) {
			if (e)
				dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
			continue;
		}
		ft->mem = xrealloc(ft->mem, (size_t)(ft->nmem + 1) * sizeof(*ft->mem));
		memset(&ft->mem[ft->nmem], 0, sizeof(ft->mem[0]));
		ft->mem[ft->nmem++].type = sym_die_ref(m, p, DW_AT_type, &off) == 0 ?
					   sym_type_at(m, off, 1) : NULL;
	}
	mp->kind = SYM_T_MEMBER_PTR;
	mp->is_cxx = 1;
	mp->size = 16;
	mp->target = ft;
	mp->cls = cls;
	mp->made = ft;		/* the chain: cls -> mp -> ft -> older ones */
	ft->made = cls->made;
	cls->made = mp;
	return mp;
}

int sym_type_method_ptr(struct sym_type *cls, const char *name, const struct sym_type **type,
			int *vslot)
{
	struct sym_module *m = NULL;
	Dwarf_Die die = NULL, c;
	Dwarf_Error e = NULL;
	int found = -1;

	if (!cls || (cls->kind != SYM_T_STRUCT && cls->kind != SYM_T_CLASS) || class_die(cls, &m, &die) < 0)
		return -1;
	for (c = sym_die_child(m, die); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		const char *n;

		if (dwarf_tag(c, &tag, &e) != DW_DLV_OK || tag != DW_TAG_subprogram ||
		    !(n = sym_die_name(m, c)) || strcmp(n, name))
			continue;
		*type = NULL;
		for (struct sym_type *x = cls->made; x && !*type; x = x->made)
			if (x->kind == SYM_T_MEMBER_PTR && !strcmp(x->target->name, name))
				*type = x;	/* made before */
		if (!*type)
			*type = method_type(m, cls, c, name);
		*vslot = vtable_slot(m, c);
		found = 0;
		sym_die_free(m, c);
		break;
	}
	dwarf_dealloc(m->dbg, die, DW_DLA_DIE);
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	return found;
}
