/* core/sym_dwobj.c: libdwarf's view of a module's (or its debug file's)
 * sections, served from ptdb's own read-only mapping of the file instead
 * of libdwarf's ELF reader, which copies every section it loads into the
 * heap and reads the whole symbol table for relocations ptdb never needs.
 * Compressed sections (SHF_COMPRESSED, zlib: Debian's debug files) are
 * inflated here, once, when libdwarf first asks for them; the rest is the
 * mapping itself. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zlib.h>

#include "core/sym_int.h"

struct sym_dwobj {
	const uint8_t *map;
	size_t len;
	const Elf64_Shdr *shs;
	unsigned nsh;
	const char *shstr;
	size_t shstrsz;
	uint8_t **inflated;	/* per section, compressed ones once read */
	Dwarf_Obj_Access_Interface iface;
};

/* The section's bytes in the file: 0, or -1 if they lie outside it. */
static int dwobj_span(const struct sym_dwobj *o, const Elf64_Shdr *sh)
{
	return sh->sh_offset <= o->len && sh->sh_size <= o->len - sh->sh_offset ? 0 : -1;
}

/* A zlib-compressed section's header, or NULL. */
static const Elf64_Chdr *dwobj_chdr(const struct sym_dwobj *o, const Elf64_Shdr *sh)
{
	const Elf64_Chdr *ch;

	if (!(sh->sh_flags & SHF_COMPRESSED) || sh->sh_type == SHT_NOBITS || dwobj_span(o, sh) < 0 ||
	    sh->sh_size < sizeof(*ch) || (sh->sh_offset & 7))
		return NULL;
	ch = (const Elf64_Chdr *)(o->map + sh->sh_offset);
	/* zlib inflates at most about 1032:1; a larger claim is corrupt */
	return ch->ch_type == ELFCOMPRESS_ZLIB && ch->ch_size <= ((uint64_t)1 << 30) &&
	       ch->ch_size / 1100 <= sh->sh_size ? ch : NULL;
}

static int dwobj_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *ret, int *error)
{
	struct sym_dwobj *o = obj;
	const Elf64_Shdr *sh;
	const Elf64_Chdr *ch;

	if (i >= o->nsh)
		return DW_DLV_NO_ENTRY;
	sh = &o->shs[i];
	memset(ret, 0, sizeof(*ret));
	ret->addr = sh->sh_addr;
	ret->type = sh->sh_type;
	ret->size = sh->sh_type == SHT_NOBITS ? 0 : sh->sh_size;
	ret->name = sh->sh_name < o->shstrsz && memchr(o->shstr + sh->sh_name, 0, o->shstrsz - sh->sh_name)
		? o->shstr + sh->sh_name : "";
	ret->link = sh->sh_link;
	ret->info = sh->sh_info;
	ret->entrysize = sh->sh_entsize;
	if ((ch = dwobj_chdr(o, sh)))
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
	return ((struct sym_dwobj *)obj)->nsh;
}

