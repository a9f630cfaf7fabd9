/* core/data/value_scalar.c: a scalar as LLDB prints it — chars as 'z',
 * bools as true/false, enums by name, floats with APFloat's digits
 * (value_float.c), pointers in 16 hex digits with the string or the
 * function they point to, the formats of -f (value_fmt.c prints with it). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/value.h"
#include "core/data/fmt_cxx.h"
#include "core/data/value_int.h"

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

void vf_cat(char *buf, size_t n, const char *s)
{
	size_t k = strlen(buf);

	if (k < n)
		snprintf(buf + k, n - k, "%s", s);
}

/* The character of a string at s[i] as LLDB's string summaries print it,
 * read as UTF-8 (StringPrinter): a printable character as it is, one that
 * is not as \U%08x ("\U0000007f", "\U0000001b"), the C escapes as in a
 * char, a byte that starts no valid sequence as \x%02x.  Returns the
 * bytes used. */
static size_t str_char(const uint8_t *s, size_t len, size_t i, char *one, size_t n)
{
	unsigned c = s[i], cp, need, lo = 0x80, hi = 0xbf;

	if (c < 0x80) {
		if (c == '\'')
			snprintf(one, n, "'");
		else if (c && (c < 0x20 || c == 0x7f) && !strchr("\a\b\f\n\r\t\v", (int)c))
			snprintf(one, n, "\\U%08x", c);
		else
			char_lit(c, one, n);
		return 1;
	}
	need = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
	if (c == 0xe0)		/* no overlong forms, no surrogates, nothing past U+10FFFF */
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (!need || i + need >= len || s[i + 1] < lo || s[i + 1] > hi)
		need = 0;
	for (unsigned k = 2; need && k <= need; k++)
		if (s[i + k] < 0x80 || s[i + k] > 0xbf)
			need = 0;
	if (!need) {
		snprintf(one, n, "\\x%02x", c);
		return 1;
	}
	cp = c & (0x3f >> need);
	for (unsigned k = 1; k <= need; k++)
		cp = cp << 6 | (s[i + k] & 0x3f);
	if (cp < 0xa0)		/* C1 controls */
		snprintf(one, n, "\\U%08x", cp);
	else
		snprintf(one, n, "%.*s", (int)need + 1, (const char *)s + i);
	return need + 1;
}

void vf_quoted(const uint8_t *s, size_t len, char *buf, size_t n)
{
	char one[16];

	vf_cat(buf, n, "\"");
	for (size_t i = 0; i < len && s[i];) {
		i += str_char(s, len, i, one, sizeof(one));
		vf_cat(buf, n, one);
	}
	vf_cat(buf, n, "\"");
}

/* A char array as lldb-16 shows it: its first 1024 bytes
 * (max-string-summary-length) up to the last that is not NUL, NULs
 * inside as \0, and "..." after when the array is longer. */
void vf_char_array(const uint8_t *s, size_t len, char *buf, size_t n)
{
	size_t m = len > 1024 ? 1024 : len;
	char one[16];

	while (m && !s[m - 1])
		m--;
	vf_cat(buf, n, "\"");
	for (size_t i = 0; i < m;) {
		i += str_char(s, m, i, one, sizeof(one));
		vf_cat(buf, n, one);
	}
	vf_cat(buf, n, len > 1024 ? "\"..." : "\"");
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
	else if (f == 'o')	/* LLDB: any value sign-extended to 64 bits from its top bit */
		snprintf(buf, n, "0%" PRIo64, (uint64_t)s);
	else if (f == 'b') {
		snprintf(buf, n, "0b");
		for (int i = bits - 1; i >= 0; i--)
			vf_cat(buf, n, (u >> i) & 1 ? "1" : "0");
	} else if (f == 'c' && size == 1) {
		char one[8];

		snprintf(buf, n, "'");
		char_lit((unsigned)(u & 0xff), one, sizeof(one));
		vf_cat(buf, n, one);
		vf_cat(buf, n, "'");
	} else if (f == 'c') {	/* LLDB: each byte as a character, unquoted */
		char one[8];

		buf[0] = 0;
		for (size_t i = 0; i < size && i < 8; i++) {
			char_lit((unsigned)((u >> (i * 8)) & 0xff), one, sizeof(one));
			vf_cat(buf, n, one);
		}
	} else if (f == 'u' || (!f && !is_signed))
		snprintf(buf, n, "%" PRIu64, u);
	else
		snprintf(buf, n, "%" PRId64, s);
}

