/* core/session/dbg_var.c: the variables of a frame of the live process — the
 * frame's registers (all of frame 0's; a caller's rsp, rbp and pc as the
 * unwinder recovers them), its CFA for DW_OP_call_frame_cfa, the values of
 * its variables and of variable paths (p->next->val, a[3], *p). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/data/value.h"
#include "core/data/fmt_cxx.h"

static int mem_cb(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct frame_ctx *fc = ctx;

	return dbg_read(fc->d, addr, buf, n, NULL);
}

static int read_cb(void *ctx, uint64_t addr, void *buf, size_t n)
{
	return dbg_read(ctx, addr, buf, n, NULL);
}

static int reg_cb(void *ctx, unsigned r, uint64_t *val)
{
	struct frame_ctx *fc = ctx;

	if (r >= 17 || !(fc->known.valid >> r & 1))
		return -1;
	*val = fc->known.r[r];
	return 0;
}

static void regs_to_dwarf(const struct user_regs_struct *g, struct sym_regs *s)
{
	uint64_t all[17] = { g->rax, g->rdx, g->rcx, g->rbx, g->rsi, g->rdi, g->rbp,
			     g->rsp, g->r8, g->r9, g->r10, g->r11, g->r12, g->r13,
			     g->r14, g->r15, g->rip };

	memcpy(s->r, all, sizeof(all));
	s->valid = (1u << 17) - 1;
}

static void dwarf_to_regs(const struct sym_regs *s, struct user_regs_struct *g)
{
	uint64_t *slot[17] = { (uint64_t *)&g->rax, (uint64_t *)&g->rdx, (uint64_t *)&g->rcx,
			       (uint64_t *)&g->rbx, (uint64_t *)&g->rsi, (uint64_t *)&g->rdi,
			       (uint64_t *)&g->rbp, (uint64_t *)&g->rsp, (uint64_t *)&g->r8,
			       (uint64_t *)&g->r9, (uint64_t *)&g->r10, (uint64_t *)&g->r11,
			       (uint64_t *)&g->r12, (uint64_t *)&g->r13, (uint64_t *)&g->r14,
			       (uint64_t *)&g->r15, (uint64_t *)&g->rip };

	for (int r = 0; r < 17; r++)
		*slot[r] = s->valid >> r & 1 ? s->r[r] : 0;
}

/* The frame's registers, unwound from the thread's through the CFI, one
 * step per concrete frame (an inlined call's frames share theirs). */
static void outer_regs(struct frame_ctx *fc, pid_t tid)
{
	struct user_regs_struct g;
	struct sym_regs cur, next;

	fc->known.valid = 1u << 6 | 1u << 7 | 1u << 16;
	fc->known.r[6] = fc->f.rbp;
	fc->known.r[7] = fc->f.rsp;
	fc->known.r[16] = fc->cpc;
	if (!dbg_live_state(fc->d) || target_get_regs(fc->d->proc, tid, &g, NULL) < 0)
		return;
	regs_to_dwarf(&g, &cur);
	for (unsigned i = 1; i <= fc->conc; i++) {
		uint64_t look = i > 1 ? cur.r[16] - 1 : cur.r[16];
		struct sym_regs in = cur;

		in.r[16] = look;
		if (dbg_unwind_regs(fc->d, &in, i == 1, &next) < 0)
			return;
		cur = next;
	}
	if (cur.r[16] == fc->cpc && cur.r[7] == fc->f.rsp)
		fc->known = cur;
}


int dbg_thread_return(struct dbg *d, pid_t tid, const uint64_t *rax, struct ptdb_err *err)
{
	struct dbg_frame fr[2];
	struct user_regs_struct g;
	struct sym_regs cur, next;
	int n = dbg_frames(d, tid, fr, 2, err);

	if (n < 0)
		return -1;
	if (n > 1 && fr[1].look && fr[1].conc == 0)
		return ptdb_err_set(err, "Can't return from an inlined call: its caller is the same "
				    "function's code");
	if (target_get_regs(d->proc, tid, &g, err) < 0)
		return -1;
	regs_to_dwarf(&g, &cur);
	if (n < 2 || dbg_unwind_regs(d, &cur, 1, &next) < 0)
		return ptdb_err_set(err, "Could not find the caller of frame 0 to return to");
	/* a register the CFI gives no rule for keeps its value */
	for (int r = 0; r < 17; r++)
		if (next.valid >> r & 1)
			cur.r[r] = next.r[r];
	if (rax)
		cur.r[0] = *rax;
	dwarf_to_regs(&cur, &g);
	return target_set_regs(d->proc, tid, &g, err);
}

