/* core/tracing/bundle.c: reading, checking and writing trace.json (see bundle.h). */
#include "core/tracing/bundle.h"

#include <json-c/json.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_JSON_BYTES ((off_t)64 << 20)

/* ---- reading ---- */

struct rd {
	struct bundle *b;
	const char *name;	/* the description file as the user named it */
	char dir_real[PATH_MAX];
	int allow_outside;	/* read files outside dir_real (else refused) */
	/* the last directory a file was resolved in, and its real path */
	char memo_dir[PATH_MAX], memo_real[PATH_MAX];
	struct ptdb_err *err;
};

static int fail(struct rd *r, const char *jpath, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct rd *r, const char *jpath, const char *fmt, ...)
{
	char what[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return ptdb_err_set(r->err, "%s:%s: %s", r->name, jpath, what);
}

static const char *type_name(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number with a fraction";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "something else";
}

/* The member key of object o: NULL if absent (error if required). */
static int member(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		  int required, struct json_object **out)
{
	*out = NULL;
	if (!json_object_object_get_ex(o, key, out) || !*out) {
		*out = NULL;
		if (required)
			return fail(r, jpath, "missing value for \"%s\"", key);
	}
	return 0;
}

static int want(struct rd *r, struct json_object *v, json_type t, const char *jpath,
		const char *what)
{
	if (json_object_get_type(v) == t)
		return 0;
	return fail(r, jpath, "expected %s, got %s", what, type_name(v));
}

/* An integer in [lo, hi]. */
static int get_int(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		   int64_t lo, int64_t hi, int64_t *out)
{
	char p[256];
	struct json_object *v;
	int64_t x;

	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, 1, &v) < 0 || want(r, v, json_type_int, p, "an integer") < 0)
		return -1;
	errno = 0;
	x = json_object_get_int64(v);
	if (x < lo || x > hi || (x == INT64_MAX && errno))
		return fail(r, p, "%s is out of range (%" PRId64 " to %" PRId64 ")",
			    json_object_to_json_string(v), lo, hi);
	*out = x;
	return 0;
}

/* integer | decimal string | hex string, as an unsigned 64-bit value. */
static int get_addr(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		    int required, uint64_t *out, int *given)
{
	char p[256];
	struct json_object *v;

	*given = 0;
	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, required, &v) < 0)
		return -1;
	if (!v)
		return 0;
	*given = 1;
	if (json_object_get_type(v) == json_type_int) {
		if (json_object_get_int64(v) < 0)
			return fail(r, p, "expected an unsigned integer, got %s",
				    json_object_to_json_string(v));
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_get_type(v) == json_type_string) {
		const char *s = json_object_get_string(v);
		int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
		const char *digits = hex ? s + 2 : s;
		char *end;

		errno = 0;
		*out = strtoull(digits, &end, hex ? 16 : 10);
		if (!*digits || *end || errno || !isxdigit((unsigned char)*digits))
			return fail(r, p, "expected an integer, a decimal string or a hex string, got \"%s\"", s);
		return 0;
	}
	return fail(r, p, "expected an integer, a decimal string or a hex string, got %s", type_name(v));
}

static void note_path(char ***list, int *n, const char *jpath, const char *path)
{
	size_t len = strlen(jpath) + strlen(path) + 3;

	*list = xrealloc(*list, (size_t)(*n + 1) * sizeof(**list));
	(*list)[*n] = xmalloc(len);
	snprintf((*list)[(*n)++], len, "%s: %s", jpath, path);
}

/* 1 if the resolved path real lies inside the directory dir (resolved). */
static int inside(const char *real, const char *dir)
{
	size_t dl = strlen(dir);

	if (dl == 1 && dir[0] == '/')
		return 1;
	return !strncmp(real, dir, dl) && real[dl] == '/';
}

/* realpath(full, real), the directory's resolution kept from the file
 * before (a bundle lists its threads' files in one directory: 100,000
 * resolutions of every component of its path took a quarter of loading
 * 100,000 threads) when full names a regular file, not a link. */
