/* core/symbols/sym.h: modules and symbols — one ELF file (symtab, DWARF line tables,
 * CFI) mapped at a load bias, address <-> function/line lookups, LLDB-style
 * symbol-context strings and one-frame unwinding.
 * Addresses given to and returned by these functions are runtime addresses
 * (link address + bias).  Strings returned point into the module and live
 * until sym_module_free. */
#ifndef PTDB_CORE_SYM_H
#define PTDB_CORE_SYM_H

#include <stddef.h>
#include <regex.h>
#include <stdint.h>

#include "base/err.h"

struct sym_module;

/* Opens and indexes (cheaply, lazily) the ELF file at path.  Errors:
 * "'PATH' is not an ELF file", "'PATH' is not an x86-64 ELF file",
 * "cannot open 'PATH': strerror". */
struct sym_module *sym_module_open(const char *path, struct ptdb_err *err);
/* As sym_module_open, and looks for the file's separate debug
 * information when it has no symbol table or DWARF: by GNU build id
 * (ROOT/.build-id/xx/yyyy.debug) then by .gnu_debuglink name (CRC
 * checked: beside the file, in its .debug/, in ROOT and ROOT/<dir of the
 * file>) for each ROOT of debug_dirs (space separated; may be NULL) and
 * /usr/lib/debug.  Symbols and DWARF then come from the debug file. */
struct sym_module *sym_module_open_debug(const char *path, const char *debug_dirs,
					 struct ptdb_err *err);
/* The debug file in use, or NULL. */
const char *sym_module_debug_path(const struct sym_module *m);
void sym_module_free(struct sym_module *m);
/* A raw binary (firmware, a JIT dump, a test image): the whole file is one
 * executable segment at runtime address bias (set it with
 * sym_module_set_bias); no symbols, lines or CFI.  Errors as above. */
struct sym_module *sym_module_open_raw(const char *path, struct ptdb_err *err);
int sym_module_is_raw(const struct sym_module *m);
/* Reads the module's DWARF unit headers and first line table now (they are
 * otherwise read on first use) and returns why its debug information is
 * unusable or partly so (libdwarf's words; owned by m), or NULL when it
 * reads fine or there is none. */
const char *sym_module_dwarf_problem(struct sym_module *m);
/* Reads up to n bytes of the file's loaded image (PT_LOAD file bytes; the
 * raw file) at runtime address addr; returns how many (0: none mapped). */
size_t sym_module_read(const struct sym_module *m, uint64_t addr, void *buf, size_t n);
/* The runtime range [*lo, *hi) the loadable segments cover; 0, or -1 if
 * none. */
int sym_module_range(const struct sym_module *m, uint64_t *lo, uint64_t *hi);
/* The PT_TLS segment's size in memory and alignment; -1 if none. */
int sym_module_tls(const struct sym_module *m, uint64_t *memsz, uint64_t *align);
/* 1 if the file ends before its program headers or a loadable segment's
 * bytes do (a truncated copy). */
int sym_module_truncated(const struct sym_module *m);
/* The GNU build ID note as upper-case hex in LLDB's UUID layout
 * ("1B2A3C4D-5E6F-7081-92A3-B4C5D6E7F8091A2B"); "" if the file has none. */
void sym_module_uuid(const struct sym_module *m, char *buf, size_t n);
/* Calls fn for each executable PT_LOAD segment with file bytes: file
 * offset, size in the file, runtime address.  Returns the count, or -1 if fn
 * failed. */
typedef int (*sym_segment_fn)(void *ctx, uint64_t offset, uint64_t size,
			      uint64_t vaddr);
int sym_module_segments(const struct sym_module *m, sym_segment_fn fn, void *ctx);
/* The open file descriptor of the module's file ("/proc/self/fd/N" names
 * it even when the file was unlinked, as the vDSO copy is). */
int sym_module_fd(const struct sym_module *m);
/* Renames a module opened from a copy ("[vdso]"): path and name. */
void sym_module_set_name(struct sym_module *m, const char *name);
/* The name symbol contexts use ("libc.so.6"): the basename of path, for a
 * module opened from a copy named otherwise (or the link map's name, as
 * when the module was opened from path itself: core/symbols/sym_names.c). */