int frame_ctx_open(struct dbg *d, pid_t tid, unsigned index, struct frame_ctx *fc,
		   struct ptdb_err *err)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	int n;

	memset(fc, 0, sizeof(*fc));
	n = dbg_frames(d, tid, fr, index + 1 < DBG_MAX_FRAMES ? (int)index + 1 : DBG_MAX_FRAMES, err);
	if (n < 0)
		return -1;
	if ((int)index >= n)
		return ptdb_err_set(err, "Frame index (%u) out of range.", index);
	return frame_ctx_init(d, tid, index, &fr[index], fc, err);
}

int frame_ctx_init(struct dbg *d, pid_t tid, unsigned index, const struct dbg_frame *fr,
		   struct frame_ctx *fc, struct ptdb_err *err)
{
	uint64_t pc, sp, bp;
	int n, inl = 0;

	memset(fc, 0, sizeof(*fc));
	fc->d = d;
	fc->env = &d->env;
	fc->tid = tid;
	fc->index = index;
	fc->f = *fr;
	/* an inlined call's frames are views of one concrete frame */
	fc->conc = fr->look ? fr->conc : index;
	fc->cpc = fr->look ? fr->cpc : fr->pc;
	fc->look = fr->look ? fr->look : index ? fr->pc - 1 : fr->pc;
	if (fr->look && fr->inl < fr->ninl)
		inl = (int)(fr->ninl - fr->inl);
	if (fc->conc == 0 && dbg_live_state(d)) {
		if (target_get_regs(d->proc, tid, &fc->regs, err) < 0)
			return -1;
		fc->all_regs = 1;
		regs_to_dwarf(&fc->regs, &fc->known);
	} else {
		outer_regs(fc, tid);
		dwarf_to_regs(&fc->known, &fc->regs);
	}
	fc->mod = dbg_module_for(d, fc->look);
	if (!fc->mod || !fc->mod->sym || fc->f.untraced)
		return 0;
	if (sym_unwind_step(fc->mod->sym, fc->look, fc->f.rsp, fc->f.rbp, read_cb, d, &pc, &sp,
			    &bp) == 0) {
		fc->have_cfa = 1;
		fc->cfa = sp;
	}
	n = sym_scope_vars(fc->mod->sym, fc->look, inl, &fc->sc, &fc->vars, NULL);
	fc->nvars = n > 0 ? n : 0;
	if (n < 0)
		fc->vars = NULL;
	else if (!fc->vars)
		fc->vars = xcalloc(1, sizeof(*fc->vars));
	return 0;
}

/* "ns::f(int) const" -> "ns::f": the demangled name without its
 * parameter list, for the arguments to take its place. */
void frame_strip_params(const char *func, char *buf, size_t n)
{
	size_t len = strlen(func);
	int depth = 0;

	snprintf(buf, n, "%s", func);
	if (!len || (func[len - 1] != ')' && !strstr(func, ") const")))
		return;
	for (size_t i = len; i-- > 0;) {
		if (func[i] == ')')
			depth++;
		else if (func[i] == '(' && --depth == 0) {
			if (i < n)
				buf[i] = 0;
			return;
		}
	}
}

/* "name=value, ..." for the frame's parameters; their count. */
static int frame_args(struct frame_ctx *fc, char *args, size_t n)
{
	int nargs = 0;

	args[0] = 0;
	for (int i = 0; i < fc->nvars; i++) {
		struct value v;
		char one[1100];	/* a string's summary: 1024 characters */
		size_t k = strlen(args);

		if (!fc->vars[i].is_param)
			continue;
		frame_var_value(fc, fc->mod->sym, &fc->vars[i], &v);
		value_brief(fc->env, &v, one, sizeof(one));
		value_release(&v);
		snprintf(args + k, n - k, "%s%s=%s", nargs++ ? ", " : "",
			 fc->vars[i].name[0] ? fc->vars[i].name : "(null)", one);	/* as lldb-16 */
	}
	return nargs;
}

