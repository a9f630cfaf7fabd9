/* core/symbols/sym_int.h: private state shared by the core/sym*.c files (ELF
 * symbols, DWARF line tables, CFI).  Not for use outside core/sym*.c. */
#ifndef PTDB_CORE_SYM_INT_H
#define PTDB_CORE_SYM_INT_H

#include <elf.h>
#include <libdwarf.h>
#include <stddef.h>
#include <stdint.h>

#include "core/symbols/sym.h"

struct sym_sym {		/* one ELF function symbol (link address) */
	uint64_t addr, size;
	const char *name;	/* mangled, points into the mapping */
	char *dem;		/* demangled (heap) or NULL */
	int dem_done;
	uint8_t bind;		/* STB_*: a global name wins over a local alias */
	uint8_t ifunc;		/* STT_GNU_IFUNC: the address is a resolver's */
	int stub;		/* a PLT entry: "symbol stub for: f", never a
				 * breakpoint location for f */
};

struct sym_row {		/* one line-table row (link address) */
	uint64_t addr;
	const char *file;
	unsigned line, col;
	uint32_t seq;		/* original index, sort tiebreak */
	uint8_t is_stmt, prologue_end, end_seq;
};

struct sym_scope {		/* one range of a function or of a call
				 * inlined into it (link addresses) */
	uint64_t lo, hi;
	uint64_t entry;		/* the lowest address of its ranges */
	uint64_t start;		/* the lowest, empty ranges included: where
				 * LLDB's breakpoint by name goes (inlined) */
	const char *name;	/* LLDB's name for the function */
	const char *call_file;	/* inlined: where it was called from */
	unsigned call_line, call_col;
	const char *decl_file;	/* the function's declaration (through
				 * abstract_origin, specification), NULL */
	unsigned decl_line;	/* if unknown (0) */
	int depth;		/* 0: the function; n: n calls deep */
	int owns_name;
	int dwarf_named;	/* name made by sym_func_dwarf_name */
	int split;		/* in a function of several ranges (a hot and a
				 * .cold part): lldb-16 makes no function of it,
				 * so its inlined calls get no breakpoint */
};

struct sym_cu {
	Dwarf_Die die;		/* read on first use (sym_cu_die) */
	int die_failed;
	uint64_t off;		/* CU DIE offset in .debug_info */
	int loaded;		/* line table decoded (or failed) */
	struct sym_row *rows;	/* sorted by address */
	size_t nrows;
	char **files;		/* by DWARF file number, heap strings */
	size_t nfiles;
	char *path;		/* sym_var.c: comp_dir/name, heap, or NULL */
	int scopes_loaded;	/* sym_scope.c */
	struct sym_scope *scopes;
	size_t nscopes;
	/* inlined calls whose ranges are all empty (lo = hi = start): no
	 * code of theirs, but lldb-16 sets a breakpoint by name there */
	struct sym_scope *empties;
	size_t nempties;
	/* the ranges of lexical blocks inside inlined calls (depth: the
	 * call's) */
	struct sym_scope *blocks;
	size_t nblocks;
	char **scope_files;	/* call_file names */
	size_t nscope_files;
	int gnu5;		/* GCC's DWARF 5 line table: libdwarf 20210528
				 * reports the initial file register (1) as 0 */
};

struct sym_arange {
	uint64_t lo, hi;
	size_t cu;
};

/* sym_type.c: types; sym_die.c: a DIE's attributes (sym_die_*) */
struct sym_type;
struct sym_type *sym_type_at(struct sym_module *m, uint64_t die_off, int cxx);
/* The scope of the C++ type at die_off as clang prints it ("std::" for
 * std::__cxx11::), or the class it is declared in (parent, 0 if none);
 * -1: declared at the top. */
int sym_type_scope(struct sym_module *m, uint64_t die_off, const char **dprefix,
		   uint64_t *parent);
/* The scope of the DIE at die_off as DWARF names it, classes and inline
 * namespaces included ("app::Counter::", "std::__cxx11::"); "" at the top. */
const char *sym_type_scope_raw(struct sym_module *m, uint64_t die_off);
void sym_types_free(struct sym_module *m);
int sym_die_udata(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, uint64_t *v);
/* A reference's DIE offset; SYM_DIE_TYPES marks one in .debug_types
 * (DWARF 4 type units, found by their signature). */
