/* core/symbols/sym_type.c: C and C++ types read from DWARF DIEs through libdwarf
 * (base types, pointers, references, qualifiers, typedefs, structs, unions,
 * classes with bases, arrays, enums, bitfields, function types), cached per
 * module by DIE offset so recursive types (a list node's next) are built
 * once (their names as LLDB prints them: sym_tname.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "core/symbols/sym_int.h"
#include "core/symbols/sym_var.h"

struct sym_qual {		/* a C++ type's scope: "geo::", "std::__cxx11::" */
	uint64_t off;
	char *prefix;
	char *dprefix;		/* as clang prints it: inline namespaces left
				 * out ("std::") */
	uint64_t parent;	/* the class it is declared in (0: a namespace) */
};

struct sym_tcache {
	uint64_t *key;
	struct sym_type **val;
	size_t cap, n;
	struct sym_qual *qual;	/* sorted by offset */
	size_t nqual, qcap;
	int qual_done;
};

static size_t slot(const struct sym_tcache *c, uint64_t k)
{
	size_t i = (size_t)(k * 0x9E3779B97F4A7C15ull) & (c->cap - 1);

	while (c->val[i] && c->key[i] != k)
		i = (i + 1) & (c->cap - 1);
	return i;
}

static void cache_put(struct sym_module *m, uint64_t k, struct sym_type *t)
{
	struct sym_tcache *c = m->tcache;

	if (!c)
		c = m->tcache = xcalloc(1, sizeof(*c));
	if ((c->n + 1) * 2 > c->cap) {
		struct sym_tcache old = *c;

		c->cap = c->cap ? c->cap * 2 : 256;
		c->key = xcalloc(c->cap, sizeof(*c->key));
		c->val = xcalloc(c->cap, sizeof(*c->val));
		for (size_t i = 0; i < old.cap; i++)
			if (old.val[i]) {
				size_t s = slot(c, old.key[i]);
				c->key[s] = old.key[i];
				c->val[s] = old.val[i];
			}
		free(old.key);
		free(old.val);
	}
	size_t s = slot(c, k);
	c->key[s] = k;
	c->val[s] = t;
	c->n++;
}

static struct sym_type *cache_get(struct sym_module *m, uint64_t k)
{
	struct sym_tcache *c = m->tcache;

	return c && c->cap ? c->val[slot(c, k)] : NULL;
}

static void type_free(struct sym_type *t)
{
	if (t->row) {
		t->row->mem = NULL;	/* shared with t: freed below */
		t->row->nmem = 0;
		t->row->dims = NULL;
		t->row->name = NULL;
		type_free(t->row);
	}
	free(t->ptr_to);
	free(t->ref_to);
	for (struct sym_type *x = t->made, *next; x; x = next) {
		next = x->made;
		x->made = NULL;
		type_free(x);
	}
	for (int i = 0; i < t->nmem; i++)
		free((char *)t->mem[i].name);
	free(t->mem);
	free(t->dims);
	for (int i = 0; i < t->nenums; i++)
		free((char *)t->enums[i].name);
	free(t->enums);
	free((char *)t->name);
	free(t->lldb_name[0]);
	free(t->lldb_name[1]);
	free(t);
}

void sym_types_free(struct sym_module *m)
{
	struct sym_tcache *c = m->tcache;

	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->val[i])
			type_free(c->val[i]);
	free(c->key);
	free(c->val);
	for (size_t i = 0; i < c->nqual; i++) {
		free(c->qual[i].prefix);
		free(c->qual[i].dprefix);
	}
	free(c->qual);
	free(c);
	m->tcache = NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* DW_AT_data_member_location: a constant or DW_OP_plus_uconst N. */
static uint64_t member_offset(struct sym_module *m, Dwarf_Die die)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Half form = 0;
	uint64_t v = 0;

	if (dwarf_attr(die, DW_AT_data_member_location, &a, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
		return 0;
	}
	dwarf_whatform(a, &form, &e);
	if (form == DW_FORM_exprloc || form == DW_FORM_block1 || form == DW_FORM_block) {
		Dwarf_Unsigned len = 0;
		Dwarf_Ptr p = NULL;

		if (dwarf_formexprloc(a, &len, &p, &e) == DW_DLV_OK && len > 1 &&
		    ((uint8_t *)p)[0] == DW_OP_plus_uconst) {
			const uint8_t *b = (const uint8_t *)p + 1;
			unsigned shift = 0;

			for (Dwarf_Unsigned i = 1; i < len && shift < 64; i++, b++) {
				v |= (uint64_t)(*b & 0x7f) << shift;
				shift += 7;
				if (!(*b & 0x80))
					break;
			}
		}
	} else if (form == DW_FORM_implicit_const) {	/* DWARF 5: the value in the abbrev */
		Dwarf_Signed s;

		if (dwarf_formsdata(a, &s, &e) == DW_DLV_OK)
			v = (uint64_t)s;
	} else {
		Dwarf_Unsigned u;

		if (dwarf_formudata(a, &u, &e) == DW_DLV_OK)
			v = u;
	}
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	return v;
}

