/* core/symbols/sym_file.c: a module's ELF file read at link addresses — PT_LOAD
 * segments and section headers with pread, no mapping (core/symbols/sym_file.h);
 * what "memory read", "disassemble" and "image lookup" show before the
 * process maps the module. */
#include "core/symbols/sym_file.h"
#include "core/symbols/sym.h"
#include "base/err.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct elf_file {
	int fd;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
};

static int elf_open(const char *path, struct elf_file *ef)
{
	memset(ef, 0, sizeof(*ef));
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return -1;
	if (pread(ef->fd, &ef->eh, sizeof(ef->eh), 0) != (ssize_t)sizeof(ef->eh) ||
	    memcmp(ef->eh.e_ident, ELFMAG, SELFMAG) || ef->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ef->eh.e_phentsize != sizeof(Elf64_Phdr) || ef->eh.e_phnum == 0)
		goto fail;
	ef->ph = xcalloc(ef->eh.e_phnum, sizeof(Elf64_Phdr));
	if (pread(ef->fd, ef->ph, (size_t)ef->eh.e_phnum * sizeof(Elf64_Phdr), (off_t)ef->eh.e_phoff) !=
	    (ssize_t)((size_t)ef->eh.e_phnum * sizeof(Elf64_Phdr)))
		goto fail;
	return 0;
fail:
	free(ef->ph);
	close(ef->fd);
	ef->ph = NULL;
	ef->fd = -1;
	return -1;
}

static void elf_close(struct elf_file *ef)
{
	free(ef->ph);
	if (ef->fd >= 0)
		close(ef->fd);
}

/* The PT_LOAD segment holding link address a, or NULL. */
static const Elf64_Phdr *elf_segment(const struct elf_file *ef, uint64_t a)
{
	for (int i = 0; i < ef->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &ef->ph[i];

		if (p->p_type == PT_LOAD && a >= p->p_vaddr && a < p->p_vaddr + p->p_memsz)
			return p;
	}
	return NULL;
}

/* Reads up to n bytes at link address a (the part past p_filesz reads as
 * zeros, like .bss); stops at the end of the segment.  Returns the count,
 * -1 when a is in no segment. */
static ssize_t elf_read(const struct elf_file *ef, uint64_t a, uint8_t *buf, size_t n)
{
	const Elf64_Phdr *p = elf_segment(ef, a);
	size_t got = 0;

	if (!p)
		return -1;
	if (n > p->p_vaddr + p->p_memsz - a)
		n = (size_t)(p->p_vaddr + p->p_memsz - a);
	if (a < p->p_vaddr + p->p_filesz) {
		size_t want = n;
		ssize_t r;

		if (want > p->p_vaddr + p->p_filesz - a)
			want = (size_t)(p->p_vaddr + p->p_filesz - a);
		r = pread(ef->fd, buf, want, (off_t)(p->p_offset + (a - p->p_vaddr)));
		if (r < 0)
			return -1;
		got = (size_t)r;
		if (got < want)
			return (ssize_t)got;
	}
	memset(buf + got, 0, n - got);
	return (ssize_t)n;
}

/* The name of the section holding link address a ("" if none); *sec_start
 * gets its address. */
static void elf_section(const struct elf_file *ef, uint64_t a, char *name, size_t n,
			uint64_t *sec_start)
{
	Elf64_Shdr *sh = NULL, str;
	size_t cnt = ef->eh.e_shnum;

	name[0] = 0;
	if (!cnt || ef->eh.e_shentsize != sizeof(Elf64_Shdr) || ef->eh.e_shstrndx >= cnt)
		return;
	sh = xcalloc(cnt, sizeof(*sh));
	if (pread(ef->fd, sh, cnt * sizeof(*sh), (off_t)ef->eh.e_shoff) != (ssize_t)(cnt * sizeof(*sh)))
		goto out;
	str = sh[ef->eh.e_shstrndx];
	for (size_t i = 1; i < cnt; i++) {
		ssize_t r;

		if (!(sh[i].sh_flags & SHF_ALLOC) || a < sh[i].sh_addr ||
		    a >= sh[i].sh_addr + sh[i].sh_size || sh[i].sh_name >= str.sh_size)
			continue;
		r = pread(ef->fd, name, n - 1, (off_t)(str.sh_offset + sh[i].sh_name));
		name[r > 0 ? r : 0] = 0;
		*sec_start = sh[i].sh_addr;
		break;
	}
out:
	free(sh);
}

size_t sym_file_read(const struct sym_module *m, uint64_t addr, uint8_t *buf, size_t n)
{
	struct elf_file ef;
	uint64_t link = addr - sym_module_bias(m);
	size_t got = 0;

	if (elf_open(sym_module_path(m), &ef) < 0)
		return 0;
	while (got < n) {
		ssize_t r = elf_read(&ef, link + got, buf + got, n - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	elf_close(&ef);
	return got;
}

int sym_file_covers(const struct sym_module *m, uint64_t addr)
{
	struct elf_file ef;
	int in;

	if (elf_open(sym_module_path(m), &ef) < 0)
		return 0;
	in = elf_segment(&ef, addr - sym_module_bias(m)) != NULL;
	elf_close(&ef);
	return in;
}

int sym_file_code(const struct sym_module *m, uint64_t addr)
{
	struct elf_file ef;
	const Elf64_Phdr *p;
	int code;

	if (elf_open(sym_module_path(m), &ef) < 0)
		return 0;
	p = elf_segment(&ef, addr - sym_module_bias(m));
	code = p && (p->p_flags & PF_X);
	elf_close(&ef);
	return code;
}

void sym_file_section(const struct sym_module *m, uint64_t a, char *name, size_t n,
		      uint64_t *sec_start)
{
	struct elf_file ef;
	char sec[128];
	int seg = -1, k = 0;

	name[0] = 0;
	if (elf_open(sym_module_path(m), &ef) < 0)
		return;
	/* LLDB names a section inside its segment: PT_LOAD[N] counts the
	 * PT_LOAD headers from 0 */
	for (int i = 0; i < ef.eh.e_phnum && seg < 0; i++)
		if (ef.ph[i].p_type == PT_LOAD) {
			if (a >= ef.ph[i].p_vaddr && a < ef.ph[i].p_vaddr + ef.ph[i].p_memsz) {
				seg = k;
				*sec_start = ef.ph[i].p_vaddr;
			}
			k++;
		}
	elf_section(&ef, a, sec, sizeof(sec), sec_start);
	if (seg >= 0 && sec[0])
		snprintf(name, n, "PT_LOAD[%d].%s", seg, sec);
	else if (seg >= 0)
		snprintf(name, n, "PT_LOAD[%d]", seg);
	else
		snprintf(name, n, "%s", sec);
	elf_close(&ef);
}
