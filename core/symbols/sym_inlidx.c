/* core/symbols/sym_inlidx.c: breakpoints by name at inlined copies, as LLDB
 * places them — the index of a module's functions declared inline, read
 * from the raw .debug_info once (libdwarf for the units it cannot read),
 * and the inlined calls of the units that declare a name.  Building the
 * index needs no libdwarf: a module's DWARF is opened only when a name
 * is in its index (libc's for b main costs a read of its .debug_info,
 * not libdwarf's tables of its 2000 units). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

#include <dwarf.h>

/* Breakpoints by name at inlined copies, as LLDB places them: the module's
 * functions declared inline (a DW_TAG_subprogram with DW_AT_inline, the
 * abstract origin of its inlined calls), found by walking the top-level
 * DIEs of every unit once, the first time a name is looked up; then only
 * the units declaring that name have their calls read. */
struct sym_inl_name {
	char *name;		/* NULL: read through libdwarf at die */
	uint64_t cu;		/* the unit's DIE offset (struct sym_cu's off) */
	uint64_t die;
};

static void inl_index_add(struct sym_module *m, char *name, uint64_t cu, uint64_t die,
			  size_t *cap)
{
	if (m->ninl_names == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		m->inl_names = xrealloc(m->inl_names, *cap * sizeof(*m->inl_names));
	}
	m->inl_names[m->ninl_names].name = name;
	m->inl_names[m->ninl_names].cu = cu;
	m->inl_names[m->ninl_names].die = die;
	m->ninl_names++;
	m->inl_unnamed += !name;
}

static int scope_has(struct sym_module *m, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error e = NULL;

	if (dwarf_hasattr(die, at, &has, &e) != DW_DLV_OK)
		has = 0;
	sym_scope_err(m, &e);
	return has != 0;
}

static void inl_index_children(struct sym_module *m, Dwarf_Die parent, uint64_t cu, size_t *cap,
			       int nest)
{
	Dwarf_Error e = NULL;
	Dwarf_Die c;

	if (nest > 8)
		return;
	for (c = sym_die_child(m, parent); c; c = sym_die_next(m, c)) {
		Dwarf_Half tag = 0;

		if (dwarf_tag(c, &tag, &e) != DW_DLV_OK)
			sym_scope_err(m, &e);
		if (tag == DW_TAG_subprogram && scope_has(m, c, DW_AT_inline)) {
			char *name = sym_scope_name(m, c, 0);

			if (name)
				inl_index_add(m, name, cu, 0, cap);
		} else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			   tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
			inl_index_children(m, c, cu, cap, nest + 1);
		}
	}
}

/* The raw reading of .debug_info that finds the functions declared inline
 * without libdwarf's per-DIE cost (as LLDB's own index reads it): each
 * unit's abbreviations, then its DIEs in order, attributes skipped by
 * form.  A unit it cannot read is left to inl_index_children. */
struct raw_abbrev {
	uint64_t tag;
	const uint8_t *attrs;	/* (name, form[, implicit const]) pairs */
};

struct raw_unit {
	const uint8_t *start, *end;	/* the unit, its header included */
	const uint8_t *dies;		/* past its header */
	unsigned addrsz, offsz, ver;
	const uint8_t *str, *lstr;
	size_t strlen_, lstrlen;
	struct raw_abbrev *ab;		/* by code */
	size_t nab;
	const uint8_t *aend;
};

/* What a DIE says of its name, as sym_scope_name reads it: the strings of
 * DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name (has: present;
 * s: NULL for a form read here only through libdwarf), and the unit
 * offsets of DW_AT_abstract_origin, DW_AT_specification (-1: a reference
 * outside the unit). */
struct raw_die {
	uint64_t tag;
	int inl;
	int has[3];
	const char *s[3];
	int hasref[2];
	int64_t ref[2];
};

