/* core/symbols/sym_elf.c: opening a module — the ELF file mapped read-only, its
 * function symbols (symtab, else dynsym), its segments and sections;
 * lookups through the symbols are in sym_lookup.c. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/symbols/sym_int.h"

/* The name of the symbol at exactly addr among the first n of m->syms
 * (sorted), or NULL. */
static const char *sym_name_at(const struct sym_module *m, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && m->syms[lo].addr == addr ? m->syms[lo].name : NULL;
}

/* PLT entries as symbols ("symbol stub for: printf", LLDB's words): one
 * per jump-slot relocation, 16 bytes each in .plt.sec, or after the
 * resolver's entry in .plt. */
static void sym_load_plt(struct sym_module *m, const struct sym_img *im)
{
	const Elf64_Shdr *rel = sym_img_shdr(im, ".rela.plt");
	const Elf64_Shdr *sec = sym_img_shdr(im, ".plt.sec");
	const Elf64_Shdr *plt = sym_img_shdr(im, ".plt");
	const Elf64_Shdr *got = sym_img_shdr(im, ".got.plt");
	const Elf64_Shdr *dsym;
	const Elf64_Rela *r;
	const char *dstr;
	size_t n, base, dstrsz;
	uint64_t start;

	if (!rel || (!sec && !plt) || rel->sh_link >= im->nsh || rel->sh_entsize != sizeof(*r) ||
	    !sym_img_table_in(im, rel))
		return;
	dsym = &im->shs[rel->sh_link];
	if (!sym_img_table_in(im, dsym) || !(dstr = sym_img_strtab(im, dsym, &dstrsz)))
		return;
	r = (const Elf64_Rela *)(m->map + rel->sh_offset);
	n = rel->sh_size / sizeof(*r);
	m->lldb_nsyms += n;	/* LLDB: a trampoline symbol for each */
	start = sec ? sec->sh_addr : plt->sh_addr + 16;
	if ((sec ? sec->sh_size : plt->sh_size - 16) / 16 < n)
		return;	/* not the layout this knows */
	base = m->nsyms;
	m->syms = xrealloc(m->syms, (base + n + 1) * sizeof(*m->syms));
	for (size_t i = 0; i < n; i++) {
		const Elf64_Sym *ds;
		size_t si = ELF64_R_SYM(r[i].r_info);
		const char *name;
		struct sym_sym *s;
		size_t len;

		if (ELF64_R_TYPE(r[i].r_info) == R_X86_64_IRELATIVE) {
			/* libc calling its own IFUNCs (memcpy): named after
			 * the IFUNC, whose resolver the addend is */
			if (!(name = sym_name_at(m, base, (uint64_t)r[i].r_addend)))
				continue;
			goto add;
		}
		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT || !si ||
		    (si + 1) * sizeof(*ds) > dsym->sh_size)
			continue;
		ds = (const Elf64_Sym *)(m->map + dsym->sh_offset) + si;
		if (ds->st_name >= dstrsz || !memchr(dstr + ds->st_name, 0, dstrsz - ds->st_name))
			continue;
		name = dstr + ds->st_name;
add:
		s = &m->syms[m->nsyms++];
		memset(s, 0, sizeof(*s));
		s->addr = start + 16 * i;
		/* the entry that jumps through this relocation's GOT slot
		 * (past the 3 reserved ones): libc lists its IRELATIVE
		 * entries out of slot order */
		if (got && r[i].r_offset >= got->sh_addr + 24 &&
		    (r[i].r_offset - got->sh_addr) / 8 - 3 < n)
			s->addr = start + 16 * ((r[i].r_offset - got->sh_addr) / 8 - 3);
		s->size = 16;
		s->name = name;
		s->stub = 1;
		len = strlen(name) + 20;
		s->dem = xmalloc(len);
		/* without a version ("memcpy", not "memcpy@@GLIBC_2.14") */
		snprintf(s->dem, len, "symbol stub for: %.*s", (int)strcspn(name, "@"), name);
		s->dem_done = 1;
	}
	if (m->nsyms == base)
		return;
	qsort(m->syms, m->nsyms, sizeof(*m->syms), sym_cmp_sym);
	/* one symbol per address: a real one wins over a stub */
	{
		size_t j = 0;

		for (size_t i = 0; i < m->nsyms; i++) {
			if (j && m->syms[j - 1].addr == m->syms[i].addr) {
				if (m->syms[i].stub)
					free(m->syms[i].dem);
				else {
					free(m->syms[j - 1].dem);
					m->syms[j - 1] = m->syms[i];
				}
				continue;
			}
			m->syms[j++] = m->syms[i];
		}
		m->nsyms = j;
	}
}