/* Where the arguments go in dbg_format_frame's "mod`func[ [inlined]
 * call] at ...": after the inlined call's name for an inlined frame,
 * else after the function's; NULL when the text does not have it. */
static char *args_at(char *buf, const struct dbg_frame *f, const char *func, char *name,
		     size_t nn, size_t *full)
{
	char *at = strchr(buf, '`');

	if (!at)
		return NULL;
	if (f->look && f->inl < f->ninl) {
		/* the inlined call's whole name, up to " at file:line": a
		 * template's has its return type and spaces ("void
		 * ns::f<int, void>(int*)"), its arguments replace its
		 * parameter types, as in lldb-16 */
		char *in = strstr(at, " [inlined] "), *end, whole[512];

		if (!in)
			return NULL;
		in += strlen(" [inlined] ");
		end = strstr(in, " at ");
		*full = end ? (size_t)(end - in) : strlen(in);
		snprintf(whole, sizeof(whole), "%.*s", (int)*full, in);
		frame_strip_params(whole, name, nn);
		return in;
	}
	if (strncmp(at + 1, func, strlen(func)))
		return NULL;
	frame_strip_params(func, name, nn);
	*full = strlen(func);
	return at + 1;
}

char *frame_format(struct dbg *d, pid_t tid, unsigned index, const struct dbg_frame *f,
		   char *buf, size_t n)
{
	struct frame_ctx fc;
	struct sym_loc loc;
	char name[512], args[6144], rest[512], *at;
	size_t full = 0;
	int nargs;

	dbg_format_frame(d, f, index > 0, buf, n);
	if (!dbg_alive(d) || !dbg_live_state(d) || f->untraced)
		return buf;
	if (frame_ctx_init(d, tid, index, f, &fc, NULL) < 0)
		return buf;
	if (!fc.vars || sym_lookup_addr(fc.mod->sym, fc.look, &loc) < 0 || !loc.func) {
		frame_ctx_close(&fc);
		return buf;
	}
	nargs = frame_args(&fc, args, sizeof(args));
	frame_ctx_close(&fc);
	if (!nargs || !(at = args_at(buf, f, loc.func, name, sizeof(name), &full)))
		return buf;
	/* the name as printed (C++: without its parameter types), then
	 * "(args)", then what followed the name */
	{
		int inl = f->look && f->inl < f->ninl;
		size_t skip = full;
		const char *close = strrchr(loc.func, ')');

		/* a method's qualifiers follow the arguments, as in lldb-16:
		 * "Runner::run(this=..., k=5) const" */
		if (!inl && close && close[1] == ' ')
			snprintf(rest, sizeof(rest), "%s%s", close + 1, at + skip);
		else
			snprintf(rest, sizeof(rest), "%s", at + skip);
	}
	snprintf(at, n - (size_t)(at - buf), "%s(%s)%s", name, args, rest);
	return buf;
}

void frame_ctx_close(struct frame_ctx *fc)
{
	if (fc->vars)
		sym_vars_free(fc->vars, fc->nvars);
	free(fc->sc.frame_base);
	fc->vars = NULL;
}

static int entry_cb(void *ctx, unsigned reg, uint64_t *val);

/* The executable's block of thread-local storage in fc's thread: x86-64
 * places it just below the thread pointer (fs_base), rounded up to its
 * alignment (TLS variant II).  A shared library's block lives where its
 * DTV entry says; that is not read, so its TLS variables are not
 * available. */
static void tls_base(struct frame_ctx *fc, struct sym_module *m, struct sym_expr_env *env)
{
	struct user_regs_struct g;
	uint64_t memsz, align;
	struct dbg *d = fc->d;

	if (!d->nmods || d->mods[0].sym != m || !d->mods[0].is_exe || !dbg_alive(d) ||
	    !dbg_live_state(d) || sym_module_tls(m, &memsz, &align) < 0 ||
	    target_get_regs(d->proc, fc->tid, &g, NULL) < 0)
		return;
	env->have_tls = 1;
	env->tls_base = g.fs_base - ((memsz + align - 1) / align * align);
}

