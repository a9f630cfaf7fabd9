/* core/data/value_fmt.c: values as LLDB prints them — "(int) a = 1", chars
 * as 'z', bools as true/false, enums by name, floats with APFloat's
 * digits, pointers in 16 hex digits with the string or the function they
 * point to, and aggregates over several lines or, when small and flat,
 * on one: "(x = 1, y = 2)". */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/value.h"
#include "core/data/value_int.h"

#define MAX_CHILDREN 256

struct pr {
	FILE *out;
	struct dbg *d;
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

static int is_std_string(const struct sym_type *t)
{
	t = sym_type_strip(t);
	return t && t->name && (t->kind == SYM_T_CLASS || t->kind == SYM_T_STRUCT) &&
	       (!strncmp(t->name, "std::__cxx11::basic_string<char,", 32) ||
		!strncmp(t->name, "std::basic_string<char,", 23)) &&
	       member_named(t, "_M_dataplus") && member_named(t, "_M_string_length");
}

static void cat(char *buf, size_t n, const char *s);
static void quoted(const uint8_t *s, size_t len, char *buf, size_t n);

static void std_string_text(struct dbg *d, const struct sym_type *t, const uint8_t *b,
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
	got = len ? dbg_read_some(d, ptr, text, (size_t)len) : 0;
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
	return nchildren(t) > 0;
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
	if (!n || (t->kind == SYM_T_ARRAY && is_char_type(t->target) && t->ndims == 1))
		return 0;
	for (int i = 0; i < n; i++) {
		const struct sym_type *ct;
		struct sym_type row;

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

void value_float_str(double v, int bits, char *buf, size_t n)
{
	int prec = 2 + bits * 59 / 196;	/* APFloat's digits for the precision */
	char digits[64], *e;
	int exp10, nd, neg = signbit(v) != 0;
	long expo;

	if (isnan(v)) {
		snprintf(buf, n, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, n, "%sInf", neg ? "-" : "+");
		return;
	}
	if (v == 0) {
		snprintf(buf, n, "%s0", neg ? "-" : "");
		return;
	}
	snprintf(digits, sizeof(digits), "%.*e", prec - 1, fabs(v));
	e = strchr(digits, 'e');
	exp10 = atoi(e + 1);
	*e = 0;
	memmove(digits + 1, digits + 2, strlen(digits + 2) + 1);	/* drop '.' */
	nd = (int)strlen(digits);
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = 0;
	expo = exp10 - (nd - 1);	/* value = digits * 10^expo */
	buf[0] = 0;
	if (neg)
		cat(buf, n, "-");
	{
		int sci;
		const long pad = 6;	/* LLDB's target.max-zero-padding-in-float-format */

		if (expo >= 0)
			sci = expo > pad || nd + expo > prec;
		else {
			long msd = expo + nd - 1;

			sci = msd >= 0 ? 0 : -msd > pad;
		}
		if (sci) {
			char t[96];

			snprintf(t, sizeof(t), "%c.%s%sE%c%d", digits[0], nd > 1 ? digits + 1 : "0", "",
				 exp10 >= 0 ? '+' : '-', abs(exp10));
			cat(buf, n, t);
		} else if (expo >= 0) {
			cat(buf, n, digits);
			for (long i = 0; i < expo; i++)
				cat(buf, n, "0");
		} else {
			long whole = expo + nd;

			if (whole > 0) {
				char t[72];

				snprintf(t, sizeof(t), "%.*s.%s", (int)whole, digits, digits + whole);
				cat(buf, n, t);
			} else {
				cat(buf, n, "0.");
				for (long i = 0; i < -whole; i++)
					cat(buf, n, "0");
				cat(buf, n, digits);
			}
		}
	}
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
		size_t got = dbg_read_some(p->d, u, s, sizeof(s) - 1);

		s[got] = 0;
		cat(buf, n, " ");
		quoted(s, got, buf, n);
		/* cut at LLDB's max-string-summary-length (1024): said so */
		if (got == sizeof(s) - 1 && !memchr(s, 0, got))
			cat(buf, n, "...");
	} else if (tg->kind == SYM_T_FUNC) {
		dbg_format_addr(p->d, u, loc, sizeof(loc));
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
		std_string_text(p->d, sym_type_strip(ct), b + off, size - off, buf, n);
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

/* A C++ reference as LLDB shows it: "0x00007ffe... (&r = 5)" for a
 * scalar, "0x00007ffe...: {" and the members for an object. */
static void print_ref(struct pr *p, int indent, const char *name, const struct sym_type *s,
		      const uint8_t *b)
{
	const struct sym_type *tg = sym_type_strip(s->target);
	uint64_t a = 0;
	size_t size = tg ? (size_t)tg->size : 0;
	uint8_t *obj;
	char v[2048];

	memcpy(&a, b, 8);
	if (!size || size > (1u << 20)) {
		fprintf(p->out, "0x%016" PRIx64 "\n", a);
		return;
	}
	obj = calloc(1, size);
	if (!obj || dbg_read(p->d, a, obj, size, NULL) < 0) {
		fprintf(p->out, "0x%016" PRIx64 "\n", a);
		free(obj);
		return;
	}
	if (is_aggregate(tg) && !is_std_string(tg) && nchildren(tg)) {
		fprintf(p->out, "0x%016" PRIx64 ": {\n", a);
		print_children(p, indent + 2, tg, obj, a, 1);
		fprintf(p->out, "%*s}\n", indent, "");
	} else {
		if (is_std_string(tg))
			std_string_text(p->d, tg, obj, size, v, sizeof(v));
		else
			fmt_scalar(p, tg, obj, v, sizeof(v));
		fprintf(p->out, "0x%016" PRIx64 " (&%s = %s)\n", a, name, v);
	}
	free(obj);
}

/* libstdc++'s std::vector as lldb-16's formatter shows it: "size=N {"
 * and its elements [0] ... (at most 256, then "...").  1 if printed. */
static int print_std_vector(struct pr *p, int indent, const struct sym_type *s, const uint8_t *b)
{
	const struct sym_member *st;
	const struct sym_type *el;
	uint64_t count, so, start = 0;
	uint8_t *buf;

	if (value_std_vector_size(s, b, (size_t)s->size, &count) < 0 ||
	    !(st = value_member_deep(s, "_M_start", &so, 0)))
		return 0;
	el = sym_type_strip(st->type)->target;
	memcpy(&start, b + so, 8);
	if (!count) {
		fprintf(p->out, "size=0 {}\n");
		return 1;
	}
	fprintf(p->out, "size=%" PRIu64 " {\n", count);
	buf = xmalloc((size_t)sym_type_strip(el)->size);
	for (uint64_t i = 0; i < count && i < 256; i++) {
		size_t es = (size_t)sym_type_strip(el)->size;
		uint64_t at = start + i * es;
		char nm[32];

		snprintf(nm, sizeof(nm), "[%" PRIu64 "]", i);
		if (dbg_read_some(p->d, at, buf, es) < es) {
			fprintf(p->out, "%*s%s = <read memory from 0x%" PRIx64 " failed>\n", indent + 2, "",
				nm, at);
			continue;
		}
		print_node(p, indent + 2, nm, el, buf, at, 1, 0);
	}
	free(buf);
	if (count > 256)
		fprintf(p->out, "%*s...\n", indent + 2, "");
	fprintf(p->out, "%*s}\n", indent, "");
	return 1;
}

static void print_node(struct pr *p, int indent, const char *name, const struct sym_type *t,
		       const uint8_t *b, uint64_t addr, int in_mem, int top)
{
	const struct sym_type *s = sym_type_strip(t);
	char v[2048];

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
	if (is_std_string(s) && !p->o->format) {
		std_string_text(p->d, s, b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (s && !p->o->format && print_std_vector(p, indent, s, b))
		return;
	if (s && (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) && s->target && !p->o->format) {
		print_ref(p, indent, name, s, b);
		return;
	}
	if (s && s->kind == SYM_T_ARRAY && is_char_type(s->target) && s->ndims == 1) {
		v[0] = 0;
		quoted(b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!is_aggregate(s)) {
		fmt_scalar(p, t, b, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!nchildren(s)) {
		fprintf(p->out, "{}\n");
		return;
	}
	if (!p->o->show_loc && !p->o->show_types && one_liner(s)) {
		int n = nchildren(s);

		fputc('(', p->out);
		for (int i = 0; i < n; i++) {
			char nm[256];

			child_name(s, i, nm, sizeof(nm));
			child_text(p, s, i, b, (size_t)s->size, v, sizeof(v));
			fprintf(p->out, "%s%s = %s", i ? ", " : "", nm, v);
		}
		fputs(")\n", p->out);
		return;
	}
	fputs("{\n", p->out);
	print_children(p, indent + 2, s, b, addr, in_mem);
	fprintf(p->out, "%*s}\n", indent, "");
}

void value_print(FILE *out, struct dbg *d, const char *name, const struct value *v,
		 const struct value_fmt *o)
{
	struct pr p = { out, d, o };
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
	print_node(&p, 0, name, v->type, v->bytes, v->addr, v->in_mem, 1);
}

/* A frame line's summary of a standard library object (by value or by
 * reference) as lldb-16's formatters give it: a string's text, a
 * vector's "size=N".  0 when filled. */
static int std_brief(struct dbg *d, const struct value *v, char *buf, size_t n)
{
	const struct sym_type *s = sym_type_strip(v->type);
	const uint8_t *b = v->bytes;
	size_t size = v->size;
	uint8_t obj[64];
	uint64_t count;

	if (s && s->kind == SYM_T_REF && v->size >= 8) {
		uint64_t at = 0;

		memcpy(&at, v->bytes, 8);
		s = sym_type_strip(s->target);
		if (!s || s->size > sizeof(obj) || !(is_std_string(s) || (s->name &&
		    !strncmp(s->name, "std::vector<", 12))) ||
		    dbg_read_some(d, at, obj, (size_t)s->size) < (size_t)s->size)
			return -1;
		b = obj;
		size = (size_t)s->size;
	}
	if (is_std_string(s)) {
		std_string_text(d, s, b, size, buf, n);
		return 0;
	}
	if (value_std_vector_size(s, b, size, &count) == 0) {
		snprintf(buf, n, "size=%" PRIu64, count);
		return 0;
	}
	return -1;
}

void value_brief(struct dbg *d, const struct value *v, char *buf, size_t n)
{
	static const struct value_fmt natural;
	struct pr p = { NULL, d, &natural };
	const struct sym_type *s = sym_type_strip(v->type);

	if (v->status != VAL_OK) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	if (std_brief(d, v, buf, n) == 0)
		return;
	if (s && s->kind == SYM_T_ARRAY && is_char_type(s->target) && s->ndims == 1) {
		buf[0] = 0;
		quoted(v->bytes, v->size, buf, n);
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