void sym_module_set_display_name(struct sym_module *m, const char *path);
/* The module's path and name as the user named its file (a symlink to
 * it: "/usr/bin/python3" for python3.11, as lldb-16 keeps it). */
void sym_module_set_path(struct sym_module *m, const char *path);
/* bias = load address - link address (0 for a non-PIE executable). */
void sym_module_set_bias(struct sym_module *m, uint64_t bias);
uint64_t sym_module_bias(const struct sym_module *m);
const char *sym_module_path(const struct sym_module *m);	/* absolute */
const char *sym_module_name(const struct sym_module *m);	/* basename */
uint64_t sym_module_entry(const struct sym_module *m);	/* runtime e_entry */
int sym_module_is_pie(const struct sym_module *m);	/* ET_DYN */
/* Lowest PT_LOAD virtual address, page aligned: bias = mapping of file
 * offset 0 - link base. */
uint64_t sym_module_link_base(const struct sym_module *m);
int sym_module_has_debug(const struct sym_module *m);	/* has .debug_line/.debug_info */

struct sym_loc {
	const char *func;	/* demangled function/symbol name or NULL */
	uint64_t func_addr;	/* runtime start address of the function */
	const char *file;	/* source path as in DWARF (full path) or NULL */
	unsigned line, column;	/* 0 if unknown */
	int func_whole;		/* func is a name made from DWARF with its
				 * parameters (sym_func_dwarf_name): LLDB
				 * shows it whole where it cuts a demangled
				 * name's (the disassembly's header) */
};
/* The calls inlined at addr (DW_TAG_inlined_subroutine), innermost
 * first: the inlined function's name, the runtime start of its range
 * holding addr, and where it was called from (file as in DWARF, or NULL).
 * Returns the count (<= max), 0 when addr is in no inlined call. */
struct sym_inline {
	const char *name;
	uint64_t lo;
	const char *call_file;
	unsigned call_line, call_col;
};
int sym_inlines_at(struct sym_module *m, uint64_t addr, struct sym_inline *out, int max);
/* 1 if addr lies in a lexical block (DW_TAG_lexical_block) inside the
 * innermost call inlined there, not in the call's own code: lldb-16 then
 * names that frame by its function alone, without the inlined call and
 * without arguments (its frame format takes the inlined call from the
 * innermost block, which is the lexical one). */
int sym_inline_in_block(struct sym_module *m, uint64_t addr);
/* The data symbol (STT_OBJECT) holding addr (runtime): its name and
 * addr's offset in it; -1 when none.  LLDB names such addresses by it
 * ("mod`prog", "mod`stderr@GLIBC_2.2.5"). */
int sym_data_at(struct sym_module *m, uint64_t addr, const char **name, uint64_t *off);
/* The ELF symbols named name (the whole name, or the name before its
 * "@version") in the table sym_data_at reads, in its order, as lldb-16's
 * 'image lookup -s' lists them: a defined one at its runtime address, an
 * undefined one (a function another module gives) with undef set and
 * address 0; with re, those whose name re finds ('image lookup -r -s';
 * name unused).  name points into the table.  Returns the number filled
 * (<= max). */
struct sym_symbol {
	const char *name;
	uint64_t addr;
	int undef;
};
int sym_lookup_symbols(struct sym_module *m, const char *name, const regex_t *re,
		       struct sym_symbol *out, int max);
/* How lldb-16's 'register read' names a value addr (runtime) that is no
 * function's address (sym_regname.c): -1 when addr is in none of m's loaded
 * segments, else 0 with buf the name ("mod`sym + 8", "sym" in .data, "" for
 * a spot no symbol holds). */
int sym_reg_name(struct sym_module *m, uint64_t addr, char *buf, size_t n);
/* The number of the PT_LOAD segment holding addr (runtime) as lldb-16
 * loads them (see sym_reg_name), -1 if none. */
