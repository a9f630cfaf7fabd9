/* core/data/value_fmt.c: values as LLDB prints them — "(int) a = 1", chars
 * as 'z', bools as true/false, enums by name, floats with APFloat's
 * digits, pointers in 16 hex digits with the string or the function they
 * point to, and aggregates over several lines or, when small and flat,
 * on one: "(x = 1, y = 2)". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/value.h"
#include "core/data/fmt_cxx.h"

#define MAX_CHILDREN 256

void value_release(struct value *v)
{
	free(v->bytes);
	v->bytes = NULL;
}

struct pr {
	FILE *out;
	const struct value_env *env;
	const struct value_fmt *o;
};

static int is_char_type(const struct sym_type *t)
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

static int raw_output;	/* frame variable -R: no summaries (one print at a time) */

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

static int is_std_string(const struct sym_type *t)
{
	if (raw_output)
		return 0;
	t = sym_type_strip(t);
	return t && t->name && (t->kind == SYM_T_CLASS || t->kind == SYM_T_STRUCT) &&
	       (!strncmp(t->name, "std::__cxx11::basic_string<char,", 32) ||
		!strncmp(t->name, "std::basic_string<char,", 23)) &&
	       member_named(t, "_M_dataplus") && member_named(t, "_M_string_length");
}

static void cat(char *buf, size_t n, const char *s);
static void quoted(const uint8_t *s, size_t len, char *buf, size_t n);

static void std_string_text(const struct value_env *env, const struct sym_type *t, const uint8_t *b,
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
	quoted(text, got, buf, n);
}

static int is_aggregate(const struct sym_type *t)
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
static void row_type(const struct sym_type *t, struct sym_type *row)
{
	*row = *t;
	row->dims = t->dims + 1;
	row->ndims = t->ndims - 1;
	row->size = t->dims[0] ? t->size / t->dims[0] : 0;
	row->name = NULL;
}

/* Whether child i is left out: an empty base class. */
static int hidden(const struct sym_type *t, int i)
{
	return t->kind != SYM_T_ARRAY && empty_base(&t->mem[i]);
}

/* The children LLDB lists (for "{}" and the one-line choice). */
static int nvisible(const struct sym_type *t)
{
	int n = 0;

	t = sym_type_strip(t);
	if (t && t->kind == SYM_T_ARRAY)
		return (int)nelems(t);
	for (int i = 0; t && (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION ||
			       t->kind == SYM_T_CLASS) && i < t->nmem; i++)
		n += !hidden(t, i);
	return n;
}

static int nchildren(const struct sym_type *t)
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
static int has_children_no_summary(const struct sym_type *t)
{
	t = sym_type_strip(t);
	if (!t)
		return 0;
	if (t->kind == SYM_T_POINTER || t->kind == SYM_T_REF || t->kind == SYM_T_RVREF) {
		const struct sym_type *tg = sym_type_strip(t->target);

		return tg && tg->kind != SYM_T_VOID && tg->kind != SYM_T_FUNC && !is_char_type(tg);
	}
	if (t->kind == SYM_T_ARRAY && is_char_type(t->target) && t->ndims == 1)
		return 0;
	if (is_std_string(t))
		return 0;
	return nvisible(t) > 0;
}

static void child_name(const struct sym_type *t, int i, char *buf, size_t n)
{
	if (t->kind == SYM_T_ARRAY)
		snprintf(buf, n, "[%d]", i);
	else if (t->mem[i].is_base)
		sym_type_name(t->mem[i].type, buf, n);
	else
		snprintf(buf, n, "%s", t->mem[i].name ? t->mem[i].name : "");
}

