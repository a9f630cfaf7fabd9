/* core/data/value_type.c: what LLDB shows of a value's type — its children
 * (an empty base class left out, a multi-dimensional array's rows), their
 * names, whether they fit on one line, a std::string's text instead of its
 * members (value_fmt.c prints with them). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/value.h"
#include "core/data/value_int.h"

int vf_is_char_type(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && t->kind == SYM_T_BASE && t->size == 1 &&
	       (t->enc == DW_ATE_signed_char || t->enc == DW_ATE_unsigned_char);
}

/* libstdc++'s std::string (std::__cxx11::basic_string<char, ...>): LLDB
 * shows its text, "hello", instead of its members. */
static const struct sym_member *member_named(const struct sym_type *t, const char *name)
{
	t = sym_type_strip(t);
	for (int i = 0; t && i < t->nmem; i++)
		if (t->mem[i].name && !strcmp(t->mem[i].name, name))
			return &t->mem[i];
	return NULL;
}

int vf_raw_output;	/* frame variable -R: no summaries (one print at a time) */

/* A base class with no data members (std::allocator<T>): LLDB does not
 * list it among the children. */
static int empty_base(const struct sym_member *m)
{
	const struct sym_type *t = sym_type_strip(m->type);

	if (!m->is_base || !t)
		return 0;
	for (int i = 0; i < t->nmem; i++)
		if (!empty_base(&t->mem[i]))
			return 0;
	return 1;
}

int vf_is_std_string(const struct sym_type *t)
{
	if (vf_raw_output)
		return 0;
	t = sym_type_strip(t);
	return t && t->name && (t->kind == SYM_T_CLASS || t->kind == SYM_T_STRUCT) &&
	       (!strncmp(t->name, "std::__cxx11::basic_string<char,", 32) ||
		!strncmp(t->name, "std::basic_string<char,", 23)) &&
	       member_named(t, "_M_dataplus") && member_named(t, "_M_string_length");
}

void vf_std_string_text(const struct value_env *env, const struct sym_type *t, const uint8_t *b,
			size_t size, char *buf, size_t n)
{
	const struct sym_member *dp = member_named(t, "_M_dataplus");
	const struct sym_member *ln = member_named(t, "_M_string_length");
	const struct sym_member *p = dp ? member_named(dp->type, "_M_p") : NULL;
	uint64_t ptr = 0, len = 0;
	uint8_t text[1025];
	size_t got;

	buf[0] = 0;
	if (!p || dp->off + p->off + 8 > size || ln->off + 8 > size) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	memcpy(&ptr, b + dp->off + p->off, 8);
	memcpy(&len, b + ln->off, 8);
	if (len > 1024)
		len = 1024;
	got = len ? env->read_some(env->d, ptr, text, (size_t)len) : 0;
	if (got < len) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	text[got] = 0;
	vf_quoted(text, got, buf, n);
}

int vf_is_aggregate(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION ||
		     t->kind == SYM_T_CLASS || t->kind == SYM_T_ARRAY);
}

static uint64_t nelems(const struct sym_type *t)
{
	uint64_t n = t->ndims ? t->dims[0] : 0;

	return n > MAX_CHILDREN ? MAX_CHILDREN : n;
}

/* A row of a multi-dimensional array is itself an array type we make up
 * on the fly: the same element and the remaining dimensions. */
void vf_row_type(const struct sym_type *t, struct sym_type *row)
{
	*row = *t;
	row->dims = t->dims + 1;
	row->ndims = t->ndims - 1;
	row->size = t->dims[0] ? t->size / t->dims[0] : 0;
	row->name = NULL;
}

/* Whether child i is left out: an empty base class. */
int vf_hidden(const struct sym_type *t, int i)
{
	return t->kind != SYM_T_ARRAY && empty_base(&t->mem[i]);
}

/* The children LLDB lists (for "{}" and the one-line choice). */
int vf_nvisible(const struct sym_type *t)
{
	int n = 0;

	t = sym_type_strip(t);
	if (t && t->kind == SYM_T_ARRAY)
		return (int)nelems(t);
	for (int i = 0; t && (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION ||
			       t->kind == SYM_T_CLASS) && i < t->nmem; i++)
		n += !vf_hidden(t, i);
	return n;
}

