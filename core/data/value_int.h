/* core/data/value_int.h: what the value printer's files share
 * (value_type.c, value_scalar.c, value_fmt.c); not for use elsewhere. */
#ifndef PTDB_CORE_VALUE_INT_H
#define PTDB_CORE_VALUE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/data/value.h"

#define MAX_CHILDREN 256

/* A print under way: where, reading through what, in which format. */
struct vf_pr {
	FILE *out;
	const struct value_env *env;
	const struct value_fmt *o;
	int ptr_left;		/* -P: pointers still to expand on this path */
};

/* ---- value_type.c: what LLDB shows of a type ---- */
/* frame variable -R: no summaries (one print at a time) */
extern int vf_raw_output;
int vf_is_char_type(const struct sym_type *t);
/* libstdc++'s std::string: LLDB shows its text, "hello", not its members */
int vf_is_std_string(const struct sym_type *t);
void vf_std_string_text(const struct value_env *env, const struct sym_type *t, const uint8_t *b,
			size_t size, char *buf, size_t n);
int vf_is_aggregate(const struct sym_type *t);
/* A row of a multi-dimensional array, an array type made up in *row. */
void vf_row_type(const struct sym_type *t, struct sym_type *row);
/* Whether child i is left out: an empty base class. */
int vf_hidden(const struct sym_type *t, int i);
/* The children LLDB lists (for "{}" and the one-line choice). */
int vf_nvisible(const struct sym_type *t);
int vf_nchildren(const struct sym_type *t);
/* Whether LLDB would give the value children (a pointer has its pointee)
 * and no summary to stand for them. */
int vf_has_children_no_summary(const struct sym_type *t);
void vf_child_name(const struct sym_type *t, int i, char *buf, size_t n);
/* Small and flat: printed on one line, "(x = 1, y = 2)". */
int vf_one_liner(const struct sym_type *t);
/* Child i of t: its type (*ct, a row made up in *row), offset, member. */
void vf_child_at(const struct sym_type *t, int i, struct sym_type *row,
		 const struct sym_type **ct, uint64_t *off, const struct sym_member **mb);
/* A bit-field's value, sign-extended, as 8 bytes in out. */
void vf_bitfield_bytes(const struct sym_member *mb, const uint8_t *b, size_t avail,
		       uint8_t *out);

/* ---- value_scalar.c: scalars ---- */
void vf_cat(char *buf, size_t n, const char *s);
/* "text" with C escapes, as LLDB quotes a char array or string */
void vf_quoted(const uint8_t *s, size_t len, char *buf, size_t n);
/* a char array as lldb-16 shows it: NULs inside as \\0, up to 1024 bytes */
void vf_char_array(const uint8_t *s, size_t len, char *buf, size_t n);
/* A scalar of type t0 at b, in p's format: "5", "'z'", "0x... \"hi\"". */
void vf_fmt_scalar(struct vf_pr *p, const struct sym_type *t0, const uint8_t *b, char *buf,
		   size_t n);

#endif