static int sym_parse_elf(struct sym_module *m, const char *dirs, struct ptdb_err *err)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	const Elf64_Shdr *symtab = NULL, *dynsym = NULL;
	struct sym_img im;
	int out;

	if (m->maplen < EI_NIDENT || memcmp(m->map, ELFMAG, SELFMAG) != 0)
		return ptdb_err_set(err, "'%s' is not an ELF file", m->path);
	if (m->map[EI_CLASS] != ELFCLASS64 || m->maplen < sizeof(*eh) ||
	    eh->e_machine != EM_X86_64)
		return ptdb_err_set(err, "'%s' is not an x86-64 ELF file", m->path);
	if ((eh->e_shoff | eh->e_phoff) & 7)
		return ptdb_err_set(err, "'%s' is corrupt: its headers are misaligned", m->path);
	m->entry = eh->e_entry;
	m->pie = eh->e_type == ET_DYN;
	m->link_base = UINT64_MAX;
	if (eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_phoff < m->maplen &&
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= m->maplen - eh->e_phoff) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);

		for (unsigned i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < m->link_base)
				m->link_base = ph[i].p_vaddr & ~(uint64_t)0xfff;
	}
	if (m->link_base == UINT64_MAX)
		m->link_base = 0;
	if (sym_img_init(&im, m->map, m->maplen) < 0 || !im.nsh)
		return 0;	/* no sections: no symbols, still a module */
	/* libdwarf reads the section headers on its own and trusts their
	 * sizes (allocations of terabytes for a corrupt one): a file with a
	 * section past its end is loaded without DWARF */
	if ((out = sym_img_outside(&im)) >= 0) {
		snprintf(m->dw_err, sizeof(m->dw_err), "section header %d lies past the end of the file", out);
		m->dw_state = -1;
	}
	for (unsigned i = 0; i < im.nsh; i++) {
		if (im.shs[i].sh_type == SHT_SYMTAB)
			symtab = &im.shs[i];
		else if (im.shs[i].sh_type == SHT_DYNSYM)
			dynsym = &im.shs[i];
	}
	if (sym_img_has_dwarf(&im))
		m->has_debug = 1;
	if (symtab)
		sym_load_symtab(m, &im, symtab);
	if (m->nsyms == 0 && dynsym) {
		free(m->syms);
		m->syms = NULL;
		sym_load_symtab(m, &im, dynsym);
	}
	if (symtab ? symtab->sh_entsize == sizeof(Elf64_Sym) :
	    dynsym && dynsym->sh_entsize == sizeof(Elf64_Sym)) {
		const Elf64_Shdr *t = symtab ? symtab : dynsym;

		m->lldb_nsyms = t->sh_size / sizeof(Elf64_Sym) ? t->sh_size / sizeof(Elf64_Sym) - 1 : 0;
	}
	if ((!symtab || !m->has_debug) && sym_debug_find(m, dirs) == 0)
		sym_use_debug(m);
	if (im.shstr)
		sym_load_plt(m, &im);
	return 0;
}

/* A module for path with its file opened and mapped (at least min bytes). */
static struct sym_module *sym_map_file(const char *path, size_t min, struct ptdb_err *err)
{
	struct sym_module *m;
	char real[PATH_MAX];
	const char *slash;
	struct stat st;
	void *map;