static int one_liner(const struct sym_type *t)
{
	size_t len = 0;
	char nm[256];
	int n;

	t = sym_type_strip(t);
	n = nchildren(t);
	if (!nvisible(t) || (t->kind == SYM_T_ARRAY && is_char_type(t->target) && t->ndims == 1))
		return 0;
	for (int i = 0; i < n; i++) {
		const struct sym_type *ct;
		struct sym_type row;

		if (hidden(t, i))
			continue;
		child_name(t, i, nm, sizeof(nm));
		len += strlen(nm);
		if (len > 50)
			return 0;
		if (t->kind == SYM_T_ARRAY) {
			if (t->ndims > 1) {
				row_type(t, &row);
				ct = &row;
			} else
				ct = t->target;
		} else
			ct = t->mem[i].type;
		if (has_children_no_summary(ct))
			return 0;
	}
	return 1;
}

/* ---- scalars ---- */

static void char_lit(unsigned c, char *buf, size_t n)
{
	static const char esc[] = "\a\b\f\n\r\t\v";
	static const char let[] = "abfnrtv";
	const char *p = c ? strchr(esc, (int)c) : NULL;

	if (!c)
		snprintf(buf, n, "\\0");
	else if (p)
		snprintf(buf, n, "\\%c", let[p - esc]);
	else if (c == '\\' || c == '"' || c == '\'')
		snprintf(buf, n, "\\%c", c);
	else if (c >= 0x20 && c < 0x7f)
		snprintf(buf, n, "%c", c);
	else
		snprintf(buf, n, "\\x%02x", c & 0xff);
}

static void cat(char *buf, size_t n, const char *s)
{
	size_t k = strlen(buf);

	if (k < n)
		snprintf(buf + k, n - k, "%s", s);
}

static void quoted(const uint8_t *s, size_t len, char *buf, size_t n)
{
	char one[8];

	cat(buf, n, "\"");
	for (size_t i = 0; i < len && s[i]; i++) {
		if (s[i] == '\'')
			snprintf(one, sizeof(one), "'");
		else
			char_lit(s[i], one, sizeof(one));
		cat(buf, n, one);
	}
	cat(buf, n, "\"");
}

/* A char array as lldb-16 shows it: its first 1024 bytes
 * (max-string-summary-length) up to the last that is not NUL, NULs
 * inside as \0, and "..." after when the array is longer. */
static void char_array(const uint8_t *s, size_t len, char *buf, size_t n)
{
	size_t m = len > 1024 ? 1024 : len;
	char one[8];

	while (m && !s[m - 1])
		m--;
	cat(buf, n, "\"");
	for (size_t i = 0; i < m; i++) {
		if (s[i] == '\'')
			snprintf(one, sizeof(one), "'");
		else
			char_lit(s[i], one, sizeof(one));
		cat(buf, n, one);
	}
	cat(buf, n, len > 1024 ? "\"..." : "\"");
}

static void fmt_int(uint64_t u, size_t size, int is_signed, char f, char *buf, size_t n)
{
	int bits = (int)(size * 8);
	int64_t s;

	if (bits < 64) {
		u &= (1ull << bits) - 1;
		s = (u >> (bits - 1)) & 1 ? (int64_t)(u | ~((1ull << bits) - 1)) : (int64_t)u;
	} else
		s = (int64_t)u;
	if (f == 'x')
		snprintf(buf, n, "0x%0*" PRIx64, (int)size * 2, u);
	else if (f == 'b') {
		snprintf(buf, n, "0b");
		for (int i = bits - 1; i >= 0; i--)
			cat(buf, n, (u >> i) & 1 ? "1" : "0");
	} else if (f == 'c' && size == 1) {
		char one[8];

		snprintf(buf, n, "'");
		char_lit((unsigned)(u & 0xff), one, sizeof(one));
		cat(buf, n, one);
		cat(buf, n, "'");
	} else if (f == 'c') {	/* LLDB: each byte as a character, unquoted */
		char one[8];

		buf[0] = 0;
		for (size_t i = 0; i < size && i < 8; i++) {
			char_lit((unsigned)((u >> (i * 8)) & 0xff), one, sizeof(one));
			cat(buf, n, one);
		}
	} else if (f == 'u' || (!f && !is_signed))
		snprintf(buf, n, "%" PRIu64, u);
	else
		snprintf(buf, n, "%" PRId64, s);
}