#define SYM_DIE_TYPES (1ull << 63)
int sym_die_ref(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, uint64_t *off);
int sym_die_flag(struct sym_module *m, Dwarf_Die die, Dwarf_Half at);
/* An exprloc attribute's operations (len bytes): 0, or -1 without one. */
int sym_die_exprloc(struct sym_module *m, Dwarf_Die die, Dwarf_Half at, const uint8_t **ops,
		    size_t *len);
char *sym_die_name(struct sym_module *m, Dwarf_Die die);
/* sym_debugfile.c: the GNU build id in the ELF notes at p (sz bytes):
 * its length and *id, 0 if none (or the notes are malformed). */
size_t sym_notes_build_id(const uint8_t *p, size_t sz, const uint8_t **id);
/* sym_debugfile.c: finds and maps m's debug file (user directories,
 * space separated, then /usr/lib/debug); 0 found, -1 none. */
int sym_debug_find(struct sym_module *m, const char *dirs);
/* Takes the found debug file's symbols and (if m has none) DWARF. */
void sym_use_debug(struct sym_module *m);
void sym_debug_free(struct sym_module *m);
/* sym_scope.c: the function holding link address a and the inlined
 * calls in it that hold a, outermost first (up to max); their count. */
int sym_scopes_at(struct sym_module *m, uint64_t a, const struct sym_scope **out, int max);
void sym_scope_free_cu(struct sym_cu *cu);
/* A CU's functions and inlined calls, read once; LLDB's name of a DIE
 * (heap, or NULL); a libdwarf error released. */
void sym_scope_load(struct sym_module *m, struct sym_cu *cu);
char *sym_scope_name(struct sym_module *m, Dwarf_Die die, int hops);
/* LLDB's name of a C++ function definition without a linkage name whose
 * declaration sits in a namespace or class (sym_fname.c): its scope, name
 * and parameter types ("ns::f(const char *)"); heap, or NULL otherwise. */
char *sym_func_dwarf_name(struct sym_module *m, Dwarf_Die die);
void sym_scope_err(struct sym_module *m, Dwarf_Error *e);
/* sym_inlidx.c: the index of functions declared inline */
void sym_scope_free_index(struct sym_module *m);
/* sym_unwind.c */
struct sym_cie;
struct sym_fde;
struct sym_cfi {		/* one frame section's parsed FDE table */
	int state;		/* 0 untried, 1 ok, -1 none */
	int is_eh;		/* .eh_frame (else .debug_frame) */
	const uint8_t *data;	/* section bytes, in the mapping (or owned) */
	size_t size;
	uint8_t *owned;		/* a compressed section inflated (Go's
				 * .debug_frame), or NULL */
	uint64_t addr;		/* section link address (pcrel base) */
	struct sym_cie *cie;	/* sorted by section offset */
	size_t ncie;
	struct sym_fde *fde;	/* sorted by start address */
	size_t nfde;
};

struct sym_rsym {		/* a symbol of sym_regname.c (link address) */
	uint64_t addr, size;	/* size: LLDB's for one without a size */
	const char *name;	/* points into the mapping */
	size_t index;		/* in its symbol table */
	uint8_t bind;		/* STB_* */
};

struct sym_module {
	char *path, *name;
	int fd;
	const uint8_t *map;
	size_t maplen;
	uint64_t bias, entry;
	uint64_t link_base;	/* lowest PT_LOAD p_vaddr, page aligned */
	int pie, has_debug;
	char *dpath;		/* the separate debug file (symbols and DWARF
				 * come from it), or NULL */
	int dfd;		/* its descriptor, -1 without one */
	int dw_debug;		/* DWARF read from the debug file */
	const uint8_t *dmap;
	size_t dmaplen;
	int raw;		/* a raw binary (no ELF): one code segment at
				 * file offset 0, no symbols, no CFI */
	struct sym_sym *syms;	/* sorted by addr */
	size_t nsyms;
	int synth_done;		/* sym_synth_names ran */
	size_t lldb_nsyms;	/* the symbols LLDB reads before it adds its
				 * unnamed ones: the ELF table's (less the
				 * null one) and one per .rela.plt entry */
	struct sym_sym *alias;	/* other names of an address in syms
				 * (printf for _IO_printf): found by name */
	size_t nalias;
	int dw_state;		/* 0 untried, 1 ok, -1 no DWARF */
	char dw_err[200];	/* the first DWARF read error (libdwarf's
				 * words), "" when none */
	Dwarf_Debug dbg;
	struct sym_dwobj *dwobj;	/* the sections libdwarf reads */
	struct sym_cu *cus;
	size_t ncus;
	struct sym_arange *ar;	/* sorted by lo */
	size_t nar;
	struct sym_cfi eh, dframe;
	char *main_file;
	int main_file_done;
	struct sym_tcache *tcache;	/* sym_type.c: types by DIE offset */
	int inl_done;		/* sym_inlidx.c: inl_names built */
	struct sym_inl_name *inl_names;	/* functions declared inline, by CU */
	size_t ninl_names;
	size_t inl_unnamed;	/* of them, named through libdwarf on the
				 * first lookup */
	int data_done;		/* sym_data.c: dsyms read */
	struct sym_sym *dsyms;	/* data symbols (STT_OBJECT), by address */
	size_t ndsyms;
	int rn_done;		/* sym_regname.c: rsyms read */
	struct sym_rsym *rsyms;	/* every symbol of an address, by address */
	size_t nrsyms;
};