static struct sym_type *type_at(struct sym_module *m, uint64_t off, int cxx, int depth);

/* ---- C++ scopes: the namespaces and classes a type is declared in ---- */

static int qual_cmp(const void *a, const void *b)
{
	const struct sym_qual *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* prefix: the scope as DWARF names it; dprefix: as clang prints it (an
 * inline namespace, DW_AT_export_symbols, left out: "std::__cxx11::" is
 * "std::"); parent: the class the children are declared in. */
static void qual_walk(struct sym_module *m, Dwarf_Die die, const char *prefix,
		      const char *dprefix, uint64_t parent, int depth)
{
	struct sym_tcache *tc = m->tcache;
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 16)
		return;
	for (c = sym_die_child(m, die); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		Dwarf_Off off = 0;
		const char *n;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_namespace || tag == DW_TAG_structure_type ||
		    tag == DW_TAG_class_type || tag == DW_TAG_union_type ||
		    tag == DW_TAG_enumeration_type || tag == DW_TAG_typedef ||
		    tag == DW_TAG_subprogram ||	/* a function's: sym_func_dwarf_name */
		    tag == DW_TAG_variable) {	/* a global's: "ns::x" in expressions */
			n = sym_die_name(m, c);
			if (dwarf_dieoffset(c, &off, &e) != DW_DLV_OK)
				off = 0;
			if (*prefix && tag != DW_TAG_namespace && off) {
				if (tc->nqual == tc->qcap) {
					tc->qcap = tc->qcap ? tc->qcap * 2 : 256;
					tc->qual = xrealloc(tc->qual, tc->qcap * sizeof(*tc->qual));
				}
				tc->qual[tc->nqual].off = off;
				tc->qual[tc->nqual].prefix = xstrdup(prefix);
				tc->qual[tc->nqual].dprefix = xstrdup(dprefix);
				tc->qual[tc->nqual++].parent = parent;
			}
			if (tag == DW_TAG_namespace || ((tag == DW_TAG_structure_type ||
			     tag == DW_TAG_class_type || tag == DW_TAG_union_type) && n)) {
				char sub[1024], dsub[1024];
				int ns = tag == DW_TAG_namespace;

				snprintf(sub, sizeof(sub), "%s%s::", prefix, n ? n : "(anonymous namespace)");
				if (ns && sym_die_flag(m, c, DW_AT_export_symbols))
					snprintf(dsub, sizeof(dsub), "%s", dprefix);
				else
					snprintf(dsub, sizeof(dsub), "%s", sub);
				qual_walk(m, c, sub, ns ? dsub : "", ns ? 0 : off, depth + 1);
			}
		}
	}
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
}

static struct sym_qual *qual_find(struct sym_module *m, uint64_t off)
{
	struct sym_tcache *tc;
	struct sym_qual key = { off, NULL, NULL, 0 };

	if (!m->tcache)
		m->tcache = xcalloc(1, sizeof(*m->tcache));
	tc = m->tcache;
	if (!tc->qual_done) {
		tc->qual_done = 1;
		for (size_t i = 0; i < m->ncus; i++) {
			uint64_t lang = 0;

			if (sym_cu_die(m, &m->cus[i]) < 0)
				continue;
			sym_die_udata(m, m->cus[i].die, DW_AT_language, &lang);
			if (lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			    lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14)
				qual_walk(m, m->cus[i].die, "", "", 0, 0);
		}
		if (tc->nqual)	/* none: qual is NULL, which qsort may not take */
			qsort(tc->qual, tc->nqual, sizeof(*tc->qual), qual_cmp);
	}
	return tc->nqual ? bsearch(&key, tc->qual, tc->nqual, sizeof(*tc->qual), qual_cmp) : NULL;
}

