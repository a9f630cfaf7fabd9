/* core/symbols/sym_file.h: a module's ELF file read at link addresses, for when the
 * process does not (yet) map it (core/symbols/sym_file.c): its PT_LOAD segments'
 * bytes, whether an address lies in a segment (an executable one), and the
 * section holding it.  Addresses are the module's runtime addresses (its
 * bias applied); the file is opened for each call. */
#ifndef PTDB_CORE_SYM_FILE_H
#define PTDB_CORE_SYM_FILE_H

#include <stddef.h>
#include <stdint.h>

struct sym_module;

/* Up to n bytes at addr from the file's segments (the part of a segment
 * past its file size reads as zeros, like .bss), across adjacent segments;
 * how many could be read from the start (0: none). */
size_t sym_file_read(const struct sym_module *m, uint64_t addr, uint8_t *buf, size_t n);
/* 1 if addr lies in a PT_LOAD segment of the file, 0 if not (or the file
 * cannot be read). */
int sym_file_covers(const struct sym_module *m, uint64_t addr);
/* 1 if addr lies in an executable PT_LOAD segment of the file. */
int sym_file_code(const struct sym_module *m, uint64_t addr);
/* The name of the allocated section holding link (file) address a into
 * name (n bytes; "" if none) and its address into *sec_start, named as
 * LLDB names it inside its segment ("PT_LOAD[1]..text"; "PT_LOAD[0]" and
 * the segment's address outside any section). */
void sym_file_section(const struct sym_module *m, uint64_t a, char *name, size_t n,
		      uint64_t *sec_start);

#endif
