/* tests/unit/test-sym.c: module open errors, symbol/line lookups,
 * symbol-context strings and source listings on tests/programs/trace_loop. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/symbols/source.h"
#include "core/symbols/sym.h"
#include "core/symbols/sym_int.h"	/* dw_state: whether a module's DWARF is open */
#include "tests/unit/test.h"

#define PROG "tests/programs/trace_loop"

TEST(open_missing)
{
	struct ptdb_err err;
	CHECK(!sym_module_open("tests/programs/nonexistent", &err));
	CHECK_STR(err.msg, "cannot open 'tests/programs/nonexistent': No such file or directory");
}

TEST(open_not_elf)
{
	struct ptdb_err err;
	char want[600];
	CHECK(!sym_module_open("tests/programs/trace_loop.c", &err));
	CHECK(strstr(err.msg, "trace_loop.c' is not an ELF file"));
	(void)want;
}

TEST(open_elf32)
{
	struct ptdb_err err;
	FILE *in = fopen(PROG, "rb"), *out = fopen("/tmp/ptdb-test-sym-elf32", "wb");
	char buf[4096];
	size_t n;
	int first = 1;
	CHECK(in && out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (first)
			buf[4] = 1;	/* EI_CLASS = ELFCLASS32 */
		first = 0;
		fwrite(buf, 1, n, out);
	}
	fclose(in);
	fclose(out);
	CHECK(!sym_module_open("/tmp/ptdb-test-sym-elf32", &err));
	CHECK_STR(err.msg, "'/tmp/ptdb-test-sym-elf32' is not an x86-64 ELF file");
	remove("/tmp/ptdb-test-sym-elf32");
}

TEST(module_info)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	CHECK(m);
	CHECK_STR(sym_module_name(m), "trace_loop");
	CHECK(sym_module_path(m)[0] == '/');
	CHECK_INT(sym_module_is_pie(m), 0);
	CHECK(sym_module_entry(m) != 0);
	sym_module_free(m);
}

TEST(lookup_main)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	uint64_t e[4], p[4];
	CHECK(m);
	CHECK_INT(sym_lookup_func(m, "main", e, p, 4), 1);
	CHECK_INT(e[0], 0x401106);	/* objdump -d */
	CHECK_INT(p[0], 0x40110a);	/* decodedline: line 2 row */
	CHECK_INT(sym_lookup_func(m, "nosuchfunc", e, p, 4), 0);
	sym_module_free(m);
}

TEST(format_loc)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	char buf[256];
	CHECK(m);
	CHECK_STR(sym_format_loc(m, 0x40110a, buf, sizeof(buf)), "trace_loop`main + 4 at trace_loop.c:2:7");
	CHECK_STR(sym_format_loc(m, 0x401106, buf, sizeof(buf)), "trace_loop`main at trace_loop.c:1:12");
	CHECK_STR(sym_format_loc(m, 0x401111, buf, sizeof(buf)), "trace_loop`main + 11 at trace_loop.c:4:12");
	CHECK_STR(sym_format_loc(m, 0x401122, buf, sizeof(buf)), "trace_loop`main + 28 at trace_loop.c:4:21");
	CHECK_STR(sym_format_loc(m, 0x10, buf, sizeof(buf)), "trace_loop`0x10");
	sym_module_free(m);
}

TEST(lookup_addr_fields)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	struct sym_loc loc;
	CHECK(m);
	CHECK_INT(sym_lookup_addr(m, 0x40111a, &loc), 0);
	CHECK_STR(loc.func, "main");
	CHECK_INT(loc.func_addr, 0x401106);
	CHECK(loc.file && strstr(loc.file, "trace_loop.c"));
	CHECK_INT(loc.line, 5);
	CHECK_INT(loc.column, 9);
	sym_module_set_bias(m, 0x1000);
	CHECK_INT(sym_lookup_addr(m, 0x40211a, &loc), 0);
	CHECK_INT(loc.func_addr, 0x402106);
	CHECK_INT(loc.line, 5);
	sym_module_free(m);
}