int sym_type_scope(struct sym_module *m, uint64_t off, const char **dprefix, uint64_t *parent)
{
	struct sym_qual *q = qual_find(m, off);

	*dprefix = q ? q->dprefix : "";
	*parent = q ? q->parent : 0;
	return q ? 0 : -1;
}

const char *sym_type_scope_raw(struct sym_module *m, uint64_t off)
{
	struct sym_qual *q = qual_find(m, off);

	return q ? q->prefix : "";
}

/* name with its scope ("geo::Rect") in C++ units; a heap string. */
static char *qualified(struct sym_module *m, uint64_t off, const char *name, int cxx)
{
	struct sym_qual *hit;

	if (!name)
		return NULL;
	if (!cxx)
		return xstrdup(name);
	hit = qual_find(m, off);
	if (!hit)
		return xstrdup(name);
	{
		size_t n = strlen(hit->prefix) + strlen(name) + 1;
		char *q = xmalloc(n);

		snprintf(q, n, "%s%s", hit->prefix, name);
		return q;
	}
}

static struct sym_type *die_type(struct sym_module *m, Dwarf_Die die, int cxx, int depth)
{
	uint64_t off;

	if (sym_die_ref(m, die, DW_AT_type, &off) < 0)
		return NULL;
	return type_at(m, off, cxx, depth + 1);
}

static void add_member(struct sym_module *m, struct sym_type *t, Dwarf_Die c,
		       Dwarf_Half tag, int cxx, int depth)
{
	struct sym_member *mb;
	uint64_t v;

	if (tag == DW_TAG_member && sym_die_flag(m, c, DW_AT_artificial))
		t->dynamic = 1;	/* the vtable pointer: t has virtual functions */
	if (tag == DW_TAG_inheritance && sym_die_udata(m, c, DW_AT_virtuality, &v) == 0 && v)
		t->dynamic = 1;	/* a virtual base */
	if (tag == DW_TAG_member && (sym_die_flag(m, c, DW_AT_external) ||
				     sym_die_flag(m, c, DW_AT_artificial)))
		return;		/* a static member (DWARF 4), the vtable pointer */
	t->mem = xrealloc(t->mem, (size_t)(t->nmem + 1) * sizeof(*t->mem));
	mb = &t->mem[t->nmem++];
	memset(mb, 0, sizeof(*mb));
	mb->name = dup_or_null(tag == DW_TAG_inheritance ? NULL : sym_die_name(m, c));
	mb->is_base = tag == DW_TAG_inheritance;
	mb->off = member_offset(m, c);
	mb->type = die_type(m, c, cxx, depth);
	if (!mb->name && !mb->is_base && mb->type && !mb->type->name &&
	    (mb->type->kind == SYM_T_STRUCT || mb->type->kind == SYM_T_UNION ||
	     mb->type->kind == SYM_T_CLASS))
		mb->type->anon_member = 1;
	if (sym_die_udata(m, c, DW_AT_bit_size, &v) == 0) {
		mb->bit_size = (unsigned)v;
		if (sym_die_udata(m, c, DW_AT_data_bit_offset, &v) == 0) {
			mb->off = v / 8;
			mb->bit_off = (unsigned)(v % 8);
		} else if (sym_die_udata(m, c, DW_AT_bit_offset, &v) == 0) {
			uint64_t bs = 0;

			/* DWARF 2/3: bits from the storage unit's most
			 * significant bit */
			if (sym_die_udata(m, c, DW_AT_byte_size, &bs) < 0)
				bs = mb->type ? mb->type->size : 4;
			mb->bit_off = (unsigned)(bs * 8 - v - mb->bit_size);
		}
	}
}

static void add_dim(struct sym_module *m, struct sym_type *t, Dwarf_Die c)
{
	uint64_t v = 0, lo = 0;

	t->dims = xrealloc(t->dims, (size_t)(t->ndims + 1) * sizeof(*t->dims));
	if (sym_die_udata(m, c, DW_AT_count, &v) == 0)
		t->dims[t->ndims] = v;
	else if (sym_die_udata(m, c, DW_AT_upper_bound, &v) == 0 && (int64_t)v >= 0) {
		sym_die_udata(m, c, DW_AT_lower_bound, &lo);
		t->dims[t->ndims] = v - lo + 1;
	} else
		t->dims[t->ndims] = 0;	/* flexible or variable length */
	t->ndims++;
}