static void frame_env(struct frame_ctx *fc, struct sym_module *m, struct sym_expr_env *env)
{
	memset(env, 0, sizeof(*env));
	env->reg = reg_cb;
	env->mem = mem_cb;
	env->ctx = fc;
	env->have_cfa = fc->have_cfa;
	env->cfa = fc->cfa;
	if (m == (fc->mod ? fc->mod->sym : NULL)) {
		env->frame_base = fc->sc.frame_base;
		env->nframe_base = fc->sc.nframe_base;
	}
	env->bias = sym_module_bias(m);
	env->entry_value = entry_cb;
	tls_base(fc, m, env);
}

/* The caller of fc's concrete frame: the first frame of the next
 * concrete frame (its innermost inlined call, at the return address). */
static int caller_open(struct frame_ctx *fc, struct frame_ctx *caller)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	int max = (int)fc->index + 2 + DBG_MAX_INLINE;
	int n = dbg_frames(fc->d, fc->tid, fr, max < DBG_MAX_FRAMES ? max : DBG_MAX_FRAMES, NULL);

	for (int i = (int)fc->index + 1; i < n; i++) {
		unsigned c = fr[i].look ? fr[i].conc : (unsigned)i;

		if (c > fc->conc)
			return frame_ctx_init(fc->d, fc->tid, (unsigned)i, &fr[i], caller, NULL);
	}
	return -1;
}

/* DW_OP_entry_value(reg): what the caller's call site says reg held when
 * this frame's function was called, computed in the caller's frame. */
static int entry_cb(void *ctx, unsigned reg, uint64_t *val)
{
	struct frame_ctx *fc = ctx, caller;
	struct sym_expr_env env;
	struct sym_expr_res res;
	struct sym_op *ops;
	int n, rc = -1;

	if (fc->depth >= 4 || caller_open(fc, &caller) < 0)
		return -1;
	caller.depth = fc->depth + 1;
	if (caller.mod && caller.mod->sym && caller.vars &&
	    (n = sym_call_site_value(caller.mod->sym, caller.f.pc, reg, &ops, NULL)) > 0) {
		/* DW_AT_call_value computes the value itself */
		ops = xrealloc(ops, (size_t)(n + 1) * sizeof(*ops));
		memset(&ops[n], 0, sizeof(ops[n]));
		ops[n].atom = 0x9f;	/* DW_OP_stack_value */
		frame_env(&caller, caller.mod->sym, &env);
		*val = 0;
		rc = sym_expr_eval(ops, n + 1, &env, val, sizeof(*val), &res) < 0 ? -1 : 0;
		free(ops);
	}
	frame_ctx_close(&caller);
	return rc;
}

void frame_var_value(struct frame_ctx *fc, struct sym_module *m, const struct sym_var *v,
		     struct value *out)
{
	struct sym_expr_env env;
	struct sym_expr_res res;
	size_t size = v->type ? (size_t)v->type->size : 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->type = v->type;
	out->in_reg = -1;
	if (size > (1u << 24))
		size = 0;
	out->size = size;
	out->bytes = xcalloc(size ? size : 1, 1);
	if (v->loc == SYM_VL_CONST) {
		memcpy(out->bytes, &v->const_sval, size < 8 ? size : 8);
		return;
	}
	if (v->loc != SYM_VL_EXPR) {
		out->status = v->loc == SYM_VL_ABSENT ? VAL_NO_LOC : VAL_NOT_AVAIL;
		return;
	}
	frame_env(fc, m, &env);
	rc = sym_expr_eval(v->ops, v->nops, &env, out->bytes, size, &res);
	out->in_mem = res.in_mem;
	out->addr = res.addr;
	out->in_reg = res.in_reg;
	if (rc == SYM_EXPR_NO_REG) {
		out->status = VAL_NO_REG;
		out->bad_reg = res.bad_reg;
	} else if (rc == SYM_EXPR_MEM)
		out->status = VAL_MEM;
	else if (rc < 0)
		out->status = VAL_NOT_AVAIL;
}

/* ---- paths ---- */