static int raw_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	while (*p < end) {
		uint8_t b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static uint64_t raw_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/* Skips an attribute of form f; *str is set for a name's string forms. */
static int raw_skip(const struct raw_unit *u, const uint8_t **p, uint64_t f, const char **str)
{
	const uint8_t *end = u->end;
	uint64_t n = 0, off;
	int fixed = -1;

	*str = NULL;
	switch (f) {
	case DW_FORM_addr: fixed = (int)u->addrsz; break;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
	case DW_FORM_addrx1: fixed = 1; break;
	case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: fixed = 2; break;
	case DW_FORM_strx3: case DW_FORM_addrx3: fixed = 3; break;
	case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_strx4: case DW_FORM_addrx4:
	case DW_FORM_ref_sup4: fixed = 4; break;
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: fixed = 8; break;
	case DW_FORM_data16: fixed = 16; break;
	case DW_FORM_flag_present: case DW_FORM_implicit_const: fixed = 0; break;
	case DW_FORM_ref_addr: fixed = u->ver <= 2 ? (int)u->addrsz : (int)u->offsz; break;
	case DW_FORM_sec_offset: case DW_FORM_strp_sup: case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt: fixed = (int)u->offsz; break;
	case DW_FORM_strp: case DW_FORM_line_strp:
		if (end - *p < (long)u->offsz)
			return -1;
		off = raw_le(*p, u->offsz);
		*p += u->offsz;
		if (f == DW_FORM_strp ? off < u->strlen_ : off < u->lstrlen)
			*str = (const char *)(f == DW_FORM_strp ? u->str : u->lstr) + off;
		return 0;
	case DW_FORM_string:
		*str = (const char *)*p;
		while (*p < end && **p)
			(*p)++;
		if (*p >= end)
			return -1;
		(*p)++;
		return 0;
	case DW_FORM_sdata: case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx:
	case DW_FORM_addrx: case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return raw_uleb(p, end, &n);
	case DW_FORM_block1: if (end - *p < 1) return -1; n = **p; *p += 1; break;
	case DW_FORM_block2: if (end - *p < 2) return -1; n = raw_le(*p, 2); *p += 2; break;
	case DW_FORM_block4: if (end - *p < 4) return -1; n = raw_le(*p, 4); *p += 4; break;
	case DW_FORM_block: case DW_FORM_exprloc:
		if (raw_uleb(p, end, &n) < 0)
			return -1;
		break;
	case DW_FORM_indirect:
		if (raw_uleb(p, end, &n) < 0 || n == DW_FORM_indirect)
			return -1;
		return raw_skip(u, p, n, str);
	default:
		return -1;
	}
	if (fixed >= 0)
		n = (uint64_t)fixed;
	if ((uint64_t)(end - *p) < n)
		return -1;
	*p += n;
	return 0;
}

/* The DIE at *p (moved past it): 1, 0 for a null entry, -1 when it is not
 * understood. */
static int raw_die_read(const struct raw_unit *u, const uint8_t **p, struct raw_die *d)
{
	uint64_t code, at = 0, form = 0, ic;
	const uint8_t *a;

	memset(d, 0, sizeof(*d));
	if (raw_uleb(p, u->end, &code) < 0)
		return -1;
	if (code == 0)
		return 0;
	if (code >= u->nab || !u->ab[code].attrs)
		return -1;
	d->tag = u->ab[code].tag;
	a = u->ab[code].attrs;
	for (;;) {
		const uint8_t *v = *p;
		const char *str;
		int i;

		raw_uleb(&a, u->aend, &at);
		raw_uleb(&a, u->aend, &form);
		if (!at && !form)
			break;
		if (form == DW_FORM_implicit_const)
			raw_uleb(&a, u->aend, &ic);
		if (raw_skip(u, p, form, &str) < 0)
			return -1;
		if (at == DW_AT_inline) {
			d->inl = 1;
		} else if ((i = at == DW_AT_linkage_name ? 0 : at == DW_AT_MIPS_linkage_name ? 1 :
			    at == DW_AT_name ? 2 : -1) >= 0) {
			d->has[i] = 1;
			d->s[i] = str;
		} else if ((i = at == DW_AT_abstract_origin ? 0 : at == DW_AT_specification ? 1 : -1) >= 0) {
			uint64_t r = 0;

			d->hasref[i] = 1;
			if (form == DW_FORM_ref1 || form == DW_FORM_ref2 || form == DW_FORM_ref4 ||
			    form == DW_FORM_ref8)
				r = raw_le(v, (unsigned)(*p - v));
			else if (form != DW_FORM_ref_udata || raw_uleb(&v, *p, &r) < 0)
				r = UINT64_MAX;
			d->ref[i] = r >= (uint64_t)(u->dies - u->start) &&
				    r < (uint64_t)(u->end - u->start) ? (int64_t)r : -1;
		}
	}
	return 1;
}

/* LLDB's name of the DIE at die (sym_scope_name's rules) read raw: 1 with
 * *out (heap, or NULL when it has none), 0 when only libdwarf can say. */
static int raw_die_name(const struct raw_unit *u, const uint8_t *die, int hops, char **out)
{
	struct raw_die d;
	const uint8_t *p = die;

	*out = NULL;
	if (raw_die_read(u, &p, &d) <= 0)
		return 0;
	for (int i = 0; i < 3; i++) {
		if (!d.has[i])
			continue;
		if (!d.s[i])
			return 0;
		if (i < 2 && (*out = sym_demangle(d.s[i])))
			return 1;
		*out = xstrdup(d.s[i]);
		return 1;
	}
	for (int i = 0; i < 2 && hops < 4; i++) {
		if (!d.hasref[i])
			continue;
		if (d.ref[i] < 0 || !raw_die_name(u, u->start + d.ref[i], hops + 1, out))
			return 0;
		if (*out)
			return 1;
	}
	return 1;
}

/* The abbreviation table at [q, aend) read into u->ab: 0, or -1 (u->ab
 * freed) when it does not end before aend or is not understood. */
static int raw_abbrevs(struct raw_unit *u, const uint8_t *q, const uint8_t *aend)
{
	struct raw_abbrev *ab = NULL;
	size_t nab = 0;

	for (;;) {
		uint64_t code, tag, at, form, ic;

		if (raw_uleb(&q, aend, &code) < 0)
			goto bad;
		if (code == 0)
			break;
		if (code > 100000 || raw_uleb(&q, aend, &tag) < 0 || q >= aend)
			goto bad;
		if (code >= nab) {
			size_t nn = code + 16;

			ab = xrealloc(ab, nn * sizeof(*ab));
			memset(ab + nab, 0, (nn - nab) * sizeof(*ab));
			nab = nn;
		}
		ab[code].tag = tag;
		ab[code].attrs = ++q;	/* past the children byte */
		do {
			if (raw_uleb(&q, aend, &at) < 0 || raw_uleb(&q, aend, &form) < 0 ||
			    (form == DW_FORM_implicit_const && raw_uleb(&q, aend, &ic) < 0))
				goto bad;
		} while (at || form);
	}
	u->ab = ab;
	u->nab = nab;
	u->aend = aend;
	return 0;
bad:
	free(ab);
	u->ab = NULL;
	u->nab = 0;
	return -1;
}

/* The unit's abbreviation table, at aoff in .debug_abbrev (alen bytes),
 * read a window at a time: 0, or -1. */
static int raw_unit_abbrevs(struct raw_unit *u, struct sym_dwstream *abbr, uint64_t aoff,
			    size_t alen)
{
	for (size_t n = 4096;; n *= 2) {
		size_t k = n < alen - aoff ? n : alen - aoff;
		const uint8_t *a = sym_dwstream_at(abbr, aoff, k);

		if (!a)
			return -1;
		if (raw_abbrevs(u, a, a + k) == 0)
			return 0;
		if (k == alen - aoff)
			return -1;
	}
}

/* One unit's DIEs [p, u->end) with the abbreviations of u: 0, or -1
 * (nothing added) when something in it is not understood.  The unit's
 * bytes start at h, at offset hoff in .debug_info. */
static int raw_unit_scan(struct sym_module *m, struct raw_unit *u, const uint8_t *p,
			 const uint8_t *h, uint64_t hoff, uint64_t cu, size_t *cap)
{
	size_t before = m->ninl_names, unnamed = m->inl_unnamed;
	int rc = -1;

	while (p < u->end) {
		const uint8_t *die = p;
		struct raw_die d;
		char *name;
		int r = raw_die_read(u, &p, &d);

		if (r < 0)
			goto out;
		if (r == 0 || d.tag != DW_TAG_subprogram || !d.inl)
			continue;
		/* a name this cannot read (a reference out of the unit, a
		 * string form it does not know): LLDB's name through
		 * libdwarf, when a lookup first needs it */
		if (!raw_die_name(u, die, 0, &name))
			inl_index_add(m, NULL, cu, hoff + (uint64_t)(die - h), cap);
		else if (name)
			inl_index_add(m, name, cu, 0, cap);
	}
	rc = 0;
out:
	if (rc < 0) {
		for (size_t i = before; i < m->ninl_names; i++)
			free(m->inl_names[i].name);
		m->ninl_names = before;
		m->inl_unnamed = unnamed;
	}
	return rc;
}

/* Names the entries the raw reading left to libdwarf (m's DWARF open);
 * one whose DIE or name cannot be read is dropped. */
static void inl_index_names(struct sym_module *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->ninl_names; i++) {
		struct sym_inl_name *in = &m->inl_names[i];
		Dwarf_Die d = NULL;
		Dwarf_Error e = NULL;

		if (!in->name) {
			if (dwarf_offdie_b(m->dbg, (Dwarf_Off)in->die, 1, &d, &e) != DW_DLV_OK) {
				sym_scope_err(m, &e);
				continue;
			}
			in->name = sym_scope_name(m, d, 0);
			dwarf_dealloc(m->dbg, d, DW_DLA_DIE);
			if (!in->name)
				continue;
		}
		m->inl_names[k++] = *in;
	}
	m->ninl_names = k;
	m->inl_unnamed = 0;
}