static void add_enum(struct sym_module *m, struct sym_type *t, Dwarf_Die c)
{
	uint64_t v = 0;
	struct sym_enumerator *en;

	sym_die_udata(m, c, DW_AT_const_value, &v);
	t->enums = xrealloc(t->enums, (size_t)(t->nenums + 1) * sizeof(*t->enums));
	en = &t->enums[t->nenums++];
	en->name = dup_or_null(sym_die_name(m, c));
	en->value = (int64_t)v;
}

static void errfree(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

/* A member function that makes its class non-trivial for calls: a
 * destructor, a copy or move constructor (a reference to the class as its
 * first parameter after this), a virtual function; not one defaulted. */
static int special_member(struct sym_module *m, const struct sym_type *t, Dwarf_Die f)
{
	const char *n = sym_die_name(m, f);
	uint64_t v;

	if (!n || sym_die_udata(m, f, DW_AT_defaulted, &v) == 0)
		return 0;
	if (n[0] == '~' || (sym_die_udata(m, f, DW_AT_virtuality, &v) == 0 && v))
		return 1;
	if (!t->name || strcmp(n, t->name))
		return 0;
	for (Dwarf_Die p = sym_die_child(m, f); p; p = sym_die_next(m, p)) {
		Dwarf_Half tag = 0;
		Dwarf_Error e = NULL;
		uint64_t off;
		Dwarf_Die r = NULL;
		int ref;

		if (dwarf_tag(p, &tag, &e) != DW_DLV_OK || tag != DW_TAG_formal_parameter ||
		    sym_die_flag(m, p, DW_AT_artificial)) {	/* this */
			errfree(m, &e);
			continue;
		}
		tag = 0;
		if (sym_die_ref(m, p, DW_AT_type, &off) == 0 &&
		    dwarf_offdie_b(m->dbg, off, 1, &r, &e) == DW_DLV_OK)
			dwarf_tag(r, &tag, &e);
		errfree(m, &e);
		ref = tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type;
		sym_die_free(m, r);
		sym_die_free(m, p);
		return ref;
	}
	return 0;
}

static void read_children(struct sym_module *m, struct sym_type *t, Dwarf_Die die,
			  int cxx, int depth)
{
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	for (c = sym_die_child(m, die); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;

		dwarf_tag(c, &tag, &e);
		if ((tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
		    (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION || t->kind == SYM_T_CLASS))
			add_member(m, t, c, tag, cxx, depth);
		else if (tag == DW_TAG_subprogram && cxx && !t->by_ref &&
			 (t->kind == SYM_T_STRUCT || t->kind == SYM_T_CLASS))
			t->by_ref = special_member(m, t, c);
		else if (tag == DW_TAG_subrange_type && t->kind == SYM_T_ARRAY)
			add_dim(m, t, c);
		else if (tag == DW_TAG_enumerator && t->kind == SYM_T_ENUM)
			add_enum(m, t, c);
		else if (tag == DW_TAG_unspecified_parameters && t->kind == SYM_T_FUNC)
			t->variadic = 1;	/* "int (*)(const char *, ...)" */
		else if (tag == DW_TAG_formal_parameter && t->kind == SYM_T_FUNC &&
			 !sym_die_flag(m, c, DW_AT_artificial)) {	/* a method's this: not named */
			t->mem = xrealloc(t->mem, (size_t)(t->nmem + 1) * sizeof(*t->mem));
			memset(&t->mem[t->nmem], 0, sizeof(t->mem[0]));
			t->mem[t->nmem++].type = die_type(m, c, cxx, depth);
		}
	}
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
}

static enum sym_tkind tag_kind(Dwarf_Half tag, int *ok)
{
	*ok = 1;
	switch (tag) {
	case DW_TAG_base_type: return SYM_T_BASE;
	case DW_TAG_pointer_type: return SYM_T_POINTER;
	case DW_TAG_reference_type: return SYM_T_REF;
	case DW_TAG_rvalue_reference_type: return SYM_T_RVREF;
	case DW_TAG_structure_type: return SYM_T_STRUCT;
	case DW_TAG_union_type: return SYM_T_UNION;
	case DW_TAG_class_type: return SYM_T_CLASS;
	case DW_TAG_array_type: return SYM_T_ARRAY;
	case DW_TAG_enumeration_type: return SYM_T_ENUM;
	case DW_TAG_typedef: return SYM_T_TYPEDEF;
	case DW_TAG_const_type: return SYM_T_CONST;
	case DW_TAG_volatile_type: return SYM_T_VOLATILE;
	case DW_TAG_subroutine_type: return SYM_T_FUNC;
	case DW_TAG_ptr_to_member_type: return SYM_T_MEMBER_PTR;
	case DW_TAG_unspecified_type: return SYM_T_VOID;
	case DW_TAG_atomic_type: case DW_TAG_restrict_type: return SYM_T_TYPEDEF;
	default: *ok = 0; return SYM_T_VOID;
	}
}

/* int[2][3]: its rows are int[3], an array type of the other dimensions
 * (dims shared with t). */
static void make_rows(struct sym_type *t)
{
	for (struct sym_type *a = t; a->ndims > 1; a = a->row) {
		struct sym_type *r = xcalloc(1, sizeof(*r));

		r->kind = SYM_T_ARRAY;
		r->is_cxx = a->is_cxx;
		r->target = a->target;
		r->dims = a->dims + 1;
		r->ndims = a->ndims - 1;
		r->size = a->dims[0] ? a->size / a->dims[0] : 0;
		a->row = r;
	}
}

/* *slot, t's pointer or reference type (kind), made on first use. */
static const struct sym_type *derived(struct sym_type *t, struct sym_type **slot,
				      enum sym_tkind kind)
{
	if (!*slot) {
		*slot = xcalloc(1, sizeof(**slot));
		(*slot)->kind = kind;
		(*slot)->size = 8;
		(*slot)->target = t;
		(*slot)->is_cxx = t->is_cxx;
	}
	return *slot;
}

const struct sym_type *sym_type_pointer_to(struct sym_type *t)
{
	return derived(t, &t->ptr_to, SYM_T_POINTER);
}

const struct sym_type *sym_type_ref_to(struct sym_type *t)
{
	return derived(t, &t->ref_to, SYM_T_REF);
}

static void type_fill(struct sym_module *m, struct sym_type *t, Dwarf_Die die,
		      Dwarf_Half tag, int depth)
{
	uint64_t v;

	t->target = die_type(m, die, t->is_cxx, depth);
	if (tag == DW_TAG_atomic_type || tag == DW_TAG_restrict_type)
		t->name = NULL;		/* transparent: named by their target */
	t->restrict_q = tag == DW_TAG_restrict_type;
	if (sym_die_udata(m, die, DW_AT_byte_size, &v) == 0)
		t->size = v;
	else if (t->kind == SYM_T_POINTER || t->kind == SYM_T_REF || t->kind == SYM_T_RVREF)
		t->size = 8;
	if (t->kind == SYM_T_MEMBER_PTR) {
		const struct sym_type *tg = sym_type_strip(t->target);

		if (sym_die_ref(m, die, DW_AT_containing_type, &v) == 0)
			t->cls = type_at(m, v, t->is_cxx, depth + 1);
		if (!t->size)	/* the Itanium C++ ABI's: an offset, or a
				 * function's address (or vtable offset + 1)
				 * and the adjustment of this */
			t->size = tg && tg->kind == SYM_T_FUNC ? 16 : 8;
	}
	if (sym_die_udata(m, die, DW_AT_encoding, &v) == 0)
		t->enc = (int)v;
	t->declaration = sym_die_flag(m, die, DW_AT_declaration);
	read_children(m, t, die, t->is_cxx, depth);
	if (t->kind == SYM_T_ARRAY) {
		uint64_t n = t->target ? t->target->size : 0;

		for (int i = 0; i < t->ndims; i++)
			n *= t->dims[i];
		t->size = n;
		make_rows(t);
	}
	if ((t->kind == SYM_T_TYPEDEF || t->kind == SYM_T_CONST ||
	     t->kind == SYM_T_VOLATILE) && t->target)
		t->size = t->target->size;
	if (t->kind == SYM_T_ENUM) {
		const struct sym_type *u = t->target ? sym_type_strip(t->target) : NULL;

		t->unsigned_enum = u && (u->enc == DW_ATE_unsigned || u->enc == DW_ATE_unsigned_char);
		if (!t->size)
			t->size = 4;
	}
}

/* depth bounds the recursion through types that are not cached yet (a
 * hostile file can chain them). */
static struct sym_type *type_at(struct sym_module *m, uint64_t off, int cxx, int depth)
{
	struct sym_type *t = cache_get(m, off);
	Dwarf_Die die = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Half tag = 0;
	int ok;

	if (t)
		return t;
	if (depth > 64 || dwarf_offdie_b(m->dbg, off & ~SYM_DIE_TYPES, !(off & SYM_DIE_TYPES),
					 &die, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
		return NULL;
	}
	dwarf_tag(die, &tag, &e);
	{	/* a declaration standing for a type unit's type */
		uint64_t sig;

		if (sym_die_ref(m, die, DW_AT_signature, &sig) == 0 && sig != off) {
			dwarf_dealloc(m->dbg, die, DW_DLA_DIE);
			if (e)
				dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
			/* not cached under off too: the cache owns each type once */
			return type_at(m, sig, cxx, depth + 1);
		}
	}
	t = xcalloc(1, sizeof(*t));
	t->kind = tag_kind(tag, &ok);
	t->is_cxx = cxx;
	t->mod = m;
	t->die = off;
	t->name = qualified(m, off, sym_die_name(m, die), cxx);
	if (cxx)
		t->scoped_enum = tag == DW_TAG_enumeration_type &&
				 sym_die_flag(m, die, DW_AT_enum_class);
	cache_put(m, off, t);	/* before the members: they may point back */
	if (ok)
		type_fill(m, t, die, tag, depth);
	dwarf_dealloc(m->dbg, die, DW_DLA_DIE);
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	return t;
}

struct sym_type *sym_type_at(struct sym_module *m, uint64_t off, int cxx)
{
	return type_at(m, off, cxx, 0);
}

const struct sym_type *sym_type_strip(const struct sym_type *t)
{
	for (int i = 0; t && i < 64 && (t->kind == SYM_T_TYPEDEF || t->kind == SYM_T_CONST ||
				      t->kind == SYM_T_VOLATILE); i++)
		t = t->target;
	return t;
}

int sym_type_scalar_class(const struct sym_type *t)
{
	t = sym_type_strip(t);
	if (!t || t->kind != SYM_T_BASE)
		return t && (t->kind == SYM_T_POINTER || t->kind == SYM_T_ENUM) ? 'u' : 0;
	if (t->enc == DW_ATE_float || t->enc == DW_ATE_complex_float)
		return 'f';
	return t->enc == DW_ATE_signed || t->enc == DW_ATE_signed_char ? 's' : 'u';
}

/* ---- lookup by name (casts, sizeof) ---- */

static int named_in(struct sym_module *m, Dwarf_Die die, const char *name, int cxx,
		    int depth, struct sym_type **out)
{
	Dwarf_Die c;
	Dwarf_Error e = NULL;

	if (depth > 8)
		return 0;
	for (c = sym_die_child(m, die); c && !*out; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;
		Dwarf_Off off;
		const char *n;

		dwarf_tag(c, &tag, &e);
		if (tag == DW_TAG_namespace)
			named_in(m, c, name, cxx, depth + 1, out);
		else if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			  tag == DW_TAG_class_type || tag == DW_TAG_enumeration_type ||
			  tag == DW_TAG_typedef || tag == DW_TAG_base_type) &&
			 (n = sym_die_name(m, c)) && !strcmp(n, name) &&
			 !sym_die_flag(m, c, DW_AT_declaration) &&
			 dwarf_dieoffset(c, &off, &e) == DW_DLV_OK)
			*out = sym_type_at(m, off, cxx);
	}
	sym_die_free(m, c);
	if (e)
		dwarf_dealloc(m->dbg, e, DW_DLA_ERROR);
	return *out != NULL;
}

struct sym_type *sym_type_named(struct sym_module *m, const char *qname)
{
	struct sym_type *t = NULL;
	const char *name = qname, *c;

	/* DW_AT_name is the last component (outside template arguments:
	 * "std::pair<int const, std::__cxx11::basic_string<...> >" is
	 * "pair<...>"); the scope is checked after */
	for (c = qname; *c; c++) {
		if (*c == '<')
			break;
		if (c[0] == ':' && c[1] == ':')
			name = c + 2;
	}
	if (sym_dwarf_init(m) < 0)
		return NULL;
	for (size_t i = 0; i < m->ncus && !t; i++) {
		uint64_t lang = 0;
		int cxx;

		if (sym_cu_die(m, &m->cus[i]) < 0)
			continue;
		sym_die_udata(m, m->cus[i].die, DW_AT_language, &lang);
		cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_11 ||
		      lang == DW_LANG_C_plus_plus_14 || lang == DW_LANG_C_plus_plus_03;
		named_in(m, m->cus[i].die, name, cxx, 0, &t);
		if (t && name != qname && (!t->name || strcmp(t->name, qname)))
			t = NULL;	/* another scope's type of that name */
	}
	return t;
}