int vf_nchildren(const struct sym_type *t)
{
	t = sym_type_strip(t);
	if (!t)
		return 0;
	if (t->kind == SYM_T_ARRAY)
		return (int)nelems(t);
	if (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION || t->kind == SYM_T_CLASS)
		return t->nmem;
	return 0;
}

/* Whether LLDB would give the value children (a pointer has its pointee)
 * and no summary to stand for them. */
int vf_has_children_no_summary(const struct sym_type *t)
{
	t = sym_type_strip(t);
	if (!t)
		return 0;
	if (t->kind == SYM_T_POINTER || t->kind == SYM_T_REF || t->kind == SYM_T_RVREF) {
		const struct sym_type *tg = sym_type_strip(t->target);

		return tg && tg->kind != SYM_T_VOID && tg->kind != SYM_T_FUNC && !vf_is_char_type(tg);
	}
	if (t->kind == SYM_T_ARRAY && vf_is_char_type(t->target) && t->ndims == 1)
		return 0;
	if (vf_is_std_string(t))
		return 0;
	return vf_nvisible(t) > 0;
}

void vf_child_name(const struct sym_type *t, int i, char *buf, size_t n)
{
	if (t->kind == SYM_T_ARRAY)
		snprintf(buf, n, "[%d]", i);
	else if (t->mem[i].is_base)
		sym_type_name(t->mem[i].type, buf, n);
	else
		snprintf(buf, n, "%s", t->mem[i].name ? t->mem[i].name : "");
}

int vf_one_liner(const struct sym_type *t)
{
	size_t len = 0;
	char nm[256];
	int n;

	t = sym_type_strip(t);
	n = vf_nchildren(t);
	if (vf_raw_output)	/* -R: every aggregate over several lines, as LLDB */
		return 0;
	if (!vf_nvisible(t) || (t->kind == SYM_T_ARRAY && vf_is_char_type(t->target) && t->ndims == 1))
		return 0;
	for (int i = 0; i < n; i++) {
		const struct sym_type *ct;
		struct sym_type row;

		if (vf_hidden(t, i))
			continue;
		vf_child_name(t, i, nm, sizeof(nm));
		len += strlen(nm);
		if (len > 50)
			return 0;
		if (t->kind == SYM_T_ARRAY) {
			if (t->ndims > 1) {
				vf_row_type(t, &row);
				ct = &row;
			} else
				ct = t->target;
		} else
			ct = t->mem[i].type;
		if (vf_has_children_no_summary(ct))
			return 0;
	}
	return 1;
}

void vf_child_at(const struct sym_type *t, int i, struct sym_type *row,
		 const struct sym_type **ct, uint64_t *off, const struct sym_member **mb)
{
	*mb = NULL;
	if (t->kind == SYM_T_ARRAY) {
		if (t->ndims > 1) {
			vf_row_type(t, row);
			*ct = row;
		} else
			*ct = t->target;
		*off = (uint64_t)i * ((*ct) ? (*ct)->size : 0);
	} else {
		*mb = &t->mem[i];
		*ct = t->mem[i].type;
		*off = t->mem[i].off;
	}
}

void vf_bitfield_bytes(const struct sym_member *mb, const uint8_t *b, size_t avail,
		       uint8_t *out)
{
	uint64_t raw = 0, v;
	size_t span = (mb->bit_off + mb->bit_size + 7) / 8;

	memcpy(&raw, b, span < avail ? (span < 8 ? span : 8) : avail);
	v = (raw >> mb->bit_off) & (mb->bit_size >= 64 ? ~0ull : (1ull << mb->bit_size) - 1);
	if (mb->type) {
		const struct sym_type *bt = sym_type_strip(mb->type);

		if (bt && bt->enc == DW_ATE_signed && mb->bit_size < 64 &&
		    ((v >> (mb->bit_size - 1)) & 1))
			v |= ~((1ull << mb->bit_size) - 1);
	}
	memcpy(out, &v, 8);
}
