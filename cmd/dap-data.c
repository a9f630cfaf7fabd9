/* cmd/dap-data.c: the DAP requests that read a stop — threads,
 * stackTrace (inlined calls as frames, the replay position marked),
 * scopes and variables (a tree over core's values and their children;
 * while replaying, what the trace does not record is said, never shown
 * from the live process), evaluate (expressions, and ptdb commands in
 * the debug console), setVariable, completions, disassemble, memory,
 * modules and sources. */
#include "cmd/dap.h"
#include "cmd/cmd.h"
#include "cmd/data.h"
#include "core/data/expr.h"
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) (snprintf(msg, n, __VA_ARGS__), -1)
#define NOT_RECORDED "<not recorded: the trace holds the path through the code, not data>"

static struct dbg *D(struct dap *dp)
{
	return &dp->s->dbg;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static void add_int(struct json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

void dap_refs_reset(struct dap *dp)
{
	for (int i = 0; i < dp->nrefs; i++)
		if (dp->refs[i].kind == REF_VALUE)
			value_release(&dp->refs[i].v);
	free(dp->refs);
	dp->refs = NULL;
	dp->nrefs = 0;
	free(dp->frames);
	dp->frames = NULL;
	dp->nframes = 0;
}

int dap_ref_add(struct dap *dp, enum dap_ref_kind kind, pid_t tid, unsigned frame,
		const struct value *v)
{
	struct dap_ref *r;

	dp->refs = realloc(dp->refs, (size_t)(dp->nrefs + 1) * sizeof(*dp->refs));
	r = &dp->refs[dp->nrefs++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->tid = tid;
	r->frame = frame;
	if (v)
		r->v = *v;	/* takes v's bytes */
	return dp->nrefs;
}

static struct dap_ref *ref_of(struct dap *dp, int64_t id)
{
	return id >= 1 && id <= dp->nrefs ? &dp->refs[id - 1] : NULL;
}

int dap_frame_of(struct dap *dp, int64_t id, pid_t *tid, unsigned *index)
{
	if (id < 1 || id > dp->nframes)
		return -1;
	*tid = dp->frames[id - 1].tid;
	*index = dp->frames[id - 1].index;
	return 0;
}

static int frame_id(struct dap *dp, pid_t tid, unsigned index)
{
	for (int i = 0; i < dp->nframes; i++)
		if (dp->frames[i].tid == tid && dp->frames[i].index == index)
			return i + 1;
	dp->frames = realloc(dp->frames, (size_t)(dp->nframes + 1) * sizeof(*dp->frames));
	dp->frames[dp->nframes].tid = tid;
	dp->frames[dp->nframes].index = index;
	return ++dp->nframes;
}

/* The frame an expression is evaluated in: frameId's, else the selected. */
static void frame_arg(struct dap *dp, struct json_object *args, pid_t *tid, unsigned *index)
{
	*tid = D(dp)->sel_tid;
	*index = 0;
	if (dap_frame_of(dp, dap_int(args, "frameId", 0), tid, index) < 0) {
		*tid = D(dp)->sel_tid;
		*index = D(dp)->sel_frame;
	}
}

/* ---- threads and frames ---- */

struct json_object *dap_threads_body(struct dap *dp)
{
	struct target_thread_info ti[256];
	struct json_object *arr = json_object_new_array(), *body;
	int k = dbg_alive(D(dp)) ? dbg_threads(D(dp), ti, 256) : 0;

	for (int i = 0; i < k; i++) {
		struct json_object *t = json_object_new_object();
		char name[64];

		snprintf(name, sizeof(name), "Thread #%u%s%s", ti[i].index, ti[i].name[0] ? " " : "",
			 ti[i].name);
		add_int(t, "id", ti[i].tid);
		add_str(t, "name", name);
		json_object_array_add(arr, t);
	}
	body = json_object_new_object();
	json_object_object_add(body, "threads", arr);
	return body;
}

static int threads(struct dap *dp, struct json_object *args, struct json_object **body,
		   char *msg, size_t n)
{
	(void)args;
	(void)msg;
	(void)n;
	*body = dap_threads_body(dp);
	return 0;
}

static struct json_object *source_json(struct dap *dp, const char *file)
{
	struct json_object *src = json_object_new_object();
	char mapped[4096];
	const char *p = dbg_source_path(D(dp), file, mapped, sizeof(mapped));
	const char *base = strrchr(p, '/');

	add_str(src, "name", base ? base + 1 : p);
	add_str(src, "path", p);
	return src;
}

static struct json_object *frame_json(struct dap *dp, pid_t tid, unsigned i,
				      const struct dbg_frame *f)
{
	struct json_object *o = json_object_new_object();
	const char *file;
	unsigned line, col;
	char name[1024], ref[32];
	int caller = i > 0 && !f->trap;

	add_int(o, "id", frame_id(dp, tid, i));
	if (f->untraced) {
		add_str(o, "name", "<untraced caller: the trace begins inside this call>");
		add_int(o, "line", 0);
		add_int(o, "column", 0);
		add_str(o, "presentationHint", "label");
		return o;
	}
	if (dbg_frame_function(D(dp), f, caller, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "0x%016" PRIx64, f->pc);
	if (f->replaying)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), " (replaying)");
	add_str(o, "name", name);
	snprintf(ref, sizeof(ref), "0x%" PRIx64, f->pc);
	add_str(o, "instructionPointerReference", ref);
	if (dbg_frame_line(D(dp), f, caller, &file, &line, &col) == 0 && file) {
		json_object_object_add(o, "source", source_json(dp, file));
		add_int(o, "line", line);
		add_int(o, "column", col ? col : 1);
	} else {
		add_int(o, "line", 0);
		add_int(o, "column", 0);
		add_str(o, "presentationHint", "subtle");
	}
	if (f->virt || f->ninl)
		json_object_object_add(o, "canRestart", json_object_new_boolean(0));
	return o;
}

static int stack_trace(struct dap *dp, struct json_object *args, struct json_object **body,
		       char *msg, size_t n)
{
	static struct dbg_frame fr[DBG_MAX_FRAMES];
	pid_t tid = (pid_t)dap_int(args, "threadId", 0);
	int64_t start = dap_int(args, "startFrame", 0), levels = dap_int(args, "levels", 0);
	struct json_object *arr = json_object_new_array();
	struct ptdb_err err;
	int k;

	if (!dbg_alive(D(dp)) && !dbg_replaying(D(dp))) {
		json_object_put(arr);
		return FAIL("no process: launch or attach first");
	}
	if (!dbg_thread_index(D(dp), tid)) {
		json_object_put(arr);
		return FAIL("no thread with id %d", (int)tid);
	}
	k = dbg_frames(D(dp), tid, fr, DBG_MAX_FRAMES, &err);
	if (k < 0) {
		json_object_put(arr);
		return FAIL("%s", err.msg);
	}
	for (int i = (int)start; i < k && (!levels || i < start + levels); i++)
		json_object_array_add(arr, frame_json(dp, tid, (unsigned)i, &fr[i]));
	*body = json_object_new_object();
	json_object_object_add(*body, "stackFrames", arr);
	add_int(*body, "totalFrames", k);
	return 0;
}

static int scopes(struct dap *dp, struct json_object *args, struct json_object **body,
		  char *msg, size_t n)
{
	static const char *const names[] = { "Locals", "Arguments", "Registers", "Globals" };
	static const char *const hints[] = { "locals", "arguments", "registers", NULL };
	struct json_object *arr = json_object_new_array();
	pid_t tid;
	unsigned index;

	if (dap_frame_of(dp, dap_int(args, "frameId", -1), &tid, &index) < 0) {
		json_object_put(arr);
		return FAIL("invalid frameId (frames are valid until the process runs)");
	}
	for (int k = REF_LOCALS; k <= REF_GLOBALS; k++) {
		struct json_object *s = json_object_new_object();
		char nm[64];

		snprintf(nm, sizeof(nm), "%s%s", names[k], dbg_replaying(D(dp)) &&
			 k != REF_REGS ? " (not recorded in the trace)" : "");
		add_str(s, "name", nm);
		if (hints[k])
			add_str(s, "presentationHint", hints[k]);
		add_int(s, "variablesReference", dap_ref_add(dp, (enum dap_ref_kind)k, tid, index, NULL));
		json_object_object_add(s, "expensive", json_object_new_boolean(k == REF_GLOBALS));
		json_object_array_add(arr, s);
	}
	*body = json_object_new_object();
	json_object_object_add(*body, "scopes", arr);
	return 0;
}

/* ---- variables ---- */

static struct json_object *var_json(struct dap *dp, const char *name, struct value *v, pid_t tid,
				    unsigned frame)
{
	struct json_object *o = json_object_new_object();
	char text[4096], tn[256];

	value_brief(&D(dp)->env, v, text, sizeof(text));
	add_str(o, "name", name);
	add_str(o, "value", text);
	add_str(o, "type", v->type ? sym_type_name(v->type, tn, sizeof(tn)) : "");
	if (v->in_mem && v->status == VAL_OK) {
		char ref[32];

		snprintf(ref, sizeof(ref), "0x%" PRIx64, v->addr);
		add_str(o, "memoryReference", ref);
	}
	if (value_nchildren(v) > 0) {
		add_int(o, "variablesReference", dap_ref_add(dp, REF_VALUE, tid, frame, v));
		add_int(o, "namedVariables", value_nchildren(v));
	} else {
		add_int(o, "variablesReference", 0);
		value_release(v);
	}
	return o;
}

static void plain(struct json_object *arr, const char *name, const char *value)
{
	struct json_object *o = json_object_new_object();

	add_str(o, "name", name);
	add_str(o, "value", value);
	add_int(o, "variablesReference", 0);
	json_object_array_add(arr, o);
}

static void one_register(void *ctx, const char *name, int size, uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "0x%0*" PRIx64, size * 2, v);
	plain(ctx, name, text);
}

/* 'register read''s registers: a caller frame's are those unwinding
 * recovered, and the scope says how many are not. */
static int registers(struct dap *dp, const struct dap_ref *r, struct json_object *arr, char *msg,
		     size_t n)
{
	struct ptdb_err err;
	int gone = cmd_frame_registers(D(dp), r->tid, r->frame, one_register, arr, &err);
	char text[96];

	if (gone < 0)
		return FAIL("%s", err.msg);
	if (gone) {
		snprintf(text, sizeof(text), "<%d registers were not recovered in this caller frame>", gone);
		plain(arr, "(others)", text);
	}
	return 0;
}

/* While replaying: what the trace gives at the cursor (the pc), and what
 * it does not. */
static void replay_scope(struct dap *dp, const struct dap_ref *r, struct json_object *arr)
{
	static struct dbg_frame fr[DBG_MAX_FRAMES];
	char v[64];
	int k;

	if (r->kind != REF_REGS) {
		plain(arr, "(replaying)", NOT_RECORDED);
		return;
	}
	k = dbg_frames(D(dp), r->tid, fr, DBG_MAX_FRAMES, NULL);
	if (k > (int)r->frame && !fr[r->frame].untraced) {
		snprintf(v, sizeof(v), "0x%016" PRIx64, fr[r->frame].pc);
		plain(arr, "rip", v);
	}
	plain(arr, "(other registers)", "<not recorded: the trace holds the instructions, "
	      "not the registers>");
}

static int scope_vars(struct dap *dp, const struct dap_ref *ref, struct json_object *arr,
		      char *msg, size_t n)
{
	struct dap_ref copy = *ref, *r = &copy;	/* the table moves as values get references */
	struct frame_ctx fc;
	struct ptdb_err err;

	if (dbg_replaying(D(dp)) && r->tid == dbg_replay_tid(D(dp))) {
		replay_scope(dp, r, arr);
		return 0;
	}
	if (!dbg_alive(D(dp)))
		return FAIL("no process");
	if (r->kind == REF_REGS)
		return registers(dp, r, arr, msg, n);
	if (frame_ctx_open(D(dp), r->tid, r->frame, &fc, &err) < 0)
		return FAIL("%s", err.msg);
	if (r->kind == REF_GLOBALS) {
		struct sym_var *g;
		const char *cu;
		int k = fc.mod && fc.mod->sym ? sym_global_vars(fc.mod->sym, fc.look, &cu, &g, NULL) : 0;

		for (int i = 0; i < k; i++) {
			struct value v;

			frame_var_value(&fc, fc.mod->sym, &g[i], &v);
			json_object_array_add(arr, var_json(dp, g[i].name, &v, r->tid, r->frame));
		}
		if (k > 0)
			sym_vars_free(g, k);
	} else {
		for (int i = 0; i < fc.nvars; i++) {
			struct value v;

			if ((fc.vars[i].global && !fc.vars[i].is_param) ||
			    fc.vars[i].is_param != (r->kind == REF_ARGS))
				continue;
			frame_var_value(&fc, fc.mod->sym, &fc.vars[i], &v);
			json_object_array_add(arr, var_json(dp, fc.vars[i].name, &v, r->tid, r->frame));
		}
	}
	frame_ctx_close(&fc);
	return 0;
}

static int variables(struct dap *dp, struct json_object *args, struct json_object **body,
		     char *msg, size_t n)
{
	struct dap_ref *r = ref_of(dp, dap_int(args, "variablesReference", 0));
	struct json_object *arr = json_object_new_array();

	if (!r) {
		json_object_put(arr);
		return FAIL("invalid variablesReference (valid until the process runs)");
	}
	if (r->kind == REF_VALUE) {
		/* the table grows as children get references: r moves, its
		 * value's bytes do not */
		struct value parent = r->v;
		pid_t tid = r->tid;
		unsigned fr = r->frame;
		int k = value_nchildren(&parent);

		for (int i = 0; i < k; i++) {
			struct value c;
			char name[256];

			if (value_child(&D(dp)->env, &parent, i, name, sizeof(name), &c) < 0)
				break;
			json_object_array_add(arr, var_json(dp, name, &c, tid, fr));
		}
	} else if (scope_vars(dp, r, arr, msg, n) < 0) {
		json_object_put(arr);
		return -1;
	}
	*body = json_object_new_object();
	json_object_object_add(*body, "variables", arr);
	return 0;
}

/* ---- expressions and commands ---- */

static int eval_value(struct dap *dp, pid_t tid, unsigned index, const char *text,
		      struct value *v, char *msg, size_t n)
{
	struct frame_ctx fc;
	struct ptdb_err err;
	int r;