TEST(lookup_line)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	uint64_t a[8];
	unsigned act;
	CHECK(m);
	CHECK_INT(sym_lookup_line(m, "trace_loop.c", 5, a, 8, &act), 1);
	CHECK_INT(a[0], 0x40111a);
	CHECK_INT(act, 5);
	CHECK_INT(sym_lookup_line(m, "trace_loop.c", 7, a, 8, &act), 1);
	CHECK_INT(a[0], 0x401128);	/* main + 34 */
	CHECK_INT(sym_lookup_line(m, "programs/trace_loop.c", 3, a, 8, &act), 1);
	CHECK_INT(act, 4);
	CHECK_INT(a[0], 0x401111);
	CHECK_INT(sym_lookup_line(m, "trace_loop.c", 1, a, 8, &act), 1);
	CHECK_INT(a[0], 0x40110a);	/* entry moved past the prologue */
	CHECK_INT(sym_lookup_line(m, "other.c", 5, a, 8, &act), 0);
	CHECK_INT(sym_lookup_line(m, "trace_loop.c", 99, a, 8, &act), 0);
	sym_module_free(m);
}

TEST(line_range_and_main_file)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	uint64_t lo, hi;
	const char *f;
	CHECK(m);
	CHECK_INT(sym_line_range(m, 0x401114, &lo, &hi), 0);
	CHECK_INT(lo, 0x401111);
	CHECK_INT(hi, 0x40111a);
	CHECK_INT(sym_line_range(m, 0x10, &lo, &hi), -1);
	f = sym_main_file(m);
	CHECK(f && f[0] == '/');
	CHECK(strstr(f, "tests/programs/trace_loop.c"));
	sym_module_free(m);
}

static char *listing(unsigned line, unsigned col)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	int rc = source_list(f, "tests/programs/trace_loop.c", line, col, NULL);
	fclose(f);
	return rc == 0 ? buf : NULL;
}

TEST(source_line2)
{
	CHECK_STR(listing(2, 0),
		  "   1    int main() {\n"
		  "-> 2      int ret = 0;\n"
		  "   3\n"
		  "   4      for (int i = 0; i < 4; i++)\n"
		  "   5        ret ^= 1;\n"
		  "   6\n"
		  "   7      return ret;\n");
}

TEST(source_line7_caret)
{
	CHECK_STR(listing(7, 10),
		  "   4      for (int i = 0; i < 4; i++)\n"
		  "   5        ret ^= 1;\n"
		  "   6\n"
		  "-> 7      return ret;\n"
		  "                 ^\n"
		  "   8    }\n");
}

TEST(source_missing)
{
	struct ptdb_err err;
	CHECK_INT(source_list(stdout, "/nonexistent.c", 1, 0, &err), -1);
	CHECK_STR(err.msg, "cannot read source file '/nonexistent.c': No such file or directory");
}

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t n)
{
	uint64_t *mem = ctx;	/* fake stack at 0x1000 */
	if (addr < 0x1000 || addr + n > 0x1000 + 64)
		return -1;
	memcpy(buf, (char *)mem + (addr - 0x1000), n);
	return 0;
}

TEST(unwind_fp)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	uint64_t mem[8] = { 0, 0, 0x2000, 0x401234 };	/* [rbp]=saved rbp, [rbp+8]=ret */
	uint64_t pc, sp, bp;
	CHECK(m);
	/* at main + 11 the frame is set up: CFA = rbp + 16 */
	CHECK_INT(sym_unwind_step(m, 0x401111, 0x1010, 0x1010, read_mem, mem, &pc, &sp, &bp), 0);
	CHECK_INT(pc, 0x401234);
	CHECK_INT(sp, 0x1020);
	CHECK_INT(bp, 0x2000);
	sym_module_free(m);
}