static int real_of(struct rd *r, const char *full, char *real)
{
	const char *slash = strrchr(full, '/');
	size_t dl = slash ? (size_t)(slash - full) : 0;
	struct stat lst;

	if (!dl || dl >= sizeof(r->memo_dir) || lstat(full, &lst) < 0 || !S_ISREG(lst.st_mode))
		return realpath(full, real) ? 0 : -1;
	if (strncmp(r->memo_dir, full, dl) || r->memo_dir[dl]) {
		char dir[PATH_MAX];

		memcpy(dir, full, dl);
		dir[dl] = 0;
		r->memo_dir[0] = 0;
		if (!realpath(dir, r->memo_real))
			return realpath(full, real) ? 0 : -1;
		memcpy(r->memo_dir, dir, dl + 1);
	}
	if (snprintf(real, PATH_MAX, "%s/%s", strcmp(r->memo_real, "/") ? r->memo_real : "",
		     slash + 1) >= PATH_MAX)
		return realpath(full, real) ? 0 : -1;
	return 0;
}

/* A path member: resolved against the bundle directory; the file must be a
 * readable regular file inside the bundle's directory (after .. and
 * symlinks), unless r->allow_outside: then it is read and noted in
 * b->outside.  *out is heap (NULL if absent and optional). */
static int get_file(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		    int required, char **out)
{
	char p[256], real[PATH_MAX];
	struct json_object *v;
	const char *s;
	char *full;
	struct stat st;

	*out = NULL;
	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, required, &v) < 0)
		return -1;
	if (!v)
		return 0;
	if (want(r, v, json_type_string, p, "a string") < 0)
		return -1;
	s = json_object_get_string(v);
	if (!*s)
		return fail(r, p, "empty path");
	if (s[0] == '/') {
		full = xstrdup(s);
		note_path(&r->b->absolute, &r->b->nabsolute, p, s);
	} else {
		size_t n = strlen(r->b->dir) + strlen(s) + 2;

		full = xmalloc(n);
		snprintf(full, n, "%s/%s", r->b->dir, s);
	}
	if (stat(full, &st) < 0 || access(full, R_OK) < 0) {
		fail(r, p, "cannot read '%s': %s", full, strerror(errno));
		free(full);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(r, p, "'%s' is not a regular file", full);
		free(full);
		return -1;
	}
	/* paths that leave the bundle (absolute, .., symlinks): data names
	 * no file outside it unless the user allows it */
	if (real_of(r, full, real) < 0) {
		fail(r, p, "cannot read '%s': %s", full, strerror(errno));
		free(full);
		return -1;
	}
	if (!inside(real, r->dir_real)) {
		if (!r->allow_outside) {
			fail(r, p, "'%s' lies outside the bundle's directory (read it with 'trace load --allow-outside')",
			     real);
			free(full);
			return -1;
		}
		note_path(&r->b->outside, &r->b->noutside, p, real);
	}
	*out = full;
	return 0;
}

static int get_string(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		      int required, char **out)
{
	char p[256];
	struct json_object *v;

	*out = NULL;
	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, required, &v) < 0)
		return -1;
	if (!v)
		return 0;
	if (want(r, v, json_type_string, p, "a string") < 0)
		return -1;
	*out = xstrdup(json_object_get_string(v));
	return 0;
}

/* An array member (NULL if absent and optional). */
static int get_array(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		     int required, struct json_object **out)
{
	char p[256];

	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, required, out) < 0)
		return -1;
	if (*out && want(r, *out, json_type_array, p, "an array") < 0)
		return -1;
	return 0;
}

/* A non-negative JSON integer, up to UINT64_MAX (LLDB's uint64 fields). */
static int get_u64(struct rd *r, struct json_object *o, const char *jpath, const char *key,
		   uint64_t *out)
{
	char p[256];
	struct json_object *v;

	snprintf(p, sizeof(p), "%s.%s", jpath, key);
	if (member(r, o, jpath, key, 1, &v) < 0 || want(r, v, json_type_int, p, "an integer") < 0)
		return -1;
	if (json_object_get_int64(v) < 0)
		return fail(r, p, "expected an unsigned integer, got %s", json_object_to_json_string(v));
	*out = json_object_get_uint64(v);
	return 0;
}

static unsigned hexval(char c)
{
	return isdigit((unsigned char)c) ? (unsigned)(c - '0') : (unsigned)(tolower((unsigned char)c) - 'a' + 10);
}

