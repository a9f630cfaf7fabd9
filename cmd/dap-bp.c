/* cmd/dap-bp.c: the DAP breakpoint requests — setBreakpoints (a source
 * file's whole list, diffed: a line already set keeps its id),
 * setFunctionBreakpoints, setInstructionBreakpoints, setDataBreakpoints
 * (watchpoints), with conditions, hit counts and log points — over the
 * session's breakpoints and watchpoints. */
#include "cmd/dap.h"
#include "core/session/watch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) (snprintf(msg, n, __VA_ARGS__), -1)

static struct dbg *D(struct dap *dp)
{
	return &dp->s->dbg;
}

struct dap_bp *dap_bp_of_dbg(struct dap *dp, unsigned dbg_id, int kind)
{
	for (int i = 0; i < dp->nbps; i++)
		if (dp->bps[i].dbg_id == dbg_id && (kind == 'd') == (dp->bps[i].kind == 'd'))
			return &dp->bps[i];
	return NULL;
}

static void bp_drop(struct dap *dp, int i)
{
	if (dp->bps[i].dbg_id) {
		if (dp->bps[i].kind == 'd')
			dbg_watch_delete(D(dp), dp->bps[i].dbg_id);
		else
			dbg_bp_delete(D(dp), dp->bps[i].dbg_id);
	}
	free(dp->bps[i].file);
	free(dp->bps[i].log);
	dp->bps[i] = dp->bps[--dp->nbps];
}

static struct dap_bp *bp_new(struct dap *dp, int kind, const char *file)
{
	struct dap_bp *b;

	dp->bps = realloc(dp->bps, (size_t)(dp->nbps + 1) * sizeof(*dp->bps));
	b = &dp->bps[dp->nbps++];
	memset(b, 0, sizeof(*b));
	b->id = dp->next_bp++;
	b->kind = kind;
	b->file = file ? strdup(file) : NULL;
	return b;
}

/* hitCondition: "N", ">= N" or "== N": stop from the Nth hit on. */
static int hit_count(const char *h, unsigned *ignore)
{
	char *end;
	unsigned long v;

	while (*h == ' ' || *h == '>' || *h == '=')
		h++;
	v = strtoul(h, &end, 10);
	while (*end == ' ')
		end++;
	if (*end || end == h || !v)
		return -1;
	*ignore = (unsigned)v - 1;
	return 0;
}

/* The breakpoint's answer: verified with its line when it has a location. */
struct json_object *dap_bp_json(struct dap *dp, struct dap_bp *b, const char *why)
{
	struct json_object *o = json_object_new_object();
	struct dbg_bp *bp = b->kind != 'd' ? dbg_bp_find(D(dp), b->dbg_id) : NULL;
	int ok = b->kind == 'd' ? b->dbg_id != 0 : bp && bp->nlocs > 0;

	json_object_object_add(o, "id", json_object_new_int((int)b->id));
	json_object_object_add(o, "verified", json_object_new_boolean(ok && !why));
	if (why)
		json_object_object_add(o, "message", json_object_new_string(why));
	else if (!ok)
		json_object_object_add(o, "message", json_object_new_string(
			"no location yet: pending until a module with it loads"));
	if (bp)
		b->nlocs = bp->nlocs;
	if (bp && bp->nlocs > 0) {
		const char *file;
		unsigned line, col;
		char ref[32];

		if (dbg_addr_line(D(dp), bp->locs[0].addr, &file, &line, &col) == 0) {
			struct json_object *src = json_object_new_object();
			char mapped[4096];
			const char *p = dbg_source_path(D(dp), file, mapped, sizeof(mapped));
			const char *base = strrchr(p, '/');

			json_object_object_add(src, "name", json_object_new_string(base ? base + 1 : p));
			json_object_object_add(src, "path", json_object_new_string(p));
			json_object_object_add(o, "source", src);
			json_object_object_add(o, "line", json_object_new_int((int)line));
		}
		snprintf(ref, sizeof(ref), "0x%" PRIx64, bp->locs[0].addr);
		json_object_object_add(o, "instructionReference", json_object_new_string(ref));
	}
	return o;
}

/* Applies condition, hitCondition and logMessage of spec to b; the
 * problem, or NULL. */
static const char *bp_options(struct dap *dp, struct dap_bp *b, struct json_object *spec)
{
	struct dbg_bp *bp = dbg_bp_find(D(dp), b->dbg_id);
	const char *cond = dap_str(spec, "condition"), *hit = dap_str(spec, "hitCondition");
	const char *log = dap_str(spec, "logMessage");

	if (!bp)
		return "the breakpoint could not be set";
	dbg_bp_set_condition(bp, cond && *cond ? cond : NULL);
	bp->ignore = 0;
	if (hit && *hit && hit_count(hit, &bp->ignore) < 0)
		return "unsupported hitCondition: expected a hit count (N, >= N or == N)";
	free(b->log);
	b->log = log && *log ? strdup(log) : NULL;
	return NULL;
}

/* Shared by the source, function and instruction kinds: the client's whole
 * list replaces ours (same place kept: same id). */
static int set_bps(struct dap *dp, struct json_object *list, int kind, const char *file,
		   struct json_object **body)
{
	struct json_object *out = json_object_new_array(), *b;
	int nl = list && json_object_is_type(list, json_type_array) ? (int)json_object_array_length(list) : 0;
	char *keep = calloc((size_t)dp->nbps + 1, 1);