int frame_var_named(struct frame_ctx *fc, const char *name, struct value *out)
{
	if (!strncmp(name, "::", 2))	/* "::x": the global, not a local */
		return frame_global_named(fc, name + 2, out);
	for (int i = fc->nvars - 1; i >= 0; i--)	/* innermost wins */
		if (!strcmp(fc->vars[i].name, name)) {
			frame_var_value(fc, fc->mod->sym, &fc->vars[i], out);
			return 0;
		}
	return frame_global_named(fc, name, out);
}

static void set_bytes(struct value *v, const struct sym_type *t, struct frame_ctx *fc,
		      uint64_t addr)
{
	size_t size = t ? (size_t)t->size : 0;

	value_release(v);
	v->type = t;
	v->size = size;
	v->bytes = xcalloc(size ? size : 1, 1);
	v->in_mem = 1;
	v->addr = addr;
	v->in_reg = -1;
	v->status = size && dbg_read(fc->d, addr, v->bytes, size, NULL) < 0 ? VAL_MEM : VAL_OK;
}

static uint64_t as_u64(const struct value *v)
{
	uint64_t x = 0;

	memcpy(&x, v->bytes, v->size < 8 ? v->size : 8);
	return x;
}

/* The member called name of t or, after t's own, of its base classes
 * (as LLDB's frame variable finds x->b in a base of x's class); its
 * offset from t's start in *off. */
static const struct sym_member *find_member(const struct sym_type *t, const char *name,
					    uint64_t *off, int depth)
{
	t = sym_type_strip(t);
	if (!t || depth > 16)
		return NULL;
	for (int i = 0; i < t->nmem; i++)
		if (t->mem[i].name && !strcmp(t->mem[i].name, name) && !t->mem[i].bit_size) {
			*off = t->mem[i].off;
			return &t->mem[i];
		}
	for (int i = 0; i < t->nmem; i++) {
		const struct sym_member *mb;
		uint64_t o;

		if (t->mem[i].is_base && (mb = find_member(t->mem[i].type, name, &o, depth + 1))) {
			*off = t->mem[i].off + o;
			return mb;
		}
	}
	return NULL;
}

static int member(struct frame_ctx *fc, struct value *v, const char *name, const char *shown,
		  const struct sym_type *shown_type, struct ptdb_err *err)
{
	const struct sym_member *mb;
	uint64_t off;
	char tn[256];

	if ((mb = find_member(v->type, name, &off, 0))) {
		struct value nv = *v;

		nv.bytes = xcalloc(mb->type ? mb->type->size + 1 : 1, 1);
		nv.type = mb->type;
		nv.size = mb->type ? (size_t)mb->type->size : 0;
		if (off + nv.size <= v->size)
			memcpy(nv.bytes, v->bytes + off, nv.size);
		nv.addr = v->addr + off;
		nv.in_reg = -1;
		value_release(v);
		*v = nv;
		return 0;
	}
	sym_type_name(shown_type, tn, sizeof(tn));
	(void)fc;
	return ptdb_err_set(err, "\"%s\" is not a member of \"(%s) %s\"", name, tn, shown);
}

static int deref(struct frame_ctx *fc, struct value *v, const char *shown, struct ptdb_err *err)
{
	const struct sym_type *t = sym_type_strip(v->type), *dyn;
	uint64_t a;

	if (!t || (t->kind != SYM_T_POINTER && t->kind != SYM_T_REF && t->kind != SYM_T_RVREF)) {
		char tn[256];

		return ptdb_err_set(err, "not a pointer or reference type: (%s) %s",
				    sym_type_name(v->type, tn, sizeof(tn)), shown);
	}
	if (v->status != VAL_OK)
		return ptdb_err_set(err, "'%s' is not available", shown);
	if (!t->target || !t->target->size) {
		char tn[256];

		return ptdb_err_set(err, "dereference failed: (%s) %s",
				    sym_type_name(v->type, tn, sizeof(tn)), shown);
	}
	if (value_dynamic_on(fc->env) && v->size >= 8 &&
	    (dyn = value_dynamic(fc->env, v->type, v->bytes, &a))) {
		/* the object as its own class, as LLDB's frame variable reads *p */
		set_bytes(v, sym_type_strip(dyn)->target, fc, a);
		return 0;
	}
	a = as_u64(v);
	set_bytes(v, t->target, fc, a);
	if (!a && t->kind == SYM_T_POINTER)
		v->status = VAL_NULL_PARENT;	/* lldb-16 reads nothing there */
	return 0;
}

