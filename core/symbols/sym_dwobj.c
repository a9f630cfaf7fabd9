/* core/symbols/sym_dwobj.c: libdwarf's view of a module's (or its debug file's)
 * sections, served from ptdb's own read-only mapping of the file instead
 * of libdwarf's ELF reader, which copies every section it loads into the
 * heap and reads the whole symbol table for relocations ptdb never needs.
 * Compressed sections (SHF_COMPRESSED, zlib: Debian's debug files) are
 * inflated here, once, when libdwarf or a raw reader first asks for them
 * (with libdeflate: a whole buffer at a time, about twice zlib's speed,
 * and libc's debug file is the largest part of a session's start-up);
 * the rest is the mapping itself. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <libdeflate.h>

#include "core/symbols/sym_int.h"

#include <dwarf.h>

struct sym_dwobj {
	struct sym_img img;	/* the image's section table */
	uint8_t **inflated;	/* per section, compressed ones once read */
	Dwarf_Obj_Access_Interface iface;
};

/* A zlib-compressed section's header (copied: Go writes its compressed
 * sections unaligned), or NULL. */
static const Elf64_Chdr *dwobj_chdr(const struct sym_dwobj *o, const Elf64_Shdr *sh,
				    Elf64_Chdr *ch)
{
	if (!(sh->sh_flags & SHF_COMPRESSED) || !sym_img_in(&o->img, sh) ||
	    sh->sh_size < sizeof(*ch))
		return NULL;
	memcpy(ch, o->img.map + sh->sh_offset, sizeof(*ch));
	/* zlib inflates at most about 1032:1; a larger claim is corrupt */
	return ch->ch_type == ELFCOMPRESS_ZLIB && ch->ch_size <= ((uint64_t)1 << 30) &&
	       ch->ch_size / 1100 <= sh->sh_size ? ch : NULL;
}

static int dwobj_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *ret, int *error)
{
	struct sym_dwobj *o = obj;
	const Elf64_Shdr *sh;
	const Elf64_Chdr *ch;
	Elf64_Chdr chb;

	if (i >= o->img.nsh)
		return DW_DLV_NO_ENTRY;
	sh = &o->img.shs[i];
	memset(ret, 0, sizeof(*ret));
	ret->addr = sh->sh_addr;
	ret->type = sh->sh_type;
	ret->size = sh->sh_type == SHT_NOBITS ? 0 : sh->sh_size;
	ret->name = sym_img_name(&o->img, sh);
	ret->link = sh->sh_link;
	ret->info = sh->sh_info;
	ret->entrysize = sh->sh_entsize;
	if ((ch = dwobj_chdr(o, sh, &chb)))
		ret->size = ch->ch_size;
	else if (sh->sh_flags & SHF_COMPRESSED)
		ret->size = 0;	/* a compression this does not know: empty */
	(void)error;
	return DW_DLV_OK;
}

static Dwarf_Endianness dwobj_order(void *obj)
{
	(void)obj;
	return DW_OBJECT_LSB;
}

static Dwarf_Small dwobj_eight(void *obj)
{
	(void)obj;
	return 8;
}

static Dwarf_Unsigned dwobj_count(void *obj)
{
	return ((struct sym_dwobj *)obj)->img.nsh;
}

/* A .debug_rnglists or .debug_loclists section's headers, checked as
 * libdwarf reads them (length, version 5, address size 2, 4 or 8, the
 * rest of the header inside the section).  libdwarf 20210528 frees its
 * half-built list of headers at a bad one and then goes on using it (a
 * double free): such a section is refused here before libdwarf sees it. */
static int dwobj_lists_ok(const uint8_t *d, uint64_t n)
{
	for (uint64_t off = 0; off < n;) {
		uint64_t len, lsize = 4;
		uint32_t l32;
		uint16_t ver;

		if (n - off < 4)
			return 0;
		memcpy(&l32, d + off, 4);
		if (l32 == 0xffffffffu) {
			if (n - off < 12)
				return 0;
			memcpy(&len, d + off + 4, 8);
			lsize = 12;
		} else if (l32 >= 0xfffffff0u || l32 == 0) {
			return 0;	/* reserved, or (IRIX's) 64-bit length form */
		} else {
			len = l32;
		}
		/* version 2, address size 1, selector size 1, offset count 4 */
		if (len < 8 || len > n - off - lsize)
			return 0;
		memcpy(&ver, d + off + lsize, 2);
		if (ver != 5 || (d[off + lsize + 2] != 2 && d[off + lsize + 2] != 4 &&
				 d[off + lsize + 2] != 8))
			return 0;
		off += lsize + len;
	}
	return 1;
}

