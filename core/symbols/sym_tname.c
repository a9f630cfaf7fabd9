/* core/symbols/sym_tname.c: a type's name as LLDB prints it (C
 * declarators: pointers to arrays and functions, qualifiers, C++ scopes). */
#include <stdio.h>
#include <string.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

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
	if (!t->nmem && !t->is_cxx)
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
		const char *cls = t->cls && t->cls->name ? t->cls->name : "(unnamed class)";

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
	case SYM_T_CONST:
	case SYM_T_VOLATILE: {
		const char *q = t->kind == SYM_T_CONST ? "const" : "volatile";
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
		const char *base = t->kind == SYM_T_BASE ? clang_name(t->name) : t->name;
		char anon[64];

		if (!base) {
			snprintf(anon, sizeof(anon), "%s",
				 t->kind == SYM_T_UNION ? "(unnamed union)" :
				 t->kind == SYM_T_ENUM ? "(unnamed enum)" :
				 t->kind == SYM_T_VOID ? "void" :
				 t->kind == SYM_T_CLASS ? "(unnamed class)" : "(unnamed struct)");
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