static int subscript(struct frame_ctx *fc, struct value *v, long long idx, const char *shown,
		     struct ptdb_err *err)
{
	const struct sym_type *t = sym_type_strip(v->type);

	if (t && t->kind == SYM_T_ARRAY && t->target) {
		struct sym_type *elem = t->target;
		uint64_t esz;

		if (t->ndims > 1 && t->row)	/* a row: an array of the other dimensions */
			elem = t->row;
		esz = elem->size;
		if (!v->in_mem) {
			if (idx < 0 || (uint64_t)idx >= (t->dims[0] ? t->dims[0] : 0))
				return ptdb_err_set(err, "array index %lld is not valid for \"%s\"", idx, shown);
		}
		set_bytes(v, elem, fc, v->addr + (uint64_t)idx * esz);
		return 0;
	}
	if (t && t->kind == SYM_T_POINTER && t->target && t->target->size) {
		uint64_t base = as_u64(v);

		set_bytes(v, t->target, fc, base + (uint64_t)idx * t->target->size);
		return 0;
	}
	if (t && v->status == VAL_OK && (t->kind == SYM_T_CLASS || t->kind == SYM_T_STRUCT)) {
		const struct sym_type *et;	/* a library container's element */
		uint64_t a;
		const char *why;

		if (cxx_index(fc->env, t, v->bytes, v->size, (uint64_t)idx, &et, &a, &why) == 0 &&
		    idx >= 0) {
			set_bytes(v, et, fc, a);
			return 0;
		}
	}
	return ptdb_err_set(err, "\"%s\" is not an array or a pointer", shown);
}

/* name as a member of the object a method runs on ("v name_" for
 * this->name_, as LLDB's frame variable reads it); -1 when the frame has
 * no object, -2 when the object has no such member. */