TEST(unwind_cfi_entry)
{
	struct sym_module *m = sym_module_open(PROG, NULL);
	uint64_t mem[8] = { 0, 0x401234 };	/* [rsp]=ret */
	uint64_t pc, sp, bp;
	CHECK(m);
	/* at main's first instruction CFA = rsp + 8 and rbp is untouched: only
	 * the CFI gets this right (the rbp chain would read [rbp]) */
	CHECK_INT(sym_unwind_step(m, 0x401106, 0x1008, 0x5555, read_mem, mem, &pc, &sp, &bp), 0);
	CHECK_INT(pc, 0x401234);
	CHECK_INT(sp, 0x1010);
	CHECK_INT(bp, 0x5555);
	/* after push %rbp: CFA = rsp + 16, rbp saved at CFA - 16 */
	mem[0] = 0x2000;
	CHECK_INT(sym_unwind_step(m, 0x401107, 0x1000, 0x5555, read_mem, mem, &pc, &sp, &bp), 0);
	CHECK_INT(pc, 0x401234);
	CHECK_INT(sp, 0x1010);
	CHECK_INT(bp, 0x2000);
	/* unreadable stack */
	CHECK_INT(sym_unwind_step(m, 0x401106, 0x8000, 0, read_mem, mem, &pc, &sp, &bp), -1);
	sym_module_free(m);
}

/* In-process unwinding through libc: a qsort comparator captures its own
 * registers and unwinds (CFI only, -O2 code keeps no frame pointer) through
 * libc.so.6's .eh_frame back to the function that called qsort. */
struct self_mod {
	struct sym_module *m;
	char path[512];
	uint64_t lo, hi;	/* executable mapping */
};
static struct self_mod self_mods[32];	/* test binary, libc, (libasan) ... */
static int self_nmods;
static uint64_t self_stack_lo, self_stack_hi;
static int self_unwound, self_frames, self_in_libc;
static char self_found[128];

static int self_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	if (addr < self_stack_lo || addr + n > self_stack_hi || addr + n < addr)
		return -1;
	memcpy(buf, (void *)(uintptr_t)addr, n);
	return 0;
}

/* Opens every file-backed module of /proc/self/maps (bias from its first
 * offset-0 mapping) and finds the [stack] range; 0 if libc and the stack
 * were seen.  The maps are read before any module is opened: a module's own
 * mmap of its file would look like another offset-0 mapping. */
static int self_maps(void)
{
	static char maps[1 << 16];
	FILE *f = fopen("/proc/self/maps", "r");
	char *line, *save = NULL;
	size_t len;
	int libc = 0;
	if (!f)
		return -1;
	len = fread(maps, 1, sizeof(maps) - 1, f);
	maps[len] = 0;
	fclose(f);
	for (line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long lo, hi, off;
		char perm[8], path[512] = "";
		struct self_mod *sm = NULL;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %511s", &lo, &hi, perm, &off, path) < 4)
			continue;
		if (!strcmp(path, "[stack]")) {
			self_stack_lo = lo;
			self_stack_hi = hi;
			continue;
		}
		if (path[0] != '/')
			continue;
		for (int i = 0; i < self_nmods; i++)
			if (!strcmp(self_mods[i].path, path))
				sm = &self_mods[i];
		if (!sm) {
			if (self_nmods == 32)
				continue;
			sm = &self_mods[self_nmods];
			if (!(sm->m = sym_module_open(path, NULL)))
				continue;
			snprintf(sm->path, sizeof(sm->path), "%s", path);
			self_nmods++;
			libc |= strstr(path, "/libc.so") != NULL;
			if (off == 0)
				sym_module_set_bias(sm->m, lo - sym_module_link_base(sm->m));
		}
		if (perm[2] == 'x') {
			sm->lo = lo;
			sm->hi = hi;
		}
	}
	return libc && self_stack_hi ? 0 : -1;
}

static struct self_mod *self_mod_for(uint64_t pc)
{
	for (int i = 0; i < self_nmods; i++)
		if (pc >= self_mods[i].lo && pc < self_mods[i].hi)
			return &self_mods[i];
	return NULL;
}

/* Unwinds every call (under ASAN the first calls come straight from the
 * qsort interceptor in libasan, later ones through libc's msort). */