	m = xcalloc(1, sizeof(*m));
	m->fd = -1;
	m->dfd = -1;
	m->path = xstrdup(realpath(path, real) ? real : path);
	slash = strrchr(m->path, '/');
	m->name = xstrdup(slash ? slash + 1 : m->path);
	/* O_NONBLOCK: a FIFO is refused below, not waited on */
	m->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (m->fd < 0) {
		ptdb_err_errno(err, "cannot open '%s'", path);
		goto fail;
	}
	if (fstat(m->fd, &st) < 0) {
		ptdb_err_errno(err, "cannot open '%s'", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		ptdb_err_set(err, "'%s' is a directory", m->path);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		ptdb_err_set(err, "'%s' is not a regular file", m->path);
		goto fail;
	}
	if ((size_t)st.st_size < min) {
		ptdb_err_set(err, min > 1 ? "'%s' is not an ELF file" : "'%s' is empty or not a file",
			     m->path);
		goto fail;
	}
	m->maplen = (size_t)st.st_size;
	map = mmap(NULL, m->maplen, PROT_READ, MAP_PRIVATE, m->fd, 0);
	if (map == MAP_FAILED) {
		m->maplen = 0;
		ptdb_err_errno(err, "cannot open '%s'", path);
		goto fail;
	}
	m->map = map;
	return m;
fail:
	sym_module_free(m);
	return NULL;
}

struct sym_module *sym_module_open(const char *path, struct ptdb_err *err)
{
	return sym_module_open_debug(path, NULL, err);
}

struct sym_module *sym_module_open_debug(const char *path, const char *debug_dirs,
					 struct ptdb_err *err)
{
	struct sym_module *m = sym_map_file(path, EI_NIDENT, err);

	if (m && sym_parse_elf(m, debug_dirs, err) < 0) {
		sym_module_free(m);
		return NULL;
	}
	if (m)
		sym_link_map_name(m, m->path);
	return m;
}

struct sym_module *sym_module_open_raw(const char *path, struct ptdb_err *err)
{
	struct sym_module *m = sym_map_file(path, 1, err);

	if (!m)
		return NULL;
	m->raw = 1;
	m->pie = 1;		/* placed anywhere by its bias */
	m->dw_state = -1;	/* no DWARF, no CFI: the rbp chain only */
	m->eh.state = -1;
	m->dframe.state = -1;
	return m;
}

int sym_module_is_raw(const struct sym_module *m) { return m->raw; }

void sym_module_set_name(struct sym_module *m, const char *name)
{
	free(m->path);
	free(m->name);
	m->path = xstrdup(name);
	m->name = xstrdup(name);
}

void sym_module_set_path(struct sym_module *m, const char *path)
{
	const char *slash = strrchr(path, '/');

	free(m->path);
	free(m->name);
	m->path = xstrdup(path);
	m->name = xstrdup(slash && slash[1] ? slash + 1 : path);
}

void sym_module_set_display_name(struct sym_module *m, const char *path)
{
	const char *slash = strrchr(path, '/');

	free(m->name);
	m->name = xstrdup(slash && slash[1] ? slash + 1 : path);
	sym_link_map_name(m, path);
}

void sym_module_free(struct sym_module *m)
{
	if (!m)
		return;
	sym_unwind_free(m);
	/* what was built on the DWARF, then the DWARF */
	sym_types_free(m);
	sym_scope_free_index(m);
	for (size_t i = 0; i < m->ncus; i++)
		sym_scope_free_cu(&m->cus[i]);
	sym_dwarf_free(m);
	sym_free_syms(m);
	free(m->dsyms);
	free(m->rsyms);
	sym_debug_free(m);
	if (m->map)
		munmap((void *)m->map, m->maplen);
	if (m->fd >= 0)
		close(m->fd);
	free(m->main_file);
	free(m->path);
	free(m->name);
	free(m);
}

void sym_module_set_bias(struct sym_module *m, uint64_t bias) { m->bias = bias; }
uint64_t sym_module_bias(const struct sym_module *m) { return m->bias; }
const char *sym_module_path(const struct sym_module *m) { return m->path; }
const char *sym_module_name(const struct sym_module *m) { return m->name; }
uint64_t sym_module_entry(const struct sym_module *m) { return m->entry + m->bias; }
int sym_module_is_pie(const struct sym_module *m) { return m->pie; }
uint64_t sym_module_link_base(const struct sym_module *m) { return m->link_base; }
int sym_module_has_debug(const struct sym_module *m) { return m->has_debug; }

/* The module's program headers, or NULL (raw file, or none usable). */
static const Elf64_Phdr *sym_phdrs(const struct sym_module *m, unsigned *n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;

	*n = 0;
	if (m->raw || m->maplen < sizeof(*eh) || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff >= m->maplen ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > m->maplen - eh->e_phoff)
		return NULL;
	*n = eh->e_phnum;
	return (const Elf64_Phdr *)(m->map + eh->e_phoff);
}

/* 1 if segment p's file bytes lie within the file. */
static int sym_seg_in_file(const struct sym_module *m, const Elf64_Phdr *p)
{
	return p->p_offset <= m->maplen && p->p_filesz <= m->maplen - p->p_offset;
}

int sym_module_segments(const struct sym_module *m, sym_segment_fn fn, void *ctx)
{
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);
	int n = 0;