/* A pointer to a library value with a summary (std::string, a container,
 * a smart pointer) shows the summary alone, as LLDB's libstdc++
 * summaries, which do not skip pointers: "(std::string *) ps = \"hello\"",
 * "(std::vector<int> *) pv = size=3".  0 when tg has none. */
static int pointee_summary(struct vf_pr *p, const struct sym_type *tg, uint64_t u, char *buf,
			   size_t n)
{
	uint8_t b[4096];
	struct cxx_view cv;
	int ok = 0;

	if (!p->env || !tg->size || tg->size > sizeof(b) ||
	    (tg->kind != SYM_T_STRUCT && tg->kind != SYM_T_CLASS) ||
	    p->env->read(p->env->d, u, b, (size_t)tg->size, NULL) < 0)
		return 0;
	if (vf_is_std_string(tg)) {
		buf[0] = 0;
		vf_std_string_text(p->env, tg, b, (size_t)tg->size, buf, n);
		return 1;
	}
	if (cxx_view(p->env, tg, b, (size_t)tg->size, &cv)) {
		if ((unsigned char)cv.summary[0] > 1) {
			snprintf(buf, n, "%s", cv.summary);
			ok = 1;
		}
		cxx_view_free(&cv);
	}
	return ok;
}

static void fmt_pointer(struct vf_pr *p, const struct sym_type *t, uint64_t u, char *buf, size_t n)
{
	const struct sym_type *tg = sym_type_strip(t->target);
	char loc[512];

	if (!u && tg && (tg->kind == SYM_T_STRUCT || tg->kind == SYM_T_UNION ||
			 tg->kind == SYM_T_CLASS)) {
		/* LLDB's language's word for it: C++'s nullptr, else NULL;
		 * a summary, shown in every format (p/d np) */
		snprintf(buf, n, "%s", tg->is_cxx ? "nullptr" : "NULL");
		return;
	}
	if (p->o->format && p->o->format != 'x') {
		fmt_int(u, 8, 0, p->o->format, buf, n);
		/* a function's summary shows in every format (p/d main) */
		if (u && tg && tg->kind == SYM_T_FUNC && !vf_raw_output && !p->o->no_process) {
			p->env->format_addr(p->env->d, u, loc, sizeof(loc));
			vf_cat(buf, n, " (");
			vf_cat(buf, n, loc);
			vf_cat(buf, n, ")");
		}
		return;
	}
	if (u && tg && t->kind == SYM_T_POINTER && !vf_raw_output && !p->o->format &&
	    pointee_summary(p, tg, u, buf, n))
		return;
	snprintf(buf, n, "0x%016" PRIx64, u);
	if (!u || !tg)
		return;
	if (vf_is_char_type(tg) && t->kind == SYM_T_POINTER && !vf_raw_output) {
		uint8_t s[1025];
		size_t got = p->env->read_some(p->env->d, u, s, sizeof(s) - 1);

		s[got] = 0;
		vf_cat(buf, n, " ");
		vf_quoted(s, got, buf, n);
		/* cut at LLDB's max-string-summary-length (1024): said so */
		if (got == sizeof(s) - 1 && !memchr(s, 0, got))
			vf_cat(buf, n, "...");
	} else if (tg->kind == SYM_T_FUNC && !p->o->no_process) {
		p->env->format_addr(p->env->d, u, loc, sizeof(loc));
		vf_cat(buf, n, " (");
		vf_cat(buf, n, loc);
		vf_cat(buf, n, ")");
	}
}

void vf_fmt_scalar(struct vf_pr *p, const struct sym_type *t0, const uint8_t *b, char *buf,
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
	case SYM_T_MEMBER_PTR:
		/* lldb-16 shows a pointer to member as its bytes:
		 * "0c 00 00 00 00 00 00 00" */
		for (size_t i = 0, k = 0; i < size && k + 4 < n; i++)
			k += (size_t)snprintf(buf + k, n - k, "%s%02x", i ? " " : "", b[i]);
		return;
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
