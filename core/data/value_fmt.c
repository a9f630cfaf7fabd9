/* core/data/value_fmt.c: values as LLDB prints them — "(int) a = 1", chars
 * as 'z', bools as true/false, enums by name, floats with APFloat's
 * digits, pointers in 16 hex digits with the string or the function they
 * point to, and aggregates over several lines or, when small and flat,
 * on one: "(x = 1, y = 2)". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/value.h"
#include "core/data/fmt_cxx.h"
#include "core/data/value_int.h"

void value_release(struct value *v)
{
	free(v->bytes);
	v->bytes = NULL;
}

/* ---- aggregates ---- */

static void print_node(struct vf_pr *p, int indent, const char *name, const struct sym_type *t,
		       const uint8_t *b, uint64_t addr, int in_mem, int top);

static void child_text(struct vf_pr *p, const struct sym_type *t, int i, const uint8_t *b,
		       size_t size, char *buf, size_t n)
{
	struct sym_type row;
	const struct sym_type *ct;
	const struct sym_member *mb;
	uint64_t off;
	uint8_t tmp[8];

	vf_child_at(t, i, &row, &ct, &off, &mb);
	if (mb && mb->bit_size) {
		vf_bitfield_bytes(mb, off < size ? b + off : b, off < size ? size - off : 0, tmp);
		vf_fmt_scalar(p, ct, tmp, buf, n);
		return;
	}
	if (off + (ct ? ct->size : 0) > size) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	if (vf_is_std_string(ct)) {
		vf_std_string_text(p->env, sym_type_strip(ct), b + off, size - off, buf, n);
		return;
	}
	if (sym_type_strip(ct) && sym_type_strip(ct)->kind == SYM_T_POINTER &&
	    vf_is_char_type(sym_type_strip(ct)->target)) {
		/* LLDB's one-line form shows a summary alone: the string, in
		 * any format (p/x s) */
		struct value_fmt nat = *p->o;
		struct vf_pr q0 = *p;
		char *q;

		nat.format = 0;
		q0.o = &nat;
		vf_fmt_scalar(&q0, ct, b + off, buf, n);
		if ((q = strchr(buf, ' ')) && q[1] == '"')
			memmove(buf, q + 1, strlen(q + 1) + 1);
		return;
	}
	if (vf_is_aggregate(ct)) {	/* char arrays and empty ones reach here in one line */
		const struct sym_type *s = sym_type_strip(ct);

		buf[0] = 0;
		if (!vf_nchildren(s))
			snprintf(buf, n, "{}");
		else
			vf_quoted(b + off, (size_t)s->size, buf, n);
		return;
	}
	vf_fmt_scalar(p, ct, b + off, buf, n);
}

static void print_children(struct vf_pr *p, int indent, const struct sym_type *t, const uint8_t *b,
			   uint64_t addr, int in_mem)
{
	int n = vf_nchildren(t);

	for (int i = 0; i < n; i++) {
		struct sym_type row;
		const struct sym_type *ct;
		const struct sym_member *mb;
		uint64_t off;
		char nm[256];

		if (vf_hidden(t, i))
			continue;
		vf_child_at(t, i, &row, &ct, &off, &mb);
		vf_child_name(t, i, nm, sizeof(nm));
		if (mb && mb->bit_size) {
			uint8_t tmp[8];
			char v[128];

			vf_bitfield_bytes(mb, off < t->size ? b + off : b,
				       off < t->size ? (size_t)(t->size - off) : 0, tmp);
			vf_fmt_scalar(p, ct, tmp, v, sizeof(v));
			if (p->o->show_loc && in_mem)
				fprintf(p->out, "0x%016" PRIx64 ": ", addr + off);
			fprintf(p->out, "%*s", indent, "");
			if (p->o->show_types) {
				char tn[256];

				fprintf(p->out, "(%s:%u) ", sym_type_name(ct, tn, sizeof(tn)), mb->bit_size);
			}
			fprintf(p->out, "%s = %s\n", nm, v);
			continue;
		}
		if (off + (ct ? ct->size : 0) > t->size)
			break;
		print_node(p, indent, nm, ct, b + off, addr + off, in_mem, 0);
	}
}

/* The summary of a library value (fmt_cxx.c): a shared_ptr to a scalar
 * shows its pointee's value. */
