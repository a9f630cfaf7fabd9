/* tests/unit/test.h: ptdb's tiny unit-test harness.
 * Each test-*.c defines TESTS via TEST(name) functions and ends with
 * TEST_MAIN(t1, t2, ...).  Every TEST prints "ok - name" or "not ok - name"
 * with the failing check; the runner counts these lines. */
#ifndef PTDB_TEST_H
#define PTDB_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_;

#define CHECK(cond) do { if (!(cond)) { \
	printf("#   %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
	test_failed_ = 1; return; } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { printf("#   %s:%d: %s == %lld, expected %lld\n", \
	__FILE__, __LINE__, #a, a_, b_); test_failed_ = 1; return; } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
	if (!a_ || !b_ || strcmp(a_, b_)) { printf("#   %s:%d: %s == \"%s\", expected \"%s\"\n", \
	__FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	test_failed_ = 1; return; } } while (0)

#define TEST(name) static void name(void)

/* The address nm gives symbol name of program prog, 0 if none. */
static inline uint64_t test_nm(const char *prog, const char *name)
{
	char cmd[256], line[256];
	uint64_t a = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s", prog);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char t, n[128];

		if (sscanf(line, "%llx %c %127s", &v, &t, n) == 3 && !strcmp(n, name))
			a = v;
	}
	pclose(f);
	return a;
}

typedef void (*test_fn_)(void);
static inline int test_run_(const char *names, test_fn_ *fns, int n)
{
	int fails = 0;
	char buf[4096];
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", names);
	tok = strtok_r(buf, ", ", &save);
	const char *only = getenv("PTDB_TEST_ONLY");	/* (by hand: a name's part) */

	for (int i = 0; i < n; i++) {
		if (only && tok && !strstr(tok, only)) {
			tok = strtok_r(NULL, ", ", &save);
			continue;
		}
		test_failed_ = 0;
		fns[i]();
		printf("%s - %s\n", test_failed_ ? "not ok" : "ok", tok ? tok : "?");
		fails += test_failed_;
		tok = strtok_r(NULL, ", ", &save);
	}
	return fails ? 1 : 0;
}
#define TEST_MAIN(...) int main(void) { \
	test_fn_ fns_[] = { __VA_ARGS__ }; \
	setvbuf(stdout, NULL, _IOLBF, 0); \
	return test_run_(#__VA_ARGS__, fns_, (int)(sizeof(fns_) / sizeof(fns_[0]))); }

#endif
