/* core/data/fmt_cxx.c: libstdc++'s containers and smart pointers as
 * LLDB's formatters show them (see fmt_cxx.h).  The layouts read are
 * libstdc++'s (gcc 12): a vector's _M_start/_M_finish, a red-black
 * tree's nodes (32-byte _Rb_tree_node_base, then the value), a list's
 * nodes (16-byte _List_node_base, then the value), a hash table's
 * singly linked nodes (_M_nxt, then the value).  The element type is
 * found by name: the allocator's argument, the container's last
 * template argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/data/fmt_cxx.h"
#include "core/data/value_int.h"

static int starts(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

static int is_ptr(const struct sym_member *m)
{
	const struct sym_type *t = sym_type_strip(m->type);

	return t && t->kind == SYM_T_POINTER;
}

/* The member called name anywhere in t (members and bases, depth first;
 * ptr: only a pointer) and its offset from t's start. */
static const struct sym_member *find_mem_in(const struct sym_type *t, const char *name,
					    uint64_t *off, int depth, int ptr)
{
	t = sym_type_strip(t);
	if (!t || depth > 8 || (t->kind != SYM_T_STRUCT && t->kind != SYM_T_CLASS &&
				t->kind != SYM_T_UNION))
		return NULL;
	for (int i = 0; i < t->nmem; i++)
		if (t->mem[i].name && !strcmp(t->mem[i].name, name) && (!ptr || is_ptr(&t->mem[i]))) {
			*off = t->mem[i].off;
			return &t->mem[i];
		}
	for (int i = 0; i < t->nmem; i++) {
		uint64_t o = 0;
		const struct sym_member *m = find_mem_in(t->mem[i].type, name, &o, depth + 1, ptr);

		if (m) {
			*off = t->mem[i].off + o;
			return m;
		}
	}
	return NULL;
}

static const struct sym_member *find_mem(const struct sym_type *t, const char *name,
					 uint64_t *off, int depth)
{
	return find_mem_in(t, name, off, depth, 0);
}

static int read_u64(const struct value_env *env, const uint8_t *b, size_t size, uint64_t off, uint64_t addr,
		    uint64_t *out)
{
	*out = 0;
	if (b) {
		if (off + 8 > size)
			return -1;
		memcpy(out, b + off, 8);
		return 0;
	}
	return env->read_some(env->d, addr, (uint8_t *)out, 8) == 8 ? 0 : -1;
}

/* The template argument idx (-1: the last) of name, in out. */
static int targ(const char *name, int idx, char *out, size_t n)
{
	const char *p = name ? strchr(name, '<') : NULL, *start;
	int depth = 0, k = 0, count = 0;
	const char *args[64][2];

	if (!p)
		return -1;
	start = ++p;
	for (; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth)
			depth--;
		else if ((*p == ',' || *p == '>') && !depth) {
			if (count < 64) {
				args[count][0] = start;
				args[count][1] = p;
				count++;
			}
			if (*p == '>')
				break;
			start = p + 1;
		}
	}
	if (!count)
		return -1;
	k = idx < 0 ? count - 1 : idx;
	if (k >= count)
		return -1;
	start = args[k][0];
	while (*start == ' ')
		start++;
	p = args[k][1];
	while (p > start && p[-1] == ' ')
		p--;
	if ((size_t)(p - start) >= n)
		return -1;
	memcpy(out, start, (size_t)(p - start));
	out[p - start] = 0;
	return 0;
}

static const struct sym_type *type_named(const struct value_env *env, const char *name)
{
	size_t len = strlen(name);

	if (len && name[len - 1] == '*') {
		char base[512];
		struct sym_type *t;

		if (len >= sizeof(base))
			return NULL;
		memcpy(base, name, len - 1);
		base[len - 1] = 0;
		while (len > 1 && base[strlen(base) - 1] == ' ')
			base[strlen(base) - 1] = 0;
		t = (struct sym_type *)type_named(env, base);
		return t ? sym_type_pointer_to(t) : NULL;
	}
	return env->type_named(env->d, name);
}