static void view_summary(struct vf_pr *p, const struct cxx_view *cv, char *buf, size_t n)
{
	if (cv->summary[0] == 1 && cv->nkids == 1) {
		const struct sym_type *pt = sym_type_strip(cv->kids[0].type);
		const struct sym_type *tg = pt ? sym_type_strip(pt->target) : NULL;
		uint64_t a = 0;
		uint8_t obj[16] = { 0 };

		memcpy(&a, cv->kids[0].inline_bytes, 8);
		if (tg && tg->size <= sizeof(obj) && p->env->read_some(p->env->d, a, obj, tg->size) == tg->size)
			vf_fmt_scalar(p, pt->target, obj, buf, n);
		else
			snprintf(buf, n, "0x%" PRIx64, a);
		return;
	}
	snprintf(buf, n, "%s", cv->summary);
}

/* A library value: its summary, then its synthetic children; ref: as a
 * reference's target ("size=3: {"). */
static void print_view(struct vf_pr *p, int indent, const struct cxx_view *cv, int ref)
{
	char sum[512];

	view_summary(p, cv, sum, sizeof(sum));
	if (!cv->nkids) {
		fprintf(p->out, "%s%s {}\n", sum, ref ? ":" : "");
		return;
	}
	fprintf(p->out, "%s%s {\n", sum, ref ? ":" : "");
	for (int i = 0; i < cv->nkids; i++) {
		const struct cxx_kid *k = &cv->kids[i];
		const struct sym_type *kt = sym_type_strip(k->type);
		size_t size = kt ? (size_t)kt->size : 0;
		uint8_t *obj;

		if (!k->addr) {
			print_node(p, indent + 2, k->name, k->type, k->bytes ? k->bytes : k->inline_bytes,
				   0, 0, 0);
			continue;
		}
		obj = size && size <= (1u << 20) ? calloc(1, size) : NULL;
		if (!obj || p->env->read_some(p->env->d, k->addr, obj, size) < size)
			fprintf(p->out, "%*s%s = <unavailable>\n", indent + 2, "", k->name);
		else
			print_node(p, indent + 2, k->name, k->type, obj, k->addr, 1, 0);
		free(obj);
	}
	fprintf(p->out, "%*s}\n", indent, "");
}

