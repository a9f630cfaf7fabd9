/* core/session/dbg_module.c: the modules of a session (see dbg.h): the
 * executable and the files the process maps, from /proc/PID/maps (the
 * vDSO copied out of the process), and which module holds an address. */
#include "core/session/dbg.h"
#include "core/session/dbg_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct dbg_module *dbg_add_module(struct dbg *d, struct sym_module *m, const char *path)
{
	d->mods = xrealloc(d->mods, (size_t)(d->nmods + 1) * sizeof(*d->mods));
	memset(&d->mods[d->nmods], 0, sizeof(*d->mods));
	d->mods[d->nmods].sym = m;
	d->mods[d->nmods].path = xstrdup(path);
	if (path[0] == '/') {
		char real[PATH_MAX];

		if (realpath(path, real) && strcmp(real, path))
			d->mods[d->nmods].real = xstrdup(real);
	}
	return &d->mods[d->nmods++];
}

struct dbg_module *dbg_module_for(struct dbg *d, uint64_t addr)
{
	uint64_t lo, hi;

	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];

		if (!m->sym || m->anon)
			continue;
		if (m->end ? addr >= m->start && addr < m->end
			   : (m->is_exe && !dbg_source(d)->mapped(d) && sym_module_range(m->sym, &lo, &hi) == 0 &&
			      addr >= lo && addr < hi))
			return m;
	}
	/* Before the process runs: the executable's link addresses, those of
	 * its segments only (a PIE's run-time address is in no module yet) */
	if (!dbg_source(d)->mapped(d) && d->nmods && d->mods[0].sym &&
	    sym_module_range(d->mods[0].sym, &lo, &hi) == 0 && addr >= lo && addr < hi)
		return &d->mods[0];
	return NULL;
}

/* The vDSO has no file: copy its image out of the process into an unlinked
 * temporary file and open that. */
static struct sym_module *open_vdso(struct dbg *d, const struct target_map *mp)
{
	char tmpl[] = "/tmp/ptdb-vdso-XXXXXX";
	size_t len = mp->end - mp->start;
	struct sym_module *m = NULL;
	struct ptdb_err err;
	uint8_t *buf;
	int fd;

	if (len == 0 || len > (64u << 20))
		return NULL;
	buf = xmalloc(len);
	if (target_read_mem(d->proc, mp->start, buf, len, &err) < 0) {
		free(buf);
		return NULL;
	}
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		if (write(fd, buf, len) == (ssize_t)len)
			m = sym_module_open_debug(tmpl, d->debug_dirs, &err);
		unlink(tmpl);
		close(fd);
	}
	free(buf);
	if (m)
		sym_module_set_name(m, "[vdso]");
	return m;
}

int dbg_path_undelete(char *path)
{
	static const char mark[] = " (deleted)";
	size_t n = strlen(path), k = sizeof(mark) - 1;

	if (path[0] != '/' || n <= k || strcmp(path + n - k, mark) || access(path, F_OK) == 0)
		return 0;
	path[n - k] = 0;
	return 1;
}

/* The file behind a mapping: by its path, or, when that is gone or is
 * another file now (deleted, replaced), through /proc/PID/map_files (the
 * process's own mapping of it). */
static struct sym_module *open_mapped(struct dbg *d, const struct target_map *mp,
				      struct ptdb_err *err)
{
	char mf[96];
	struct sym_module *s;
	struct stat a, b;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)d->pid, mp->start, mp->end);
	if (stat(mp->path, &a) == 0 && (stat(mf, &b) < 0 || (a.st_dev == b.st_dev && a.st_ino == b.st_ino)))
		return sym_module_open_debug(mp->path, d->debug_dirs, err);
	if (!(s = sym_module_open_debug(mf, d->debug_dirs, err)))
		return NULL;
	sym_module_set_name(s, mp->path);	/* its path, then its short name */
	sym_module_set_display_name(s, mp->path);
	return s;
}

static struct dbg_module *module_by_path(struct dbg *d, const char *path)
{
	for (int i = 0; i < d->nmods; i++)
		if (!strcmp(d->mods[i].path, path) || (d->mods[i].real && !strcmp(d->mods[i].real, path)))
			return &d->mods[i];
	return NULL;
}

/* A signature of the process and its mappings: when a stop finds them
 * as the last one did, no module came or went, so neither link-map names
 * nor breakpoint locations can have changed.  Resolving every breakpoint
 * against every module's symbols at every stop made single-stepping cost
 * milliseconds a step in a program with libc. */
static uint64_t maps_signature(const struct dbg *d, const struct target_map *maps, int n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)d->pid;

	for (int i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)maps[i].path;
		uint64_t v[3] = { maps[i].start, maps[i].end, maps[i].offset };

		for (int k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ull;
		for (; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
		h = (h ^ (unsigned char)maps[i].perms[2]) * 1099511628211ull;
	}
	return h | 1;	/* never 0, the "none" value */
}

void dbg_refresh_modules(struct dbg *d)
{
	uint64_t sig;
	struct target_map *maps = NULL;
	struct ptdb_err err;
	int n = 0;

	if (!dbg_alive(d) || target_maps(d->proc, &maps, &n, &err) < 0)
		return;
	sig = maps_signature(d, maps, n);
	for (int i = 0; i < d->nmods; i++)
		d->mods[i].start = d->mods[i].end = 0;
	for (int i = 0; i < n; i++) {
		struct target_map *mp = &maps[i];
		struct dbg_module *m;

		if (mp->path[0] != '/' && strcmp(mp->path, "[vdso]"))
			continue;
		dbg_path_undelete(mp->path);
		m = module_by_path(d, mp->path);
		if (!m) {
			struct sym_module *s = mp->path[0] == '/' ? open_mapped(d, mp, &err) : open_vdso(d, mp);

			m = dbg_add_module(d, s, mp->path);	/* s NULL: not ELF, remembered */
		}
		if (!m->sym)
			continue;
		if (!m->end) {
			/* the first mapping of a file is its offset 0 */
			m->start = mp->start - mp->offset;
			m->end = mp->end;
			sym_module_set_bias(m->sym, m->start - sym_module_link_base(m->sym));
		} else if (mp->end > m->end) {
			m->end = mp->end;
		}
	}
	free(maps);
	if (sig != d->maps_sig) {
		dbg_link_map_names(d);
		dbg_resolve_all(d);
		d->maps_sig = sig;
	}
	if (!d->load_bp) {
		for (int i = 0; i < d->nmods; i++) {
			struct dbg_module *m = &d->mods[i];
			uint64_t a;

			if (m->sym && m->end && strstr(m->path, "/ld-linux") &&
			    sym_lookup_func(m->sym, "_dl_debug_state", &a, NULL, 1) == 1 &&
			    target_bp_insert(d->proc, a, &err) == 0) {
				d->load_bp = a;
				break;
			}
		}
	}
}
