/* core/symbols/sym_debugfile.c: separate debug information — finding a module's
 * debug file (by GNU build id under a debug root's .build-id tree, then by
 * its .gnu_debuglink name with the CRC checked, in the places GDB and LLDB
 * look), mapping it, and taking its symbol table and DWARF in place of the
 * stripped module's.  Code, segments and CFI stay the module's. */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/symbols/sym_int.h"

#define SYM_DEBUG_ROOT "/usr/lib/debug"

size_t sym_notes_build_id(const uint8_t *p, size_t sz, const uint8_t **id)
{
	const uint8_t *end = p + sz;

	while (end - p >= 12) {
		uint32_t nsz, dsz, type;
		size_t nal, dal;

		memcpy(&nsz, p, 4);
		memcpy(&dsz, p + 4, 4);
		memcpy(&type, p + 8, 4);
		nal = ((size_t)nsz + 3) & ~(size_t)3;
		dal = ((size_t)dsz + 3) & ~(size_t)3;
		if ((size_t)(end - p - 12) < nal || (size_t)(end - p - 12) - nal < dsz)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(p + 12, "GNU", 4) && dsz) {
			*id = p + 12 + nal;
			return dsz;
		}
		if ((size_t)(end - p - 12) - nal < dal)
			return 0;
		p += 12 + nal + dal;
	}
	return 0;
}

/* The GNU build id (raw bytes) of an image, from its .note.gnu.build-id
 * section; length, 0 if none. */
static size_t sym_img_build_id(const struct sym_img *im, const uint8_t **id)
{
	size_t sz;
	const uint8_t *p = sym_img_section(im, ".note.gnu.build-id", &sz);

	return p ? sym_notes_build_id(p, sz, id) : 0;
}

/* What a candidate must show to be the module's debug file. */
struct sym_want {
	const uint8_t *id;	/* build id, or NULL */
	size_t idlen;
	int check_crc;		/* found by debuglink name: CRC must match */
	uint32_t crc;
};

static void sym_unmap(const uint8_t *map, size_t len, int fd)
{
	if (map)
		munmap((void *)map, len);
	if (fd >= 0)
		close(fd);
}

/* Maps path if it is the debug file wanted (and not the module itself):
 * 0 and fills m's debug fields, -1 not it. */
static int sym_try_debug(struct sym_module *m, const char *path, const struct sym_want *w)
{
	struct stat st, mst;
	struct sym_img im;
	const uint8_t *map, *id;
	size_t idlen;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    (fstat(m->fd, &mst) == 0 && mst.st_dev == st.st_dev && mst.st_ino == st.st_ino)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		close(fd);
		return -1;
	}
	if (sym_img_init(&im, map, (size_t)st.st_size) < 0)
		goto no;
	idlen = sym_img_build_id(&im, &id);
	if (w->id && (idlen != w->idlen || memcmp(id, w->id, idlen)))
		goto no;
	if (w->check_crc && (uint32_t)crc32(0, map, (uInt)st.st_size) != w->crc)
		goto no;
	m->dfd = fd;
	m->dmap = map;
	m->dmaplen = (size_t)st.st_size;
	m->dpath = xstrdup(path);
	return 0;
no:
	sym_unmap(map, (size_t)st.st_size, fd);
	return -1;
}

/* Calls sym_try_debug for each debug root: the user's directories (space
 * separated) and /usr/lib/debug, with the path built from fmt. */
static int sym_try_roots(struct sym_module *m, const char *dirs, const char *tail,
			 const struct sym_want *w)
{
	char path[4096], *copy = xstrdup(dirs ? dirs : ""), *save = NULL;
	int found = -1;

	for (char *d = strtok_r(copy, " ", &save); d && found < 0; d = strtok_r(NULL, " ", &save)) {
		snprintf(path, sizeof(path), "%s/%s", d, tail);
		found = sym_try_debug(m, path, w);
	}
	free(copy);
	if (found < 0) {
		snprintf(path, sizeof(path), "%s/%s", SYM_DEBUG_ROOT, tail);
		found = sym_try_debug(m, path, w);
	}
	return found;
}