int sym_load_segment(const struct sym_module *m, uint64_t addr);
/* The program interpreter m names (its PT_INTERP), NULL if none. */
const char *sym_module_interp(const struct sym_module *m);

/* 0 if a symbol or a line covers addr, -1 if neither.  func is the name
 * of the DWARF function holding addr when there is one (LLDB's choice),
 * else of the symbol. */
int sym_lookup_addr(struct sym_module *m, uint64_t addr, struct sym_loc *out);

/* Functions named name (mangled, demangled "ns::f(int)", or base name "f"):
 * fills entry[i] and after_prologue[i] (LLDB's breakpoint address: first
 * prologue_end row, else the first row with a line different from the
 * opening line, else the end of the first row).  after_prologue may be NULL.
 * Returns the number of matches filled (<= max). */
int sym_lookup_func(struct sym_module *m, const char *name, uint64_t *entry,
		    uint64_t *after_prologue, int max);
/* Functions whose demangled or mangled name regex re finds (unanchored, as
 * lldb-16's 'breakpoint set -r'), filled as sym_lookup_func fills them, in
 * address order (lldb-16's order is its index's, which follows no rule
 * of the names or addresses). */
int sym_lookup_func_regex(struct sym_module *m, const regex_t *re, uint64_t *entry,
			  uint64_t *after_prologue, int max);
/* 1 when a function symbol at runtime address addr is an STT_GNU_IFUNC
 * (the address is its resolver's: strlen, memcpy in libc). */
int sym_addr_is_ifunc(struct sym_module *m, uint64_t addr);

/* The inlined copies of the functions named name (DW_TAG_inlined_subroutine
 * whose abstract origin has that name): the lowest start of each copy's
 * ranges, where LLDB places a breakpoint by name.  The module's functions
 * declared inline are indexed on the first call.  Returns the number filled
 * (<= max). */
int sym_lookup_inlined(struct sym_module *m, const char *name, uint64_t *addrs, int max);

/* Breakpoint addresses for file:line (file matched by full path, path suffix
 * or basename).  If line has no code, the next line with code is used, and
 * *actual_line (may be NULL) says which.  One address per function (the
 * lowest is_stmt row); an address at a function entry is moved past the
 * prologue.  Returns the number filled (<= max), 0 if none. */
int sym_lookup_line(struct sym_module *m, const char *file, unsigned line,
		    uint64_t *addrs, int max, unsigned *actual_line);
/* A breakpoint's locations for file:line as LLDB's resolver keeps them:
 * sym_lookup_line's, less those in a function (or inlined call) whose
 * declaration in that file comes after line + 1 (a line between two functions
 * slides to no code of the next one: the breakpoint stays pending). */
int sym_lookup_line_bp(struct sym_module *m, const char *file, unsigned line,
		       uint64_t *addrs, int max);
/* The declaration line (DW_AT_decl_line) of the function holding addr
 * (runtime), 0 if unknown. */
unsigned sym_func_decl_line(struct sym_module *m, uint64_t addr);

/* The contiguous range [lo,hi) around addr whose rows all have addr's line
 * (source-level stepping).  0 found, -1 not. */
int sym_line_range(struct sym_module *m, uint64_t addr, uint64_t *lo,
		   uint64_t *hi);

/* 1 if a line entry (line != 0) starts exactly at addr.  LLDB's line
 * entries: the rows at one address collapse into the last one, is_stmt
 * or not (lldb-16 steps to rows without is_stmt as to any other). */
int sym_row_start(struct sym_module *m, uint64_t addr);

/* LLDB's line entry holding addr (runtime): [lo, hi) up to the next
 * address with rows, the last row's file and line.  0 found, -1 not. */
struct sym_line_entry {
	uint64_t lo, hi;
	const char *file;
	unsigned line;
};
int sym_line_entry_at(struct sym_module *m, uint64_t addr, struct sym_line_entry *out);

/* The range a source-level step runs through (LLDB's
 * GetSameLineContiguousAddressRange): the entry holding addr, then the
 * entries after it of file:line or of line 0, and, inlined != 0, those in
 * an inlined call made at file:line.  Runtime addresses; 0 or -1. */