	if (m->raw)
		return fn(ctx, 0, m->maplen, m->bias) < 0 ? -1 : 1;
	for (unsigned i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || !ph[i].p_filesz)
			continue;
		if (!sym_seg_in_file(m, &ph[i]))
			continue;
		if (fn(ctx, ph[i].p_offset, ph[i].p_filesz, ph[i].p_vaddr + m->bias) < 0)
			return -1;
		n++;
	}
	return n;
}

size_t sym_module_read(const struct sym_module *m, uint64_t addr, void *buf, size_t n)
{
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);
	uint64_t link = addr - m->bias;

	if (m->raw) {
		if (addr < m->bias || link >= m->maplen)
			return 0;
		if (n > m->maplen - link)
			n = (size_t)(m->maplen - link);
		memcpy(buf, m->map + link, n);
		return n;
	}
	for (unsigned i = 0; i < nph; i++) {
		uint64_t off;

		if (ph[i].p_type != PT_LOAD || !sym_seg_in_file(m, &ph[i]) ||
		    link < ph[i].p_vaddr || link - ph[i].p_vaddr >= ph[i].p_filesz)
			continue;
		off = link - ph[i].p_vaddr;
		if (n > ph[i].p_filesz - off)
			n = (size_t)(ph[i].p_filesz - off);
		memcpy(buf, m->map + ph[i].p_offset + off, n);
		return n;
	}
	return 0;
}

int sym_module_range(const struct sym_module *m, uint64_t *lo, uint64_t *hi)
{
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);

	if (m->raw) {
		*lo = m->bias;
		*hi = m->bias + m->maplen;
		return 0;
	}
	*lo = UINT64_MAX;
	*hi = 0;
	for (unsigned i = 0; i < nph; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_memsz)
			continue;
		if (ph[i].p_vaddr + m->bias < *lo)
			*lo = ph[i].p_vaddr + m->bias;
		if (ph[i].p_vaddr + ph[i].p_memsz + m->bias > *hi)
			*hi = ph[i].p_vaddr + ph[i].p_memsz + m->bias;
	}
	return *hi > *lo ? 0 : -1;
}

int sym_module_tls(const struct sym_module *m, uint64_t *memsz, uint64_t *align)
{
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);

	for (unsigned i = 0; ph && i < nph; i++)
		if (ph[i].p_type == PT_TLS) {
			*memsz = ph[i].p_memsz;
			*align = ph[i].p_align ? ph[i].p_align : 1;
			return 0;
		}
	return -1;
}

int sym_module_truncated(const struct sym_module *m)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);

	if (m->raw)
		return 0;
	if (eh->e_phnum && !ph)
		return 1;
	for (unsigned i = 0; i < nph; i++)
		if (ph[i].p_type == PT_LOAD && !sym_seg_in_file(m, &ph[i]))
			return 1;
	return 0;
}

void sym_module_uuid(const struct sym_module *m, char *buf, size_t n)
{
	unsigned nph;
	const Elf64_Phdr *ph = sym_phdrs(m, &nph);

	if (n)
		buf[0] = 0;
	for (unsigned i = 0; i < nph; i++) {
		const uint8_t *id;
		size_t dsz, o = 0;

		if (ph[i].p_type != PT_NOTE || !sym_seg_in_file(m, &ph[i]))
			continue;
		dsz = sym_notes_build_id(m->map + ph[i].p_offset, ph[i].p_filesz, &id);
		if (!dsz)
			continue;
		for (size_t k = 0; k < dsz && o + 3 < n; k++) {
			/* dashes after bytes 4, 6, 8, 10, 16, 22..., as LLDB prints */
			if (k == 4 || k == 6 || k == 8 || (k >= 10 && (k - 10) % 6 == 0))
				buf[o++] = '-';
			o += (size_t)snprintf(buf + o, n - o, "%02X", id[k]);
		}
		return;
	}
}

int sym_module_fd(const struct sym_module *m)
{
	return m->fd;
}