int bundle_uuid_bytes(const char *s, uint8_t *out, size_t cap)
{
	size_t n = 0;

	for (const char *c = s; *c;) {
		if (*c == '-' && c != s && c[1] && c[1] != '-') {
			c++;
			continue;
		}
		if (!isxdigit((unsigned char)c[0]) || !isxdigit((unsigned char)c[1]) || n == cap)
			return -1;
		out[n++] = (uint8_t)(hexval(c[0]) << 4 | hexval(c[1]));
		c += 2;
	}
	return n ? (int)n : -1;
}

int bundle_uuid_equal(const char *a, const char *b)
{
	uint8_t x[64], y[64];
	int nx = bundle_uuid_bytes(a, x, sizeof(x)), ny = bundle_uuid_bytes(b, y, sizeof(y));

	return nx > 0 && nx == ny && !memcmp(x, y, (size_t)nx);
}

static int read_cpu_info(struct rd *r, struct json_object *root)
{
	const char *jp = "traceBundle.cpuInfo";
	struct json_object *ci;
	char *vendor;

	if (member(r, root, "traceBundle", "cpuInfo", 1, &ci) < 0 ||
	    want(r, ci, json_type_object, jp, "an object") < 0)
		return -1;
	if (get_string(r, ci, jp, "vendor", 1, &vendor) < 0)
		return -1;
	snprintf(r->b->vendor, sizeof(r->b->vendor), "%s", vendor);
	free(vendor);
	return get_u64(r, ci, jp, "family", &r->b->family) < 0 ||
	       get_u64(r, ci, jp, "model", &r->b->model) < 0 ||
	       get_u64(r, ci, jp, "stepping", &r->b->stepping) < 0 ? -1 : 0;
}

static int read_module(struct rd *r, struct json_object *o, const char *jp,
		       struct bundle_module *m)
{
	int given;
	struct json_object *f;

	m->jpath = xstrdup(jp);
	if (want(r, o, json_type_object, jp, "an object") < 0 ||
	    get_string(r, o, jp, "systemPath", 1, &m->system_path) < 0 ||
	    get_addr(r, o, jp, "loadAddress", 1, &m->load_addr, &given) < 0 ||
	    get_string(r, o, jp, "uuid", 0, &m->uuid) < 0)
		return -1;
	if (m->uuid) {
		uint8_t id[64];

		if (bundle_uuid_bytes(m->uuid, id, sizeof(id)) < 0)
			return fail(r, jp, "\"uuid\": \"%s\" is not a build ID (hex digit pairs, dashes allowed)",
				    m->uuid);
	}
	if (member(r, o, jp, "file", 0, &f) < 0)
		return -1;
	return get_file(r, o, jp, f ? "file" : "systemPath", 1, &m->file);
}

/* ptdb's "wrapped" and "bytesWritten" of a thread, both optional. */
static int read_wrap(struct rd *r, struct json_object *t, const char *jp, struct bundle_thread *bt)
{
	struct json_object *v;
	char p[300];

	snprintf(p, sizeof(p), "%s.wrapped", jp);
	if (member(r, t, jp, "wrapped", 0, &v) < 0 ||
	    (v && want(r, v, json_type_boolean, p, "a boolean") < 0))
		return -1;
	bt->wrapped = v && json_object_get_boolean(v);
	if (member(r, t, jp, "bytesWritten", 0, &v) < 0 || !v)
		return 0;
	return get_u64(r, t, jp, "bytesWritten", &bt->written);
}

/* The thread listed before with tid (k < n of p->threads, whose tids
 * an open-addressing table of cap slots, a power of two, holds as index
 * + 1), or -1; tid is then added as thread n. */
static int seen_tid(const struct bundle_process *p, int *tab, size_t cap, int n)
{
	size_t h = (size_t)((uint32_t)p->threads[n].tid * 2654435761u) & (cap - 1);

	for (; tab[h]; h = (h + 1) & (cap - 1))
		if (p->threads[tab[h] - 1].tid == p->threads[n].tid)
			return tab[h] - 1;
	tab[h] = n + 1;
	return -1;
}

static int read_process(struct rd *r, struct json_object *o, const char *jp,
			struct bundle_process *p)
{
	struct json_object *th, *mods;
	int64_t pid;
	char sub[256];
	size_t cap = 16;
	int *tab, r2 = 0;

