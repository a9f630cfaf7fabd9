/* core/symbols/sym_fname.c: the name LLDB gives a C++ function whose DWARF
 * has no linkage name — a static function of a namespace, a member of a
 * class in an anonymous namespace: its definition at the unit's top
 * (DW_AT_specification) named from its declaration's scope, with its
 * parameters' types as clang prints them:
 * "testing::internal::ParseFlag(const char *, const char *, bool *)",
 * "testing::internal::ParseFlag<std::__cxx11::basic_string<char> >(const char
 * *, ...)", not the symbol table's demangled "... (char const*, ...)". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

#include <dwarf.h>

static void errfree(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

static void cat(char *buf, size_t n, const char *s)
{
	size_t l = strlen(buf);

	if (l + 1 < n)
		snprintf(buf + l, n - l, "%s", s);
}

/* The parameters of the definition die: "(const char *, int)"; its this
 * pointing to a const object adds " const". */
static void params(struct sym_module *m, Dwarf_Die die, char *buf, size_t n)
{
	int first = 1;

	cat(buf, n, "(");
	for (Dwarf_Die p = sym_die_child(m, die); p; p = sym_die_next(m, p)) {
		Dwarf_Half tag = 0;
		Dwarf_Error e = NULL;
		uint64_t off;
		const struct sym_type *t = NULL;
		char tn[512];

		if (dwarf_tag(p, &tag, &e) != DW_DLV_OK)
			errfree(m, &e);
		if (tag == DW_TAG_unspecified_parameters) {
			cat(buf, n, first ? "..." : ", ...");
			first = 0;
			continue;
		}
		if (tag != DW_TAG_formal_parameter)
			continue;
		if (sym_die_ref(m, p, DW_AT_type, &off) == 0)
			t = sym_type_at(m, off, 1);
		if (sym_die_flag(m, p, DW_AT_artificial)) {	/* this */
			const struct sym_type *s = sym_type_strip(t);

			if (s && s->kind == SYM_T_POINTER && sym_type_is_const(s->target)) {
				sym_die_free(m, p);
				cat(buf, n, ") const");
				return;	/* this comes first: nothing after it yet */
			}
			continue;
		}
		if (!first)
			cat(buf, n, ", ");
		{	/* as clang's GetTypeName: inline namespaces kept */
			int raw = sym_tname_raw;

			sym_tname_raw = 1;
			cat(buf, n, t ? sym_type_name(t, tn, sizeof(tn)) : "void");
			sym_tname_raw = raw;
		}
		first = 0;
	}
	cat(buf, n, ")");
}

char *sym_func_dwarf_name(struct sym_module *m, Dwarf_Die die)
{
	uint64_t spec, parent;
	const char *prefix;
	char *name, buf[2048];
	Dwarf_Die d = NULL;
	Dwarf_Error e = NULL;

	if (sym_die_flag(m, die, DW_AT_linkage_name) ||
	    sym_die_ref(m, die, DW_AT_specification, &spec) < 0 ||
	    sym_type_scope(m, spec, &prefix, &parent) < 0 || !*prefix)
		return NULL;
	if (dwarf_offdie_b(m->dbg, (Dwarf_Off)spec, 1, &d, &e) != DW_DLV_OK) {
		errfree(m, &e);
		return NULL;
	}
	name = sym_die_flag(m, d, DW_AT_linkage_name) ? NULL : sym_die_name(m, d);
	sym_die_free(m, d);
	if (!name)
		return NULL;
	snprintf(buf, sizeof(buf), "%s%s", prefix, name);	/* name: libdwarf's */
	params(m, die, buf, sizeof(buf));
	return xstrdup(buf);
}