static int dwobj_is_lists(const struct sym_dwobj *o, const Elf64_Shdr *sh)
{
	const char *nm = sym_img_name(&o->img, sh);

	return !strncmp(nm, ".debug_rnglists", 15) || !strncmp(nm, ".debug_loclists", 15) ||
	       !strncmp(nm, ".zdebug_rnglists", 16) || !strncmp(nm, ".zdebug_loclists", 16);
}

/* The section's bytes as libdwarf reads them (inflated, for a compressed
 * one), or DW_DLV_ERROR. */
static int dwobj_bytes(struct sym_dwobj *o, Dwarf_Half i, Dwarf_Small **data, int *error);

static int dwobj_load(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	struct sym_dwobj *o = obj;
	Dwarf_Obj_Access_Section sec;
	int rc = dwobj_bytes(o, i, data, error);

	if (rc != DW_DLV_OK || !dwobj_is_lists(o, &o->img.shs[i]))
		return rc;
	if (dwobj_info(o, i, &sec, error) != DW_DLV_OK || !dwobj_lists_ok(*data, sec.size)) {
		*error = DW_DLE_RNGLISTS_ERROR;
		return DW_DLV_ERROR;
	}
	return DW_DLV_OK;
}

static int dwobj_bytes(struct sym_dwobj *o, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	const Elf64_Shdr *sh;
	const Elf64_Chdr *ch;
	Elf64_Chdr chb;
	struct libdeflate_decompressor *dd;
	size_t out = 0;

	if (i >= o->img.nsh)
		return DW_DLV_NO_ENTRY;
	sh = &o->img.shs[i];
	if (!sym_img_in(&o->img, sh)) {
		*error = DW_DLE_ELF_SECT_ERR;
		return DW_DLV_ERROR;
	}
	if (!(sh->sh_flags & SHF_COMPRESSED)) {
		*data = (Dwarf_Small *)(uintptr_t)(o->img.map + sh->sh_offset);
		return DW_DLV_OK;
	}
	if (o->inflated[i]) {
		*data = o->inflated[i];
		return DW_DLV_OK;
	}
	if (!(ch = dwobj_chdr(o, sh, &chb))) {
		*error = DW_DLE_ZLIB_SECTION_SHORT;
		return DW_DLV_ERROR;
	}
	o->inflated[i] = xmalloc(ch->ch_size ? ch->ch_size : 1);
	if (!(dd = libdeflate_alloc_decompressor()) ||
	    libdeflate_zlib_decompress(dd, o->img.map + sh->sh_offset + sizeof(*ch),
				       sh->sh_size - sizeof(*ch), o->inflated[i], ch->ch_size,
				       &out) != LIBDEFLATE_SUCCESS || out != ch->ch_size) {
		if (dd)
			libdeflate_free_decompressor(dd);
		free(o->inflated[i]);
		o->inflated[i] = NULL;
		*error = DW_DLE_ZLIB_UNCOMPRESS_ERROR;
		return DW_DLV_ERROR;
	}
	libdeflate_free_decompressor(dd);
	/* the compressed bytes are not read again: let their pages go */
	{
		uintptr_t a = ((uintptr_t)(o->img.map + sh->sh_offset) + 4095) & ~(uintptr_t)4095;
		uintptr_t z = (uintptr_t)(o->img.map + sh->sh_offset + sh->sh_size) & ~(uintptr_t)4095;

		if (z > a)
			madvise((void *)a, z - a, MADV_DONTNEED);
	}
	*data = o->inflated[i];
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods dwobj_methods = {
	dwobj_info, dwobj_order, dwobj_eight, dwobj_eight, dwobj_count, dwobj_load, NULL,
};

/* The section table of the ELF image map, or NULL when it is not one. */
static struct sym_dwobj *dwobj_new(const uint8_t *map, size_t len)
{
	struct sym_img img;
	struct sym_dwobj *o;

	if (sym_img_init(&img, map, len) < 0 || img.shstrndx >= img.nsh)
		return NULL;
	o = xcalloc(1, sizeof(*o));
	o->img = img;
	o->inflated = xcalloc(o->img.nsh, sizeof(*o->inflated));
	o->iface.object = o;
	o->iface.methods = &dwobj_methods;
	return o;
}

int sym_dwobj_init(struct sym_module *m, const uint8_t *map, size_t len, Dwarf_Debug *dbg,
		   Dwarf_Error *e)
{
	*e = NULL;
	if (m->dwobj && m->dwobj->img.map != map)
		sym_dwobj_free(m);
	if (!m->dwobj && !(m->dwobj = dwobj_new(map, len)))
		return DW_DLV_NO_ENTRY;
	return dwarf_object_init_b(&m->dwobj->iface, NULL, NULL, DW_GROUPNUMBER_ANY, dbg, e);
}

/* m's DWARF sections without libdwarf: the table sym_dwobj_init uses. */
static struct sym_dwobj *dwobj_open(struct sym_module *m)
{
	const uint8_t *map = m->dw_debug ? m->dmap : m->map;

	if (m->dwobj && m->dwobj->img.map != map && !m->dbg)
		sym_dwobj_free(m);
	if (!m->dwobj)
		m->dwobj = dwobj_new(map, m->dw_debug ? m->dmaplen : m->maplen);
	return m->dwobj;
}

static int dwobj_find(const struct sym_dwobj *o, const char *name)
{
	return o && o->img.shstr ? sym_img_find(&o->img, name) : -1;
}

void sym_dwobj_free(struct sym_module *m)
{
	struct sym_dwobj *o = m->dwobj;

	if (!o)
		return;
	for (unsigned i = 0; i < o->img.nsh; i++)
		free(o->inflated[i]);
	free(o->inflated);
	free(o);
	m->dwobj = NULL;
}

/* The size a section has for libdwarf (inflated, for a compressed one),
 * without reading it; 0 when m has none of that name. */
static uint64_t dwobj_size(struct sym_dwobj *o, const char *name)
{
	Dwarf_Obj_Access_Section sec;
	int err = 0, i = dwobj_find(o, name);

	return i >= 0 && dwobj_info(o, (Dwarf_Half)i, &sec, &err) == DW_DLV_OK ? sec.size : 0;
}

static uint64_t dwobj_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* One unit header at p (avail bytes to the section's end): the header's
 * length, and *next the unit's, or 0 when it is not one libdwarf would
 * take without a word (then libdwarf walks the section and says why). */
static size_t dwobj_unit_hdr(const uint8_t *p, uint64_t avail, uint64_t alen, uint64_t *next)
{
	uint64_t len = dwobj_le(p, 4), aoff;
	unsigned ilen = 4, osz = 4, ver, ut = DW_UT_compile, asz;
	size_t hdr;

	if (len == 0xffffffffu) {	/* 64-bit DWARF */
		if (avail < 12)
			return 0;
		len = dwobj_le(p + 4, 8);
		ilen = 12;
		osz = 8;
	} else if (len >= 0xfffffff0u) {
		return 0;
	}
	if (len > avail - ilen || len < 2 + 1 + osz)
		return 0;
	ver = (unsigned)dwobj_le(p + ilen, 2);
	if (ver == 5) {
		ut = p[ilen + 2];
		asz = p[ilen + 3];
		aoff = dwobj_le(p + ilen + 4, osz);
		hdr = ilen + 4 + osz;
		hdr += ut == DW_UT_skeleton || ut == DW_UT_split_compile ? 8 :
		       ut == DW_UT_type || ut == DW_UT_split_type ? 8 + osz : 0;
		if (ut < DW_UT_compile || ut > DW_UT_split_type)
			return 0;
	} else if (ver >= 2 && ver <= 4) {
		aoff = dwobj_le(p + ilen + 2, osz);
		asz = p[ilen + 2 + osz];
		hdr = ilen + 2 + osz + 1;
	} else {
		return 0;
	}
	if ((asz != 4 && asz != 8) || aoff >= alen || hdr >= ilen + len)
		return 0;
	*next = ilen + len;
	return hdr;
}

ssize_t sym_dwobj_units(struct sym_module *m, uint64_t **offs)
{
	struct sym_dwobj *o = m->dwobj;
	uint64_t alen = o ? dwobj_size(o, ".debug_abbrev") : 0, off = 0;
	size_t len = 0, n = 0, cap = 0;
	const uint8_t *p = alen ? sym_dwobj_bytes(m, ".debug_info", &len) : NULL;

	*offs = NULL;
	if (!p)
		return -1;
	while (off < len) {
		uint64_t next = 0;
		size_t hdr = len - off >= 11 ? dwobj_unit_hdr(p + off, len - off, alen, &next) : 0;

		if (!hdr) {
			free(*offs);
			*offs = NULL;
			return -1;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*offs = xrealloc(*offs, cap * sizeof(**offs));
		}
		(*offs)[n++] = off + hdr;
		off += next;
	}
	return (ssize_t)n;
}

/* ---- a section read once, in order, without libdwarf ---- */

struct sym_dwstream {
	const uint8_t *data;	/* the whole section: the mapping, or the
				 * inflated copy libdwarf reads too */
	size_t len;
	const uint8_t *done;	/* the mapping's pages before this are let go
				 * (NULL: an inflated copy, kept) */
};

/* The mapping's whole pages in [s->done, to) are not read again by this
 * reader: let them go (read-only file pages, faulted back in if libdwarf
 * ever reads them). */
static void stream_release(struct sym_dwstream *s, const uint8_t *to)
{
	uintptr_t a = ((uintptr_t)s->done + 4095) & ~(uintptr_t)4095;
	uintptr_t z = (uintptr_t)to & ~(uintptr_t)4095;

	if (z > a + (1u << 18)) {	/* in steps of 256 KiB at least */
		madvise((void *)a, z - a, MADV_DONTNEED);
		s->done = (const uint8_t *)z;
	}
}

/* A compressed section is inflated whole, once, and kept for libdwarf:
 * the units the raw readers walk (the inline index, the unit list) are
 * the ones libdwarf reads DIEs from next, and inflating a debug file's
 * .debug_info twice was most of the start-up time of a session that
 * stops in a program using libc6-dbg. */
struct sym_dwstream *sym_dwstream_open(struct sym_module *m, const char *name, size_t *len)
{
	struct sym_dwobj *o = dwobj_open(m);
	int err = 0, i = dwobj_find(o, name);
	struct sym_dwstream *s;
	const Elf64_Shdr *sh;
	Elf64_Chdr chb;
	Dwarf_Small *data = NULL;

	if (i < 0)
		return NULL;
	sh = &o->img.shs[i];
	if (!sym_img_in(&o->img, sh))
		return NULL;
	s = xcalloc(1, sizeof(*s));
	if (!(sh->sh_flags & SHF_COMPRESSED)) {
		s->data = o->img.map + sh->sh_offset;
		s->len = sh->sh_size;
		s->done = s->data;
	} else if (dwobj_bytes(o, (Dwarf_Half)i, &data, &err) == DW_DLV_OK) {
		s->data = data;
		s->len = dwobj_chdr(o, sh, &chb)->ch_size;
	} else {
		free(s);
		return NULL;
	}
	*len = s->len;
	return s;
}

const uint8_t *sym_dwstream_at(struct sym_dwstream *s, size_t off, size_t n)
{
	if (n > s->len || off > s->len - n)
		return NULL;
	if (s->done)
		stream_release(s, s->data + off);
	return s->data + off;
}

void sym_dwstream_close(struct sym_dwstream *s)
{
	free(s);
}

const uint8_t *sym_dwobj_bytes(struct sym_module *m, const char *name, size_t *len)
{
	struct sym_dwstream *s = sym_dwstream_open(m, name, len);
	const uint8_t *p;

	if (!s)
		return NULL;
	p = sym_dwstream_at(s, 0, *len);
	sym_dwstream_close(s);
	return p;
}