static int self_cmp(const void *a, const void *b)
{
	uint64_t pc, sp, bp;
	int in_libc = 0;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(pc), "=r"(sp), "=r"(bp));
	self_unwound++;
	for (int n = 0; n < 32; n++) {
		uint64_t look = n ? pc - 1 : pc, npc, nsp, nbp;
		struct self_mod *sm = self_mod_for(look);
		struct sym_loc loc;

		if (!sm || sym_unwind_step(sm->m, look, sp, bp, self_read, NULL,
					   &npc, &nsp, &nbp) < 0 || nsp <= sp)
			break;
		pc = npc;
		sp = nsp;
		bp = nbp;
		sm = self_mod_for(pc - 1);
		if (!sm)
			break;
		if (strstr(sm->path, "/libc.so"))
			in_libc = 1;
		if (sym_lookup_addr(sm->m, pc - 1, &loc) == 0 && loc.func &&
		    !strncmp(loc.func, "self_qsort_caller", 17)) {
			snprintf(self_found, sizeof(self_found), "%s", loc.func);
			if (in_libc && n + 1 > self_frames)
				self_frames = n + 1;
			self_in_libc |= in_libc;
			break;
		}
	}
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int self_qsort_caller(int *v, size_t n)
{
	qsort(v, n, sizeof(*v), self_cmp);
	return v[0] + 2 * v[n - 1];	/* keeps the qsort call from being a tail call */
}

TEST(unwind_self_through_libc)
{
	int v[6] = { 5, 3, 9, 1, 7, 2 };
	CHECK_INT(self_maps(), 0);
	CHECK_INT(self_qsort_caller(v, 6), 1 + 18);
	CHECK(self_unwound);
	/* gcc may clone it as self_qsort_caller.constprop.0 */
	CHECK(!strncmp(self_found, "self_qsort_caller", 17));
	CHECK(self_in_libc);
	CHECK(self_frames >= 2);
	for (int i = 0; i < self_nmods; i++)
		sym_module_free(self_mods[i].m);
	self_nmods = 0;
}

/* b NAME's inlined copies (inline_o2: sum and init_registry inlined into
 * open_state): the index of inline functions is read without libdwarf,
 * so a name not in it leaves the module's DWARF unopened; a name in it
 * opens it and finds the copy, inside open_state. */
TEST(inlined_index_without_dwarf)
{
	struct sym_module *m = sym_module_open("tests/programs/inline_o2", NULL);
	uint64_t a[4], e[4], p[4];

	CHECK(m);
	if (!m)
		return;
	CHECK_INT(m->dw_state, 0);
	CHECK_INT(sym_lookup_inlined(m, "nosuchfunc", a, 4), 0);
	CHECK_INT(sym_lookup_inlined(m, "main", a, 4), 0);
	CHECK_INT(m->dw_state, 0);	/* libdwarf not started */
	CHECK_INT(sym_lookup_inlined(m, "sum", a, 4), 1);
	CHECK_INT(m->dw_state, 1);
	CHECK_INT(sym_lookup_func(m, "open_state", e, p, 4), 1);
	CHECK(a[0] > e[0] && a[0] < e[0] + 0x100);
	CHECK_INT(sym_lookup_inlined(m, "init_registry", a, 4), 1);
	sym_module_free(m);
}

/* The unit list read from the headers (sym_dwobj_units) is the one
 * libdwarf's walk gives, on DWARF 4, 5, 64-bit DWARF with type units in
 * .debug_info, and libc's compressed debug file when libc6-dbg is there. */
TEST(unit_list_as_libdwarf)
{
	const char *paths[] = { PROG, "tests/programs/vars_o2_dw4", "tests/programs/vars_tu",
				"tests/programs/vars_dw64", "/lib/x86_64-linux-gnu/libc.so.6" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct sym_module *m = sym_module_open(paths[i], NULL);
		struct sym_cu *raw;
		size_t n;

		CHECK(m);
		if (!m)
			continue;
		if (!m->has_debug) {	/* libc without libc6-dbg */
			CHECK(i == 4);
			sym_module_free(m);
			continue;
		}
		CHECK_INT(sym_dwarf_init(m), 0);
		{
			uint64_t *offs = NULL;

			CHECK(sym_dwobj_units(m, &offs) > 0);	/* the headers were read */
			free(offs);
		}
		raw = m->cus;
		n = m->ncus;
		m->cus = NULL;
		m->ncus = 0;
		sym_dwarf_units(m);
		CHECK_INT(m->ncus, n);
		CHECK(m->ncus > 0);
		for (size_t k = 0; k < n && k < m->ncus; k++)
			CHECK_INT(m->cus[k].off, raw[k].off);
		free(raw);
		sym_module_free(m);
	}
}

