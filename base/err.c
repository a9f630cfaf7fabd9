/* base/err.c: error filling and the allocation wrappers. */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fills err (not NULL) with code and the formatted message. */
static void fill(struct ptdb_err *err, enum ptdb_errc code, const char *fmt, va_list ap)
{
	err->code = code;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int ptdb_err_set(struct ptdb_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	fill(err, PTDB_E_GENERIC, fmt, ap);
	va_end(ap);
	return -1;
}

int ptdb_err_code(struct ptdb_err *err, enum ptdb_errc code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	fill(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int ptdb_err_errno(struct ptdb_err *err, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	if (!err)
		return -1;
	va_start(ap, fmt);
	fill(err, PTDB_E_GENERIC, fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	return -1;
}

void ptdb_err_clear(struct ptdb_err *err)
{
	if (err) {
		err->code = PTDB_E_OK;
		err->msg[0] = '\0';
	}
}

static void *oom(void)
{
	fputs("ptdb: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom();
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom();
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	return p ? p : oom();
}
