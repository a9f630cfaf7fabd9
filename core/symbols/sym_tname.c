/* core/symbols/sym_tname.c: a type's name as LLDB prints it (C
 * declarators: pointers to arrays and functions, qualifiers, C++ scopes;
 * a C++ class template's name rebuilt from its template parameters as
 * clang prints it, inline namespaces left out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

#ifndef DW_TAG_GNU_template_template_param
#define DW_TAG_GNU_template_template_param 0x4106
#endif
#ifndef DW_TAG_GNU_template_parameter_pack
#define DW_TAG_GNU_template_parameter_pack 0x4107
#endif

int sym_tname_raw;

static const char *lldb_name(const struct sym_type *t);
static const char *anon_scope(const struct sym_type *t, char *buf, size_t n);

static void cat(char *buf, size_t n, const char *s)
{
	size_t k = strlen(buf);

	if (k < n)
		snprintf(buf + k, n - k, "%s", s);
}

static void func_params(const struct sym_type *t, char *buf, size_t n)
{
	char one[256];

	cat(buf, n, "(");
	for (int i = 0; i < t->nmem; i++) {
		if (i)
			cat(buf, n, ", ");
		sym_type_name(t->mem[i].type, one, sizeof(one));
		cat(buf, n, one);
	}
	if (t->variadic)
		cat(buf, n, t->nmem ? ", ..." : "...");
	else if (!t->nmem && !t->is_cxx)
		cat(buf, n, "void");
	cat(buf, n, ")");
}

/* LLDB names base types as clang prints them, not as GCC's DWARF does. */
static const char *clang_name(const char *n)
{
	static const char *const map[][2] = {
		{ "long int", "long" }, { "long unsigned int", "unsigned long" },
		{ "long long int", "long long" }, { "long long unsigned int", "unsigned long long" },
		{ "short int", "short" }, { "short unsigned int", "unsigned short" },
		{ "__int128", "__int128" }, { "__int128 unsigned", "unsigned __int128" },
		{ "_Bool", "bool" },
	};

	for (size_t i = 0; n && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(n, map[i][0]))
			return map[i][1];
	return n;
}

/* The C declarator around inner ("*", "[3]", "(*)(int)"). */
static void name_decl(const struct sym_type *t, const char *inner, char *buf, size_t n,
		      int depth)
{
	char tmp[512];

	if (!t) {
		snprintf(buf, n, "void%s%s", *inner && *inner != '[' ? " " : "", inner);
		return;
	}
	if (depth > 32) {
		snprintf(buf, n, "...");
		return;
	}
	switch (t->kind) {
	case SYM_T_POINTER:
	case SYM_T_REF:
	case SYM_T_RVREF: {
		const char *op = t->kind == SYM_T_POINTER ? "*" : t->kind == SYM_T_REF ? "&" : "&&";
		const struct sym_type *tg = t->target;

		if (tg && (tg->kind == SYM_T_ARRAY || tg->kind == SYM_T_FUNC))
			snprintf(tmp, sizeof(tmp), "(%s%s)", op, inner);
		else
			snprintf(tmp, sizeof(tmp), "%s%s", op, inner);
		name_decl(tg, tmp, buf, n, depth + 1);
		return;
	}
	case SYM_T_MEMBER_PTR: {
		/* "int Foo::*", "void (Foo::*)(int)" */
		const struct sym_type *tg = t->target;
		const char *cls = t->cls && t->cls->name ? lldb_name(t->cls) : "(unnamed class)";

		if (tg && (tg->kind == SYM_T_ARRAY || tg->kind == SYM_T_FUNC))
			snprintf(tmp, sizeof(tmp), "(%s::*%s)", cls, inner);
		else
			snprintf(tmp, sizeof(tmp), "%s::*%s", cls, inner);
		name_decl(tg, tmp, buf, n, depth + 1);
		if (tg && tg->kind == SYM_T_FUNC && tg->const_this)
			cat(buf, n, " const");	/* clang's spelling of &Foo::get */
		return;
	}
	case SYM_T_ARRAY: {
		char dims[128] = "";

		for (int i = 0; i < t->ndims; i++) {
			char d[32];

			if (t->dims[i])
				snprintf(d, sizeof(d), "[%llu]", (unsigned long long)t->dims[i]);
			else
				snprintf(d, sizeof(d), "[]");
			cat(dims, sizeof(dims), d);
		}
		snprintf(tmp, sizeof(tmp), "%s%s", inner, dims);
		name_decl(t->target, tmp, buf, n, depth + 1);
		return;
	}
	case SYM_T_FUNC:
		snprintf(tmp, sizeof(tmp), "%s", inner);
		func_params(t, tmp, sizeof(tmp));
		name_decl(t->target, tmp, buf, n, depth + 1);
		return;
	case SYM_T_TYPEDEF:
		if (!t->restrict_q)
			break;
		/* restrict qualifies as const does */
		__attribute__((fallthrough));
	case SYM_T_CONST:
	case SYM_T_VOLATILE: {
		const char *q = t->kind == SYM_T_CONST ? "const" :
				t->kind == SYM_T_VOLATILE ? "volatile" : "__restrict";
		const struct sym_type *tg = t->target;

		if (tg && (tg->kind == SYM_T_POINTER || tg->kind == SYM_T_REF)) {
			snprintf(tmp, sizeof(tmp), "%s%s%s", q, *inner ? " " : "", inner);
			/* "char *const": the qualifier follows the star */
			name_decl(tg, tmp, buf, n, depth + 1);
			return;
		}
		name_decl(tg, inner, tmp, sizeof(tmp), depth + 1);
		snprintf(buf, n, "%s %s", q, tmp);
		return;
	}
	default:
		break;
	}
	if (t->kind == SYM_T_TYPEDEF && !t->name) {
		name_decl(t->target, inner, buf, n, depth + 1);
		return;
	}
	{
		const char *base = t->kind == SYM_T_BASE ? clang_name(t->name) : lldb_name(t);
		char anon[1024];

		if (!base) {
			/* clang's: "(anonymous union)" for an unnamed member,
			 * in C++ after its scope ("ns::S::(unnamed enum)") */
			const char *k = t->kind == SYM_T_UNION ? "union" :
					t->kind == SYM_T_ENUM ? "enum" :
					t->kind == SYM_T_CLASS ? "class" : "struct";

			if (t->kind == SYM_T_VOID)
				snprintf(anon, sizeof(anon), "void");
			else
				snprintf(anon, sizeof(anon), "%s(%s %s)", anon_scope(t, tmp, sizeof(tmp)),
					 t->anon_member ? "anonymous" : "unnamed", k);
			base = anon;
		}
		snprintf(buf, n, "%s%s%s", base, *inner && *inner != '[' ? " " : "", inner);
	}
}