static void fmt_pointer(struct pr *p, const struct sym_type *t, uint64_t u, char *buf, size_t n)
{
	const struct sym_type *tg = sym_type_strip(t->target);
	char loc[512];

	if (p->o->format && p->o->format != 'x') {
		fmt_int(u, 8, 0, p->o->format, buf, n);
		return;
	}
	if (!u && tg && (tg->kind == SYM_T_STRUCT || tg->kind == SYM_T_UNION ||
			 tg->kind == SYM_T_CLASS)) {
		snprintf(buf, n, "NULL");
		return;
	}
	snprintf(buf, n, "0x%016" PRIx64, u);
	if (!u || !tg)
		return;
	if (is_char_type(tg) && t->kind == SYM_T_POINTER) {
		uint8_t s[1025];
		size_t got = p->env->read_some(p->env->d, u, s, sizeof(s) - 1);

		s[got] = 0;
		cat(buf, n, " ");
		quoted(s, got, buf, n);
		/* cut at LLDB's max-string-summary-length (1024): said so */
		if (got == sizeof(s) - 1 && !memchr(s, 0, got))
			cat(buf, n, "...");
	} else if (tg->kind == SYM_T_FUNC) {
		p->env->format_addr(p->env->d, u, loc, sizeof(loc));
		cat(buf, n, " (");
		cat(buf, n, loc);
		cat(buf, n, ")");
	}
}

static void fmt_scalar(struct pr *p, const struct sym_type *t0, const uint8_t *b, char *buf,
		       size_t n)
{
	const struct sym_type *t = sym_type_strip(t0);
	uint64_t u = 0;
	size_t size = t ? (size_t)t->size : 0;
	char f = p->o->format;

	memcpy(&u, b, size < 8 ? size : 8);
	buf[0] = 0;
	if (!t) {
		snprintf(buf, n, "<no type>");
		return;
	}
	switch (t->kind) {
	case SYM_T_POINTER:
	case SYM_T_REF:
	case SYM_T_RVREF:
		fmt_pointer(p, t, u, buf, n);
		return;
	case SYM_T_ENUM:
		if (!f)
			for (int i = 0; i < t->nenums; i++) {
				uint64_t mask = size < 8 ? (1ull << (size * 8)) - 1 : ~0ull;

				if (((uint64_t)t->enums[i].value & mask) == (u & mask)) {
					snprintf(buf, n, "%s", t->enums[i].name);
					return;
				}
			}
		fmt_int(u, size, !t->unsigned_enum, f, buf, n);
		return;
	case SYM_T_BASE:
		break;
	default:
		snprintf(buf, n, "0x%016" PRIx64, u);
		return;
	}
	if (t->enc == DW_ATE_boolean && !f) {
		snprintf(buf, n, "%s", u ? "true" : "false");
		return;
	}
	if (t->enc == DW_ATE_float && !f) {
		if (size == 4) {
			float x;

			memcpy(&x, b, 4);
			value_float_str(x, 24, buf, n);
		} else if (size == 8) {
			double x;

			memcpy(&x, b, 8);
			value_float_str(x, 53, buf, n);
		} else {
			long double x = 0;

			memcpy(&x, b, size < sizeof(x) ? size : sizeof(x));
			value_float_str((double)x, 53, buf, n);
		}
		return;
	}
	if ((t->enc == DW_ATE_signed_char || t->enc == DW_ATE_unsigned_char) && size == 1 &&
	    (!f || f == 'c')) {
		fmt_int(u, 1, 1, 'c', buf, n);
		return;
	}
	fmt_int(u, size, t->enc == DW_ATE_signed || t->enc == DW_ATE_signed_char, f, buf, n);
}