/* sym_names.c: the symbol covering link_addr (synthesized names
 * included), or NULL. */
struct sym_sym *sym_find_sym(struct sym_module *m, uint64_t link_addr);
/* sym_img.c: an ELF image's section table, read from its mapping. */
struct sym_img {
	const uint8_t *map;
	size_t len;
	const Elf64_Shdr *shs;	/* NULL (nsh 0) when it has no section table */
	unsigned nsh;
	unsigned shstrndx;	/* as the header says (may be >= nsh) */
	const char *shstr;	/* the section names, NULL when not in the map */
	size_t shstrsz;
};
/* 0, or -1 when map (len bytes) is no x86-64 ELF image or its section
 * table lies outside it; a table absent: 0 sections. */
int sym_img_init(struct sym_img *im, const uint8_t *map, size_t len);
/* Whether sh's bytes are in the image (not SHT_NOBITS, inside the map); a
 * table's (symbols, relocations) also 8-aligned, as the ELF spec has them. */
int sym_img_in(const struct sym_img *im, const Elf64_Shdr *sh);
int sym_img_table_in(const struct sym_img *im, const Elf64_Shdr *sh);
/* sh's name ("" when it has none in the names); the index of the first
 * section named name, or -1; the first so named with its bytes in the
 * image (NULL if none), and those bytes (*size of them). */
const char *sym_img_name(const struct sym_img *im, const Elf64_Shdr *sh);
int sym_img_find(const struct sym_img *im, const char *name);
const Elf64_Shdr *sym_img_shdr(const struct sym_img *im, const char *name);
const uint8_t *sym_img_section(const struct sym_img *im, const char *name, size_t *size);
/* The string table sh links to (a symbol table's), non-empty and in the
 * image, with its *size; NULL otherwise. */
const char *sym_img_strtab(const struct sym_img *im, const Elf64_Shdr *sh, size_t *size);
/* The first section (but SHT_NULL and SHT_NOBITS ones) whose bytes lie
 * past the image's end, or -1; whether it has DWARF (.debug_info or
 * .debug_line). */
int sym_img_outside(const struct sym_img *im);
int sym_img_has_dwarf(const struct sym_img *im);
/* sym_symtab.c: loads the function symbols of an SHT_SYMTAB/SHT_DYNSYM section of the
 * ELF image im (the module's or its debug file's) into m->syms. */
void sym_load_symtab(struct sym_module *m, const struct sym_img *im, const Elf64_Shdr *sh);
void sym_free_syms(struct sym_module *m);
/* sym_symtab.c: symbol order. */
int sym_cmp_sym(const void *a, const void *b);
/* sym_symtab.c: map's first symbol table of type want (SHT_SYMTAB,
 * SHT_DYNSYM) that lies, with its strings, inside map: its *n symbols
 * and its strings; NULL when it has none.  A symbol's name in them, NULL
 * when empty or outside them. */
const Elf64_Sym *sym_elf_table(const uint8_t *map, size_t maplen, unsigned want, size_t *n,
			       const char **strs, size_t *strsz);
const char *sym_elf_sym_name(const Elf64_Sym *s, const char *strs, size_t strsz);
/* sym_names.c: a symbol's name, demangled once. */
const char *sym_sym_name(struct sym_sym *s);
/* sym_dwarf.c (sym_dwarf_free after the scopes and types built on it:
 * sym_module_free) */
