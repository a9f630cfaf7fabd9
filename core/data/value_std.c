/* core/data/value_std.c: the C++ standard library's objects as lldb-16's
 * formatters see them (libstdc++'s layouts): a member found through base
 * classes, a std::vector's element count.  Printing stays in
 * value_fmt.c. */
#include <string.h>

#include "core/data/value.h"
#include "core/data/value_int.h"

/* A member named name of t or of its base classes (libstdc++ keeps a
 * vector's pointers two bases down); its offset from t into *off. */
const struct sym_member *value_member_deep(const struct sym_type *t, const char *name,
					    uint64_t *off, int depth)
{
	t = sym_type_strip(t);
	for (int i = 0; t && i < t->nmem && depth < 6; i++) {
		const struct sym_member *m = &t->mem[i];
		uint64_t sub;

		if (m->name && !strcmp(m->name, name)) {
			*off = m->off;
			return m;
		}
		if (m->is_base || (m->name && !strcmp(m->name, "_M_impl"))) {
			const struct sym_member *r = value_member_deep(m->type, name, &sub, depth + 1);

			if (r) {
				*off = m->off + sub;
				return r;
			}
		}
	}
	return NULL;
}

/* libstdc++'s std::vector (not of bool): its element count into *count.
 * 0, or -1 when t is none. */
int value_std_vector_size(const struct sym_type *t, const uint8_t *b, size_t size,
			   uint64_t *count)
{
	const struct sym_member *st, *fi;
	const struct sym_type *el;
	uint64_t so, fo, start = 0, finish = 0;

	t = sym_type_strip(t);
	if (!t || !t->name || strncmp(t->name, "std::vector<", 12) || strstr(t->name, "<bool") ||
	    !(st = value_member_deep(t, "_M_start", &so, 0)) || !(fi = value_member_deep(t, "_M_finish", &fo, 0)) ||
	    so + 8 > size || fo + 8 > size)
		return -1;
	el = sym_type_strip(sym_type_strip(st->type) ? sym_type_strip(st->type)->target : NULL);
	if (!el || !el->size)
		return -1;
	memcpy(&start, b + so, 8);
	memcpy(&finish, b + fo, 8);
	*count = finish >= start ? (finish - start) / el->size : 0;
	return 0;
}