/* ---- aggregates ---- */

static void print_node(struct pr *p, int indent, const char *name, const struct sym_type *t,
		       const uint8_t *b, uint64_t addr, int in_mem, int top);

static void child_at(const struct sym_type *t, int i, struct sym_type *row,
		     const struct sym_type **ct, uint64_t *off, const struct sym_member **mb)
{
	*mb = NULL;
	if (t->kind == SYM_T_ARRAY) {
		if (t->ndims > 1) {
			row_type(t, row);
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

static void bitfield_bytes(const struct sym_member *mb, const uint8_t *b, size_t avail,
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

static void child_text(struct pr *p, const struct sym_type *t, int i, const uint8_t *b,
		       size_t size, char *buf, size_t n)
{
	struct sym_type row;
	const struct sym_type *ct;
	const struct sym_member *mb;
	uint64_t off;
	uint8_t tmp[8];

	child_at(t, i, &row, &ct, &off, &mb);
	if (mb && mb->bit_size) {
		bitfield_bytes(mb, off < size ? b + off : b, off < size ? size - off : 0, tmp);
		fmt_scalar(p, ct, tmp, buf, n);
		return;
	}
	if (off + (ct ? ct->size : 0) > size) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	if (is_std_string(ct)) {
		std_string_text(p->env, sym_type_strip(ct), b + off, size - off, buf, n);
		return;
	}
	if (!p->o->format && sym_type_strip(ct) && sym_type_strip(ct)->kind == SYM_T_POINTER &&
	    is_char_type(sym_type_strip(ct)->target)) {
		/* LLDB's one-line form shows a summary alone: the string */
		char *q;

		fmt_scalar(p, ct, b + off, buf, n);
		if ((q = strchr(buf, ' ')) && q[1] == '"')
			memmove(buf, q + 1, strlen(q + 1) + 1);
		return;
	}
	if (is_aggregate(ct)) {	/* char arrays and empty ones reach here in one line */
		const struct sym_type *s = sym_type_strip(ct);

		buf[0] = 0;
		if (!nchildren(s))
			snprintf(buf, n, "{}");
		else
			quoted(b + off, (size_t)s->size, buf, n);
		return;
	}
	fmt_scalar(p, ct, b + off, buf, n);
}

static void print_children(struct pr *p, int indent, const struct sym_type *t, const uint8_t *b,
			   uint64_t addr, int in_mem)
{
	int n = nchildren(t);

	for (int i = 0; i < n; i++) {
		struct sym_type row;
		const struct sym_type *ct;
		const struct sym_member *mb;
		uint64_t off;
		char nm[256];

		if (hidden(t, i))
			continue;
		child_at(t, i, &row, &ct, &off, &mb);
		child_name(t, i, nm, sizeof(nm));
		if (mb && mb->bit_size) {
			uint8_t tmp[8];
			char v[128];

			bitfield_bytes(mb, off < t->size ? b + off : b,
				       off < t->size ? (size_t)(t->size - off) : 0, tmp);
			fmt_scalar(p, ct, tmp, v, sizeof(v));
			if (p->o->show_loc && in_mem)
				fprintf(p->out, "0x%016" PRIx64 ": ", addr + off);
			fprintf(p->out, "%*s", indent, "");
			if (p->o->show_types) {
				char tn[256];

				fprintf(p->out, "(%s:%u) ", sym_type_name(ct, tn, sizeof(tn)), mb->bit_size);
			}
			fprintf(p->out, "%s = %s\n", nm, v);
			continue;
		}
		if (off + (ct ? ct->size : 0) > t->size)
			break;
		print_node(p, indent, nm, ct, b + off, addr + off, in_mem, 0);
	}
}

/* The summary of a library value (fmt_cxx.c): a shared_ptr to a scalar
 * shows its pointee's value. */
static void view_summary(struct pr *p, const struct cxx_view *cv, char *buf, size_t n)
{
	if (cv->summary[0] == 1 && cv->nkids == 1) {
		const struct sym_type *pt = sym_type_strip(cv->kids[0].type);
		const struct sym_type *tg = pt ? sym_type_strip(pt->target) : NULL;
		uint64_t a = 0;
		uint8_t obj[16] = { 0 };

		memcpy(&a, cv->kids[0].inline_bytes, 8);
		if (tg && tg->size <= sizeof(obj) && p->env->read_some(p->env->d, a, obj, tg->size) == tg->size)
			fmt_scalar(p, pt->target, obj, buf, n);
		else
			snprintf(buf, n, "0x%" PRIx64, a);
		return;
	}
	snprintf(buf, n, "%s", cv->summary);
}

/* A library value: its summary, then its synthetic children; ref: as a
 * reference's target ("size=3: {"). */
static void print_view(struct pr *p, int indent, const struct cxx_view *cv, int ref)
{
	char sum[512];

	view_summary(p, cv, sum, sizeof(sum));
	if (!cv->nkids) {
		fprintf(p->out, "%s%s {}\n", sum, ref ? ":" : "");
		return;
	}
	fprintf(p->out, "%s%s {\n", sum, ref ? ":" : "");
	for (int i = 0; i < cv->nkids; i++) {
		const struct cxx_kid *k = &cv->kids[i];
		const struct sym_type *kt = sym_type_strip(k->type);
		size_t size = kt ? (size_t)kt->size : 0;
		uint8_t *obj;

		if (!k->addr) {
			print_node(p, indent + 2, k->name, k->type, k->bytes ? k->bytes : k->inline_bytes,
				   0, 0, 0);
			continue;
		}
		obj = size && size <= (1u << 20) ? calloc(1, size) : NULL;
		if (!obj || p->env->read_some(p->env->d, k->addr, obj, size) < size)
			fprintf(p->out, "%*s%s = <unavailable>\n", indent + 2, "", k->name);
		else
			print_node(p, indent + 2, k->name, k->type, obj, k->addr, 1, 0);
		free(obj);
	}
	fprintf(p->out, "%*s}\n", indent, "");
}

/* A C++ reference as LLDB shows it: "0x00007ffe... (&r = 5)" for a
 * scalar, "0x00007ffe...: {" and the members for an object. */
static void print_ref(struct pr *p, int indent, const char *name, const struct sym_type *s,
		      const uint8_t *b)
{
	const struct sym_type *tg = sym_type_strip(s->target);
	uint64_t a = 0;
	size_t size = tg ? (size_t)tg->size : 0;
	uint8_t *obj;
	char v[4200];

	memcpy(&a, b, 8);
	if (!size || size > (1u << 20)) {
		fprintf(p->out, "0x%016" PRIx64 "\n", a);
		return;
	}
	obj = calloc(1, size);
	if (!obj || p->env->read(p->env->d, a, obj, size, NULL) < 0) {
		fprintf(p->out, "0x%016" PRIx64 "\n", a);
		free(obj);
		return;
	}
	if (!raw_output) {
		struct cxx_view cv;

		if (cxx_view(p->env, tg, obj, size, &cv)) {
			print_view(p, indent, &cv, 1);
			cxx_view_free(&cv);
			free(obj);
			return;
		}
	}
	if (is_std_string(tg) && nvisible(tg)) {	/* LLDB: the text, then the members */
		std_string_text(p->env, tg, obj, size, v, sizeof(v));
		fprintf(p->out, "%s: {\n", v);
		print_children(p, indent + 2, tg, obj, a, 1);
		fprintf(p->out, "%*s}\n", indent, "");
	} else if (is_aggregate(tg) && !is_std_string(tg) && nchildren(tg)) {
		fprintf(p->out, "0x%016" PRIx64 ": {\n", a);
		print_children(p, indent + 2, tg, obj, a, 1);
		fprintf(p->out, "%*s}\n", indent, "");
	} else {
		if (is_std_string(tg))
			std_string_text(p->env, tg, obj, size, v, sizeof(v));
		else
			fmt_scalar(p, tg, obj, v, sizeof(v));
		fprintf(p->out, "0x%016" PRIx64 " (&%s = %s)\n", a, name, v);
	}
	free(obj);
}

static void print_node(struct pr *p, int indent, const char *name, const struct sym_type *t,
		       const uint8_t *b, uint64_t addr, int in_mem, int top)
{
	const struct sym_type *s = sym_type_strip(t);
	char v[4200];

	if (indent > 64) {	/* a type that contains itself (hostile DWARF) */
		fprintf(p->out, "%*s%s = ...\n", indent, "", name);
		return;
	}
	if (p->o->show_loc && in_mem)
		fprintf(p->out, "0x%016" PRIx64 ": ", addr);
	fprintf(p->out, "%*s", indent, "");
	if (top || p->o->show_types) {
		char tn[256];

		fprintf(p->out, "(%s) ", sym_type_name(t, tn, sizeof(tn)));
	}
	fprintf(p->out, "%s = ", name);
	if (!raw_output) {
		struct cxx_view cv;

		if (cxx_view(p->env, s, b, s ? (size_t)s->size : 0, &cv)) {
			print_view(p, indent, &cv, 0);
			cxx_view_free(&cv);
			return;
		}
	}
	if (is_std_string(s) && !p->o->format) {
		std_string_text(p->env, s, b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (s && (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) && s->target && !p->o->format) {
		print_ref(p, indent, name, s, b);
		return;
	}
	if (s && s->kind == SYM_T_ARRAY && is_char_type(s->target) && s->ndims == 1) {
		v[0] = 0;
		char_array(b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!is_aggregate(s)) {
		fmt_scalar(p, t, b, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!nvisible(s)) {
		fprintf(p->out, "{}\n");
		return;
	}
	if (!p->o->show_loc && !p->o->show_types && one_liner(s)) {
		int n = nchildren(s), first = 1;

		fputc('(', p->out);
		for (int i = 0; i < n; i++) {
			char nm[256];

			if (hidden(s, i))
				continue;
			child_name(s, i, nm, sizeof(nm));
			child_text(p, s, i, b, (size_t)s->size, v, sizeof(v));
			fprintf(p->out, "%s%s = %s", first ? "" : ", ", nm, v);
			first = 0;
		}
		fputs(")\n", p->out);
		return;
	}
	fputs("{\n", p->out);
	print_children(p, indent + 2, s, b, addr, in_mem);
	fprintf(p->out, "%*s}\n", indent, "");
}

void value_print(FILE *out, const struct value_env *env, const char *name,
		 const struct value *v, const struct value_fmt *o)
{
	struct pr p = { out, env, o };
	char tn[256];

	if (v->status != VAL_OK) {
		if (o->show_loc && v->in_mem)
			fprintf(out, "0x%016" PRIx64 ": ", v->addr);
		fprintf(out, "(%s) %s = ", sym_type_name(v->type, tn, sizeof(tn)), name);
		if (v->status == VAL_NO_REG)
			fprintf(out, "<register %s is not available>\n\n",
				sym_dwreg_name(v->bad_reg) ? sym_dwreg_name(v->bad_reg) : "?");
		else if (v->status == VAL_MEM)
			fprintf(out, "<read memory from 0x%" PRIx64 " failed (0 of %zu bytes read)>\n\n",
				v->addr, v->size);
		else if (v->status == VAL_NO_LOC)
			fprintf(out, "<no location, value may have been optimized out>\n\n");
		else
			fprintf(out, "<variable not available>\n\n");
		return;
	}
	if (o->show_loc && !v->in_mem && v->in_reg >= 0) {
		const char *r = sym_dwreg_name((unsigned)v->in_reg);

		fprintf(out, "%s: ", r ? r : "?");
	}
	raw_output = o->raw;
	print_node(&p, 0, name, v->type, v->bytes, v->addr, v->in_mem, 1);
	raw_output = 0;
}

/* A frame line's text for a library value: the summary alone
 * ("v=size=3", "err=\"\""); 0 when t has none. */
static int brief_summary(struct pr *p, const struct sym_type *t, const uint8_t *b, size_t size,
			 char *buf, size_t n)
{
	struct cxx_view cv;

	if (is_std_string(t)) {
		std_string_text(p->env, sym_type_strip(t), b, size, buf, n);
		return 1;
	}
	if (!cxx_view(p->env, t, b, size, &cv))
		return 0;
	view_summary(p, &cv, buf, n);
	cxx_view_free(&cv);
	return 1;
}

void value_brief(const struct value_env *env, const struct value *v, char *buf, size_t n)
{
	static const struct value_fmt natural;
	struct pr p = { NULL, env, &natural };
	const struct sym_type *s = sym_type_strip(v->type);

	if (v->status != VAL_OK) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	if (brief_summary(&p, s, v->bytes, v->size, buf, n))
		return;
	if (s && (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) && v->size >= 8) {
		const struct sym_type *tg = sym_type_strip(s->target);
		uint64_t a = 0;
		uint8_t *obj = tg && tg->size && tg->size <= 4096 ? calloc(1, tg->size) : NULL;
		int done = 0;

		memcpy(&a, v->bytes, 8);
		if (obj && env->read_some(env->d, a, obj, tg->size) == tg->size)
			done = brief_summary(&p, tg, obj, tg->size, buf, n);
		free(obj);
		if (done)
			return;
	}
	if (s && s->kind == SYM_T_ARRAY && is_char_type(s->target) && s->ndims == 1) {
		buf[0] = 0;
		char_array(v->bytes, v->size, buf, n);
		return;
	}
	if (is_std_string(s)) {	/* its summary, as LLDB's frame lines give it */
		std_string_text(env, s, v->bytes, v->size, buf, n);
		return;
	}
	if (is_aggregate(s) && !one_liner(s) && v->in_mem) {
		/* lldb-16's summary of an aggregate it would not print in one
		 * line (a child that is a pointer to data, say) */
		char tn[256];

		sym_type_name(v->type, tn, sizeof(tn));
		snprintf(buf, n, "%s @ 0x%016" PRIx64, tn, v->addr);
		return;
	}
	if (is_aggregate(s)) {
		/* LLDB prints an aggregate argument's children in one line */
		buf[0] = 0;
		cat(buf, n, "(");
		for (int i = 0; i < nchildren(s); i++) {
			char nm[256], one[512];

			child_name(s, i, nm, sizeof(nm));
			child_text(&p, s, i, v->bytes, v->size, one, sizeof(one));
			if (i)
				cat(buf, n, ", ");
			cat(buf, n, nm);
			cat(buf, n, " = ");
			cat(buf, n, one);
		}
		cat(buf, n, ")");
		return;
	}
	fmt_scalar(&p, v->type, v->bytes, buf, n);
	/* a frame line shows a pointer's summary alone when it has one (a
	 * string's: name="LOCPATH"), else its value: 0x0 for NULL */
	if (s && s->kind == SYM_T_POINTER && !strcmp(buf, "NULL"))
		snprintf(buf, n, "0x%016x", 0);
	if (s && s->kind == SYM_T_POINTER && is_char_type(sym_type_strip(s->target)) &&
	    !strncmp(buf, "0x", 2) && strstr(buf, " \"")) {
		char *sp = strstr(buf, " \"");

		memmove(buf, sp + 1, strlen(sp + 1) + 1);
	}
	/* LLDB names a function pointer in a frame line by its function
	 * alone: "cmp=(a.out`cmp at a.c:7:1)" */
	if (s && s->kind == SYM_T_POINTER && sym_type_strip(s->target) &&
	    sym_type_strip(s->target)->kind == SYM_T_FUNC && !strncmp(buf, "0x", 2)) {
		char *sp = strstr(buf, " (");

		if (sp)
			memmove(buf, sp + 1, strlen(sp + 1) + 1);
	}
}

/* ---- children as data (a front end's tree of values) ---- */

/* A pointer or reference whose pointee LLDB expands: its type, or NULL. */
static const struct sym_type *expandable_pointee(const struct sym_type *s)
{
	if (!s || (s->kind != SYM_T_POINTER && s->kind != SYM_T_REF && s->kind != SYM_T_RVREF))
		return NULL;
	if (!has_children_no_summary(s))
		return NULL;
	s = sym_type_strip(s->target);
	return s && s->size && s->size <= (1u << 20) ? s : NULL;
}

int value_nchildren(const struct value *v)
{
	const struct sym_type *s = sym_type_strip(v->type), *tg;

	if (v->status != VAL_OK || !s)
		return 0;
	if ((tg = expandable_pointee(s)))
		return is_aggregate(tg) && !is_std_string(tg) ? nchildren(tg) : 1;
	if (!has_children_no_summary(s))
		return 0;
	return nchildren(s);
}

int value_child(const struct value_env *env, const struct value *v, int i, char *name, size_t n,
		struct value *out)
{
	const struct sym_type *s = sym_type_strip(v->type), *tg, *ct;
	const struct sym_member *mb;
	struct sym_type row;
	uint64_t base = v->addr, off, a = 0;
	const uint8_t *b = v->bytes;
	size_t size = v->size;
	uint8_t *obj = NULL;
	int in_mem = v->in_mem;

	memset(out, 0, sizeof(*out));
	out->in_reg = -1;
	if (i < 0 || i >= value_nchildren(v))
		return -1;
	if ((tg = expandable_pointee(s))) {
		memcpy(&a, v->bytes, v->size < 8 ? v->size : 8);
		obj = calloc(1, (size_t)tg->size);
		if (!obj)
			return -1;
		if (env->read(env->d, a, obj, (size_t)tg->size, NULL) < 0) {
			free(obj);
			obj = NULL;
		}
		if (!is_aggregate(tg) || is_std_string(tg)) {
			snprintf(name, n, "*");
			out->type = s->target;
			out->size = (size_t)tg->size;
			out->addr = a;
			out->in_mem = 1;
			out->bytes = obj;
			out->status = obj ? VAL_OK : VAL_MEM;
			return 0;
		}
		s = tg, b = obj, size = (size_t)tg->size, base = a, in_mem = 1;
		if (!obj) {
			child_name(s, i, name, n);
			child_at(s, i, &row, &ct, &off, &mb);
			out->type = ct == &row ? s->row : ct;
			out->status = VAL_MEM;
			out->addr = a + off;
			return 0;
		}
	}
	child_name(s, i, name, n);
	child_at(s, i, &row, &ct, &off, &mb);
	if (ct == &row)		/* the made-up row type: the type's own copy */
		ct = s->row;
	if (!ct) {
		free(obj);
		out->status = VAL_NOT_AVAIL;
		return 0;
	}
	out->type = ct;
	out->size = ct ? (size_t)ct->size : 0;
	out->in_mem = in_mem;
	out->addr = base + off;
	out->bytes = calloc(1, out->size > 8 ? out->size : 8);
	if (!out->bytes) {
		free(obj);
		return -1;
	}
	if (mb && mb->bit_size) {
		bitfield_bytes(mb, off < size ? b + off : b, off < size ? size - off : 0, out->bytes);
		out->in_mem = 0;
	} else if (off + out->size <= size) {
		memcpy(out->bytes, b + off, out->size);
	} else {
		out->status = VAL_NOT_AVAIL;
	}
	free(obj);
	return 0;
}
