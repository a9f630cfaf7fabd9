/* core/symbols/sym_dwarf.c: DWARF through libdwarf, lazily — CU list and
 * .debug_aranges to find the one CU holding an address, line tables decoded
 * per CU on first use and cached; line/address/prologue lookups on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym_int.h"

#include <dwarf.h>

/* Keeps the first error's text for sym_module_dwarf_problem. */
static void sym_dw_note(struct sym_module *m, const char *what, Dwarf_Error e)
{
	if (!m->dw_err[0] && m->has_debug)
		snprintf(m->dw_err, sizeof(m->dw_err), "%s: %s", what,
			 e ? dwarf_errmsg(e) : "no data");
}

static void sym_dw_errfree(struct sym_module *m, Dwarf_Error *e)
{
	if (*e)
		dwarf_dealloc(m->dbg, *e, DW_DLA_ERROR);
	*e = NULL;
}

static int sym_cmp_ar(const void *a, const void *b)
{
	const struct sym_arange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static struct sym_cu *sym_cu_by_off(struct sym_module *m, uint64_t off,
				    size_t *idx)
{
	size_t lo = 0, hi = m->ncus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->cus[mid].off == off) {
			*idx = mid;
			return &m->cus[mid];
		}
		if (m->cus[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void sym_load_aranges(struct sym_module *m)
{
	Dwarf_Arange *ar = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;

	if (dwarf_get_aranges(m->dbg, &ar, &n, &e) != DW_DLV_OK) {
		sym_dw_errfree(m, &e);
		return;
	}
	m->ar = xcalloc((size_t)n, sizeof(*m->ar));
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Unsigned seg, segsz, len;
		Dwarf_Addr start;
		Dwarf_Off off;
		size_t idx;

		if (dwarf_get_arange_info_b(ar[i], &seg, &segsz, &start, &len,
					    &off, &e) == DW_DLV_OK && len &&
		    sym_cu_by_off(m, off, &idx)) {
			m->ar[m->nar].lo = start;
			m->ar[m->nar].hi = start + len;
			m->ar[m->nar].cu = idx;
			m->nar++;
		}
		sym_dw_errfree(m, &e);
		dwarf_dealloc(m->dbg, ar[i], DW_DLA_ARANGE);
	}
	dwarf_dealloc(m->dbg, ar, DW_DLA_LIST);
	qsort(m->ar, m->nar, sizeof(*m->ar), sym_cmp_ar);
}

int sym_dwarf_init(struct sym_module *m)
{
	Dwarf_Error e = NULL;
	uint64_t *offs = NULL;
	ssize_t n;

	if (m->dw_state)
		return m->dw_state > 0 ? 0 : -1;
	m->dw_state = -1;
	if (sym_dwobj_init(m, m->dw_debug ? m->dmap : m->map, m->dw_debug ? m->dmaplen : m->maplen,
			   &m->dbg, &e) != DW_DLV_OK) {
		sym_dw_note(m, "cannot read the DWARF", e);
		if (e)
			dwarf_dealloc(NULL, e, DW_DLA_ERROR);
		m->dbg = NULL;
		return -1;
	}
	m->dw_state = 1;
	/* unit headers only: a unit's DIE (and its abbreviations) is read
	 * when the unit is first needed (sym_cu_die), so that a large debug
	 * file (libc's) costs little until an address in it is looked up */
	if ((n = sym_dwobj_units(m, &offs)) >= 0) {
		m->cus = xcalloc((size_t)n + 1, sizeof(*m->cus));
		for (ssize_t i = 0; i < n; i++)
			m->cus[i].off = offs[i];
		m->ncus = (size_t)n;
		free(offs);
	} else {
		sym_dwarf_units(m);
	}
	sym_load_aranges(m);
	return 0;
}

void sym_dwarf_units(struct sym_module *m)
{
	Dwarf_Error e = NULL;
	size_t cap = 0;

	for (Dwarf_Unsigned hoff = 0;;) {
		Dwarf_Unsigned hlen, typeoff, next;
		Dwarf_Half ver, asz, lsz, esz, type;
		Dwarf_Off abbr, off;
		Dwarf_Sig8 sig;
		int rc = dwarf_next_cu_header_d(m->dbg, 1, &hlen, &ver, &abbr,
						&asz, &lsz, &esz, &sig, &typeoff,
						&next, &type, &e);
		if (rc == DW_DLV_ERROR)
			sym_dw_note(m, "bad unit header in .debug_info", e);
		if (rc != DW_DLV_OK)
			break;
		rc = dwarf_get_cu_die_offset_given_cu_header_offset_b(m->dbg, hoff, 1, &off, &e);
		hoff = next;
		if (rc != DW_DLV_OK) {
			sym_dw_note(m, "bad unit in .debug_info", e);
			sym_dw_errfree(m, &e);
			continue;
		}
		if (m->ncus == cap) {
			cap = cap ? cap * 2 : 16;
			m->cus = xrealloc(m->cus, cap * sizeof(*m->cus));
		}
		memset(&m->cus[m->ncus], 0, sizeof(m->cus[0]));
		m->cus[m->ncus].off = off;
		m->ncus++;
	}
	sym_dw_errfree(m, &e);
}

static void sym_cu_load(struct sym_module *m, struct sym_cu *cu);

int sym_cu_die(struct sym_module *m, struct sym_cu *cu)
{
	Dwarf_Error e = NULL;

	if (cu->die)
		return 0;
	if (cu->die_failed || dwarf_offdie_b(m->dbg, cu->off, 1, &cu->die, &e) != DW_DLV_OK) {
		if (!cu->die_failed)
			sym_dw_note(m, "bad unit in .debug_info", e);
		sym_dw_errfree(m, &e);
		cu->die = NULL;
		cu->die_failed = 1;
		return -1;
	}
	return 0;
}

/* A DIE's children and next sibling lie after it in its section; a
 * damaged sibling reference that points back would make every walk
 * endless. */
static int die_after(Dwarf_Die later, Dwarf_Die die)
{
	Dwarf_Off a = 0, b = 0;

	return dwarf_dieoffset(later, &a, NULL) == DW_DLV_OK &&
	       dwarf_dieoffset(die, &b, NULL) == DW_DLV_OK && a > b;
}

Dwarf_Die sym_die_child(struct sym_module *m, Dwarf_Die die)
{
	Dwarf_Die c = NULL;
	Dwarf_Error e = NULL;

	if (dwarf_child(die, &c, &e) != DW_DLV_OK)
		c = NULL;
	sym_dw_errfree(m, &e);
	if (c && !die_after(c, die)) {	/* damaged DWARF: a loop */
		dwarf_dealloc(m->dbg, c, DW_DLA_DIE);
		c = NULL;
	}
	return c;
}

static Dwarf_Die die_sibling(struct sym_module *m, Dwarf_Die c, int keep)
{
	Dwarf_Die next = NULL;
	Dwarf_Error e = NULL;

	/* a type unit's children are in .debug_types */
	if (dwarf_siblingof_b(m->dbg, c, dwarf_get_die_infotypes_flag(c), &next, &e) != DW_DLV_OK)
		next = NULL;
	sym_dw_errfree(m, &e);
	if (next && !die_after(next, c)) {	/* damaged DWARF: a loop */
		dwarf_dealloc(m->dbg, next, DW_DLA_DIE);
		next = NULL;
	}
	if (!keep)
		dwarf_dealloc(m->dbg, c, DW_DLA_DIE);
	return next;
}

Dwarf_Die sym_die_next(struct sym_module *m, Dwarf_Die c)
{
	return die_sibling(m, c, 0);
}

Dwarf_Die sym_die_next_keep(struct sym_module *m, Dwarf_Die c)
{
	return die_sibling(m, c, 1);
}

void sym_die_free(struct sym_module *m, Dwarf_Die c)
{
	if (c)
		dwarf_dealloc(m->dbg, c, DW_DLA_DIE);
}

const char *sym_module_dwarf_problem(struct sym_module *m)
{
	if (m->raw)
		return NULL;
	if (m->dw_err[0])
		return m->dw_err;
	if (!m->has_debug)
		return NULL;
	if (sym_dwarf_init(m) == 0 && !m->dw_err[0]) {
		if (!m->ncus)
			snprintf(m->dw_err, sizeof(m->dw_err), "no compilation units in .debug_info");
		else
			sym_cu_load(m, &m->cus[0]);
	}
	return m->dw_err[0] ? m->dw_err : NULL;
}

void sym_dwarf_free(struct sym_module *m)
{
	Dwarf_Error e = NULL;

	for (size_t i = 0; i < m->ncus; i++) {
		for (size_t j = 0; j < m->cus[i].nfiles; j++)
			free(m->cus[i].files[j]);
		free(m->cus[i].files);
		free(m->cus[i].rows);
		free(m->cus[i].path);
	}
	free(m->cus);
	free(m->ar);
	if (m->dbg)
		dwarf_object_finish(m->dbg, &e);
	m->dbg = NULL;
	sym_dwobj_free(m);
}

static int sym_cmp_row(const void *a, const void *b)
{
	const struct sym_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end_seq != y->end_seq)	/* a sequence's end before the next's start */
		return x->end_seq ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static const char *sym_row_file(struct sym_module *m, struct sym_cu *cu,
				Dwarf_Line ln)
{
	Dwarf_Unsigned fno;
	Dwarf_Error e = NULL;
	char *s = NULL;

	if (dwarf_line_srcfileno(ln, &fno, &e) != DW_DLV_OK || fno > 65535) {
		sym_dw_errfree(m, &e);
		return NULL;
	}
	if (cu->gnu5 && fno == 0)
		fno = 1;	/* see sym_cu.gnu5; GCC never names entry 0 */
	if (fno < cu->nfiles && cu->files[fno])
		return cu->files[fno];
	if (fno >= cu->nfiles) {
		cu->files = xrealloc(cu->files, (fno + 1) * sizeof(char *));
		memset(cu->files + cu->nfiles, 0,
		       (fno + 1 - cu->nfiles) * sizeof(char *));
		cu->nfiles = fno + 1;
	}
	if (dwarf_linesrc(ln, &s, &e) != DW_DLV_OK) {
		sym_dw_errfree(m, &e);
		return NULL;
	}
	cu->files[fno] = xstrdup(s);
	dwarf_dealloc(m->dbg, s, DW_DLA_STRING);
	return cu->files[fno];
}

/* A DWARF 5 line table from GCC: the file names by entry number, from
 * dwarf_srcfiles (0-based, full paths), and the gnu5 correction. */
static void sym_cu_files5(struct sym_module *m, struct sym_cu *cu)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	char *prod = NULL, **sf = NULL;
	Dwarf_Signed n = 0;

	if (dwarf_attr(cu->die, DW_AT_producer, &a, &e) != DW_DLV_OK) {
		sym_dw_errfree(m, &e);
		return;
	}
	if (dwarf_formstring(a, &prod, &e) != DW_DLV_OK || strncmp(prod, "GNU ", 4)) {
		sym_dw_errfree(m, &e);
		dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
		return;
	}
	dwarf_dealloc(m->dbg, a, DW_DLA_ATTR);
	if (dwarf_srcfiles(cu->die, &sf, &n, &e) != DW_DLV_OK || n < 2 || n > 65535) {
		sym_dw_errfree(m, &e);
		return;
	}
	cu->files = xcalloc((size_t)n, sizeof(char *));
	cu->nfiles = (size_t)n;
	for (Dwarf_Signed i = 0; i < n; i++) {
		cu->files[i] = xstrdup(sf[i]);
		dwarf_dealloc(m->dbg, sf[i], DW_DLA_STRING);
	}
	dwarf_dealloc(m->dbg, sf, DW_DLA_LIST);
	cu->gnu5 = 1;
}

static void sym_cu_load(struct sym_module *m, struct sym_cu *cu)
{
	Dwarf_Unsigned ver;
	Dwarf_Small tables;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed n = 0;
	Dwarf_Error e = NULL;

	if (cu->loaded)
		return;
	cu->loaded = 1;
	if (sym_cu_die(m, cu) < 0)
		return;
	if (dwarf_srclines_b(cu->die, &ver, &tables, &ctx, &e) != DW_DLV_OK) {
		sym_dw_note(m, "bad line table in .debug_line", e);
		sym_dw_errfree(m, &e);
		return;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &e) != DW_DLV_OK ||
	    n <= 0) {
		sym_dw_note(m, "bad line table in .debug_line", e);
		sym_dw_errfree(m, &e);
		dwarf_srclines_dealloc_b(ctx);
		return;
	}
	if (ver == 5)
		sym_cu_files5(m, cu);
	cu->rows = xcalloc((size_t)n, sizeof(*cu->rows));
	for (Dwarf_Signed i = 0; i < n; i++) {
		struct sym_row *r = &cu->rows[cu->nrows];
		Dwarf_Addr addr;
		Dwarf_Unsigned lineno = 0, col = 0, isa, disc;
		Dwarf_Bool stmt = 0, end = 0, pend = 0, ebeg;

		if (dwarf_lineaddr(lines[i], &addr, &e) != DW_DLV_OK) {
			sym_dw_errfree(m, &e);
			continue;
		}
		dwarf_lineno(lines[i], &lineno, &e);
		sym_dw_errfree(m, &e);
		dwarf_lineoff_b(lines[i], &col, &e);
		sym_dw_errfree(m, &e);
		dwarf_linebeginstatement(lines[i], &stmt, &e);
		sym_dw_errfree(m, &e);
		dwarf_lineendsequence(lines[i], &end, &e);
		sym_dw_errfree(m, &e);
		if (dwarf_prologue_end_etc(lines[i], &pend, &ebeg, &isa, &disc,
					   &e) != DW_DLV_OK)
			pend = 0;
		sym_dw_errfree(m, &e);
		r->addr = addr;
		r->line = (unsigned)lineno;
		r->col = (unsigned)col;
		r->is_stmt = !!stmt;
		r->end_seq = !!end;
		r->prologue_end = !!pend;
		r->seq = (uint32_t)cu->nrows;
		r->file = sym_row_file(m, cu, lines[i]);
		cu->nrows++;
	}
	dwarf_srclines_dealloc_b(ctx);
	qsort(cu->rows, cu->nrows, sizeof(*cu->rows), sym_cmp_row);
}