static int inl_cu_cmp(const void *key, const void *elem)
{
	uint64_t off = *(const uint64_t *)key, o = ((const struct sym_cu *)elem)->off;

	return off < o ? -1 : off > o;
}

/* The unit whose DIE is at off, or NULL (m->cus is in section order). */
static struct sym_cu *inl_cu(struct sym_module *m, uint64_t off)
{
	return m->ncus ? bsearch(&off, m->cus, m->ncus, sizeof(*m->cus), inl_cu_cmp) : NULL;
}

/* The index of the module's functions declared inline, from its raw
 * .debug_info where it can be read so (in order, a unit at a time; a
 * compressed section is inflated once, for libdwarf too), else through
 * libdwarf. */
static void inl_index_build(struct sym_module *m)
{
	size_t ilen = 0, alen = 0, cap = 0, ndone = 0, dcap = 0, j = 0;
	struct sym_dwstream *abbr = sym_dwstream_open(m, ".debug_abbrev", &alen);
	struct sym_dwstream *info = abbr ? sym_dwstream_open(m, ".debug_info", &ilen) : NULL;
	uint64_t *done = NULL;	/* the DIE offsets of the units read raw */
	int whole = info != NULL;	/* every unit read raw */
	struct raw_unit u;
	size_t off = 0;

	memset(&u, 0, sizeof(u));
	u.str = sym_dwobj_bytes(m, ".debug_str", &u.strlen_);
	u.lstr = sym_dwobj_bytes(m, ".debug_line_str", &u.lstrlen);
	for (; info && off + 11 <= ilen;) {
		const uint8_t *h = sym_dwstream_at(info, off, 4);
		uint64_t len = h ? raw_le(h, 4) : 0, aoff;
		size_t hdr;
		unsigned ut = DW_UT_compile;

		if (!h || len >= 0xfffffff0u || len > ilen - off - 4 ||
		    !(h = sym_dwstream_at(info, off, 4 + len)))
			break;	/* 64-bit DWARF or damage: libdwarf does the rest */
		u.ver = (unsigned)raw_le(h + 4, 2);
		u.offsz = 4;
		if (u.ver >= 5) {
			ut = h[6];
			u.addrsz = h[7];
			aoff = raw_le(h + 8, 4);
			hdr = 12;
		} else {
			aoff = raw_le(h + 6, 4);
			u.addrsz = h[10];
			hdr = 11;
		}
		u.start = h;
		u.dies = h + hdr;
		u.end = h + 4 + len;
		if ((ut == DW_UT_compile || ut == DW_UT_partial) && hdr <= 4 + len && aoff < alen &&
		    (u.addrsz == 4 || u.addrsz == 8) && raw_unit_abbrevs(&u, abbr, aoff, alen) == 0 &&
		    raw_unit_scan(m, &u, h + hdr, h, off, off + hdr, &cap) == 0) {
			if (ndone == dcap) {
				dcap = dcap ? dcap * 2 : 256;
				done = xrealloc(done, dcap * sizeof(*done));
			}
			done[ndone++] = off + hdr;
		} else {
			whole = 0;
		}
		free(u.ab);
		u.ab = NULL;
		u.nab = 0;
		off += 4 + len;
	}
	sym_dwstream_close(info);
	sym_dwstream_close(abbr);
	/* the units libdwarf lists and the raw reading did not read */
	if ((!whole || off + 11 <= ilen || m->dw_state > 0) && sym_dwarf_init(m) == 0)
		for (size_t i = 0; i < m->ncus; i++) {
			while (j < ndone && done[j] < m->cus[i].off)
				j++;
			if ((j == ndone || done[j] != m->cus[i].off) && sym_cu_die(m, &m->cus[i]) == 0)
				inl_index_children(m, m->cus[i].die, m->cus[i].off, &cap, 0);
		}
	free(done);
}

