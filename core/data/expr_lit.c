/* core/data/expr_lit.c: the literals of an expression — numbers ("42",
 * "0x10u", "1.5f", typed as C types them) and characters ("'a'",
 * "'\n'", "'\x41'"); the grammar is core/data/expr_parse.c. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/data/expr.h"
#include "core/data/expr_int.h"

int ex_number(struct ex *x, struct value *v)
{
	const char *s = x->p;
	char *end;
	int is_float = 0;

	for (const char *q = s; isalnum((unsigned char)*q) || *q == '.'; q++)
		if (*q == '.' || ((*q == 'e' || *q == 'E') && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))))
			is_float = 1;
	if (is_float) {
		double d = strtod(s, &end);

		if (*end == 'f' || *end == 'F') {
			ex_set_d(v, &expr_t_float, d);
			end++;
		} else
			ex_set_d(v, &expr_t_double, d);
	} else {
		unsigned long long u;
		int uns = 0, lng = 0;
		const struct sym_type *t;

		errno = 0;
		u = strtoull(s, &end, 0);
		if (errno == ERANGE)
			return ex_fail(x, "integer literal is too large to be represented in any integer type%s", "");

		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L') {
			if (*end == 'u' || *end == 'U')
				uns = 1;
			else
				lng = 1;
			end++;
		}
		if (!lng && !uns && u <= 0x7fffffff)
			t = &expr_t_int;
		else if (!lng && (uns || s[1] == 'x' || s[1] == 'X') && u <= 0xffffffff)
			t = &expr_t_uint;
		else if (!uns && u <= 0x7fffffffffffffffull)
			t = &expr_t_long;
		else
			t = &expr_t_ulong;
		ex_set_u(v, t, u);
	}
	if (isalnum((unsigned char)*end) || *end == '_') {
		free(v->bytes);	/* the value begun above ('1k') */
		v->bytes = NULL;
		return ex_fail(x, "invalid number '%s'", s);
	}
	x->p = end;
	return 0;
}

int ex_char_literal(struct ex *x, struct value *v)
{
	const char *p = x->p + 1;
	int c;

	if (*p == '\\') {
		static const char from[] = "abfnrtv0\\'\"", to[] = "\a\b\f\n\r\t\v\0\\'\"";
		const char *k;

		p++;
		if (*p == 'x')
			c = (int)strtol(p + 1, (char **)&p, 16);
		else if ((k = strchr(from, *p)) && *p) {
			c = to[k - from];
			p++;
		} else
			return ex_fail(x, "invalid character literal%s", "");
	} else if (*p && *p != '\'')
		c = (unsigned char)*p++;
	else
		return ex_fail(x, "invalid character literal%s", "");
	if (*p != '\'')
		return ex_fail(x, "invalid character literal%s", "");
	x->p = p + 1;
	ex_set_u(v, &expr_t_char, (uint64_t)c);
	return 0;
}
