/* core/symbols/sym_img.c: an ELF image's section table read from its
 * mapping (a module's file, its debug file, a candidate debug file): the
 * header checked once, and a section's bytes, name and string table
 * taken only where they lie inside the mapping.  The one reader of
 * section headers for the symbol tables (sym_symtab.c, sym_elf.c), the
 * debug files (sym_debugfile.c) and libdwarf's sections (sym_dwobj.c);
 * it calls none of the other files. */
#include <elf.h>
#include <string.h>

#include "core/symbols/sym_int.h"

int sym_img_init(struct sym_img *im, const uint8_t *map, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
	const Elf64_Shdr *ss;

	memset(im, 0, sizeof(*im));
	im->map = map;
	im->len = len;
	if (!map || len < sizeof(*eh) || memcmp(map, ELFMAG, SELFMAG) || map[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != EM_X86_64)
		return -1;
	if (!eh->e_shoff || !eh->e_shnum)
		return 0;	/* no section table: no sections */
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || (eh->e_shoff & 7) || eh->e_shoff > len ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)
		return -1;
	im->shs = (const Elf64_Shdr *)(map + eh->e_shoff);
	im->nsh = eh->e_shnum;
	im->shstrndx = eh->e_shstrndx;
	ss = im->shstrndx < im->nsh ? &im->shs[im->shstrndx] : NULL;
	if (ss && sym_img_in(im, ss)) {
		im->shstr = (const char *)map + ss->sh_offset;
		im->shstrsz = ss->sh_size;
	}
	return 0;
}

int sym_img_in(const struct sym_img *im, const Elf64_Shdr *sh)
{
	return sh->sh_type != SHT_NOBITS && sh->sh_offset <= im->len &&
	       sh->sh_size <= im->len - sh->sh_offset;
}

int sym_img_table_in(const struct sym_img *im, const Elf64_Shdr *sh)
{
	return sym_img_in(im, sh) && !(sh->sh_offset & 7);
}

const char *sym_img_name(const struct sym_img *im, const Elf64_Shdr *sh)
{
	if (!im->shstr || sh->sh_name >= im->shstrsz ||
	    !memchr(im->shstr + sh->sh_name, 0, im->shstrsz - sh->sh_name))
		return "";
	return im->shstr + sh->sh_name;
}

int sym_img_find(const struct sym_img *im, const char *name)
{
	for (unsigned i = 0; i < im->nsh; i++)
		if (!strcmp(sym_img_name(im, &im->shs[i]), name))
			return (int)i;
	return -1;
}

const Elf64_Shdr *sym_img_shdr(const struct sym_img *im, const char *name)
{
	for (unsigned i = 0; i < im->nsh; i++)
		if (!strcmp(sym_img_name(im, &im->shs[i]), name) && sym_img_in(im, &im->shs[i]))
			return &im->shs[i];
	return NULL;
}

const uint8_t *sym_img_section(const struct sym_img *im, const char *name, size_t *size)
{
	const Elf64_Shdr *sh = sym_img_shdr(im, name);

	if (!sh)
		return NULL;
	*size = sh->sh_size;
	return im->map + sh->sh_offset;
}

const char *sym_img_strtab(const struct sym_img *im, const Elf64_Shdr *sh, size_t *size)
{
	const Elf64_Shdr *strsh;

	if (sh->sh_link >= im->nsh)
		return NULL;
	strsh = &im->shs[sh->sh_link];
	if (!sym_img_in(im, strsh) || !strsh->sh_size)
		return NULL;
	*size = strsh->sh_size;
	return (const char *)im->map + strsh->sh_offset;
}

int sym_img_outside(const struct sym_img *im)
{
	for (unsigned i = 0; i < im->nsh; i++)
		if (im->shs[i].sh_type != SHT_NULL && im->shs[i].sh_type != SHT_NOBITS &&
		    !sym_img_in(im, &im->shs[i]))
			return (int)i;
	return -1;
}

int sym_img_has_dwarf(const struct sym_img *im)
{
	return sym_img_find(im, ".debug_info") >= 0 || sym_img_find(im, ".debug_line") >= 0;
}