char *sym_type_name(const struct sym_type *t, char *buf, size_t n)
{
	if (n)
		buf[0] = 0;
	name_decl(t, "", buf, n, 0);
	return buf;
}


/* ---- C++ names as clang prints them for LLDB ----
 * LLDB makes a class with template parameters (DW_TAG_template_*_param
 * children) a class template specialization, which clang prints from its
 * arguments: each type by its own name as clang prints it ("const int",
 * "char *", inline namespaces left out), each value as a number, true or
 * false, a character, or an enumerator's name.  A class without them
 * keeps DWARF's name, its template arguments as GCC spells them ("std::
 * allocator<std::pair<int const, int> >").  Scopes lose their inline
 * namespaces ("std::__cxx11::list<int, ...>" is "std::list<int, ...>"). */

static int arg_value(struct sym_module *m, Dwarf_Die c, char *buf, size_t n)
{
	uint64_t v, off;
	const struct sym_type *t;

	if (sym_die_udata(m, c, DW_AT_const_value, &v) < 0 || sym_die_ref(m, c, DW_AT_type, &off) < 0)
		return -1;
	t = sym_type_strip(sym_type_at(m, off, 1));
	if (!t)
		return -1;
	if (t->size && t->size < 8) {
		int sign = t->kind == SYM_T_ENUM ? !t->unsigned_enum :
			   t->enc == DW_ATE_signed || t->enc == DW_ATE_signed_char;

		v &= (1ull << (t->size * 8)) - 1;
		if (sign && (v >> (t->size * 8 - 1)) & 1)
			v |= ~0ull << (t->size * 8);
	}
	if (t->kind == SYM_T_ENUM) {
		for (int i = 0; i < t->nenums; i++)
			if ((uint64_t)t->enums[i].value == v) {
				/* qualified: an enum class's name, or the
				 * unscoped enum's scope */
				const char *en = lldb_name(t), *last = NULL;

				for (const char *p = en; p && *p && *p != '<'; p++)
					if (p[0] == ':' && p[1] == ':')
						last = p + 2;
				if (t->scoped_enum && en)
					snprintf(buf, n, "%s::%s", en, t->enums[i].name);
				else
					snprintf(buf, n, "%.*s%s", last ? (int)(last - en) : 0,
						 en ? en : "", t->enums[i].name);
				return 0;
			}
		snprintf(buf, n, "%lld", (long long)v);
		return 0;
	}
	if (t->kind != SYM_T_BASE)
		return -1;
	if (t->enc == DW_ATE_boolean)
		snprintf(buf, n, "%s", v ? "true" : "false");
	else if (t->enc == DW_ATE_signed_char || t->enc == DW_ATE_unsigned_char) {
		if (v < 0x20 || v > 0x7e || v == '\'' || v == '\\')
			return -1;
		snprintf(buf, n, "'%c'", (char)v);
	} else if (t->enc == DW_ATE_signed)
		snprintf(buf, n, "%lld", (long long)v);
	else if (t->enc == DW_ATE_unsigned)
		snprintf(buf, n, "%llu", (unsigned long long)v);
	else
		return -1;
	return 0;
}