int sym_step_range(struct sym_module *m, uint64_t addr, const char *file, unsigned line,
		   int inlined, uint64_t *lo, uint64_t *hi);

/* The function a PLT entry (a "symbol stub") holding addr (runtime) jumps
 * to, by name (without its version): 0, or -1 when addr is in no stub. */
int sym_stub_target(struct sym_module *m, uint64_t addr, char *name, size_t n);

/* Where the dynamic linker binds name: the module's global and weak
 * functions of that name (any version), IFUNC resolvers left out.
 * Runtime addresses; returns the number filled (<= max). */
int sym_lookup_exported(struct sym_module *m, const char *name, uint64_t *entry, int max);

/* Length of a demangled name without its parameter list
 * ("std::make_pair<int, int>" of "std::make_pair<int, int>(int&&, int&&)"). */
size_t sym_name_stem_len(const char *d);

/* Two DWARF paths of one file (equal, or a relative one's base name). */
int sym_same_file(const char *a, const char *b);
/* The breakpoint address past the prologue of the function holding addr
 * (runtime), 0 if no symbol covers addr. */
uint64_t sym_func_after_prologue(struct sym_module *m, uint64_t addr);

/* The source file (DWARF path) holding main, or NULL. */
const char *sym_main_file(struct sym_module *m);

/* LLDB's symbol context: "trace_loop`main + 4 at trace_loop.c:2:7",
 * "trace_loop`func + 12" without line info, "trace_loop`0x401000" without a
 * symbol.  Returns buf. */
char *sym_format_loc(struct sym_module *m, uint64_t addr, char *buf, size_t n);

/* Reads n bytes of target memory at addr; 0 ok, -1 failure. */
typedef int (*sym_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);
/* One frame of unwinding with CFI (.eh_frame, then .debug_frame), falling
 * back to the frame pointer (rbp chain) when no CFI covers pc.
 * 0 ok, -1 failure (memory unreadable, no caller). */
int sym_unwind_step(struct sym_module *m, uint64_t pc, uint64_t rsp,
		    uint64_t rbp, sym_read_fn rd, void *ctx, uint64_t *cpc,
		    uint64_t *crsp, uint64_t *crbp);

/* Registers by DWARF number (rax 0 ... r15 15, rip 16); valid: bit per
 * register known. */
struct sym_regs {
	uint64_t r[17];
	uint32_t valid;
};
/* The same step for every register: in the caller, rsp (the CFA), rip
 * (the return address) and rbp, and the callee-saved rbx and r12-r15 by
 * the CFI's rules (a register without a rule kept its value).  The
 * caller-saved registers are not known (valid bit clear).  0 ok, -1 no
 * caller, 1 no CFI covers the pc (core/session/dbg_unwind.c's dbg_unwind_regs
 * then finds the caller as the frame list does). */
int sym_unwind_step_regs(struct sym_module *m, const struct sym_regs *in, sym_read_fn rd,
			 void *ctx, struct sym_regs *out);

/* Calls fn with each function name of m that starts with prefix (C names,
 * C++ qualified names without parameters or return type: the names
 * "breakpoint set" takes); stops when fn returns < 0 and returns that,
 * else 0.  Names may repeat. */
int sym_module_names(struct sym_module *m, const char *prefix,
		     int (*fn)(void *ctx, const char *name), void *ctx);

/* The CFI part of sym_unwind_step: 0 ok, -1 no caller (the return address
 * is undefined: the outermost frame) or unreadable, 1 no CFI covers pc. */
int sym_unwind_cfi(struct sym_module *m, uint64_t pc, uint64_t rsp, uint64_t rbp,
		   sym_read_fn rd, void *ctx, uint64_t *cpc, uint64_t *crsp, uint64_t *crbp);

/* Demangles a C++ name with parameters ("_Z2f2v" -> "f2()"); NULL if name
 * is not mangled.  Caller frees the result. */
char *sym_demangle(const char *name);

#endif