int sym_dwarf_init(struct sym_module *m);
void sym_dwarf_free(struct sym_module *m);
/* sym_dwobj.c: libdwarf on the mapped ELF image map (the module's or its
 * debug file's), compressed sections inflated on demand.  libdwarf's
 * DW_DLV_* result; sym_dwobj_free after dwarf_object_finish. */
int sym_dwobj_init(struct sym_module *m, const uint8_t *map, size_t len, Dwarf_Debug *dbg,
		   Dwarf_Error *e);
void sym_dwobj_free(struct sym_module *m);
/* The DIE offsets of .debug_info's units, in order, read from their
 * headers (*offs: the caller's), or -1 when a header is one libdwarf
 * should read (damage, a form not known here: libdwarf says what is
 * wrong).  libdwarf makes its own record of a unit only when a DIE in it
 * is read, instead of one per unit of a large debug file at start-up. */
ssize_t sym_dwobj_units(struct sym_module *m, uint64_t **offs);
/* sym_dwarf.c: m->cus as libdwarf lists the units (where sym_dwobj_units
 * would not; and the unit tests' reference for it). */
void sym_dwarf_units(struct sym_module *m);
/* The same without libdwarf (a compressed section is inflated once and
 * kept, for libdwarf too). */
const uint8_t *sym_dwobj_bytes(struct sym_module *m, const char *name, size_t *len);
/* A DWARF section read in order without libdwarf: a compressed one
 * inflated whole and kept (libdwarf reads the same copy), an uncompressed
 * one's mapped pages let go behind the reader.  sym_dwstream_at: bytes
 * [off, off + n), valid until the stream is closed, or NULL (past the
 * end). */
struct sym_dwstream;
struct sym_dwstream *sym_dwstream_open(struct sym_module *m, const char *name, size_t *len);
const uint8_t *sym_dwstream_at(struct sym_dwstream *s, size_t off, size_t n);
void sym_dwstream_close(struct sym_dwstream *s);
/* Reads cu's DIE if not yet read: 0, or -1 (noted as a DWARF problem). */
int sym_cu_die(struct sym_module *m, struct sym_cu *cu);
/* The children of a DIE in order, one loop for every walk:
 *   for (c = sym_die_child(m, die); c; c = sym_die_next(m, c))
 * sym_die_next releases c and returns its next sibling, NULL after the
 * last (or on a read error: libdwarf's errors are released here);
 * sym_die_next_keep leaves c to the caller (sym_die_free); a loop left
 * early releases its c with sym_die_free (NULL: nothing). */
Dwarf_Die sym_die_child(struct sym_module *m, Dwarf_Die die);
Dwarf_Die sym_die_next(struct sym_module *m, Dwarf_Die c);
Dwarf_Die sym_die_next_keep(struct sym_module *m, Dwarf_Die c);
void sym_die_free(struct sym_module *m, Dwarf_Die c);
/* The row covering link_addr (and its CU), or NULL. */
const struct sym_row *sym_find_row(struct sym_module *m, uint64_t link_addr,
				   struct sym_cu **cu_out);
/* LLDB's after-prologue link address for function [lo, hi). */
uint64_t sym_after_prologue(struct sym_module *m, uint64_t lo, uint64_t hi, int sym_rule);
/* sym_scope.c: 1 if the function at link address a has several ranges
 * (a hot and a .cold part): lldb-16 makes no function of it, so its
 * breakpoint by name skips the symbol's prologue (sym_rule). */
int sym_func_split(struct sym_module *m, uint64_t a);
/* sym_unwind.c */
void sym_unwind_free(struct sym_module *m);
/* The .eh_frame FDEs' link ranges [lo, hi), sorted (heap, caller frees);
 * their count. */
size_t sym_unwind_fdes(struct sym_module *m, uint64_t (**ranges)[2]);
/* sym_names.c: a shared library is named as the dynamic loader's link map
 * names it, as LLDB does: a library found through a DT_NEEDED entry is
 * opened as DIR/SONAME, a link to the versioned file (libstdc++.so.6, not
 * libstdc++.so.6.0.30); when DIR/SONAME is the file at path (m's, or where
 * a loaded trace's copy of m was loaded from), m->name becomes SONAME. */
void sym_link_map_name(struct sym_module *m, const char *path);
/* sym_names.c: names for functions that have an FDE but no symbol
 * (added to m->syms once, on the first address lookup). */
void sym_synth_names(struct sym_module *m);

#endif