/* The one reader of section tables (sym_img.c) on images built here: each
 * header or section that lies outside the mapping is refused, not read. */
TEST(img_section_table_bounds)
{
	static uint8_t map[1024];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)map;
	Elf64_Shdr *sh = (Elf64_Shdr *)(map + 512);
	static const char names[] = "\0.shstrtab\0.debug_info\0.text";
	struct sym_img im;
	size_t n;

	CHECK_INT(sym_img_init(&im, map, sizeof(map)), -1);	/* not ELF */
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_machine = EM_X86_64;
	CHECK_INT(sym_img_init(&im, map, sizeof(map)), 0);	/* no section table */
	CHECK_INT(im.nsh, 0);
	CHECK_INT(sym_img_find(&im, ".text"), -1);
	eh->e_shoff = 512;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 9;	/* 9 * 64 bytes from 512: past the end */
	CHECK_INT(sym_img_init(&im, map, sizeof(map)), -1);
	eh->e_shnum = 4;
	eh->e_shoff = 516;	/* misaligned */
	CHECK_INT(sym_img_init(&im, map, sizeof(map)), -1);
	eh->e_shoff = 512;
	eh->e_shstrndx = 1;
	memcpy(map + 256, names, sizeof(names));
	sh[1].sh_type = SHT_STRTAB;
	sh[1].sh_offset = 256;
	sh[1].sh_size = 2000;	/* the names past the end: none */
	CHECK_INT(sym_img_init(&im, map, sizeof(map)), 0);
	CHECK_INT(im.nsh, 4);
	CHECK(!im.shstr);
	CHECK_STR(sym_img_name(&im, &sh[1]), "");
	sh[1].sh_size = sizeof(names);
	sh[1].sh_name = 1;
	sh[2].sh_type = SHT_PROGBITS;
	sh[2].sh_name = 11;	/* .debug_info, its bytes past the end */
	sh[2].sh_offset = 1000;
	sh[2].sh_size = 100;
	sh[3].sh_type = SHT_PROGBITS;
	sh[3].sh_name = 23;	/* .text */
	sh[3].sh_offset = 300;
	sh[3].sh_size = 8;
	CHECK_INT(sym_img_init(&im, map, sizeof(map)), 0);
	CHECK_STR(sym_img_name(&im, &sh[2]), ".debug_info");
	CHECK_INT(sym_img_find(&im, ".debug_info"), 2);
	CHECK(sym_img_has_dwarf(&im));
	CHECK(!sym_img_shdr(&im, ".debug_info"));	/* named, not in the map */
	CHECK_INT(sym_img_outside(&im), 2);
	CHECK(sym_img_section(&im, ".text", &n) == map + 300 && n == 8);
	sh[3].sh_name = sizeof(names) - 1;	/* the names' last byte: "" */
	CHECK_STR(sym_img_name(&im, &sh[3]), "");
	sh[3].sh_name = sizeof(names);	/* past the names */
	CHECK_STR(sym_img_name(&im, &sh[3]), "");
	CHECK(!sym_img_section(&im, ".text", &n));
	sh[3].sh_link = 7;	/* a string table that is no section */
	CHECK(!sym_img_strtab(&im, &sh[3], &n));
	sh[3].sh_link = 1;
	CHECK(sym_img_strtab(&im, &sh[3], &n) == (const char *)map + 256 && n == sizeof(names));
	sh[2].sh_size = 24;
	CHECK_INT(sym_img_outside(&im), -1);
	CHECK(sym_img_table_in(&im, &sh[2]));
	sh[2].sh_offset = 1001;
	CHECK(!sym_img_table_in(&im, &sh[2]));	/* in the map, misaligned */
}

TEST_MAIN(open_missing, open_not_elf, open_elf32, module_info, lookup_main,
	  format_loc, lookup_addr_fields, lookup_line, line_range_and_main_file,
	  source_line2, source_line7_caret, source_missing, unwind_fp,
	  unwind_cfi_entry, unwind_self_through_libc, inlined_index_without_dwarf, unit_list_as_libdwarf,
	  img_section_table_bounds)