/* The template arguments of die's children, each after ", "; the number
 * of parameters (0: none), -1 one clang's way is not known here for. */
static int args_of(struct sym_module *m, Dwarf_Die die, char *buf, size_t n, int depth)
{
	Dwarf_Die c;
	Dwarf_Error e = NULL;
	int count = 0;

	for (c = sym_die_child(m, die); c && count >= 0; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		char one[1024];
		uint64_t off;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_template_type_parameter) {
			sym_type_name(sym_die_ref(m, c, DW_AT_type, &off) == 0 ?
				      sym_type_at(m, off, 1) : NULL, one, sizeof(one));
		} else if (tag == DW_TAG_template_value_parameter) {
			if (arg_value(m, c, one, sizeof(one)) < 0)
				count = -2;
		} else if (tag == DW_TAG_GNU_template_parameter_pack && depth == 0) {
			int k = args_of(m, c, buf, n, 1);

			count = k < 0 ? -2 : count + 1;
			continue;
		} else if (tag == DW_TAG_GNU_template_template_param ||
			   tag == DW_TAG_GNU_template_parameter_pack) {
			count = -2;
		} else {
			continue;
		}
		if (count < 0)
			break;
		count++;
		if (*buf)
			cat(buf, n, ", ");
		cat(buf, n, one);
	}
	sym_die_free(m, c);
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	return count < 0 ? -1 : count;
}

static char *make_lldb_name(const struct sym_type *t)
{
	struct sym_module *m = t->mod;
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	const char *dn, *dprefix;
	char scope[1024] = "", base[2048] = "", args[2048] = "", *out;
	uint64_t parent;
	size_t len;

	if (dwarf_offdie_b(m->dbg, t->die & ~SYM_DIE_TYPES, !(t->die & SYM_DIE_TYPES), &die,
			   &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
		return NULL;
	}
	dn = sym_die_name(m, die);
	if (sym_type_scope(m, t->die, &dprefix, &parent) == 0) {
		if (parent) {
			const struct sym_type *pt = sym_type_at(m, parent, 1);
			const char *pn = pt && pt->name ? lldb_name(pt) : NULL;

			if (pn)
				snprintf(scope, sizeof(scope), "%s::", pn);
			else	/* DWARF's scope: t->name without dn */
				snprintf(scope, sizeof(scope), "%.*s",
					 (int)(strlen(t->name) - strlen(dn ? dn : "")), t->name);
		} else if (sym_tname_raw) {	/* DWARF's, inline namespaces kept */
			snprintf(scope, sizeof(scope), "%.*s",
				 (int)(strlen(t->name) - strlen(dn ? dn : "")), t->name);
		} else {
			snprintf(scope, sizeof(scope), "%s", dprefix);
		}
	}
	snprintf(base, sizeof(base), "%s", dn ? dn : "");
	if ((t->kind == SYM_T_CLASS || t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION) &&
	    strchr(base, '<') && args_of(m, die, args, sizeof(args), 0) > 0) {
		len = strlen(args);
		*strchr(base, '<') = 0;
		cat(base, sizeof(base), "<");
		cat(base, sizeof(base), args);
		cat(base, sizeof(base), len && args[len - 1] == '>' ? " >" : ">");
	}
	dwarf_dealloc(m->dbg, die, DW_DLA_DIE);
	len = strlen(scope) + strlen(base) + 1;
	out = malloc(len);
	if (!out)
		return NULL;
	snprintf(out, len, "%s%s", scope, base);
	if (!strcmp(out, t->name)) {
		free(out);
		return NULL;
	}
	return out;
}

/* t's name as LLDB prints it (C: DWARF's). */
static const char *lldb_name(const struct sym_type *t)
{
	struct sym_type *w = (struct sym_type *)t;	/* made once, kept */
	int raw = sym_tname_raw != 0;

	if (!t->name || !t->mod || !t->is_cxx)
		return t->name;
	if (!t->lldb_done[raw]) {
		w->lldb_done[raw] = 1;
		w->lldb_name[raw] = make_lldb_name(t);
	}
	return t->lldb_name[raw] ? t->lldb_name[raw] : t->name;
}

/* The scope of an unnamed C++ type as clang prints it ("ns::S::"). */
static const char *anon_scope(const struct sym_type *t, char *buf, size_t n)
{
	const char *dprefix;
	uint64_t parent;

	buf[0] = 0;
	if (!t->mod || !t->is_cxx || sym_type_scope(t->mod, t->die, &dprefix, &parent) < 0)
		return buf;
	if (parent) {
		const struct sym_type *pt = sym_type_at(t->mod, parent, 1);

		if (pt && pt->name)
			snprintf(buf, n, "%s::", lldb_name(pt));
	} else {
		snprintf(buf, n, "%s", dprefix);
	}
	return buf;
}
