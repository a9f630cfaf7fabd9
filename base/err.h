/* base/err.h: the error type every room fills on failure, and the
 * allocation wrappers; the bottom of the house (it includes nothing of
 * ptdb).
 * Functions that can fail return int (>= 0 success, < 0 failure) and take a
 * caller-owned struct ptdb_err *; the message is one line, no "error: ". */
#ifndef PTDB_BASE_ERR_H
#define PTDB_BASE_ERR_H

#include <stddef.h>

/* What went wrong, for callers to decide on; the message is for people.
 * Never decide on message text. */
enum ptdb_errc {
	PTDB_E_OK = 0,		/* cleared */
	PTDB_E_GENERIC,		/* anything without a more specific code */
	PTDB_E_NO_PROCESS,	/* the process is gone or there is none */
	PTDB_E_LIMIT,		/* a trace size limit was reached */
	PTDB_E_CANCELLED,	/* the user interrupted a long operation */
};

struct ptdb_err {
	enum ptdb_errc code;
	char msg[512];
};

/* Sets err's message printf-style (err may be NULL) and returns -1. */
int ptdb_err_set(struct ptdb_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same with a code other than PTDB_E_GENERIC. */
int ptdb_err_code(struct ptdb_err *err, enum ptdb_errc code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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