void sym_scope_free_index(struct sym_module *m)
{
	for (size_t i = 0; i < m->ninl_names; i++)
		free(m->inl_names[i].name);
	free(m->inl_names);
	m->inl_names = NULL;
	m->ninl_names = 0;
	m->inl_unnamed = 0;
	m->inl_done = 0;
}

/* 1 if a DWARF function name ("f", "ns::f(int)") is what a breakpoint by
 * name asks for: the same, or without its parameters, or its last
 * qualified part. */
static int inl_name_matches(const char *fn, const char *name)
{
	size_t fl = strlen(fn), nl = strlen(name);

	if (!strcmp(fn, name))
		return 1;
	if (!strchr(name, '(')) {
		const char *p = strchr(fn, '(');

		if (p && p > fn)
			fl = (size_t)(p - fn);
	}
	if (fl == nl)
		return !strncmp(fn, name, nl);
	return fl > nl + 2 && !strncmp(fn + fl - nl, name, nl) && fn[fl - nl - 1] == ':' &&
	       fn[fl - nl - 2] == ':';
}

int sym_lookup_inlined(struct sym_module *m, const char *name, uint64_t *addrs, int max)
{
	uint64_t last_cu = UINT64_MAX;
	int n = 0;

	if (!m->has_debug || max <= 0 || m->dw_state < 0)
		return 0;
	if (!m->inl_done) {
		m->inl_done = 1;
		inl_index_build(m);
	}
	if (m->inl_unnamed) {
		if (sym_dwarf_init(m) < 0)
			return 0;
		inl_index_names(m);
	}
	for (size_t i = 0; i < m->ninl_names && n < max; i++) {
		struct sym_cu *cu;
		const char *fn = m->inl_names[i].name;

		if (m->inl_names[i].cu == last_cu || !inl_name_matches(fn, name))
			continue;
		last_cu = m->inl_names[i].cu;
		/* a name in the index: now the DWARF is opened */
		if (sym_dwarf_init(m) < 0)
			return 0;
		if (!(cu = inl_cu(m, last_cu)))
			continue;
		if (!cu->scopes_loaded)
			sym_scope_load(m, cu);
		/* as lldb-16: none in a function of several ranges (it makes
		 * no function of it); one of no code at its empty range */
		for (size_t k = 0; k < cu->nscopes && n < max; k++) {
			const struct sym_scope *s = &cu->scopes[k];

			if (s->depth > 0 && s->owns_name && !s->split && inl_name_matches(s->name, name))
				addrs[n++] = s->start + m->bias;
		}
		for (size_t k = 0; k < cu->nempties && n < max; k++) {
			const struct sym_scope *s = &cu->empties[k];

			if (!s->split && inl_name_matches(s->name, name))
				addrs[n++] = s->start + m->bias;
		}
	}
	return n;
}