/* The container's value_type: the argument of its allocator (its last
 * template argument). */
static const struct sym_type *value_type(const struct value_env *env, const struct sym_type *t)
{
	char a[1024], v[1024];

	if (targ(t->name, -1, a, sizeof(a)) < 0 || !starts(a, "std::allocator<") ||
	    targ(a, 0, v, sizeof(v)) < 0)
		return NULL;
	return type_named(env, v);
}

static void add_kid(struct cxx_view *v, const struct sym_type *et, uint64_t addr)
{
	struct cxx_kid *k = &v->kids[v->nkids];

	snprintf(k->name, sizeof(k->name), "[%d]", v->nkids);
	k->type = et;
	k->addr = addr;
	v->nkids++;
}

static int kids_alloc(struct cxx_view *v, uint64_t count)
{
	size_t n = count > CXX_MAX_KIDS ? CXX_MAX_KIDS : (size_t)count;

	v->kids = calloc(n ? n : 1, sizeof(*v->kids));
	return v->kids ? (int)n : -1;
}

static int view_vector(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		       struct cxx_view *v)
{
	uint64_t os, of, start, fin, count;
	const struct sym_member *ms = find_mem(t, "_M_start", &os, 0);
	const struct sym_member *mf = find_mem(t, "_M_finish", &of, 0);
	const struct sym_type *pt = ms ? sym_type_strip(ms->type) : NULL;
	const struct sym_type *et = pt && pt->kind == SYM_T_POINTER ? pt->target : NULL;
	uint64_t es = et && sym_type_strip(et) ? sym_type_strip(et)->size : 0;
	int n;

	if (!mf || !es || read_u64(env, b, size, os, 0, &start) < 0 ||
	    read_u64(env, b, size, of, 0, &fin) < 0 || fin < start)
		return 0;
	count = (fin - start) / es;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	for (int i = 0; i < n; i++)
		add_kid(v, et, start + (uint64_t)i * es);
	return 1;
}

/* map, set, multimap, multiset: the nodes in order (leftmost, then the
 * successor of each), _M_node_count of them. */
static int view_tree(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		     struct cxx_view *v)
{
	uint64_t oh, oc, node, count;
	const struct sym_type *et = value_type(env, t);
	int n;

	if (!et || !find_mem(t, "_M_header", &oh, 0) || !find_mem(t, "_M_node_count", &oc, 0) ||
	    read_u64(env, b, size, oc, 0, &count) < 0 || read_u64(env, b, size, oh + 16, 0, &node) < 0)
		return 0;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	for (int i = 0; i < n && node; i++) {
		uint64_t r, p, c;

		add_kid(v, et, node + 32);
		if (read_u64(env, NULL, 0, 0, node + 24, &r) < 0)
			break;
		if (r) {	/* the leftmost node of the right subtree */
			node = r;
			while (read_u64(env, NULL, 0, 0, node + 16, &c) == 0 && c)
				node = c;
			continue;
		}
		for (int guard = 0; guard < 64; guard++) {	/* up while we are a right child */
			if (read_u64(env, NULL, 0, 0, node + 8, &p) < 0 ||
			    read_u64(env, NULL, 0, 0, p + 24, &r) < 0)
				return 1;
			if (r != node) {
				node = p;
				break;
			}
			node = p;
		}
	}
	return 1;
}

static int view_list(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		     struct cxx_view *v)
{
	uint64_t on, osz, node, count;
	const struct sym_type *et = value_type(env, t);
	int n;

	if (!et || !find_mem(t, "_M_node", &on, 0) || !find_mem(t, "_M_size", &osz, 0) ||
	    read_u64(env, b, size, osz, 0, &count) < 0 || read_u64(env, b, size, on, 0, &node) < 0)
		return 0;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	for (int i = 0; i < n && node; i++) {
		add_kid(v, et, node + 16);
		if (read_u64(env, NULL, 0, 0, node, &node) < 0)
			break;
	}
	return 1;
}

