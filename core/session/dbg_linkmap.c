/* core/session/dbg_linkmap.c: shared libraries named as the dynamic
 * linker opened them.  The process's maps name a file by its resolved
 * path (/usr/lib/x86_64-linux-gnu/libc.so.6 where /lib is a link to
 * /usr/lib); lldb-16 names a library by its link_map's l_name
 * (/lib/x86_64-linux-gnu/libc.so.6), the path the dynamic linker opened.
 * The link map is found through the executable's DT_DEBUG (r_debug); the
 * dynamic linker's own entry (l_addr == AT_BASE) keeps its maps' path, as
 * in lldb-16.  Symbols are unchanged: the module was opened (and its
 * debug file found by build id) from the maps' path. */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

/* AT_PHDR, AT_PHNUM and AT_BASE of the process: 0 when unreadable. */
static int read_auxv(pid_t pid, uint64_t *phdr, uint64_t *phnum, uint64_t *base)
{
	char path[64];
	uint64_t av[2];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if (!(f = fopen(path, "rb")))
		return -1;
	*phdr = *phnum = *base = 0;
	while (fread(av, sizeof(av), 1, f) == 1 && av[0] != AT_NULL) {
		if (av[0] == AT_PHDR)
			*phdr = av[1];
		else if (av[0] == AT_PHNUM)
			*phnum = av[1];
		else if (av[0] == AT_BASE)
			*base = av[1];
	}
	fclose(f);
	return *phdr && *phnum ? 0 : -1;
}

/* The address of r_debug (the executable's DT_DEBUG), 0 when not set. */
static uint64_t r_debug_addr(struct dbg *d, uint64_t phdr, uint64_t phnum)
{
	struct ptdb_err err;
	uint64_t bias = 0, dyn = 0;
	int have_bias = 0;

	for (uint64_t i = 0; i < phnum && i < 64; i++) {
		Elf64_Phdr ph;

		if (target_read_mem(d->proc, phdr + i * sizeof(ph), &ph, sizeof(ph), &err) < 0)
			return 0;
		if (ph.p_type == PT_PHDR) {
			bias = phdr - ph.p_vaddr;
			have_bias = 1;
		} else if (ph.p_type == PT_DYNAMIC) {
			dyn = ph.p_vaddr;
		}
	}
	if (!have_bias || !dyn)
		return 0;
	for (uint64_t a = bias + dyn, k = 0; k < 4096; a += sizeof(Elf64_Dyn), k++) {
		Elf64_Dyn e;

		if (target_read_mem(d->proc, a, &e, sizeof(e), &err) < 0 || e.d_tag == DT_NULL)
			return 0;
		if (e.d_tag == DT_DEBUG)
			return e.d_un.d_ptr;
	}
	return 0;	/* (no DT_NULL in reach: not a dynamic section) */
}

/* The loaded library that is the file name names under another path. */
static struct dbg_module *same_file(struct dbg *d, const char *name)
{
	struct stat a, b;

	if (stat(name, &a) < 0)
		return NULL;
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];

		if (m->sym && m->end && !m->is_exe && m->path[0] == '/' &&
		    stat(m->real ? m->real : m->path, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return m;
	}
	return NULL;
}

/* A string of the process, read by pieces (it may end a page before an
 * unmapped one). */
static int read_name(struct dbg *d, uint64_t a, char *out, size_t n)
{
	struct ptdb_err err;

	for (size_t k = 0; k + 64 <= n; k += 64) {
		if (target_read_mem(d->proc, a + k, out + k, 64, &err) < 0)
			return -1;
		if (memchr(out + k, 0, 64))
			return 0;
	}
	return -1;
}

static void rename_module(struct dbg_module *m, const char *name)
{
	if (!m->real)
		m->real = m->path;	/* the maps' path still finds it */
	else
		free(m->path);
	m->path = xstrdup(name);
	sym_module_set_path(m->sym, name);
}

void dbg_link_map_names(struct dbg *d)
{
	struct ptdb_err err;
	uint64_t phdr, phnum, base, r, lm = 0;
	int guard = 0;

	if (read_auxv(d->pid, &phdr, &phnum, &base) < 0 || !(r = r_debug_addr(d, phdr, phnum)) ||
	    target_read_mem(d->proc, r + offsetof(struct r_debug, r_map), &lm, sizeof(lm), &err) < 0)
		return;
	for (; lm && guard < 4096; guard++) {
		struct link_map e;
		char name[4096];
		struct dbg_module *m;

		if (target_read_mem(d->proc, lm, &e, sizeof(e), &err) < 0)
			return;
		lm = (uint64_t)(uintptr_t)e.l_next;
		if (!e.l_name || (base && e.l_addr == base))
			continue;
		if (read_name(d, (uint64_t)(uintptr_t)e.l_name, name, sizeof(name)) < 0 || name[0] != '/')
			continue;
		for (int i = 0; i < d->nmods; i++)
			if (!strcmp(d->mods[i].path, name)) {
				d->mods[i].lm_order = guard + 1;
				goto next;
			}
		if ((m = same_file(d, name))) {
			rename_module(m, name);
			m->lm_order = guard + 1;
		}
next:;
	}
}