/* Index of the row covering a in cu, or -1. */
static long sym_cu_row(const struct sym_cu *cu, uint64_t a)
{
	size_t lo = 0, hi = cu->nrows;

	while (lo < hi) {	/* first row with addr > a */
		size_t mid = lo + (hi - lo) / 2;
		if (cu->rows[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || lo == cu->nrows || cu->rows[lo - 1].end_seq)
		return -1;
	return (long)(lo - 1);
}

static long sym_find_row_idx(struct sym_module *m, uint64_t a,
			     struct sym_cu **cu_out)
{
	size_t lo = 0, hi;

	*cu_out = NULL;
	if (sym_dwarf_init(m) < 0)
		return -1;
	if (m->nar == 0) {	/* no aranges: try every CU (decodes all) */
		for (size_t i = 0; i < m->ncus; i++) {
			long r;
			sym_cu_load(m, &m->cus[i]);
			if ((r = sym_cu_row(&m->cus[i], a)) >= 0) {
				*cu_out = &m->cus[i];
				return r;
			}
		}
		return -1;
	}
	hi = m->nar;
	while (lo < hi) {	/* first arange with lo > a */
		size_t mid = lo + (hi - lo) / 2;
		if (m->ar[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || a >= m->ar[lo - 1].hi)
		return -1;
	*cu_out = &m->cus[m->ar[lo - 1].cu];
	sym_cu_load(m, *cu_out);
	return sym_cu_row(*cu_out, a);
}

const struct sym_row *sym_find_row(struct sym_module *m, uint64_t a,
				   struct sym_cu **cu_out)
{
	struct sym_cu *cu;
	long i = sym_find_row_idx(m, a, &cu);

	if (cu_out)
		*cu_out = cu;
	return i >= 0 ? &cu->rows[i] : NULL;
}

/* One of LLDB's line entries: the rows at one address merged (LLDB keeps
 * the last; a merge marks the entry as a prologue's end, GCC's way of
 * saying the prologue is empty, as optimized code has it, when the last
 * two rows name the same file: LineTable::AppendLineEntryToSequence).
 * Fills e from the rows starting at k; returns the index after them. */
struct sym_entry {
	uint64_t addr;
	unsigned line;
	int pe;
	int end;	/* the sequence's end */
};

static size_t sym_entry_at(const struct sym_row *r, size_t n, size_t k, struct sym_entry *e)
{
	size_t j = k + 1;

	if (!r[k].end_seq)
		while (j < n && !r[j].end_seq && r[j].addr == r[k].addr)
			j++;
	e->addr = r[k].addr;
	e->end = r[k].end_seq;
	e->line = r[j - 1].line;
	if (j - k > 1)	/* LLDB overwrites the row's own flag */
		e->pe = r[j - 1].file == r[j - 2].file ||
			(r[j - 1].file && r[j - 2].file && !strcmp(r[j - 1].file, r[j - 2].file));
	else
		e->pe = r[k].prologue_end;
	return j;
}

/* A unit of Go (DW_LANG_Go). */
static int cu_is_go(struct sym_module *m, struct sym_cu *cu)
{
	Dwarf_Unsigned lang = 0;
	Dwarf_Error e = NULL;
	int ok;

	if (sym_cu_die(m, cu) < 0)
		return 0;
	ok = dwarf_srclang(cu->die, &lang, &e) == DW_DLV_OK;
	sym_dw_errfree(m, &e);
	return ok && lang == DW_LANG_Go;
}

/* LLDB's prologue (Function::GetPrologueByteSize) on those entries: the
 * first entry at the entry point, then one marked as a prologue's end
 * among the next five, else the first of them with another line (wherever
 * it lies), else the end of the first entry; then past entries of line 0.
 * An end outside (lo, hi) means no prologue. */
uint64_t sym_after_prologue(struct sym_module *m, uint64_t lo, uint64_t hi, int sym_rule)
{
	struct sym_cu *cu;
	long i = sym_find_row_idx(m, lo, &cu);
	struct sym_entry e[7];
	size_t f, k, n, ne = 0, pick = 0, q;
	const struct sym_row *r;
	uint64_t end, size = 0;

	if (i < 0)
		return lo;
	r = cu->rows;
	n = cu->nrows;
	for (f = (size_t)i; f > 0 && r[f - 1].addr == r[i].addr && !r[f - 1].end_seq; f--)
		;
	for (k = f; k < n && ne < 7; )
		k = sym_entry_at(r, n, k, &e[ne++]);
	if (sym_rule || cu_is_go(m, cu)) {
		/* lldb-16 makes no function of this one (a function of several
		 * ranges, any of Go's units): the symbol's prologue
		 * (Symbol::GetPrologueByteSize), the first of the next
		 * six entries with another line, else the end of the first
		 * entry; prologue_end not read */
		for (q = 1; q < ne && q <= 6 && !e[q].end; q++)
			if (e[q].line != e[0].line)
				return e[q].addr > lo && e[q].addr < hi ? e[q].addr : lo;
		return ne > 1 && e[1].addr > lo && e[1].addr < hi ? e[1].addr : lo;
	}
	if (e[0].pe)
		return lo;
	for (q = 1; q < ne && q <= 5 && !pick; q++)
		if (e[q].pe)
			pick = q;
	for (q = 1; q < ne && q <= 5 && !pick; q++)
		if (e[q].line != e[0].line)
			pick = q;
	if (!pick && ne > 1)
		pick = 1;
	if (!pick)
		return lo;
	end = e[pick].addr;
	for (q = pick; q < ne && e[q].line == 0 && e[q].addr < hi; q++)
		;
	if (lo < end && end < hi)
		size = end - lo;
	if (q > pick && q < ne && end < e[q].addr && e[q].addr < hi)
		size += e[q].addr - end;
	return lo + size;
}

static int sym_file_matches(const char *path, const char *want)
{
	size_t pl, wl;

	if (!path)
		return 0;
	if (!strcmp(path, want))
		return 1;
	pl = strlen(path);
	wl = strlen(want);
	return pl > wl && path[pl - wl - 1] == '/' && !strcmp(path + pl - wl, want);
}

/* Runs body for every line entry of file as LLDB keeps them: the last row
 * at each address, is_stmt or not (matched cached per file pointer). */
#define SYM_FOR_FILE_ROWS(m, want, cu, r, body) do {                       \
	for (size_t ci_ = 0; ci_ < (m)->ncus; ci_++) {                      \
		struct sym_cu *cu = &(m)->cus[ci_];                         \
		const char *lastf_ = NULL;                                  \
		int lastok_ = 0;                                            \
		sym_cu_load((m), cu);                                       \
		for (size_t ri_ = 0; ri_ < cu->nrows; ri_++) {              \
			const struct sym_row *r = &cu->rows[ri_];           \
			if (r->end_seq || !r->file ||                       \
			    (ri_ + 1 < cu->nrows && r[1].addr == r->addr))  \
				continue;                                   \
			if (r->file != lastf_) {                            \
				lastf_ = r->file;                           \
				lastok_ = sym_file_matches(r->file, (want)); \
			}                                                   \
			if (lastok_) { body }                               \
		}                                                           \
	}                                                                   \
} while (0)

static int sym_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int sym_lookup_line(struct sym_module *m, const char *file, unsigned line,
		    uint64_t *addrs, int max, unsigned *actual_line)
{
	unsigned best = 0;
	uint64_t *funcs;
	int n = 0;

	if (actual_line)
		*actual_line = 0;
	if (sym_dwarf_init(m) < 0 || max <= 0)
		return 0;
	SYM_FOR_FILE_ROWS(m, file, cu, r, {
		if (r->line >= line && (!best || r->line < best))
			best = r->line;
	});
	if (!best)
		return 0;
	funcs = xcalloc((size_t)max, sizeof(*funcs));
	SYM_FOR_FILE_ROWS(m, file, cu, r, {
		struct sym_sym *s;
		uint64_t f;
		int j;

		if (r->line != best)
			continue;
		s = sym_find_sym(m, r->addr);
		f = s ? s->addr : r->addr;
		for (j = 0; j < n && funcs[j] != f; j++)
			;
		if (j < n) {	/* one location per function: the lowest */
			if (r->addr < addrs[j])
				addrs[j] = r->addr;
			continue;
		}
		if (n == max)
			continue;
		funcs[n] = f;
		addrs[n++] = r->addr;
	});
	for (int j = 0; j < n; j++) {
		struct sym_sym *s = sym_find_sym(m, addrs[j]);

		if (s && s->addr == addrs[j] && s->size)
			addrs[j] = sym_after_prologue(m, s->addr, s->addr + s->size, 0);
		addrs[j] += m->bias;
	}
	free(funcs);
	qsort(addrs, (size_t)n, sizeof(*addrs), sym_cmp_u64);
	if (actual_line)
		*actual_line = best;
	return n;
}

int sym_line_range(struct sym_module *m, uint64_t addr, uint64_t *lo,
		   uint64_t *hi)
{
	struct sym_cu *cu;
	long i = sym_find_row_idx(m, addr - m->bias, &cu);
	size_t b, f;
	const struct sym_row *r;

	if (i < 0)
		return -1;
	r = cu->rows;
	for (b = (size_t)i; b > 0 && !r[b - 1].end_seq && r[b - 1].line == r[i].line; b--)
		;
	for (f = (size_t)i + 1; f < cu->nrows && !r[f].end_seq &&
	     (r[f].line == r[i].line || r[f].line == 0); f++)
		;
	if (f >= cu->nrows)
		return -1;
	*lo = r[b].addr + m->bias;
	*hi = r[f].addr + m->bias;
	return 0;
}

int sym_row_start(struct sym_module *m, uint64_t addr)
{
	const struct sym_row *r = sym_find_row(m, addr - m->bias, NULL);

	return r && r->addr == addr - m->bias && r->line != 0;
}

int sym_same_file(const char *a, const char *b)
{
	const char *x, *y;

	if (!a || !b)
		return 0;
	if (!strcmp(a, b))
		return 1;
	if (a[0] == '/' && b[0] == '/')
		return 0;
	x = strrchr(a, '/');
	y = strrchr(b, '/');
	return !strcmp(x ? x + 1 : a, y ? y + 1 : b);
}

int sym_line_entry_at(struct sym_module *m, uint64_t addr, struct sym_line_entry *out)
{
	struct sym_cu *cu;
	long i = sym_find_row_idx(m, addr - m->bias, &cu);
	size_t j;

	if (i < 0)
		return -1;
	for (j = (size_t)i + 1; j < cu->nrows && cu->rows[j].addr == cu->rows[i].addr; j++)
		;
	if (j >= cu->nrows)
		return -1;
	out->lo = cu->rows[i].addr + m->bias;
	out->hi = cu->rows[j].addr + m->bias;
	out->file = cu->rows[i].file;
	out->line = cu->rows[i].line;
	return 0;
}

uint64_t sym_func_after_prologue(struct sym_module *m, uint64_t addr)
{
	struct sym_sym *s = sym_find_sym(m, addr - m->bias);

	if (!s)
		return 0;
	return sym_after_prologue(m, s->addr, s->addr + (s->size ? s->size : 1), 0) + m->bias;
}