static int view_hash(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		     struct cxx_view *v)
{
	uint64_t obb, oc, node, count;
	const struct sym_type *et = value_type(env, t);
	int n;

	if (!et || !find_mem(t, "_M_before_begin", &obb, 0) ||
	    !find_mem(t, "_M_element_count", &oc, 0) || read_u64(env, b, size, oc, 0, &count) < 0 ||
	    read_u64(env, b, size, obb, 0, &node) < 0)
		return 0;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	for (int i = 0; i < n && node; i++) {
		add_kid(v, et, node + 8);
		if (read_u64(env, NULL, 0, 0, node, &node) < 0)
			break;
	}
	return 1;
}

/* deque: the elements in buffers of 512 bytes (one element when larger)
 * that _M_map points to; _M_start and _M_finish are iterators
 * (_M_cur, _M_first, _M_last, _M_node). */
static int view_deque(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		      struct cxx_view *v)
{
	uint64_t os, of, it[2][4], count, es, per, first;
	const struct sym_member *ms = find_mem(t, "_M_start", &os, 0);
	const struct sym_member *mc = ms ? find_mem(ms->type, "_M_cur", &es, 0) : NULL;
	const struct sym_type *pt = mc ? sym_type_strip(mc->type) : NULL;
	const struct sym_type *et = pt && pt->kind == SYM_T_POINTER ? pt->target : NULL;
	int n;

	es = et && sym_type_strip(et) ? sym_type_strip(et)->size : 0;
	if (!es || !find_mem(t, "_M_finish", &of, 0))
		return 0;
	for (int k = 0; k < 4; k++)
		if (read_u64(env, b, size, os + 8 * (uint64_t)k, 0, &it[0][k]) < 0 ||
		    read_u64(env, b, size, of + 8 * (uint64_t)k, 0, &it[1][k]) < 0)
			return 0;
	per = es < 512 ? 512 / es : 1;
	if (it[1][3] < it[0][3])
		return 0;
	count = (it[1][3] - it[0][3]) / 8 * per;	/* whole buffers from start's */
	count = count - per + (it[1][0] - it[1][1]) / es + (it[0][2] - it[0][0]) / es;
	if (it[1][3] == it[0][3])
		count = (it[1][0] - it[0][0]) / es;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	first = (it[0][0] - it[0][1]) / es;
	for (int i = 0; i < n; i++) {
		uint64_t k = first + (uint64_t)i, buf;

		if (read_u64(env, NULL, 0, 0, it[0][3] + k / per * 8, &buf) < 0)
			break;
		add_kid(v, et, buf + k % per * es);
	}
	return 1;
}

static int view_fwd_list(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
			 struct cxx_view *v)
{
	uint64_t oh, node, count = 0;
	const struct sym_type *et = value_type(env, t);
	int n;

	if (!et || !find_mem(t, "_M_head", &oh, 0) || read_u64(env, b, size, oh, 0, &node) < 0)
		return 0;
	for (uint64_t p = node; p && count < 100000; count++)
		if (read_u64(env, NULL, 0, 0, p, &p) < 0)
			break;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)count);
	v->container = 1;
	if ((n = kids_alloc(v, count)) < 0)
		return 0;
	for (int i = 0; i < n && node; i++) {
		add_kid(v, et, node + 8);
		if (read_u64(env, NULL, 0, 0, node, &node) < 0)
			break;
	}
	return 1;
}

/* optional: " Has Value=true " and its "Value"; the bytes are needed
 * (a summary of b alone, the value then read from memory is not there). */
static int view_optional(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
			 struct cxx_view *v)
{
	uint64_t oe, ov;
	const struct sym_member *mv = find_mem(t, "_M_value", &ov, 0);
	const struct sym_type *vt = mv ? sym_type_strip(mv->type) : NULL;

