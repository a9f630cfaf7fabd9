/* core/data/value_float.c: a floating-point number as LLDB (APFloat)
 * prints it: the digits the precision round-trips, plain up to LLDB's
 * zero padding (target.max-zero-padding-in-float-format, 6), else
 * scientific ("1.0E+7"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/data/value.h"

static void cat(char *buf, size_t n, const char *s)
{
	size_t k = strlen(buf);

	if (k < n)
		snprintf(buf + k, n - k, "%s", s);
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
