/* core/symbols/sym_die.c: a DIE's attributes as values (a number, a
 * reference's DIE offset, an expression's operations, a flag, the name),
 * for the type reader (sym_type.c), the variables (sym_var.c) and the
 * rest of core/symbols; errors are freed here, absence is -1 (NULL). */
#include <stdint.h>
#include <stdlib.h>

#include <dwarf.h>

#include "core/symbols/sym_int.h"

static void err_free(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

/* die's attribute at (*a; *e for the reads of it to come): 0, or -1
 * without one. */
static int attr_get(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, Dwarf_Attribute *a,
		    Dwarf_Error *e)
{
	*e = NULL;
	if (dwarf_attr(die, at, a, e) == DW_DLV_OK)
		return 0;
	err_free(m, e);
	return -1;
}

/* The reads of a are done: a and their error go. */
static void attr_done(struct sym_module *m, Dwarf_Attribute a, Dwarf_Error *e)
{
	err_free(m, e);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
}

int sym_die_udata(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, uint64_t *v)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	Dwarf_Half form = 0;
	int rc = -1;

	if (attr_get(m, die, at, &a, &e) < 0)
		return -1;
	dwarf_whatform(a, &form, &e);
	if ((form == DW_FORM_sdata || form == DW_FORM_implicit_const) &&
	    dwarf_formsdata(a, &s, &e) == DW_DLV_OK) {
		*v = (uint64_t)s;
		rc = 0;
	} else if (dwarf_formudata(a, &u, &e) == DW_DLV_OK) {
		*v = u;
		rc = 0;
	}
	attr_done(m, a, &e);
	return rc;
}

int sym_die_ref(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, uint64_t *off)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0;
	Dwarf_Off o;
	int rc = -1;

	if (attr_get(m, die, at, &a, &e) < 0)
		return -1;
	dwarf_whatform(a, &form, &e);
	if (form == DW_FORM_ref_sig8) {
		/* a type unit's type (-fdebug-types-section), by signature */
		Dwarf_Sig8 sig;
		Dwarf_Die t = NULL;
		Dwarf_Bool is_info = 1;

		if (dwarf_formsig8(a, &sig, &e) == DW_DLV_OK &&
		    dwarf_find_die_given_sig8(m->dbg, &sig, &t, &is_info, &e) == DW_DLV_OK) {
			if (dwarf_dieoffset(t, &o, &e) == DW_DLV_OK) {
				*off = o | (is_info ? 0 : SYM_DIE_TYPES);
				rc = 0;
			}
			dwarf_dealloc(m->dbg, t, DW_DLA_DIE);
		}
	} else if (dwarf_global_formref(a, &o, &e) == DW_DLV_OK) {
		/* a reference inside .debug_types stays there */
		*off = o | (dwarf_get_die_infotypes_flag(die) ? 0 : SYM_DIE_TYPES);
		rc = 0;
	}
	attr_done(m, a, &e);
	return rc;
}

int sym_die_exprloc(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, const uint8_t **ops,
		    size_t *len)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned n = 0;
	Dwarf_Ptr blk = NULL;
	int rc = -1;

	if (attr_get(m, die, at, &a, &e) < 0)
		return -1;
	if (dwarf_formexprloc(a, &n, &blk, &e) == DW_DLV_OK) {
		*ops = blk;	/* (the section's bytes: they outlive a) */
		*len = (size_t)n;
		rc = 0;
	}
	attr_done(m, a, &e);
	return rc;
}

int sym_die_flag(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error e = NULL;

	if (dwarf_hasattr(die, at, &has, &e) != DW_DLV_OK)
		err_free(m, &e);
	return has != 0;
}

char *sym_die_name(struct sym_module *m, Dwarf_Die die)
{
	char *n = NULL;
	Dwarf_Error e = NULL;

	if (dwarf_diename(die, &n, &e) != DW_DLV_OK) {
		err_free(m, &e);
		return NULL;
	}
	return n;	/* libdwarf's string: lives with the Dwarf_Debug */
}