	if (want(r, o, json_type_object, jp, "an object") < 0 ||
	    get_int(r, o, jp, "pid", 0, INT_MAX, &pid) < 0 ||
	    get_string(r, o, jp, "triple", 0, &p->triple) < 0 ||
	    get_array(r, o, jp, "threads", 1, &th) < 0 ||
	    get_array(r, o, jp, "modules", 1, &mods) < 0 ||
	    get_file(r, o, jp, "codePages", 0, &p->code_pages) < 0)
		return -1;
	p->pid = (pid_t)pid;
	p->threads = xcalloc(json_object_array_length(th) + 1, sizeof(*p->threads));
	while (cap < 2 * json_object_array_length(th))
		cap *= 2;
	tab = xcalloc(cap, sizeof(*tab));
	for (size_t i = 0; i < json_object_array_length(th) && r2 == 0; i++) {
		struct json_object *t = json_object_array_get_idx(th, i);
		struct bundle_thread *bt = &p->threads[p->nthreads++];
		int64_t tid;
		int k;

		snprintf(sub, sizeof(sub), "%s.threads[%zu]", jp, i);
		bt->jpath = xstrdup(sub);
		if (want(r, t, json_type_object, sub, "an object") < 0 ||
		    get_int(r, t, sub, "tid", 0, INT_MAX, &tid) < 0 ||
		    get_file(r, t, sub, "iptTrace", 0, &bt->trace) < 0 ||
		    read_wrap(r, t, sub, bt) < 0) {
			r2 = -1;
			break;
		}
		bt->tid = (pid_t)tid;
		if ((k = seen_tid(p, tab, cap, p->nthreads - 1)) >= 0)
			r2 = fail(r, sub, "thread %d is listed twice (also at %s)", (int)bt->tid,
				  p->threads[k].jpath);
	}
	free(tab);
	if (r2 < 0)
		return -1;
	p->mods = xcalloc(json_object_array_length(mods) + 1, sizeof(*p->mods));
	for (size_t i = 0; i < json_object_array_length(mods); i++) {
		snprintf(sub, sizeof(sub), "%s.modules[%zu]", jp, i);
		if (read_module(r, json_object_array_get_idx(mods, i), sub, &p->mods[p->nmods++]) < 0)
			return -1;
	}
	return 0;
}

static int read_cpus(struct rd *r, struct json_object *cpus)
{
	char sub[64];

	r->b->cpus = xcalloc(json_object_array_length(cpus) + 1, sizeof(*r->b->cpus));
	for (size_t i = 0; i < json_object_array_length(cpus); i++) {
		struct json_object *c = json_object_array_get_idx(cpus, i);
		struct bundle_cpu *bc = &r->b->cpus[r->b->ncpus++];
		int64_t id;

		snprintf(sub, sizeof(sub), "traceBundle.cpus[%zu]", i);
		if (want(r, c, json_type_object, sub, "an object") < 0 ||
		    get_int(r, c, sub, "id", 0, INT_MAX, &id) < 0 ||
		    get_file(r, c, sub, "iptTrace", 1, &bc->trace) < 0 ||
		    get_file(r, c, sub, "contextSwitchTrace", 1, &bc->context_switch) < 0)
			return -1;
		bc->id = (int)id;
	}
	return 0;
}

static int read_tsc(struct rd *r, struct json_object *root)
{
	const char *jp = "traceBundle.tscPerfZeroConversion";
	struct json_object *t;
	int64_t mult, shift;
	int given;

	if (member(r, root, "traceBundle", "tscPerfZeroConversion", 0, &t) < 0 || !t)
		return 0;
	if (want(r, t, json_type_object, jp, "an object") < 0 ||
	    get_int(r, t, jp, "timeMult", 0, UINT32_MAX, &mult) < 0 ||
	    get_int(r, t, jp, "timeShift", 0, 63, &shift) < 0 ||
	    get_addr(r, t, jp, "timeZero", 1, &r->b->tsc.zero, &given) < 0)
		return -1;
	r->b->tsc.mult = (uint32_t)mult;
	r->b->tsc.shift = (uint16_t)shift;
	r->b->tsc.valid = 1;
	return 0;
}