static int sym_find_by_build_id(struct sym_module *m, const struct sym_img *im, const char *dirs)
{
	struct sym_want w = { 0 };
	char tail[300];
	size_t o;

	w.idlen = sym_img_build_id(im, &w.id);
	if (w.idlen < 2 || w.idlen > 64)
		return -1;
	o = (size_t)snprintf(tail, sizeof(tail), ".build-id/%02x/", w.id[0]);
	for (size_t k = 1; k < w.idlen; k++)
		o += (size_t)snprintf(tail + o, sizeof(tail) - o, "%02x", w.id[k]);
	snprintf(tail + o, sizeof(tail) - o, ".debug");
	return sym_try_roots(m, dirs, tail, &w);
}

static int sym_find_by_debuglink(struct sym_module *m, const struct sym_img *im, const char *dirs)
{
	struct sym_want w = { 0 };
	size_t sz, nl;
	const uint8_t *p = sym_img_section(im, ".gnu_debuglink", &sz);
	char name[256], dir[2048], path[4096], tail[4096];
	const char *slash;

	if (!p || !(nl = strnlen((const char *)p, sz)) || nl == sz || nl >= sizeof(name) ||
	    memchr(p, '/', nl))
		return -1;
	memcpy(name, p, nl + 1);
	if (((nl + 4) & ~(size_t)3) + 4 > sz)
		return -1;
	memcpy(&w.crc, p + ((nl + 4) & ~(size_t)3), 4);
	w.check_crc = 1;
	slash = strrchr(m->path, '/');
	if (!slash || (size_t)(slash - m->path) >= sizeof(dir))
		return -1;
	memcpy(dir, m->path, (size_t)(slash - m->path));
	dir[slash - m->path] = 0;
	/* beside the module, in its .debug/, then under each root */
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (sym_try_debug(m, path, &w) == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, name);
	if (sym_try_debug(m, path, &w) == 0)
		return 0;
	if (sym_try_roots(m, dirs, name, &w) == 0)
		return 0;
	snprintf(tail, sizeof(tail), "%s/%s", dir, name);
	return sym_try_roots(m, dirs, tail, &w);
}

/* Takes the debug file's symbol table (when it has functions) and, when
 * the module has none, its DWARF; a debug file whose sections lie past
 * its end is dropped. */
void sym_use_debug(struct sym_module *m)
{
	const Elf64_Shdr *symtab = NULL;
	struct sym_img im;
	int dw;

	/* (checked by sym_debug_find) */
	if (sym_img_init(&im, m->dmap, m->dmaplen) < 0 || sym_img_outside(&im) >= 0) {
		sym_debug_free(m);
		return;
	}
	for (unsigned i = 0; i < im.nsh; i++)
		if (im.shs[i].sh_type == SHT_SYMTAB)
			symtab = &im.shs[i];
	dw = sym_img_has_dwarf(&im);
	if (dw && !m->has_debug) {
		m->has_debug = 1;
		m->dw_debug = 1;
		m->dw_state = 0;	/* the module's own sections are not read */
		m->dw_err[0] = 0;
	}
	if (symtab) {
		struct sym_sym *old = m->syms, *olda = m->alias;
		size_t n = m->nsyms, na = m->nalias;

		m->syms = m->alias = NULL;
		m->nsyms = m->nalias = 0;
		sym_load_symtab(m, &im, symtab);
		if (m->nsyms) {
			struct sym_sym *keep = m->syms, *keepa = m->alias;
			size_t k = m->nsyms, ka = m->nalias;

			m->syms = old, m->nsyms = n, m->alias = olda, m->nalias = na;
			sym_free_syms(m);
			m->syms = keep, m->nsyms = k, m->alias = keepa, m->nalias = ka;
		} else {
			free(m->syms);
			m->syms = old, m->nsyms = n, m->alias = olda, m->nalias = na;
		}
	}
}

int sym_debug_find(struct sym_module *m, const char *dirs)
{
	struct sym_img im;

	if (m->raw || sym_img_init(&im, m->map, m->maplen) < 0)
		return -1;
	if (sym_find_by_build_id(m, &im, dirs) == 0 || sym_find_by_debuglink(m, &im, dirs) == 0)
		return 0;
	return -1;
}

void sym_debug_free(struct sym_module *m)
{
	if (m->dpath)
		sym_unmap(m->dmap, m->dmaplen, m->dfd);
	free(m->dpath);
	m->dpath = NULL;
	m->dmap = NULL;
	m->dfd = -1;
}

const char *sym_module_debug_path(const struct sym_module *m)
{
	return m->dpath;
}
