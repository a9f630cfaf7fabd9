/* core/err.h: the error type every library folder fills on failure.
 * Functions that can fail return int (>= 0 success, < 0 failure) and take a
 * caller-owned struct ptdb_err *; the message is one line, no "error: ". */
#ifndef PTDB_CORE_ERR_H
#define PTDB_CORE_ERR_H

#include <stddef.h>

struct ptdb_err {
	char msg[512];
};

/* Sets err's message printf-style (err may be NULL) and returns -1. */
int ptdb_err_set(struct ptdb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, appending ": strerror(errno)". */
int ptdb_err_errno(struct ptdb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ptdb_err_clear(struct ptdb_err *err);

/* Allocation that aborts on out-of-memory (the one allowed abort path). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