/* An aggregate's children on one line: "(x = 1, y = 2)". */
static void print_one_line(struct vf_pr *p, const struct sym_type *s, const uint8_t *b)
{
	int n = vf_nchildren(s), first = 1;
	char v[4200];

	fputc('(', p->out);
	for (int i = 0; i < n; i++) {
		char nm[256];

		if (vf_hidden(s, i))
			continue;
		vf_child_name(s, i, nm, sizeof(nm));
		child_text(p, s, i, b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s%s = %s", first ? "" : ", ", nm, v);
		first = 0;
	}
	fputs(")\n", p->out);
}

/* A C++ reference as LLDB shows it: "0x00007ffe... (&r = 5)" for a
 * scalar, "0x00007ffe...: {" and the members for an object. */
static void print_ref(struct vf_pr *p, int indent, const char *name, const struct sym_type *s,
		      const uint8_t *b)
{
	const struct sym_type *tg = sym_type_strip(s->target);
	uint64_t a = 0;
	size_t size = tg ? (size_t)tg->size : 0;
	uint8_t *obj;
	char v[4200], head[128];

	memcpy(&a, b, 8);
	/* the reference itself: in the format asked for (-f d: decimal) */
	if (p->o->format)
		vf_fmt_scalar(p, s, b, head, sizeof(head));
	else
		snprintf(head, sizeof(head), "0x%016" PRIx64, a);
	if (!size || size > (1u << 20)) {
		fprintf(p->out, "%s\n", head);
		return;
	}
	obj = calloc(1, size);
	if (!obj || p->env->read(p->env->d, a, obj, size, NULL) < 0) {
		fprintf(p->out, "%s\n", head);
		free(obj);
		return;
	}
	if (!vf_raw_output) {
		struct cxx_view cv;

		if (cxx_view(p->env, tg, obj, size, &cv)) {
			print_view(p, indent, &cv, 1);
			cxx_view_free(&cv);
			free(obj);
			return;
		}
	}
	if (vf_is_std_string(tg) && vf_nvisible(tg)) {	/* LLDB: the text, then the members */
		vf_std_string_text(p->env, tg, obj, size, v, sizeof(v));
		fprintf(p->out, "%s: {\n", v);
		print_children(p, indent + 2, tg, obj, a, 1);
		fprintf(p->out, "%*s}\n", indent, "");
	} else if (vf_is_aggregate(tg) && !vf_is_std_string(tg) && vf_nvisible(tg) &&
		   !p->o->show_loc && !p->o->show_types && vf_one_liner(tg)) {
		fprintf(p->out, "%s ", head);	/* lldb-16: small and flat */
		print_one_line(p, tg, obj);
	} else if (vf_is_aggregate(tg) && !vf_is_std_string(tg) && vf_nchildren(tg)) {
		fprintf(p->out, "%s: {\n", head);
		print_children(p, indent + 2, tg, obj, a, 1);
		fprintf(p->out, "%*s}\n", indent, "");
	} else if (vf_is_aggregate(tg) && !vf_is_std_string(tg)) {
		fprintf(p->out, "%s {}\n", head);	/* an empty class */
	} else {
		char *q;

		if (vf_is_std_string(tg))
			vf_std_string_text(p->env, tg, obj, size, v, sizeof(v));
		else
			vf_fmt_scalar(p, tg, obj, v, sizeof(v));
		/* a char *'s summary stands alone there, as in lldb-16's one line */
		if (tg->kind == SYM_T_POINTER && vf_is_char_type(sym_type_strip(tg->target)) &&
		    !p->o->format && !strncmp(v, "0x", 2) && (q = strstr(v, " \"")))
			memmove(v, q + 1, strlen(q + 1) + 1);
		fprintf(p->out, "%s (&%s = %s)\n", head, name, v);
	}
	free(obj);
}

/* frame variable -P: a pointer that is not null expanded as LLDB does
 * while its ptr-depth lasts, "0x... {", the pointee's members (a
 * scalar's value as the child "*name"), "}"; the depth one less below
 * it.  0 when s is no such pointer (text, its value, not printed yet). */
static int print_pointee(struct vf_pr *p, int indent, const char *name, const struct sym_type *s,
			 const uint8_t *b, const char *text)
{
	const struct sym_type *tg = s->kind == SYM_T_POINTER ? sym_type_strip(s->target) : NULL;
	uint64_t a = 0;
	uint8_t *obj;
	char star[260];

	if (!tg)	/* a pointer's 8 bytes, nothing else */
		return 0;
	memcpy(&a, b, 8);
	if (!a || !tg->size || tg->size > (1u << 20) || tg->kind == SYM_T_FUNC ||
	    tg->kind == SYM_T_VOID || (vf_is_aggregate(tg) && !vf_is_std_string(tg) &&
				       !vf_nvisible(tg)))
		return 0;
	obj = calloc(1, (size_t)tg->size);
	if (!obj || p->env->read(p->env->d, a, obj, (size_t)tg->size, NULL) < 0) {
		free(obj);
		return 0;
	}
	fprintf(p->out, "%s {\n", text);
	p->ptr_left--;
	if (vf_is_aggregate(tg) && !vf_is_std_string(tg))
		print_children(p, indent + 2, tg, obj, a, 1);
	else {
		snprintf(star, sizeof(star), "*%s", name);
		print_node(p, indent + 2, star, s->target, obj, a, 1, 0);
	}
	p->ptr_left++;
	fprintf(p->out, "%*s}\n", indent, "");
	free(obj);
	return 1;
}

/* A value at frame variable -D's depth with children of its own: its
 * summary or value, then "{...}" for the children not shown, as LLDB
 * ("name_ = \"abc\"{...}", "v = size=3{...}", "s ={...}").  0 when it has
 * no children: printed whole. */
static int print_cut(struct vf_pr *p, const char *name, const struct sym_type *t,
		     const struct sym_type *s, const uint8_t *b)
{
	char v[4200];
	struct cxx_view cv;

	v[0] = 0;
	if (!s)
		return 0;
	if (!vf_raw_output && cxx_view(p->env, s, b, (size_t)s->size, &cv)) {
		view_summary(p, &cv, v, sizeof(v));
		cxx_view_free(&cv);
	} else if (vf_is_std_string(s))
		vf_std_string_text(p->env, s, b, (size_t)s->size, v, sizeof(v));
	else if (s->kind == SYM_T_POINTER || s->kind == SYM_T_REF || s->kind == SYM_T_RVREF)
		vf_fmt_scalar(p, t, b, v, sizeof(v));
	else if (s->kind == SYM_T_ARRAY && vf_is_char_type(s->target) && s->ndims == 1 &&
		 !vf_raw_output)
		vf_char_array(b, (size_t)s->size, v, sizeof(v));
	else if (!vf_is_aggregate(s) || !vf_nvisible(s))
		return 0;
	fprintf(p->out, "%s =%s%s{...}\n", name, v[0] ? " " : "", v);
	return 1;
}

static void print_node(struct vf_pr *p, int indent, const char *name, const struct sym_type *t,
		       const uint8_t *b, uint64_t addr, int in_mem, int top)
{
	const struct sym_type *s = sym_type_strip(t), *dyn;
	char v[4200];
	uint8_t dynb[8];
	uint64_t da;

	if (p->o->dynamic && (dyn = value_dynamic(p->env, t, b, &da))) {
		t = s = dyn;	/* the object's class: "(Derived *) p" */
		memcpy(dynb, &da, 8);
		b = dynb;
	}
	if (indent > 64) {	/* a type that contains itself (hostile DWARF) */
		fprintf(p->out, "%*s%s = ...\n", indent, "", name);
		return;
	}
	if (p->o->show_loc && in_mem)
		fprintf(p->out, "0x%016" PRIx64 ": ", addr);
	fprintf(p->out, "%*s", indent, "");
	if (top || p->o->show_types) {
		char tn[256];

		fprintf(p->out, "(%s) ", sym_type_name(t, tn, sizeof(tn)));
	}
	if (p->o->max_depth && indent / 2 >= (p->o->max_depth < 0 ? 0 : p->o->max_depth) &&
	    print_cut(p, name, t, s, b))
		return;
	fprintf(p->out, "%s = ", name);
	if (!vf_raw_output) {
		struct cxx_view cv;

		if (cxx_view(p->env, s, b, s ? (size_t)s->size : 0, &cv)) {
			print_view(p, indent, &cv, 0);
			cxx_view_free(&cv);
			return;
		}
	}
	if (vf_is_std_string(s)) {	/* its text in every format, as LLDB */
		vf_std_string_text(p->env, s, b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (s && (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) && s->target &&
	    (!p->o->format || top)) {
		uint64_t a;

		if (top) {
			print_ref(p, indent, name, s, b);
			return;
		}
		memcpy(&a, b, 8);	/* LLDB expands a reference only at the top */
		fprintf(p->out, "0x%016" PRIx64 "\n", a);
		return;
	}
	if (s && s->kind == SYM_T_ARRAY && vf_is_char_type(s->target) && s->ndims == 1 &&
	    !vf_raw_output) {	/* -R: each char a child, as LLDB */
		v[0] = 0;
		vf_char_array(b, (size_t)s->size, v, sizeof(v));
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!vf_is_aggregate(s)) {
		vf_fmt_scalar(p, t, b, v, sizeof(v));
		if (p->ptr_left > 0 && print_pointee(p, indent, name, s, b, v))
			return;
		fprintf(p->out, "%s\n", v);
		return;
	}
	if (!vf_nvisible(s)) {
		fprintf(p->out, "{}\n");
		return;
	}
	if (!p->o->show_loc && !p->o->show_types && p->ptr_left <= 0 && vf_one_liner(s)) {
		print_one_line(p, s, b);
		return;
	}
	fputs("{\n", p->out);
	print_children(p, indent + 2, s, b, addr, in_mem);
	fprintf(p->out, "%*s}\n", indent, "");
}

void value_print(FILE *out, const struct value_env *env, const char *name,
		 const struct value *v, const struct value_fmt *o)
{
	struct vf_pr p = { out, env, o, o->ptr_depth };
	char tn[256];

	if (v->status != VAL_OK) {
		if (o->show_loc && v->in_mem)
			fprintf(out, "0x%016" PRIx64 ": ", v->addr);
		fprintf(out, "(%s) %s = ", sym_type_name(v->type, tn, sizeof(tn)), name);
		if (v->status == VAL_NO_REG)
			fprintf(out, "<register %s is not available>\n\n",
				sym_dwreg_name(v->bad_reg) ? sym_dwreg_name(v->bad_reg) : "?");
		else if (v->status == VAL_MEM)
			fprintf(out, "<read memory from 0x%" PRIx64 " failed (0 of %zu bytes read)>\n\n",
				v->addr, v->size);
		else if (v->status == VAL_NO_LOC)
			fprintf(out, "<no location, value may have been optimized out>\n\n");
		else if (v->status == VAL_NULL_PARENT)
			fprintf(out, "<parent is NULL>\n\n");
		else
			fprintf(out, "<variable not available>\n\n");
		return;
	}
	if (o->show_loc && !v->in_mem && v->in_reg >= 0) {
		const char *r = sym_dwreg_name((unsigned)v->in_reg);

		fprintf(out, "%s: ", r ? r : "?");
	}
	vf_raw_output = sym_tname_raw = o->raw;
	print_node(&p, 0, name, v->type, v->bytes, v->addr, v->in_mem, 1);
	vf_raw_output = sym_tname_raw = 0;
}

/* A frame line's text for a library value: the summary alone
 * ("v=size=3", "err=\"\""); 0 when t has none. */
static int brief_summary(struct vf_pr *p, const struct sym_type *t, const uint8_t *b, size_t size,
			 char *buf, size_t n)
{
	struct cxx_view cv;

	if (vf_is_std_string(t)) {
		vf_std_string_text(p->env, sym_type_strip(t), b, size, buf, n);
		return 1;
	}
	if (!cxx_view(p->env, t, b, size, &cv))
		return 0;
	view_summary(p, &cv, buf, n);
	cxx_view_free(&cv);
	return 1;
}

void value_brief(const struct value_env *env, const struct value *v, char *buf, size_t n)
{
	static const struct value_fmt natural;
	struct vf_pr p = { NULL, env, &natural, 0 };
	const struct sym_type *s = sym_type_strip(v->type), *dyn;
	struct value dv;
	uint64_t da;

	if (v->status != VAL_OK) {
		snprintf(buf, n, "<unavailable>");
		return;
	}
	if (value_dynamic_on(env) && v->size >= 8 &&
	    (dyn = value_dynamic(env, v->type, v->bytes, &da))) {
		/* the object's start, as lldb-16's frame lines show it */
		dv = *v;
		dv.type = dyn;
		dv.bytes = (uint8_t *)&da;
		dv.size = 8;
		v = &dv;
		s = dyn;
	}
	if (brief_summary(&p, s, v->bytes, v->size, buf, n))
		return;
	if (s && (s->kind == SYM_T_REF || s->kind == SYM_T_RVREF) && v->size >= 8) {
		const struct sym_type *tg = sym_type_strip(s->target);
		uint64_t a = 0;
		uint8_t *obj = tg && tg->size && tg->size <= 4096 ? calloc(1, tg->size) : NULL;
		int done = 0;

		memcpy(&a, v->bytes, 8);
		if (obj && env->read_some(env->d, a, obj, tg->size) == tg->size)
			done = brief_summary(&p, tg, obj, tg->size, buf, n);
		free(obj);
		if (done)
			return;
	}
	if (s && s->kind == SYM_T_ARRAY && vf_is_char_type(s->target) && s->ndims == 1) {
		buf[0] = 0;
		vf_char_array(v->bytes, v->size, buf, n);
		return;
	}
	if (vf_is_std_string(s)) {	/* its summary, as LLDB's frame lines give it */
		vf_std_string_text(env, s, v->bytes, v->size, buf, n);
		return;
	}
	if (vf_is_aggregate(s) && !vf_one_liner(s) && v->in_mem) {
		/* lldb-16's summary of an aggregate it would not print in one
		 * line (a child that is a pointer to data, say) */
		char tn[256];

		sym_type_name(v->type, tn, sizeof(tn));
		snprintf(buf, n, "%s @ 0x%016" PRIx64, tn, v->addr);
		return;
	}
	if (vf_is_aggregate(s)) {
		/* LLDB prints an aggregate argument's children in one line */
		buf[0] = 0;
		vf_cat(buf, n, "(");
		for (int i = 0; i < vf_nchildren(s); i++) {
			char nm[256], one[512];

			vf_child_name(s, i, nm, sizeof(nm));
			child_text(&p, s, i, v->bytes, v->size, one, sizeof(one));
			if (i)
				vf_cat(buf, n, ", ");
			vf_cat(buf, n, nm);
			vf_cat(buf, n, " = ");
			vf_cat(buf, n, one);
		}
		vf_cat(buf, n, ")");
		return;
	}
	vf_fmt_scalar(&p, v->type, v->bytes, buf, n);
	/* a frame line shows a pointer's summary alone when it has one (a
	 * string's: name="LOCPATH"), else its value: 0x0 for NULL */
	if (s && s->kind == SYM_T_POINTER && (!strcmp(buf, "NULL") || !strcmp(buf, "nullptr")))
		snprintf(buf, n, "0x%016x", 0);
	if (s && s->kind == SYM_T_POINTER && vf_is_char_type(sym_type_strip(s->target)) &&
	    !strncmp(buf, "0x", 2) && strstr(buf, " \"")) {
		char *sp = strstr(buf, " \"");

		memmove(buf, sp + 1, strlen(sp + 1) + 1);
	}
	/* LLDB names a function pointer in a frame line by its function
	 * alone: "cmp=(a.out`cmp at a.c:7:1)" */
	if (s && s->kind == SYM_T_POINTER && sym_type_strip(s->target) &&
	    sym_type_strip(s->target)->kind == SYM_T_FUNC && !strncmp(buf, "0x", 2)) {
		char *sp = strstr(buf, " (");

		if (sp)
			memmove(buf, sp + 1, strlen(sp + 1) + 1);
	}
}

/* ---- children as data (a front end's tree of values) ---- */

/* A pointer or reference whose pointee LLDB expands: its type, or NULL. */
static const struct sym_type *expandable_pointee(const struct sym_type *s)
{
	if (!s || (s->kind != SYM_T_POINTER && s->kind != SYM_T_REF && s->kind != SYM_T_RVREF))
		return NULL;
	if (!vf_has_children_no_summary(s))
		return NULL;
	s = sym_type_strip(s->target);
	return s && s->size && s->size <= (1u << 20) ? s : NULL;
}

int value_nchildren(const struct value *v)
{
	const struct sym_type *s = sym_type_strip(v->type), *tg;

	if (v->status != VAL_OK || !s)
		return 0;
	if ((tg = expandable_pointee(s)))
		return vf_is_aggregate(tg) && !vf_is_std_string(tg) ? vf_nchildren(tg) : 1;
	if (!vf_has_children_no_summary(s))
		return 0;
	return vf_nchildren(s);
}

int value_child(const struct value_env *env, const struct value *v, int i, char *name, size_t n,
		struct value *out)
{
	const struct sym_type *s = sym_type_strip(v->type), *tg, *ct;
	const struct sym_member *mb;
	struct sym_type row;
	uint64_t base = v->addr, off, a = 0;
	const uint8_t *b = v->bytes;
	size_t size = v->size;
	uint8_t *obj = NULL;
	int in_mem = v->in_mem;

	memset(out, 0, sizeof(*out));
	out->in_reg = -1;
	if (i < 0 || i >= value_nchildren(v))
		return -1;
	if ((tg = expandable_pointee(s))) {
		memcpy(&a, v->bytes, v->size < 8 ? v->size : 8);
		obj = calloc(1, (size_t)tg->size);
		if (!obj)
			return -1;
		if (env->read(env->d, a, obj, (size_t)tg->size, NULL) < 0) {
			free(obj);
			obj = NULL;
		}
		if (!vf_is_aggregate(tg) || vf_is_std_string(tg)) {
			snprintf(name, n, "*");
			out->type = s->target;
			out->size = (size_t)tg->size;
			out->addr = a;
			out->in_mem = 1;
			out->bytes = obj;
			out->status = obj ? VAL_OK : VAL_MEM;
			return 0;
		}
		s = tg, b = obj, size = (size_t)tg->size, base = a, in_mem = 1;
		if (!obj) {
			vf_child_name(s, i, name, n);
			vf_child_at(s, i, &row, &ct, &off, &mb);
			out->type = ct == &row ? s->row : ct;
			out->status = VAL_MEM;
			out->addr = a + off;
			return 0;
		}
	}
	vf_child_name(s, i, name, n);
	vf_child_at(s, i, &row, &ct, &off, &mb);
	if (ct == &row)		/* the made-up row type: the type's own copy */
		ct = s->row;
	if (!ct) {
		free(obj);
		out->status = VAL_NOT_AVAIL;
		return 0;
	}
	out->type = ct;
	out->size = ct ? (size_t)ct->size : 0;
	out->in_mem = in_mem;
	out->addr = base + off;
	out->bytes = calloc(1, out->size > 8 ? out->size : 8);
	if (!out->bytes) {
		free(obj);
		return -1;
	}
	if (mb && mb->bit_size) {
		vf_bitfield_bytes(mb, off < size ? b + off : b, off < size ? size - off : 0, out->bytes);
		out->in_mem = 0;
	} else if (off + out->size <= size) {
		memcpy(out->bytes, b + off, out->size);
	} else {
		out->status = VAL_NOT_AVAIL;
	}
	free(obj);
	return 0;
}