	(void)env;
	if (!b || !vt || !find_mem(t, "_M_engaged", &oe, 0) || oe >= size || ov + vt->size > size)
		return 0;
	snprintf(v->summary, sizeof(v->summary), " Has Value=%s ", b[oe] ? "true" : "false");
	v->container = 1;
	if (!b[oe])
		return 1;
	v->kids = calloc(1, sizeof(*v->kids) + vt->size);
	if (!v->kids)
		return 0;
	snprintf(v->kids[0].name, sizeof(v->kids[0].name), "Value");
	v->kids[0].type = mv->type;
	v->kids[0].bytes = (uint8_t *)(v->kids + 1);
	memcpy(v->kids[0].bytes, b + ov, vt->size);
	v->nkids = 1;
	return 1;
}

/* bitset<N>: its N bits as [i] = true/false. */
static int view_bitset(const struct sym_type *t, const uint8_t *b, size_t size,
		       struct cxx_view *v)
{
	static const struct sym_type boolean = { .kind = SYM_T_BASE, .name = "bool", .size = 1,
						 .enc = DW_ATE_boolean, .is_cxx = 1 };
	char a[64];
	uint64_t ow, bits;
	int n;

	if (!b || targ(t->name, 0, a, sizeof(a)) < 0 || !find_mem(t, "_M_w", &ow, 0))
		return 0;
	bits = strtoull(a, NULL, 10);
	if ((bits + 7) / 8 + ow > size)
		return 0;
	snprintf(v->summary, sizeof(v->summary), "size=%llu", (unsigned long long)bits);
	v->container = 1;
	if ((n = kids_alloc(v, bits)) < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct cxx_kid *k = &v->kids[i];

		snprintf(k->name, sizeof(k->name), "[%d]", i);
		k->type = &boolean;
		k->inline_bytes[0] = (b[ow + (uint64_t)i / 8] >> (i % 8)) & 1;
	}
	v->nkids = n;
	return 1;
}

/* unique_ptr ("pointer"), shared_ptr and weak_ptr ("_M_ptr"). */
static int view_smart(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
		      struct cxx_view *v, int shared)
{
	uint64_t off, ptr;
	const struct sym_member *m = find_mem_in(t, shared ? "_M_ptr" : "_M_head_impl", &off, 0, 1);
	const struct sym_type *pt = m ? sym_type_strip(m->type) : NULL;
	const struct sym_type *tg;

	if (!pt || pt->kind != SYM_T_POINTER || read_u64(env, b, size, off, 0, &ptr) < 0)
		return 0;
	tg = sym_type_strip(pt->target);
	if (!ptr)
		snprintf(v->summary, sizeof(v->summary), "nullptr");
	else if (shared && tg && (tg->kind == SYM_T_BASE || tg->kind == SYM_T_ENUM ||
				  tg->kind == SYM_T_POINTER))
		v->summary[0] = 1;	/* the pointee's value: value_fmt.c fills it */
	else
		snprintf(v->summary, sizeof(v->summary), "0x%llx", (unsigned long long)ptr);
	v->kids = calloc(1, sizeof(*v->kids));
	if (!v->kids)
		return 0;
	snprintf(v->kids[0].name, sizeof(v->kids[0].name), "%s", shared ? "_M_ptr" : "pointer");
	v->kids[0].type = m->type;
	memcpy(v->kids[0].inline_bytes, &ptr, 8);
	v->nkids = 1;
	return 1;
}

int cxx_view(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
	     struct cxx_view *v)
{
	const char *nm;