static int this_member(struct frame_ctx *fc, const char *name, struct value *out)
{
	const struct sym_type *before, *t;
	struct ptdb_err e;

	if (!strcmp(name, "this") || frame_var_named(fc, "this", out) < 0)
		return -1;
	before = out->type;
	t = sym_type_strip(before);
	if (out->status != VAL_OK || !t || t->kind != SYM_T_POINTER ||
	    deref(fc, out, "this", &e) < 0) {
		value_release(out);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (member(fc, out, name, "this", before, &e) < 0) {
		value_release(out);
		memset(out, 0, sizeof(*out));
		return -2;
	}
	return 0;
}

int frame_path_value(struct frame_ctx *fc, const char *path, struct value *out,
		     struct ptdb_err *err)
{
	const char *p = path;
	char name[256], shown[512];
	int nderef = 0, addr_of = 0;
	size_t k = 0;

	memset(out, 0, sizeof(*out));
	/* lldb-16's path language: one '*' or '&' first, then a name */
	if (*p == '*')
		nderef++, p++;
	else if (*p == '&')
		addr_of = 1, p++;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == ':')
		if (k < sizeof(name) - 1)
			name[k++] = *p++;
		else
			p++;
	name[k] = 0;
	if (!k) {
		/* "**p", "&*p", "(*p).x": the name lldb-16 looks up runs to
		 * the first of its separators, "*p", "", "(*p)" */
		k = strcspn(p, ".-[=+~|&^%#@!/?,<>{}");
		ptdb_err_set(err, "no variable named '%.*s' found in this frame", (int)k, p);
		return FRAME_PATH_NO_VAR;
	}
	if (frame_var_named(fc, name, out) < 0 && (k = (size_t)-this_member(fc, name, out)) > 0) {
		/* in a method, lldb-16 names the object's members too */
		ptdb_err_set(err, "no variable %snamed '%s' found in this frame",
			     k == 2 ? "or instance variable " : "", name);
		return FRAME_PATH_NO_VAR;
	}
	snprintf(shown, sizeof(shown), "%s", name);
	while (*p) {
		if (*p == '.' || (p[0] == '-' && p[1] == '>')) {
			int arrow = *p == '-';
			const struct sym_type *before = out->type, *bs = sym_type_strip(before);
			int is_ptr = bs && (bs->kind == SYM_T_POINTER);

			p += arrow ? 2 : 1;
			k = 0;
			while (isalnum((unsigned char)*p) || *p == '_')
				if (k < sizeof(name) - 1)
					name[k++] = *p++;
				else
					p++;
			name[k] = 0;
			if (arrow && !is_ptr) {
				ptdb_err_set(err, "\"%s\" is not a pointer and -> was used to attempt to "
					     "access \"%s\". Did you mean \"%s.%s\"?", shown, name, shown, name);
				goto fail;
			}
			if (!arrow && is_ptr) {
				ptdb_err_set(err, "\"%s\" is a pointer and . was used to attempt to "
					     "access \"%s\". Did you mean \"%s->%s\"?", shown, name, shown, name);
				goto fail;
			}
			if (arrow && deref(fc, out, shown, err) < 0)
				goto fail;
			if (member(fc, out, name, shown, before, err) < 0)
				goto fail;
			snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), "%s%s",
				 arrow ? "->" : ".", name);
		} else if (*p == '[') {
			char *end;
			long long idx = strtoll(p + 1, &end, 0);

			if (end == p + 1 || *end != ']') {
				ptdb_err_set(err, "invalid index in '%s'", path);
				goto fail;
			}
			if (subscript(fc, out, idx, shown, err) < 0)
				goto fail;
			snprintf(shown + strlen(shown), sizeof(shown) - strlen(shown), "[%lld]", idx);
			p = end + 1;
		} else {
			ptdb_err_set(err, "unexpected '%c' in variable path '%s'", *p, path);
			goto fail;
		}
	}
	while (nderef--)
		if (deref(fc, out, shown, err) < 0)
			goto fail;
	if (addr_of) {
		uint64_t a = out->addr;

		if (!out->in_mem || !out->type) {
			ptdb_err_set(err, "'%s' doesn't have a valid address", shown);
			goto fail;
		}
		value_release(out);
		out->type = sym_type_pointer_to((struct sym_type *)out->type);
		out->size = 8;
		out->bytes = xcalloc(8, 1);
		memcpy(out->bytes, &a, 8);
		out->in_mem = 0;
		out->in_reg = -1;
		out->status = VAL_OK;
	}
	return 0;
fail:
	value_release(out);
	return -1;
}

/* Whether an aggregate holds a float anywhere (SysV classes it SSE). */
static int has_float(const struct sym_type *t, int depth)
{
	t = sym_type_strip(t);
	if (!t || depth > 16)
		return 0;
	if (t->kind == SYM_T_BASE)
		return t->enc == 4 /* DW_ATE_float */;
	if (t->kind == SYM_T_ARRAY)
		return has_float(t->target, depth + 1);
	for (int i = 0; i < t->nmem; i++)
		if (has_float(t->mem[i].type, depth + 1))
			return 1;
	return 0;
}

int frame_return_value(struct dbg *d, pid_t tid, const struct sym_type *t, struct value *out)
{
	const struct sym_type *s = sym_type_strip(t);
	struct user_regs_struct r;
	size_t size;

	memset(out, 0, sizeof(*out));
	if (!s || s->kind == SYM_T_VOID || !dbg_alive(d) ||
	    target_get_regs(d->proc, tid, &r, NULL) < 0)
		return -1;
	size = (size_t)s->size;
	if (!size || size > (1u << 20))
		return -1;
	out->type = t;
	out->size = size;
	out->in_reg = -1;
	out->bytes = xcalloc(size, 1);
	if (has_float(s, 0)) {
		struct user_fpregs_struct f;

		if (size > 8 || target_get_fpregs(d->proc, tid, &f, NULL) < 0) {
			value_release(out);
			return -1;
		}
		memcpy(out->bytes, f.xmm_space, size);
		return 0;
	}
	if (size <= 16) {
		uint64_t two[2] = { r.rax, r.rdx };

		memcpy(out->bytes, two, size);
		return 0;
	}
	out->in_mem = 1;
	out->addr = r.rax;
	if (dbg_read(d, r.rax, out->bytes, size, NULL) < 0)
		out->status = VAL_MEM;
	return 0;
}