	if (dbg_replaying(D(dp)))
		return FAIL("the trace holds no data: expressions are not available while replaying "
			    "(step forward to the end of the trace)");
	if (!dbg_alive(D(dp)))
		return FAIL("no process: launch or attach first");
	if (frame_ctx_open(D(dp), tid, index, &fc, &err) < 0)
		return FAIL("%s", err.msg);
	r = expr_eval(&fc, &D(dp)->results, text, v, &err);
	frame_ctx_close(&fc);
	if (r < 0)
		return FAIL("%s", err.msg);
	return 0;
}

/* A command typed in the debug console; a run or a replay move it made
 * is reported as a stop. */
static void console_command(struct dap *dp, const char *line)
{
	struct dbg *d = D(dp);
	uint64_t id0 = 0, id1 = 0, t;
	int alive = dbg_alive(d), rp = dbg_replaying(d);
	uint64_t stop0 = d->proc ? target_stop_id(d->proc) : 0;

	if (rp)
		dbg_replay_cursor(d, &id0, &t);
	dap_command(dp, line, 0);
	if (dbg_replaying(d))
		dbg_replay_cursor(d, &id1, &t);
	if (alive != dbg_alive(d) || rp != dbg_replaying(d) || id0 != id1 ||
	    (d->proc && dbg_alive(d) && target_stop_id(d->proc) != stop0))
		dp->stop_pending = 1;	/* reported after the response (dap-run.c) */
}

static int evaluate(struct dap *dp, struct json_object *args, struct json_object **body,
		    char *msg, size_t n)
{
	const char *expr = dap_str(args, "expression"), *ctx = dap_str(args, "context");
	int repl = ctx && !strcmp(ctx, "repl");
	struct value v;
	struct json_object *o;
	pid_t tid;
	unsigned index;
	char emsg[512];

	if (!expr)
		return FAIL("evaluate needs 'expression'");
	frame_arg(dp, args, &tid, &index);
	if (repl && expr[0] == '`')
		expr++;
	else if (eval_value(dp, tid, index, expr, &v, emsg, sizeof(emsg)) == 0) {
		o = var_json(dp, "", &v, tid, index);
		*body = json_object_new_object();
		json_object_object_add(*body, "result", json_object_get(json_object_object_get(o, "value")));
		json_object_object_add(*body, "type", json_object_get(json_object_object_get(o, "type")));
		json_object_object_add(*body, "variablesReference",
				       json_object_get(json_object_object_get(o, "variablesReference")));
		json_object_put(o);
		return 0;
	} else if (!repl) {
		return FAIL("%s", emsg);
	} else {
		char **w = NULL, path[256], m[256];
		const char *why;
		int nw = cmd_split(expr, &w, &why), used;
		const struct cmd_node *node = nw > 0 ? cmd_lookup(w, nw, &used, path, sizeof(path), m,
								   sizeof(m)) : NULL;

		for (const struct cmd_alias *al = cmd_aliases(); !node && nw > 0 && al->name; al++)
			if (!strcmp(al->name, w[0]))
				node = cmd_root();
		cmd_argv_free(w);
		if (!node)
			return FAIL("%s", emsg);
	}
	console_command(dp, expr);
	*body = json_object_new_object();
	add_str(*body, "result", "");
	add_int(*body, "variablesReference", 0);
	return 0;
}

static int set_variable(struct dap *dp, struct json_object *args, struct json_object **body,
			char *msg, size_t n)
{
	struct dap_ref *rp = ref_of(dp, dap_int(args, "variablesReference", 0)), copy, *r = &copy;
	const char *name = dap_str(args, "name"), *val = dap_str(args, "value");
	char line[4096], tn[256];
	struct value v, c;

	if (rp)
		copy = *rp;	/* the table moves as values get references */
	if (!rp || !name || !val)
		return FAIL("setVariable needs variablesReference, name and value");
	if (r->kind == REF_LOCALS || r->kind == REF_ARGS || r->kind == REF_GLOBALS) {
		snprintf(line, sizeof(line), "%s = %s", name, val);
	} else if (r->kind == REF_VALUE) {
		int k = value_nchildren(&r->v), found = 0;

		for (int i = 0; i < k && !found; i++) {
			char cn[256];

			if (value_child(&D(dp)->env, &r->v, i, cn, sizeof(cn), &c) < 0)
				break;
			if (!strcmp(cn, name) && c.in_mem && c.type)
				found = snprintf(line, sizeof(line), "*(%s *)0x%" PRIx64 " = %s",
						 sym_type_name(c.type, tn, sizeof(tn)), c.addr, val) > 0;
			value_release(&c);
		}
		if (!found)
			return FAIL("'%s' cannot be set", name);
	} else {
		return FAIL("registers are set with 'register write' in the console");
	}
	if (eval_value(dp, r->tid, r->frame, line, &v, msg, n) < 0)
		return -1;
	{
		struct json_object *o = var_json(dp, name, &v, r->tid, r->frame);

		*body = json_object_new_object();
		json_object_object_add(*body, "value", json_object_get(json_object_object_get(o, "value")));
		json_object_object_add(*body, "type", json_object_get(json_object_object_get(o, "type")));
		json_object_object_add(*body, "variablesReference",
				       json_object_get(json_object_object_get(o, "variablesReference")));
		json_object_put(o);
	}
	return 0;
}

void dap_log_message(struct dap *dp, const char *text, char *out, size_t n)
{
	size_t len = 0;

	out[0] = 0;
	for (const char *p = text; *p && len + 1 < n;) {
		const char *close = *p == '{' ? strchr(p, '}') : NULL;

		if (close) {
			char expr[512], v[1024] = "";
			struct value val;
			char emsg[256];

			snprintf(expr, sizeof(expr), "%.*s", (int)(close - p - 1), p + 1);
			if (eval_value(dp, D(dp)->sel_tid, 0, expr, &val, emsg, sizeof(emsg)) == 0) {
				value_brief(&D(dp)->env, &val, v, sizeof(v));
				value_release(&val);
			} else {
				snprintf(v, sizeof(v), "<%s>", emsg);
			}
			len += (size_t)snprintf(out + len, n - len, "%s", v);
			p = close + 1;
		} else {
			out[len++] = *p++;
			out[len] = 0;
		}
	}
	if (len + 1 < n && (!len || out[len - 1] != '\n'))
		snprintf(out + len, n - len, "\n");
}

static int completions(struct dap *dp, struct json_object *args, struct json_object **body,
		       char *msg, size_t n)
{
	const char *text = dap_str(args, "text");
	int64_t col = dap_int(args, "column", -1);
	struct json_object *arr = json_object_new_array();
	char **cands = NULL, *line;
	size_t wl = 0;
	int k;

	if (!text) {
		json_object_put(arr);
		return FAIL("completions needs 'text'");
	}
	line = strndup(text, col > 0 && (size_t)(col - 1) < strlen(text) ? (size_t)(col - 1) : strlen(text));
	k = cmd_complete_in(line, D(dp), &cands, &wl);
	for (int i = 0; i < k; i++) {
		struct json_object *o = json_object_new_object();

		add_str(o, "label", cands[i]);
		add_str(o, "text", cands[i]);
		add_int(o, "start", (int64_t)(strlen(line) - wl));
		add_int(o, "length", (int64_t)wl);
		json_object_array_add(arr, o);
		free(cands[i]);
	}
	free(cands);
	free(line);
	*body = json_object_new_object();
	json_object_object_add(*body, "targets", arr);
	return 0;
}

/* dataId for a variable of a scope or a value: "0xADDR/SIZE". */
static int data_bp_info(struct dap *dp, struct json_object *args, struct json_object **body,
			char *msg, size_t n)
{
	struct dap_ref *r = ref_of(dp, dap_int(args, "variablesReference", 0));
	const char *name = dap_str(args, "name");
	struct value v = { 0 };
	char id[64] = "", why[256] = "";
	int have = 0;

	if (!name)
		return FAIL("dataBreakpointInfo needs 'name'");
	if (r && r->kind == REF_VALUE) {
		for (int i = 0; i < value_nchildren(&r->v) && !have; i++) {
			char cn[256];

			if (value_child(&D(dp)->env, &r->v, i, cn, sizeof(cn), &v) < 0)
				break;
			if (!(have = !strcmp(cn, name)))
				value_release(&v);
		}
	} else {
		pid_t tid = r ? r->tid : D(dp)->sel_tid;
		unsigned fr = r ? r->frame : D(dp)->sel_frame;

		have = eval_value(dp, tid, fr, name, &v, why, sizeof(why)) == 0;
	}
	*body = json_object_new_object();
	if (have && v.in_mem && (v.size == 1 || v.size == 2 || v.size == 4 || v.size == 8)) {
		struct json_object *acc = json_object_new_array();

		snprintf(id, sizeof(id), "0x%" PRIx64 "/%zu", v.addr, v.size);
		add_str(*body, "dataId", id);
		snprintf(why, sizeof(why), "%s (%zu bytes at 0x%" PRIx64 ")", name, v.size, v.addr);
		json_object_array_add(acc, json_object_new_string("write"));
		json_object_array_add(acc, json_object_new_string("read"));
		json_object_array_add(acc, json_object_new_string("readWrite"));
		json_object_object_add(*body, "accessTypes", acc);
	} else {
		json_object_object_add(*body, "dataId", NULL);
		if (!why[0])
			snprintf(why, sizeof(why), "'%s' is not 1, 2, 4 or 8 bytes in memory", name);
	}
	add_str(*body, "description", why);
	if (have)
		value_release(&v);
	return 0;
}

dap_handler dap_data_handler(const char *c)
{
	static const struct {
		const char *name;
		dap_handler fn;
	} tab[] = {
		{ "threads", threads }, { "stackTrace", stack_trace }, { "scopes", scopes },
		{ "variables", variables }, { "evaluate", evaluate }, { "setVariable", set_variable },
		{ "completions", completions }, { "dataBreakpointInfo", data_bp_info },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, c))
			return tab[i].fn;
	return dap_mem_handler(c);
}