/* The text of path, at most MAX_JSON_BYTES, NUL-terminated. */
static char *slurp(struct rd *r, const char *path)
{
	/* O_NONBLOCK: a FIFO is refused, not waited on */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	FILE *f = NULL;
	struct stat st;
	char *buf;
	size_t n;

	if (fd < 0) {
		ptdb_err_errno(r->err, "%s: cannot read the trace bundle description", r->name);
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		ptdb_err_set(r->err, "%s: not a regular file", r->name);
		return NULL;
	}
	if (st.st_size > MAX_JSON_BYTES) {
		fclose(f);
		ptdb_err_set(r->err, "%s: the description is %lld bytes, more than the %lld a trace.json may have",
			     r->name, (long long)st.st_size, (long long)MAX_JSON_BYTES);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	n = fread(buf, 1, (size_t)st.st_size, f);
	buf[n] = 0;
	if (ferror(f)) {
		ptdb_err_errno(r->err, "%s: cannot read the trace bundle description", r->name);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* json-c saturates integers beyond 64 bits without a word (2^64 as
 * loadAddress read as 2^64-1): such a number in the text is refused, as its
 * string form is.  0, or -1 with "FILE:LINE: ..." in r->err. */
static int check_wide_numbers(struct rd *r, const char *text)
{
	unsigned line = 1;

	for (const char *c = text; *c; c++) {
		const char *d;
		size_t n;

		if (*c == '\n')
			line++;
		if (*c == '"') {	/* a string: skipped, escapes and all */
			for (c++; *c && *c != '"'; c++) {
				if (*c == '\\' && c[1])
					c++;
				else if (*c == '\n')
					line++;
			}
			if (!*c)
				return 0;	/* the parser says what is wrong */
			continue;
		}
		if (!isdigit((unsigned char)*c) || (c > text && (isalnum((unsigned char)c[-1]) || c[-1] == '.')))
			continue;
		for (d = c; isdigit((unsigned char)*d); d++)
			;
		n = (size_t)(d - c);
		if (*d != '.' && *d != 'e' && *d != 'E' &&
		    (c > text && c[-1] == '-' ? n > 19 || (n == 19 && strncmp(c, "9223372036854775808", 19) > 0)
					      : n > 20 || (n == 20 && strncmp(c, "18446744073709551615", 20) > 0)))
			return ptdb_err_set(r->err, "%s:%u: the number %s%.*s does not fit in 64 bits", r->name, line,
					    c > text && c[-1] == '-' ? "-" : "", (int)(n > 40 ? 40 : n), c);
		c = d - 1;
	}
	return 0;
}

static int parse_json(struct rd *r, const char *text, struct json_object **out)
{
	struct json_tokener *tok = json_tokener_new();
	size_t len = strlen(text);
	enum json_tokener_error e;
	unsigned line = 1;

	*out = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	if (!*out || e != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) < len) {
		size_t at = json_tokener_get_parse_end(tok);
		int trailing = *out && e == json_tokener_success;

		for (size_t i = 0; i < at && i < len; i++)
			line += text[i] == '\n';
		/* only whitespace after the value is fine */
		if (trailing) {
			while (at < len && isspace((unsigned char)text[at]))
				at++;
			if (at == len) {
				json_tokener_free(tok);
				return 0;
			}
		}
		json_object_put(*out);
		*out = NULL;
		json_tokener_free(tok);
		return ptdb_err_set(r->err, "%s:%u: invalid JSON: %s", r->name, line,
				    trailing ? "text after the end of the value"
					     : e == json_tokener_continue ? "unexpected end of file"
									: json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	return 0;
}

int bundle_read(const char *path, int allow_outside, struct bundle **out, struct ptdb_err *err)
{
	struct rd r = { 0 };
	struct json_object *root = NULL, *type, *procs, *cpus, *kernel;
	struct bundle *b = xcalloc(1, sizeof(*b));
	char real[PATH_MAX], *text, *slash;
	struct stat st;
	int any_thread_trace = 0;

	*out = NULL;
	r.b = b;
	r.err = err;
	r.name = path;
	r.allow_outside = allow_outside;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		size_t n = strlen(path) + 12;

		b->json = xmalloc(n);
		snprintf(b->json, n, "%s/trace.json", path);
	} else {
		b->json = xstrdup(path);
	}
	r.name = b->json;
	if (!realpath(b->json, real)) {
		ptdb_err_errno(err, "%s: cannot read the trace bundle description", b->json);
		goto fail;
	}
	free(b->json);
	b->json = xstrdup(real);
	r.name = b->json;	/* the old string is gone */
	slash = strrchr(real, '/');
	*slash = 0;
	b->dir = xstrdup(real[0] ? real : "/");
	snprintf(r.dir_real, sizeof(r.dir_real), "%s", b->dir);
	if (!(text = slurp(&r, b->json)))
		goto fail;
	if (check_wide_numbers(&r, text) < 0 || parse_json(&r, text, &root) < 0) {
		free(text);
		goto fail;
	}
	free(text);
	if (want(&r, root, json_type_object, "traceBundle", "an object") < 0 ||
	    member(&r, root, "traceBundle", "type", 1, &type) < 0 ||
	    want(&r, type, json_type_string, "traceBundle.type", "a string") < 0)
		goto fail;
	if (strcmp(json_object_get_string(type), "intel-pt")) {
		fail(&r, "traceBundle.type", "unsupported trace type \"%s\" (expected \"intel-pt\")",
		     json_object_get_string(type));
		goto fail;
	}
	if (read_cpu_info(&r, root) < 0 || read_tsc(&r, root) < 0 ||
	    get_array(&r, root, "traceBundle", "processes", 0, &procs) < 0 ||
	    get_array(&r, root, "traceBundle", "cpus", 0, &cpus) < 0 ||
	    member(&r, root, "traceBundle", "kernel", 0, &kernel) < 0)
		goto fail;
	if (procs) {
		b->procs = xcalloc(json_object_array_length(procs) + 1, sizeof(*b->procs));
		for (size_t i = 0; i < json_object_array_length(procs); i++) {
			char sub[64];

			snprintf(sub, sizeof(sub), "traceBundle.processes[%zu]", i);
			if (read_process(&r, json_object_array_get_idx(procs, i), sub,
					 &b->procs[b->nprocs++]) < 0)
				goto fail;
		}
	}
	if (cpus && read_cpus(&r, cpus) < 0)
		goto fail;
	if (kernel) {
		int given;

		b->kernel_load = BUNDLE_KERNEL_LOAD;
		if (want(&r, kernel, json_type_object, "traceBundle.kernel", "an object") < 0 ||
		    get_file(&r, kernel, "traceBundle.kernel", "file", 1, &b->kernel_file) < 0 ||
		    get_addr(&r, kernel, "traceBundle.kernel", "loadAddress", 0, &b->kernel_load, &given) < 0)
			goto fail;
	}
	for (int i = 0; i < b->nprocs; i++)
		for (int k = 0; k < b->procs[i].nthreads; k++)
			any_thread_trace |= b->procs[i].threads[k].trace != NULL;
	/* the schema's rules between sections */
	if (b->ncpus && any_thread_trace) {
		fail(&r, "traceBundle.cpus", "per-CPU traces (\"cpus\") and per-thread traces (\"iptTrace\") cannot be mixed");
		goto fail;
	}
	if (b->ncpus && !b->tsc.valid) {
		fail(&r, "traceBundle", "missing value for \"tscPerfZeroConversion\", which \"cpus\" needs");
		goto fail;
	}
	if (kernel && (b->nprocs || !b->ncpus)) {
		fail(&r, "traceBundle.kernel", "a kernel trace needs \"cpus\" and no \"processes\"");
		goto fail;
	}
	if (!b->nprocs && !kernel) {
		fail(&r, "traceBundle", "no processes: the bundle describes nothing to load");
		goto fail;
	}
	json_object_put(root);
	*out = b;
	return 0;
fail:
	json_object_put(root);
	bundle_free(b);
	return -1;
}

void bundle_free(struct bundle *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->nprocs; i++) {
		struct bundle_process *p = &b->procs[i];

		for (int k = 0; k < p->nthreads; k++) {
			free(p->threads[k].trace);
			free(p->threads[k].jpath);
		}
		for (int k = 0; k < p->nmods; k++) {
			free(p->mods[k].system_path);
			free(p->mods[k].file);
			free(p->mods[k].uuid);
			free(p->mods[k].jpath);
		}
		free(p->threads);
		free(p->mods);
		free(p->triple);
		free(p->code_pages);
	}
	for (int i = 0; i < b->ncpus; i++) {
		free(b->cpus[i].trace);
		free(b->cpus[i].context_switch);
	}
	for (int i = 0; i < b->nabsolute; i++)
		free(b->absolute[i]);
	for (int i = 0; i < b->noutside; i++)
		free(b->outside[i]);
	free(b->absolute);
	free(b->outside);
	free(b->cpus);
	free(b->procs);
	free(b->kernel_file);
	free(b->dir);
	free(b->json);
	free(b);
}