	memset(v, 0, sizeof(*v));
	t = sym_type_strip(t);
	if (!t || !t->is_cxx || (t->kind != SYM_T_CLASS && t->kind != SYM_T_STRUCT) || !t->name ||
	    !starts(t->name, "std::"))
		return 0;
	nm = t->name + 5;
	if (starts(nm, "__cxx11::"))
		nm += 9;
	if (starts(nm, "__debug::"))
		nm += 9;
	if (starts(nm, "vector<") && !starts(nm, "vector<bool,"))
		return view_vector(env, t, b, size, v);
	if (starts(nm, "map<") || starts(nm, "set<") || starts(nm, "multimap<") ||
	    starts(nm, "multiset<"))
		return view_tree(env, t, b, size, v);
	if (starts(nm, "list<"))
		return view_list(env, t, b, size, v);
	if (starts(nm, "deque<"))
		return view_deque(env, t, b, size, v);
	if (starts(nm, "forward_list<"))
		return view_fwd_list(env, t, b, size, v);
	if (starts(nm, "optional<"))
		return view_optional(env, t, b, size, v);
	if (starts(nm, "bitset<"))
		return view_bitset(t, b, size, v);
	if (starts(nm, "unordered_map<") || starts(nm, "unordered_set<") ||
	    starts(nm, "unordered_multimap<") || starts(nm, "unordered_multiset<"))
		return view_hash(env, t, b, size, v);
	if (starts(nm, "unique_ptr<"))
		return view_smart(env, t, b, size, v, 0);
	if (starts(nm, "shared_ptr<") || starts(nm, "weak_ptr<"))
		return view_smart(env, t, b, size, v, 1);
	return 0;
}

void cxx_view_free(struct cxx_view *v)
{
	free(v->kids);
	v->kids = NULL;
	v->nkids = 0;
}

int cxx_index(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
	      uint64_t i, const struct sym_type **et, uint64_t *addr, const char **why)
{
	struct cxx_view v;
	if (!cxx_view(env, t, b, size, &v) || !v.container) {
		cxx_view_free(&v);
		*why = "subscripted value is not an array or pointer";
		return -1;
	}
	if (i >= (uint64_t)v.nkids) {
		cxx_view_free(&v);
		*why = "index out of range";
		return -1;
	}
	if (!v.kids[i].addr) {	/* a computed child (a bit, an optional's value) */
		cxx_view_free(&v);
		*why = "subscripted value is not an array or pointer";
		return -1;
	}
	*et = v.kids[i].type;
	*addr = v.kids[i].addr;
	cxx_view_free(&v);
	return 0;
}

/* The address and type of a std::string's i-th char (_M_dataplus._M_p). */
static int string_char(const struct sym_type *t, const uint8_t *b, size_t size, uint64_t i,
		       const struct sym_type **et, uint64_t *addr)
{
	uint64_t dpo, po;
	const struct sym_member *dp = find_mem(t, "_M_dataplus", &dpo, 0);
	const struct sym_member *p = dp ? find_mem(dp->type, "_M_p", &po, 0) : NULL;
	const struct sym_type *pt = p ? sym_type_strip(p->type) : NULL;
	uint64_t ptr;

	if (!pt || pt->kind != SYM_T_POINTER || !pt->target || dpo + po + 8 > size)
		return -1;
	memcpy(&ptr, b + dpo + po, 8);
	*et = pt->target;
	*addr = ptr + i;
	return 0;
}

int cxx_index_expr(const struct value_env *env, const struct sym_type *t, const uint8_t *b,
		   size_t size, uint64_t i, const struct sym_type **et, uint64_t *addr,
		   const char **why)
{
	struct sym_type *ret = NULL;
	const struct sym_type *rs, *es, *ts;

	if (vf_is_std_string(t)) {
		/* a std::string: its i-th char, as operator[] gives it (no
		 * bounds check, as libstdc++'s) */
		if (string_char(t, b, size, i, et, addr) < 0) {
			*why = "subscripted value is not an array or pointer";
			return -1;
		}
	} else if (cxx_index(env, t, b, size, i, et, addr, why) < 0)
		return -1;
	es = sym_type_strip(*et);
	if (sym_type_method_ret(t, "operator[]", sym_type_is_const(t), &ret) == 0 &&
	    (rs = sym_type_strip(ret)) && (rs->kind == SYM_T_REF || rs->kind == SYM_T_RVREF) &&
	    (ts = sym_type_strip(rs->target)) && es && ts->kind == es->kind && ts->size == es->size)
		*et = rs->target;
	return 0;
}