static int dwobj_load(void *obj, Dwarf_Half i, Dwarf_Small **data, int *error)
{
	struct sym_dwobj *o = obj;
	const Elf64_Shdr *sh;
	const Elf64_Chdr *ch;
	uLongf out;

	if (i >= o->nsh)
		return DW_DLV_NO_ENTRY;
	sh = &o->shs[i];
	if (sh->sh_type == SHT_NOBITS || dwobj_span(o, sh) < 0) {
		*error = DW_DLE_ELF_SECT_ERR;
		return DW_DLV_ERROR;
	}
	if (!(sh->sh_flags & SHF_COMPRESSED)) {
		*data = (Dwarf_Small *)(uintptr_t)(o->map + sh->sh_offset);
		return DW_DLV_OK;
	}
	if (o->inflated[i]) {
		*data = o->inflated[i];
		return DW_DLV_OK;
	}
	if (!(ch = dwobj_chdr(o, sh))) {
		*error = DW_DLE_ZLIB_SECTION_SHORT;
		return DW_DLV_ERROR;
	}
	out = (uLongf)ch->ch_size;
	o->inflated[i] = xmalloc(out ? out : 1);
	if (uncompress(o->inflated[i], &out, o->map + sh->sh_offset + sizeof(*ch),
		       (uLong)(sh->sh_size - sizeof(*ch))) != Z_OK || out != ch->ch_size) {
		free(o->inflated[i]);
		o->inflated[i] = NULL;
		*error = DW_DLE_ZLIB_UNCOMPRESS_ERROR;
		return DW_DLV_ERROR;
	}
	/* the compressed bytes are not read again: let their pages go */
	{
		uintptr_t a = ((uintptr_t)(o->map + sh->sh_offset) + 4095) & ~(uintptr_t)4095;
		uintptr_t z = (uintptr_t)(o->map + sh->sh_offset + sh->sh_size) & ~(uintptr_t)4095;

		if (z > a)
			madvise((void *)a, z - a, MADV_DONTNEED);
	}
	*data = o->inflated[i];
	return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods dwobj_methods = {
	dwobj_info, dwobj_order, dwobj_eight, dwobj_eight, dwobj_count, dwobj_load, NULL,
};

int sym_dwobj_init(struct sym_module *m, const uint8_t *map, size_t len, Dwarf_Debug *dbg,
		   Dwarf_Error *e)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
	struct sym_dwobj *o;
	const Elf64_Shdr *ss;

	*e = NULL;
	if (len < sizeof(*eh) || eh->e_shentsize != sizeof(Elf64_Shdr) || !eh->e_shoff ||
	    (eh->e_shoff & 7) || eh->e_shoff > len ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff ||
	    eh->e_shstrndx >= eh->e_shnum)
		return DW_DLV_NO_ENTRY;
	o = xcalloc(1, sizeof(*o));
	o->map = map;
	o->len = len;
	o->shs = (const Elf64_Shdr *)(map + eh->e_shoff);
	o->nsh = eh->e_shnum;
	ss = &o->shs[eh->e_shstrndx];
	if (ss->sh_type != SHT_NOBITS && dwobj_span(o, ss) == 0) {
		o->shstr = (const char *)map + ss->sh_offset;
		o->shstrsz = ss->sh_size;
	}
	o->inflated = xcalloc(o->nsh, sizeof(*o->inflated));
	o->iface.object = o;
	o->iface.methods = &dwobj_methods;
	m->dwobj = o;
	return dwarf_object_init_b(&o->iface, NULL, NULL, DW_GROUPNUMBER_ANY, dbg, e);
}

void sym_dwobj_free(struct sym_module *m)
{
	struct sym_dwobj *o = m->dwobj;

	if (!o)
		return;
	for (unsigned i = 0; i < o->nsh; i++)
		free(o->inflated[i]);
	free(o->inflated);
	free(o);
	m->dwobj = NULL;
}

const uint8_t *sym_dwobj_section(struct sym_module *m, const char *name, size_t *len)
{
	struct sym_dwobj *o = m->dwobj;
	Dwarf_Small *data = NULL;
	int err = 0;

	if (!o || !o->shstr)
		return NULL;
	for (unsigned i = 0; i < o->nsh; i++) {
		const Elf64_Shdr *sh = &o->shs[i];
		const Elf64_Chdr *ch;

		if (sh->sh_name >= o->shstrsz ||
		    strncmp(o->shstr + sh->sh_name, name, o->shstrsz - sh->sh_name) != 0)
			continue;
		if (dwobj_load(o, (Dwarf_Half)i, &data, &err) != DW_DLV_OK)
			return NULL;
		ch = sh->sh_flags & SHF_COMPRESSED ? dwobj_chdr(o, sh) : NULL;
		*len = ch ? ch->ch_size : sh->sh_size;
		return data;
	}
	return NULL;
}