	for (int i = 0; i < nl; i++) {
		struct json_object *spec = json_object_array_get_idx(list, i);
		const char *name = dap_str(spec, "name"), *ref = dap_str(spec, "instructionReference");
		unsigned line = (unsigned)dap_int(spec, "line", 0);
		uint64_t addr = ref ? strtoull(ref, NULL, 0) + (uint64_t)dap_int(spec, "offset", 0) : 0;
		struct dap_bp *bp = NULL;
		const char *why = NULL;

		for (int j = 0; j < dp->nbps && !bp; j++) {
			struct dbg_bp *o = dbg_bp_find(D(dp), dp->bps[j].dbg_id);

			if (dp->bps[j].kind != kind || keep[j] || !o ||
			    (kind == 's' && (strcmp(dp->bps[j].file, file) || o->line != line)) ||
			    (kind == 'f' && (!name || !o->name || strcmp(o->name, name))) ||
			    (kind == 'i' && o->addr != addr))
				continue;
			keep[j] = 1;
			bp = &dp->bps[j];
		}
		if (!bp) {
			struct dbg_bp *nb = NULL;

			bp = bp_new(dp, kind, file);
			keep = realloc(keep, (size_t)dp->nbps + 1);
			keep[dp->nbps - 1] = 1;
			if (kind == 's' && line)
				nb = dbg_bp_add(D(dp), DBG_BP_LINE, NULL, file, line, 0);
			else if (kind == 'f' && name && *name)
				nb = dbg_bp_add(D(dp), DBG_BP_NAME, name, NULL, 0, 0);
			else if (kind == 'i' && addr)
				nb = dbg_bp_add(D(dp), DBG_BP_ADDR, NULL, NULL, 0, addr);
			bp->dbg_id = nb ? nb->id : 0;
		}
		why = bp_options(dp, bp, spec);
		json_object_array_add(out, dap_bp_json(dp, bp, why));
	}
	for (int j = dp->nbps - 1; j >= 0; j--)
		if (!keep[j] && dp->bps[j].kind == kind && (kind != 's' || !strcmp(dp->bps[j].file, file)))
			bp_drop(dp, j);
	free(keep);
	b = json_object_new_object();
	json_object_object_add(b, "breakpoints", out);
	*body = b;
	return 0;
}

static int set_breakpoints(struct dap *dp, struct json_object *args, struct json_object **body,
			   char *msg, size_t n)
{
	struct json_object *src = NULL, *list = NULL;
	const char *path;

	json_object_object_get_ex(args, "source", &src);
	path = dap_str(src, "path");
	if (!path)
		return FAIL("setBreakpoints needs source.path");
	json_object_object_get_ex(args, "breakpoints", &list);
	return set_bps(dp, list, 's', path, body);
}

static int set_function_bps(struct dap *dp, struct json_object *args, struct json_object **body,
			    char *msg, size_t n)
{
	struct json_object *list = NULL;

	(void)msg;
	(void)n;
	json_object_object_get_ex(args, "breakpoints", &list);
	return set_bps(dp, list, 'f', NULL, body);
}

static int set_insn_bps(struct dap *dp, struct json_object *args, struct json_object **body,
			char *msg, size_t n)
{
	struct json_object *list = NULL;

	(void)msg;
	(void)n;
	json_object_object_get_ex(args, "breakpoints", &list);
	return set_bps(dp, list, 'i', NULL, body);
}

/* dataId: "0xADDR/SIZE" (dataBreakpointInfo in dap-data.c gives it). */
static int set_data_bps(struct dap *dp, struct json_object *args, struct json_object **body,
			char *msg, size_t n)
{
	struct json_object *list = NULL, *out = json_object_new_array(), *b;
	int nl;

	(void)msg;
	(void)n;
	json_object_object_get_ex(args, "breakpoints", &list);
	for (int j = dp->nbps - 1; j >= 0; j--)
		if (dp->bps[j].kind == 'd')
			bp_drop(dp, j);
	nl = list && json_object_is_type(list, json_type_array) ? (int)json_object_array_length(list) : 0;
	for (int i = 0; i < nl; i++) {
		struct json_object *spec = json_object_array_get_idx(list, i);
		const char *id = dap_str(spec, "dataId"), *acc = dap_str(spec, "accessType");
		struct dap_bp *bp = bp_new(dp, 'd', NULL);
		struct dbg_watchpoint *w = NULL;
		char *slash;
		uint64_t addr = id ? strtoull(id, &slash, 0) : 0;
		unsigned size = id && *slash == '/' ? (unsigned)strtoul(slash + 1, NULL, 0) : 0;
		int access = acc && !strcmp(acc, "read") ? 1 : acc && !strcmp(acc, "readWrite") ? 3 : 2;
		struct ptdb_err err;

		if (addr && size)
			w = dbg_watch_add(D(dp), addr, size, access, NULL, NULL, NULL, &err);
		bp->dbg_id = w ? w->id : 0;
		json_object_array_add(out, dap_bp_json(dp, bp, w ? NULL : addr && size ? err.msg
								    : "invalid dataId"));
	}
	b = json_object_new_object();
	json_object_object_add(b, "breakpoints", out);
	*body = b;
	return 0;
}

/* No exception filters are offered: a client that sends the request
 * anyway gets an empty answer. */
static int set_exception_bps(struct dap *dp, struct json_object *args, struct json_object **body,
			     char *msg, size_t n)
{
	(void)dp;
	(void)args;
	(void)msg;
	(void)n;
	*body = json_object_new_object();
	json_object_object_add(*body, "breakpoints", json_object_new_array());
	return 0;
}

dap_handler dap_bp_handler(const char *c)
{
	static const struct {
		const char *name;
		dap_handler fn;
	} tab[] = {
		{ "setBreakpoints", set_breakpoints }, { "setFunctionBreakpoints", set_function_bps },
		{ "setInstructionBreakpoints", set_insn_bps }, { "setDataBreakpoints", set_data_bps },
		{ "setExceptionBreakpoints", set_exception_bps },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, c))
			return tab[i].fn;
	return NULL;
}
