/* cmd/cmd-data.c: looking at the program's data and code — "register read",
 * "memory read", "disassemble", "image list|lookup", "source list".
 * Without a live process, code and static data are read from the
 * executable's file (PT_LOAD segments at link addresses). */
#include "cmd/builtin.h"
#include "cmd/report.h"
#include "core/session.h"
#include "core/settings.h"
#include "core/size.h"
#include "core/source.h"
#include "core/value.h"
#include "disasm/disasm.h"

#include <ctype.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEM_READ_SOFT_MAX 1024		/* without --force */
#define MEM_READ_HARD_MAX (1024 * 1024)
#define DIS_MAX_INSNS 2000

/* ---- the ELF file of a module: segments and sections at link addresses ---- */

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

/* ---- reading target memory or, without a process, the executable ---- */

/* Reads up to n bytes at addr; returns how many could be read from the start
 * (0: none). */
static size_t read_mem(struct dbg *d, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t got = 0;

	if (d->pm)	/* a loaded trace: the modules' files */
		return dbg_read_some(d, addr, buf, n);
	if (dbg_alive(d)) {
		if (dbg_read(d, addr, buf, n, NULL) == 0)
			return n;
		/* page by page up to the first unreadable one */
		while (got < n) {
			uint64_t a = addr + got;
			size_t chunk = 4096 - (size_t)(a & 4095);

			if (chunk > n - got)
				chunk = n - got;
			if (dbg_read(d, a, buf + got, chunk, NULL) < 0)
				break;
			got += chunk;
		}
		return got;
	}
	if (d->nmods && d->mods[0].sym) {
		struct sym_module *m = d->mods[0].sym;
		struct elf_file ef;
		uint64_t link = addr - sym_module_bias(m);

		if (elf_open(sym_module_path(m), &ef) < 0)
			return 0;
		while (got < n) {
			ssize_t r = elf_read(&ef, link + got, buf + got, n - got);

			if (r <= 0)
				break;
			got += (size_t)r;
		}
		elf_close(&ef);
	}
	return got;
}

/* 1 if addr lies in module m's mapping (or, before the process runs, in a
 * PT_LOAD segment of its file). */
static int module_covers(struct dbg_module *m, uint64_t addr)
{
	struct elf_file ef;
	int in;

	if (m->end)
		return addr >= m->start && addr < m->end;
	if (elf_open(sym_module_path(m->sym), &ef) < 0)
		return 0;
	in = elf_segment(&ef, addr - sym_module_bias(m->sym)) != NULL;
	elf_close(&ef);
	return in;
}

/* 1 if addr lies in an executable segment of module m (symbols without a
 * size, such as _fini, would otherwise claim all data after them). */
static int module_code(struct dbg_module *m, uint64_t addr)
{
	struct elf_file ef;
	const Elf64_Phdr *p;
	int code;

	if (m->end && (addr < m->start || addr >= m->end))
		return 0;
	if (sym_module_is_raw(m->sym))
		return m->end != 0;
	if (elf_open(sym_module_path(m->sym), &ef) < 0)
		return 0;
	p = elf_segment(&ef, addr - sym_module_bias(m->sym));
	code = p && (p->p_flags & PF_X);
	elf_close(&ef);
	return code;
}

/* The module holding addr, NULL if none really does (dbg_module_for answers
 * the executable for any address while no process runs). */
static struct dbg_module *module_at(struct dbg *d, uint64_t addr)
{
	struct dbg_module *m = dbg_module_for(d, addr);

	return m && module_covers(m, addr) ? m : NULL;
}

static int module_usable(const struct dbg *d, const struct dbg_module *m)
{
	return m->sym && (m->end || m->is_exe || !dbg_alive(d));
}

/* ---- registers ---- */

struct reg_def {
	const char *name;
	int off;	/* offset in struct user_regs_struct */
	int size;	/* bytes */
	int shift;	/* bits (ah & co) */
};

#define UR(f) ((int)offsetof(struct user_regs_struct, f))
#define GPR(n64, n32, n16, n8, f) \
	{ n64, UR(f), 8, 0 }, { n32, UR(f), 4, 0 }, { n16, UR(f), 2, 0 }, { n8, UR(f), 1, 0 }

static const struct reg_def regs[] = {
	GPR("rax", "eax", "ax", "al", rax), { "ah", UR(rax), 1, 8 },
	GPR("rbx", "ebx", "bx", "bl", rbx), { "bh", UR(rbx), 1, 8 },
	GPR("rcx", "ecx", "cx", "cl", rcx), { "ch", UR(rcx), 1, 8 },
	GPR("rdx", "edx", "dx", "dl", rdx), { "dh", UR(rdx), 1, 8 },
	GPR("rdi", "edi", "di", "dil", rdi),
	GPR("rsi", "esi", "si", "sil", rsi),
	GPR("rbp", "ebp", "bp", "bpl", rbp),
	{ "rsp", UR(rsp), 8, 0 }, { "esp", UR(rsp), 4, 0 }, { "spl", UR(rsp), 1, 0 },
	GPR("r8", "r8d", "r8w", "r8l", r8),
	GPR("r9", "r9d", "r9w", "r9l", r9),
	GPR("r10", "r10d", "r10w", "r10l", r10),
	GPR("r11", "r11d", "r11w", "r11l", r11),
	GPR("r12", "r12d", "r12w", "r12l", r12),
	GPR("r13", "r13d", "r13w", "r13l", r13),
	GPR("r14", "r14d", "r14w", "r14l", r14),
	GPR("r15", "r15d", "r15w", "r15l", r15),
	{ "rip", UR(rip), 8, 0 },
	{ "rflags", UR(eflags), 8, 0 }, { "eflags", UR(eflags), 4, 0 },
	{ "cs", UR(cs), 8, 0 }, { "fs", UR(fs), 8, 0 }, { "gs", UR(gs), 8, 0 },
	{ "ss", UR(ss), 8, 0 }, { "ds", UR(ds), 8, 0 }, { "es", UR(es), 8, 0 },
	{ "fs_base", UR(fs_base), 8, 0 }, { "gs_base", UR(gs_base), 8, 0 },
	{ "orig_rax", UR(orig_rax), 8, 0 },
	{ NULL, 0, 0, 0 },
};

static const char *const gpr_order[] = {
	"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "rflags", "cs", "fs", "gs", "ss", "ds", "es", NULL,
};

/* Generic names (LLDB's pc, sp, fp, flags). */
static const char *reg_alias(const char *name)
{
	if (!strcmp(name, "pc"))
		return "rip";
	if (!strcmp(name, "sp"))
		return "rsp";
	if (!strcmp(name, "fp"))
		return "rbp";
	if (!strcmp(name, "flags"))
		return "rflags";
	return name;
}

static const struct reg_def *reg_find(const char *name)
{
	name = reg_alias(name);
	for (const struct reg_def *r = regs; r->name; r++)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

/* The registers of the selected frame: frame 0's as they are; a caller
 * frame's as the CFI recovers them (rsp, rbp, rip, rbx, r12-r15), the
 * others unavailable.  avail(r) says whether r is known. */
struct frame_regs {
	struct user_regs_struct ur;
	struct sym_regs known;
	int outer;		/* a caller frame */
};

static int reg_dwarf(const struct reg_def *r)
{
	static const int offs[17] = {
		UR(rax), UR(rdx), UR(rcx), UR(rbx), UR(rsi), UR(rdi), UR(rbp), UR(rsp),
		UR(r8), UR(r9), UR(r10), UR(r11), UR(r12), UR(r13), UR(r14), UR(r15), UR(rip),
	};

	for (int i = 0; i < 17; i++)
		if (offs[i] == r->off)
			return i;
	return -1;
}

static int reg_avail(const struct frame_regs *fr, const struct reg_def *r)
{
	int dw = reg_dwarf(r);

	if (!fr->outer)
		return 1;
	return dw >= 0 && (fr->known.valid >> dw & 1);
}

static int frame_regs_get(struct cmd_ctx *ctx, struct frame_regs *out)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;

	memset(out, 0, sizeof(*out));
	if (d->sel_frame == 0) {
		if (target_get_regs(d->proc, d->sel_tid, &out->ur, &err) < 0)
			return cmd_error(ctx, "%s", err.msg), -1;
		return 0;
	}
	{
		struct frame_ctx fc;

		if (frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
			return cmd_error(ctx, "%s", err.msg), -1;
		out->ur = fc.regs;
		out->known = fc.known;
		out->outer = 1;
		frame_ctx_close(&fc);
	}
	return 0;
}

static uint64_t reg_value(const struct reg_def *r, const struct user_regs_struct *ur)
{
	uint64_t v;

	memcpy(&v, (const char *)ur + r->off, sizeof(v));
	v >>= r->shift;
	if (r->size < 8)
		v &= (UINT64_C(1) << (r->size * 8)) - 1;
	return v;
}

static void reg_print(struct cmd_ctx *ctx, const char *name, int size, uint64_t v)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_module *m;
	struct sym_loc loc;
	char buf[512];

	fprintf(ctx->out, "%8s = 0x%0*" PRIx64, name, size * 2, v);
	if (size == 8 && (m = dbg_module_for(d, v)) && module_code(m, v) &&
	    sym_lookup_addr(m->sym, v, &loc) == 0 && loc.func)
		fprintf(ctx->out, "  %s", dbg_format_addr(d, v, buf, sizeof(buf)));
	fputc('\n', ctx->out);
}

static void vec_print(FILE *out, const char *name, const void *p, int n)
{
	const uint8_t *b = p;

	fprintf(out, "%8s = {", name);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s0x%02x", i ? " " : "", b[i]);
	fputs("}\n", out);
}

/* Floating point names: fctrl fstat ftag fop fioff fiseg fooff foseg mxcsr
 * mxcsrmask st0-7 xmm0-15.  Returns 0 if name is one of them (printed). */
static int fpreg_print(FILE *out, const struct user_fpregs_struct *f, const char *name)
{
	char nm[16];
	int all = name == NULL;

#define FP(n, w, v) \
	if (all || !strcmp(name, n)) { \
		fprintf(out, "%8s = 0x%0*" PRIx64 "\n", n, w, (uint64_t)(v)); \
		if (!all) return 0; \
	}
	FP("fctrl", 4, f->cwd);
	FP("fstat", 4, f->swd);
	FP("ftag", 4, f->ftw);
	FP("fop", 4, f->fop);
	FP("fioff", 8, f->rip & 0xffffffff);
	FP("fiseg", 4, (f->rip >> 32) & 0xffff);
	FP("fooff", 8, f->rdp & 0xffffffff);
	FP("foseg", 4, (f->rdp >> 32) & 0xffff);
	FP("mxcsr", 8, f->mxcsr);
	FP("mxcsrmask", 8, f->mxcr_mask);
#undef FP
	for (int i = 0; i < 8; i++) {
		snprintf(nm, sizeof(nm), "st%d", i);
		if (all || !strcmp(name, nm)) {
			vec_print(out, nm, (const char *)f->st_space + 16 * i, 10);
			if (!all)
				return 0;
		}
	}
	for (int i = 0; i < 16; i++) {
		snprintf(nm, sizeof(nm), "xmm%d", i);
		if (all || !strcmp(name, nm)) {
			vec_print(out, nm, (const char *)f->xmm_space + 16 * i, 16);
			if (!all)
				return 0;
		}
	}
	return all ? 0 : -1;
}

static int fpreg_known(const char *name)
{
	static const char *const fixed[] = { "fctrl", "fstat", "ftag", "fop", "fioff", "fiseg",
					     "fooff", "foseg", "mxcsr", "mxcsrmask" };
	int n;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(name, fixed[i]))
			return 1;
	return (sscanf(name, "st%d", &n) == 1 && n >= 0 && n < 8) ||
	       (sscanf(name, "xmm%d", &n) == 1 && n >= 0 && n < 16);
}

/* register read in a caller frame: only what the unwinder recovered, as
 * LLDB shows it ("16 registers were unavailable."). */
static enum cmd_status register_read_outer(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_regs fr;
	int failed = 0, gone = 0;

	if (frame_regs_get(ctx, &fr) < 0)
		return CMD_ERROR;
	if (a->argc == 0) {
		fprintf(ctx->out, "General Purpose Registers:\n");
		for (int i = 0; gpr_order[i]; i++) {
			const struct reg_def *r = reg_find(gpr_order[i]);

			if (reg_avail(&fr, r))
				reg_print(ctx, r->name, r->size, reg_value(r, &fr.ur));
			else
				gone++;
		}
		fprintf(ctx->out, "%d registers were unavailable.\n", gone);
		if (cmd_opt_given(ctx->node, a, "all"))
			fprintf(ctx->out, "\nFloating Point Registers: not recovered in a caller frame\n");
		return CMD_OK;
	}
	for (int i = 0; i < a->argc; i++) {
		const char *name = a->argv[i][0] == '$' ? a->argv[i] + 1 : a->argv[i];
		const struct reg_def *r = reg_find(name);

		if (r && reg_avail(&fr, r)) {
			reg_print(ctx, r->name, r->size, reg_value(r, &fr.ur));
			continue;
		}
		if (r || fpreg_known(name))
			cmd_error(ctx, "register %s is not available in frame %u", name, d->sel_frame);
		else
			cmd_error(ctx, "Invalid register name '%s'.", a->argv[i]);
		failed = 1;
	}
	return failed ? CMD_ERROR : CMD_OK;
}

static enum cmd_status exec_register_read(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct user_regs_struct ur;
	struct user_fpregs_struct fr;
	struct ptdb_err err;
	int have_fp = -1, failed = 0;

	if (dbg_replaying(d) && d->sel_tid == dbg_replay_tid(d)) {
		/* only the program counter is in the trace */
		if (a->argc == 0) {
			reg_print(ctx, "rip", 8, dbg_replay_pc(d));
			fprintf(ctx->out, "(replaying a trace: the other registers are not recorded)\n");
			return CMD_OK;
		}
		for (int i = 0; i < a->argc; i++) {
			const char *name = a->argv[i][0] == '$' ? a->argv[i] + 1 : a->argv[i];
			const struct reg_def *r = reg_find(name);

			if (r && !strcmp(r->name, "rip")) {
				reg_print(ctx, "rip", 8, dbg_replay_pc(d));
				continue;
			}
			cmd_error(ctx, r ? "register %s is not available while replaying a trace"
				       : "Invalid register name '%s'.", name);
			failed = 1;
		}
		return failed ? CMD_ERROR : CMD_OK;
	}
	if (need_process(ctx) < 0)
		return CMD_ERROR;
	if (d->sel_frame > 0)
		return register_read_outer(ctx, a);
	if (target_get_regs(d->proc, d->sel_tid, &ur, &err) < 0)
		return cmd_error(ctx, "%s", err.msg);
	if (a->argc == 0) {
		fprintf(ctx->out, "General Purpose Registers:\n");
		for (int i = 0; gpr_order[i]; i++) {
			const struct reg_def *r = reg_find(gpr_order[i]);

			reg_print(ctx, r->name, r->size, reg_value(r, &ur));
		}
		if (!cmd_opt_given(ctx->node, a, "all"))
			return CMD_OK;
		reg_print(ctx, "fs_base", 8, ur.fs_base);
		reg_print(ctx, "gs_base", 8, ur.gs_base);
		if (target_get_fpregs(d->proc, d->sel_tid, &fr, &err) < 0)
			return cmd_error(ctx, "%s", err.msg);
		fprintf(ctx->out, "\nFloating Point Registers:\n");
		fpreg_print(ctx->out, &fr, NULL);
		return CMD_OK;
	}
	for (int i = 0; i < a->argc; i++) {
		const char *name = a->argv[i][0] == '$' ? a->argv[i] + 1 : a->argv[i];
		const struct reg_def *r = reg_find(name);

		if (r) {
			reg_print(ctx, r->name, r->size, reg_value(r, &ur));
			continue;
		}
		if (have_fp < 0)
			have_fp = target_get_fpregs(d->proc, d->sel_tid, &fr, &err) == 0;
		if (have_fp && fpreg_print(ctx->out, &fr, name) == 0)
			continue;
		cmd_error(ctx, "Invalid register name '%s'.", a->argv[i]);
		failed = 1;
	}
	return failed ? CMD_ERROR : CMD_OK;
}

/* ---- address expressions: numbers, $registers, function names, +/- offsets ---- */

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	*out = strtoull(s, &end, 0);
	return *end ? -1 : 0;
}

/* One term: number, $reg, or function name.  Prints the error. */
static int eval_term(struct cmd_ctx *ctx, const char *s, uint64_t *out)
{
	struct dbg *d = &ctx->s->dbg;

	if (parse_u64(s, out) == 0)
		return 0;
	if (s[0] == '$') {
		const struct reg_def *r = reg_find(s + 1);
		struct user_regs_struct ur;
		struct ptdb_err err;

		if (!r) {
			cmd_error(ctx, "Invalid register name '%s'.", s + 1);
			return -1;
		}
		if (dbg_replaying(d) && d->sel_tid == dbg_replay_tid(d)) {
			if (strcmp(r->name, "rip")) {
				cmd_error(ctx, "register %s is not available while replaying a trace", r->name);
				return -1;
			}
			*out = dbg_replay_pc(d);
			return 0;
		}
		if (need_process(ctx) < 0)
			return -1;
		if (d->sel_frame > 0) {	/* the selected frame's register */
			struct frame_regs fr;

			if (frame_regs_get(ctx, &fr) < 0)
				return -1;
			if (!reg_avail(&fr, r)) {
				cmd_error(ctx, "register %s is not available in frame %u", r->name,
					  d->sel_frame);
				return -1;
			}
			*out = reg_value(r, &fr.ur);
			return 0;
		}
		if (target_get_regs(d->proc, d->sel_tid, &ur, &err) < 0) {
			cmd_error(ctx, "%s", err.msg);
			return -1;
		}
		*out = reg_value(r, &ur);
		return 0;
	}
	for (int i = 0; i < d->nmods; i++) {
		uint64_t entry;

		if (module_usable(d, &d->mods[i]) &&
		    sym_lookup_func(d->mods[i].sym, s, &entry, NULL, 1) > 0) {
			*out = entry;
			return 0;
		}
	}
	cmd_error(ctx, "invalid address expression '%s'", s);
	return -1;
}

/* "expr", "expr+N", "expr-N" (one word). */
static int eval_addr(struct cmd_ctx *ctx, const char *s, uint64_t *out)
{
	const char *op = NULL;
	uint64_t off;
	char base[256];

	for (const char *p = s + 1; *p; p++)
		if (*p == '+' || *p == '-')
			op = p;
	if (op && parse_u64(op + 1, &off) == 0 && (size_t)(op - s) < sizeof(base)) {
		memcpy(base, s, (size_t)(op - s));
		base[op - s] = 0;
		if (eval_term(ctx, base, out) < 0)
			return -1;
		*out = *op == '+' ? *out + off : *out - off;
		return 0;
	}
	return eval_term(ctx, s, out);
}

/* ---- disassembly ---- */

struct dis_opts {
	uint64_t mark;		/* pc marked "->" (0: none) */
	int show_bytes;
};

static struct disasm *dis_new(struct cmd_ctx *ctx)
{
	struct ptdb_err err;
	struct disasm *ds = disasm_new(&err);
	const char *fl = settings_get(&ctx->s->settings, SETTING_DISASSEMBLY_FLAVOR);

	if (!ds) {
		cmd_error(ctx, "%s", err.msg);
		return NULL;
	}
	disasm_set_flavor(ds, fl && !strcmp(fl, "intel") ? DISASM_INTEL : DISASM_ATT);
	return ds;
}

/* Symbol of addr: module and function (func NULL if none). */
static void sym_at(struct dbg *d, uint64_t addr, struct dbg_module **mp, struct sym_loc *loc)
{
	struct dbg_module *m = dbg_module_for(d, addr);

	memset(loc, 0, sizeof(*loc));
	*mp = m;
	if (m)
		sym_lookup_addr(m->sym, addr, loc);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Decodes instructions from start: at most count (0: no limit), below end
 * (0: no limit), and with func_only, while they belong to the function
 * starting at start.  Returns the number decoded into *out (heap). */
static int dis_collect(struct dbg *d, struct disasm *ds, uint64_t start, uint64_t end,
		       unsigned count, int func_only, struct disasm_insn **out)
{
	uint8_t win[4096];
	uint64_t wstart = 0;
	size_t wlen = 0;
	uint64_t a = start;
	int n = 0, cap = 0;
	struct disasm_insn *v = NULL;

	while (n < DIS_MAX_INSNS && (!count || (unsigned)n < count) && (!end || a < end)) {
		struct ptdb_err err;
		struct disasm_insn in;

		if (func_only && a != start) {
			struct dbg_module *m;
			struct sym_loc loc;

			sym_at(d, a, &m, &loc);
			if (!loc.func || loc.func_addr != start)
				break;
		}
		if (a < wstart || a + 16 > wstart + wlen) {
			wstart = a;
			wlen = read_mem(d, a, win, sizeof(win));
			if (!wlen)
				break;
		}
		if (disasm_insn(ds, win + (a - wstart), wlen - (size_t)(a - wstart), a, &in, &err) < 0) {
			if (wlen - (a - wstart) < 16 && wlen == sizeof(win)) {
				wlen = 0;	/* truncated at the window's end: refill */
				continue;
			}
			memset(&in, 0, sizeof(in));
			in.addr = a;
			in.len = 1;
			in.bytes[0] = win[a - wstart];
			snprintf(in.mnemonic, sizeof(in.mnemonic), "(bad)");
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		v[n++] = in;
		a += in.len;
	}
	*out = v;
	return n;
}

/* The comment LLDB puts after a direct branch or call. */
static void dis_comment(struct dbg *d, const struct disasm_insn *in, uint64_t func_addr,
			char *buf, size_t n)
{
	struct dbg_module *m;
	struct sym_loc loc;

	buf[0] = 0;
	if (!in->has_target)
		return;
	sym_at(d, in->target, &m, &loc);
	if (!m || !loc.func || !module_code(m, in->target))
		return;
	if (loc.func_addr == func_addr)
		snprintf(buf, n, "; <+%" PRIu64 ">", in->target - func_addr);
	else if (in->target == loc.func_addr)
		snprintf(buf, n, "; %s", loc.func);
	else
		snprintf(buf, n, "; %s + %" PRIu64, loc.func, in->target - loc.func_addr);
	if (loc.file && loc.line) {
		size_t len = strlen(buf);

		snprintf(buf + len, n - len, " at %s:%u", base_name(loc.file), loc.line);
	}
}

/* Prints instructions LLDB style, a "module`function:" line before each
 * function's run. */
static void dis_print(struct cmd_ctx *ctx, const struct disasm_insn *v, int n,
		      const struct dis_opts *o)
{
	struct dbg *d = &ctx->s->dbg;
	int offw = 0, bytew = 0;
	uint64_t cur = UINT64_MAX;
	char off[32], cm[512], bytes[64];

	for (int i = 0; i < n; i++) {
		struct dbg_module *m;
		struct sym_loc loc;

		sym_at(d, v[i].addr, &m, &loc);
		if (loc.func) {
			int w = snprintf(off, sizeof(off), "<+%" PRIu64 ">:", v[i].addr - loc.func_addr);

			if (w > offw)
				offw = w;
		}
		if (v[i].len * 3 - 1 > bytew)
			bytew = v[i].len * 3 - 1;
	}
	for (int i = 0; i < n; i++) {
		const struct disasm_insn *in = &v[i];
		struct dbg_module *m;
		struct sym_loc loc;
		uint64_t fa;

		sym_at(d, in->addr, &m, &loc);
		fa = loc.func ? loc.func_addr : UINT64_MAX;
		if (fa != cur || i == 0) {
			if (loc.func)
				fprintf(ctx->out, "%s`%s:\n", sym_module_name(m->sym), loc.func);
			cur = fa;
		}
		fprintf(ctx->out, "%s0x%" PRIx64, o->mark && in->addr == o->mark ? "->  " : "    ",
			in->addr);
		if (loc.func) {
			snprintf(off, sizeof(off), "<+%" PRIu64 ">:", in->addr - loc.func_addr);
			fprintf(ctx->out, " %-*s ", offw, off);
		} else {
			fputs(": ", ctx->out);
		}
		if (o->show_bytes) {
			size_t k = 0;

			bytes[0] = 0;
			for (int b = 0; b < in->len && k + 4 < sizeof(bytes); b++)
				k += (size_t)snprintf(bytes + k, sizeof(bytes) - k, "%s%02x",
						      b ? " " : "", in->bytes[b]);
			fprintf(ctx->out, "%-*s  ", bytew, bytes);
		}
		dis_comment(d, in, loc.func ? loc.func_addr : 0, cm, sizeof(cm));
		if (cm[0])
			fprintf(ctx->out, "%-6s %-25s %s\n", in->mnemonic, in->operands, cm);
		else if (in->operands[0])
			fprintf(ctx->out, "%-6s %s\n", in->mnemonic, in->operands);
		else
			fprintf(ctx->out, "%s\n", in->mnemonic);
	}
}

/* Disassembles and prints; returns -1 (error printed) if nothing could be
 * read at start. */
static int dis_range(struct cmd_ctx *ctx, struct disasm *ds, uint64_t start, uint64_t end,
		     unsigned count, int func_only, const struct dis_opts *o)
{
	struct disasm_insn *v;
	int n = dis_collect(&ctx->s->dbg, ds, start, end, count, func_only, &v);

	if (n == 0) {
		free(v);
		cmd_error(ctx, "Failed to read memory at 0x%" PRIx64 ".", start);
		return -1;
	}
	dis_print(ctx, v, n, o);
	free(v);
	return 0;
}

/* pc of the selected frame (0 without a process). */
static uint64_t selected_pc(struct dbg *d, int *caller)
{
	struct dbg_frame fr[DBG_MAX_FRAMES];
	struct ptdb_err err;
	int n;

	*caller = 0;
	if (!dbg_alive(d) && !d->pm)	/* a loaded trace has frames too */
		return 0;
	n = dbg_frames(d, d->sel_tid, fr, (int)d->sel_frame + 1 < DBG_MAX_FRAMES ?
		       (int)d->sel_frame + 1 : DBG_MAX_FRAMES, &err);
	if (n <= 0)
		return 0;
	*caller = d->sel_frame > 0 && (int)d->sel_frame < n;
	return fr[(int)d->sel_frame < n ? d->sel_frame : (unsigned)n - 1].pc;
}

static int opt_uint(struct cmd_ctx *ctx, const struct cmd_args *a, const char *name,
		    unsigned def, unsigned *out)
{
	const char *s = cmd_opt(ctx->node, a, name);
	uint64_t v;
	struct ptdb_err err;

	*out = def;
	if (!s)
		return 0;
	if (uint_parse(s, &v, &err) < 0 || v > UINT_MAX) {
		cmd_error(ctx, "invalid value for --%s: '%s'", name, s);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static enum cmd_status exec_disassemble(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const struct cmd_node *nd = ctx->node;
	const char *name = cmd_opt(nd, a, "name");
	const char *s_start = cmd_opt(nd, a, "start-address");
	const char *s_end = cmd_opt(nd, a, "end-address");
	const char *s_addr = cmd_opt(nd, a, "address");
	struct dis_opts o = { 0, cmd_opt_given(nd, a, "bytes") };
	struct disasm *ds = NULL;
	enum cmd_status st = CMD_OK;
	unsigned count;
	int caller, given = 0;
	uint64_t pc;

	given = !!name + !!s_start + !!s_addr + cmd_opt_given(nd, a, "frame") +
		cmd_opt_given(nd, a, "pc");
	if (given > 1)
		return cmd_error(ctx, "only one of --name, --start-address, --address, --frame "
				 "and --pc may be given");
	if (s_end && !s_start)
		return cmd_error(ctx, "--end-address needs --start-address");
	if (!d->exe_path && !dbg_alive(d)) {
		need_target(ctx);
		return CMD_ERROR;
	}
	if (opt_uint(ctx, a, "count", 0, &count) < 0)
		return CMD_ERROR;
	pc = selected_pc(d, &caller);
	o.mark = pc;
	if (!given || cmd_opt_given(nd, a, "frame") || cmd_opt_given(nd, a, "pc")) {
		if (!dbg_alive(d) && !d->pm)
			return cmd_error(ctx, "Cannot disassemble around the current %s without a "
					 "selected frame: no currently running process.",
					 cmd_opt_given(nd, a, "pc") ? "PC" : "function");
	}
	if (!(ds = dis_new(ctx)))
		return CMD_ERROR;

	if (name) {
		int found = 0;

		for (int i = 0; i < d->nmods; i++) {
			uint64_t entry[16];
			int k;

			if (!module_usable(d, &d->mods[i]))
				continue;
			k = sym_lookup_func(d->mods[i].sym, name, entry, NULL, 16);
			for (int j = 0; j < k; j++, found++)
				if (dis_range(ctx, ds, entry[j], 0, count, 1, &o) < 0)
					st = CMD_ERROR;
		}
		if (!found)
			st = cmd_error(ctx, "Unable to find symbol with name '%s'.", name);
	} else if (s_start) {
		uint64_t start, end = 0;

		if (eval_addr(ctx, s_start, &start) < 0 || (s_end && eval_addr(ctx, s_end, &end) < 0))
			st = CMD_ERROR;
		else if (s_end && end <= start)
			st = cmd_error(ctx, "End address before start address.");
		else if (dis_range(ctx, ds, start, s_end ? end : (count ? 0 : start + 32),
				   count, 0, &o) < 0)
			st = CMD_ERROR;
	} else if (cmd_opt_given(nd, a, "pc")) {
		if (dis_range(ctx, ds, pc, 0, count ? count : 4, 0, &o) < 0)
			st = CMD_ERROR;
	} else {
		uint64_t at;
		struct dbg_module *m;
		struct sym_loc loc;

		if (s_addr) {
			if (eval_addr(ctx, s_addr, &at) < 0) {
				disasm_free(ds);
				return CMD_ERROR;
			}
		} else {
			at = caller ? pc - 1 : pc;
		}
		sym_at(d, at, &m, &loc);
		if (!m || !loc.func || !module_covers(m, at)) {
			if (s_addr)
				st = cmd_error(ctx, "Could not find function bounds for address 0x%" PRIx64, at);
			else if (dis_range(ctx, ds, pc, 0, count ? count : 4, 0, &o) < 0)
				st = CMD_ERROR;
		} else if (dis_range(ctx, ds, loc.func_addr, 0, count, 1, &o) < 0) {
			st = CMD_ERROR;
		}
	}
	disasm_free(ds);
	return st;
}

/* ---- memory read ---- */

static void mem_char(FILE *out, uint8_t c)
{
	switch (c) {
	case 0: fputs("\\0", out); break;
	case '\n': fputs("\\n", out); break;
	case '\t': fputs("\\t", out); break;
	case '\r': fputs("\\r", out); break;
	default:
		if (c >= 0x20 && c < 0x7f)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

static enum cmd_status exec_memory_read(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *fmt = cmd_opt(ctx->node, a, "format");
	const char *size_s = cmd_opt(ctx->node, a, "size");
	unsigned count, size;
	uint64_t addr, end = 0;
	size_t total, got;
	uint8_t *buf;
	char f;

	if (dbg_replaying(d))
		return cmd_error(ctx, "memory is not recorded in the trace; 'thread trace goto end' "
				 "returns to the live process");
	if (!d->exe_path && !dbg_alive(d)) {
		need_target(ctx);
		return CMD_ERROR;
	}
	if (!fmt)
		f = size_s ? 'x' : 'Y';
	else if (!strcmp(fmt, "x") || !strcmp(fmt, "hex"))
		f = 'x';
	else if (!strcmp(fmt, "d") || !strcmp(fmt, "decimal"))
		f = 'd';
	else if (!strcmp(fmt, "u") || !strcmp(fmt, "unsigned"))
		f = 'u';
	else if (!strcmp(fmt, "c") || !strcmp(fmt, "char"))
		f = 'c';
	else if (!strcmp(fmt, "i") || !strcmp(fmt, "instruction"))
		f = 'i';
	else if (!strcmp(fmt, "Y") || !strcmp(fmt, "bytes"))
		f = 'Y';
	else
		return cmd_error(ctx, "invalid format '%s': use x, d, u, c, i or Y", fmt);
	if (opt_uint(ctx, a, "size", f == 'Y' || f == 'c' || f == 'i' ? 1 : 4, &size) < 0)
		return CMD_ERROR;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return cmd_error(ctx, "invalid byte size %u: use 1, 2, 4 or 8", size);
	if ((f == 'Y' || f == 'c') && size != 1)
		return cmd_error(ctx, "format '%s' needs a byte size of 1", fmt ? fmt : "Y");
	if (opt_uint(ctx, a, "count", f == 'i' ? 8 : 32 / size, &count) < 0)
		return CMD_ERROR;
	if (count == 0)
		return cmd_error(ctx, "count must be greater than 0");
	if (eval_addr(ctx, a->argv[0], &addr) < 0)
		return CMD_ERROR;
	if (a->argc > 1) {
		if (eval_addr(ctx, a->argv[1], &end) < 0)
			return CMD_ERROR;
		if (end <= addr)
			return cmd_error(ctx, "end address (0x%" PRIx64 ") must be greater than the "
					 "start address (0x%" PRIx64 ").", end, addr);
		if (f == 'i')
			count = 0;
		else if (!cmd_opt_given(ctx->node, a, "count"))
			count = (unsigned)((end - addr + size - 1) / size);
	}
	if (f == 'i') {
		struct dis_opts o = { 0, 1 };
		struct disasm *ds = dis_new(ctx);
		int caller, r;

		if (!ds)
			return CMD_ERROR;
		o.mark = selected_pc(d, &caller);
		r = dis_range(ctx, ds, addr, end, count, 0, &o);
		disasm_free(ds);
		return r < 0 ? CMD_ERROR : CMD_OK;
	}
	total = (size_t)count * size;
	if (total > MEM_READ_HARD_MAX)
		return cmd_error(ctx, "memory read of %zu bytes exceeds the maximum of 1 MiB", total);
	if (total > MEM_READ_SOFT_MAX && !cmd_opt_given(ctx->node, a, "force")) {
		cmd_error(ctx, "Normally, 'memory read' will not read over %d bytes of data.",
			  MEM_READ_SOFT_MAX);
		fputs("error: Please use --force to override this restriction just this once.\n", ctx->err);
		return CMD_ERROR;
	}
	buf = xmalloc(total);
	got = read_mem(d, addr, buf, total);
	got -= got % size;
	if (!got) {
		free(buf);
		return cmd_error(ctx, "memory read failed for 0x%" PRIx64, addr);
	}
	for (size_t off = 0; off < got; off += 16) {
		size_t line = got - off < 16 ? got - off : 16;

		fprintf(ctx->out, "0x%" PRIx64 ":", addr + off);
		if (f == 'Y') {
			for (size_t i = 0; i < 16; i++)
				if (i < line)
					fprintf(ctx->out, " %02x", buf[off + i]);
				else if (got > 16)
					fputs("   ", ctx->out);
			fputs("  ", ctx->out);
			for (size_t i = 0; i < line; i++)
				fputc(isprint(buf[off + i]) ? buf[off + i] : '.', ctx->out);
		} else if (f == 'c') {
			fputc(' ', ctx->out);
			for (size_t i = 0; i < line; i++)
				mem_char(ctx->out, buf[off + i]);
		} else {
			for (size_t i = 0; i < line; i += size) {
				uint64_t v = 0;

				memcpy(&v, buf + off + i, size);
				if (f == 'x')
					fprintf(ctx->out, " 0x%0*" PRIx64, (int)size * 2, v);
				else if (f == 'u')
					fprintf(ctx->out, " %" PRIu64, v);
				else {
					int64_t sv = size == 1 ? (int8_t)v : size == 2 ? (int16_t)v :
						     size == 4 ? (int32_t)v : (int64_t)v;

					fprintf(ctx->out, " %" PRId64, sv);
				}
			}
		}
		fputc('\n', ctx->out);
	}
	free(buf);
	if (got < total)
		return cmd_error(ctx, "memory read failed for 0x%" PRIx64, addr + got);
	return CMD_OK;
}

/* ---- image list / lookup ---- */

static enum cmd_status exec_image_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	int k = 0;

	(void)a;
	if (need_target(ctx) < 0)
		return CMD_ERROR;
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];

		if (!m->sym || (dbg_alive(d) && !m->end && !m->is_exe))
			continue;
		fprintf(ctx->out, "[%3d] 0x%016" PRIx64 " %s\n", k++,
			m->end ? m->start : sym_module_link_base(m->sym), sym_module_path(m->sym));
	}
	return CMD_OK;
}

/* "      Address: trace_loop[0x...] (trace_loop..text + 4)" and the summary. */
static void lookup_print(struct cmd_ctx *ctx, struct dbg_module *m, uint64_t addr,
			 const char *indent)
{
	struct dbg *d = &ctx->s->dbg;
	uint64_t file_addr = addr - sym_module_bias(m->sym), sec = 0;
	const char *mn = sym_module_name(m->sym);
	struct elf_file ef;
	char secname[128] = "", buf[512], pad[64];

	if (elf_open(sym_module_path(m->sym), &ef) == 0) {
		elf_section(&ef, file_addr, secname, sizeof(secname), &sec);
		elf_close(&ef);
	}
	fprintf(ctx->out, "%sAddress: %s[0x%016" PRIx64 "]", indent, mn, file_addr);
	if (secname[0])
		fprintf(ctx->out, " (%s.%s + %" PRIu64 ")", mn, secname, file_addr - sec);
	fprintf(ctx->out, "\n%sSummary: %s\n", indent, dbg_format_addr(d, addr, buf, sizeof(buf)));
	snprintf(pad, sizeof(pad), "%s         ", indent);	/* under the summary */
	fputs(dbg_format_inline_callers(d, addr, pad, buf, sizeof(buf)), ctx->out);
}

static enum cmd_status exec_image_lookup(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *s_addr = cmd_opt(ctx->node, a, "address");
	const char *name = cmd_opt(ctx->node, a, "name");
	int total = 0;

	if (need_target(ctx) < 0)
		return CMD_ERROR;
	if (!!s_addr + !!name != 1)
		return cmd_error(ctx, "give one of --address and --name");
	if (s_addr) {
		uint64_t addr;
		struct dbg_module *m;

		if (eval_addr(ctx, s_addr, &addr) < 0)
			return CMD_ERROR;
		m = module_at(d, addr);
		if (!m)
			return cmd_error(ctx, "address 0x%" PRIx64 " is not in any module", addr);
		lookup_print(ctx, m, addr, "      ");
		return CMD_OK;
	}
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t entry[16];
		int k;

		if (!module_usable(d, m))
			continue;
		k = sym_lookup_func(m->sym, name, entry, NULL, 16);
		if (k <= 0)
			continue;
		fprintf(ctx->out, "%d match%s found in %s:\n", k, k == 1 ? "" : "es",
			sym_module_path(m->sym));
		for (int j = 0; j < k; j++)
			lookup_print(ctx, m, entry[j], "        ");
		total += k;
	}
	if (!total)
		return cmd_error(ctx, "no function named '%s' found", name);
	return CMD_OK;
}

/* ---- source list ---- */


/* Finds a source file: an existing path, else a file of the line tables
 * whose path ends in name. */
static int find_source(struct dbg *d, const char *name, char *out, size_t n)
{
	char abs[PATH_MAX];

	if (access(name, R_OK) == 0 && realpath(name, abs)) {
		snprintf(out, n, "%s", abs);
		return 0;
	}
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t addr;
		struct sym_loc loc;

		if (!module_usable(d, m) ||
		    sym_lookup_line(m->sym, name, 1, &addr, 1, NULL) <= 0 ||
		    sym_lookup_addr(m->sym, addr, &loc) < 0 || !loc.file)
			continue;
		snprintf(out, n, "%s", loc.file);
		return 0;
	}
	return -1;
}

/* File and line of function name's entry. */
static int func_line(struct dbg *d, const char *name, const char **file, unsigned *line)
{
	for (int i = 0; i < d->nmods; i++) {
		struct dbg_module *m = &d->mods[i];
		uint64_t entry;
		struct sym_loc loc;

		if (module_usable(d, m) && sym_lookup_func(m->sym, name, &entry, NULL, 1) > 0 &&
		    sym_lookup_addr(m->sym, entry, &loc) == 0 && loc.file && loc.line) {
			*file = loc.file;
			*line = loc.line;
			return 0;
		}
	}
	return -1;
}

static enum cmd_status exec_source_list(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct session *s = ctx->s;
	struct dbg *d = &s->dbg;
	const char *fname = cmd_opt(ctx->node, a, "file");
	const char *func = cmd_opt(ctx->node, a, "name");
	const char *file = NULL;
	char path[PATH_MAX];
	unsigned count, line = 0, first, back;
	struct ptdb_err err;
	int shown, center = 1;

	if (need_target(ctx) < 0)
		return CMD_ERROR;
	if (opt_uint(ctx, a, "count", 10, &count) < 0 || opt_uint(ctx, a, "line", 0, &line) < 0)
		return CMD_ERROR;
	if (count == 0)
		count = 10;
	back = count >= 10 ? 5 : count / 2;
	if (func) {
		if (func_line(d, func, &file, &line) < 0)
			return cmd_error(ctx, "Could not find function named: \"%s\".", func);
		fprintf(ctx->out, "File: %s\n", file);
	} else if (fname) {
		if (find_source(d, fname, path, sizeof(path)) < 0)
			return cmd_error(ctx, "Could not find source file \"%s\".", fname);
		file = path;
		if (!line) {
			line = 1;
			center = 0;
		}
	} else if (line) {
		if (s->list_file[0]) {
			file = s->list_file;
		} else if (d->mods && d->mods[0].sym && sym_main_file(d->mods[0].sym)) {
			file = sym_main_file(d->mods[0].sym);
		} else {
			return cmd_error(ctx, "No default source file; use --file.");
		}
	} else {
		int caller;
		uint64_t pc = selected_pc(d, &caller);
		unsigned col;

		if (pc && (d->pid != ctx->s->list_pid || target_stop_id(d->proc) != ctx->s->list_stop_id ||
			   !s->list_next) &&
		    dbg_addr_line(d, caller ? pc - 1 : pc, &file, &line, &col) == 0) {
			/* around the selected frame */
		} else if (s->list_next && s->list_file[0]) {
			file = s->list_file;
			line = s->list_next;
			center = 0;
		} else if (func_line(d, "main", &file, &line) < 0) {
			if (d->mods && d->mods[0].sym && sym_main_file(d->mods[0].sym)) {
				file = sym_main_file(d->mods[0].sym);
				line = 1;
			} else {
				return cmd_error(ctx, "No source file available; use --file.");
			}
		}
	}
	first = center ? (line > back ? line - back : 1) : line;
	if (file != s->list_file)
		snprintf(s->list_file, sizeof(s->list_file), "%s", file);
	{
		char mapped[4096];

		shown = source_list_range(ctx->out, dbg_source_path(d, s->list_file, mapped, sizeof(mapped)),
					  first, first + count - 1, &err);
	}
	if (shown < 0)
		return cmd_error(ctx, "%s", err.msg);
	s->list_next = first + (unsigned)shown;
	if (dbg_alive(d)) {
		ctx->s->list_pid = d->pid;
		ctx->s->list_stop_id = target_stop_id(d->proc);
	}
	return CMD_OK;
}

/* ---- the nodes ---- */

static const struct cmd_node register_read_node = {
	.name = "read", .summary = "Show the values of registers of the selected thread.",
	.syntax = "[<reg-name> ...]", .min_args = 0, .max_args = -1, .exec = exec_register_read,
	.details = "Without names, shows the general purpose registers; code addresses are "
		"followed by their symbol.  Names include sub-registers (eax, ax, al, ah, r8d, ...), "
		"pc, sp, fp, fs_base, gs_base, the x87 registers (fctrl, st0..st7) and xmm0..xmm15.",
	.opts = (const struct cmd_opt[]){
		{ 'a', "all", OPT_FLAG, NULL, "Also show fs_base, gs_base and the floating point "
			"and SSE registers." },
		{ 0 } },
};

const struct cmd_node cmd_register_node = {
	.name = "register", .summary = "Commands to access registers of the selected thread.",
	.children = (const struct cmd_node *const[]){ &register_read_node, &cmd_register_write_node, NULL },
};

static const struct cmd_node memory_read_node = {
	.name = "read", .summary = "Read and show memory of the process or the executable.",
	.syntax = "<address-expression> [<end-address-expression>]",
	.min_args = 1, .max_args = 2, .exec = exec_memory_read,
	.details = "An address is a number (0x for hex), a register ($rsp, $pc), or a function "
		"name, optionally followed by +N or -N.  Without a process, memory is read from the "
		"executable's file.  The default shows 32 bytes as hex with an ASCII column.",
	.opts = (const struct cmd_opt[]){
		{ 'c', "count", OPT_UINT, "count", "The number of items (or instructions) to show." },
		{ 's', "size", OPT_UINT, "byte-size", "The size of one item in bytes: 1, 2, 4 or 8." },
		{ 'f', "format", OPT_STRING, "format", "x (hex), d (signed decimal), u (unsigned), "
			"c (chars), i (instructions) or Y (bytes with ASCII, the default)." },
		{ 0, "force", OPT_FLAG, NULL, "Allow reading more than 1024 bytes (up to 1 MiB)." },
		{ 0 } },
};

const struct cmd_node cmd_memory_node = {
	.name = "memory", .summary = "Commands for reading and writing the memory of the current target.",
	.children = (const struct cmd_node *const[]){ &memory_read_node, &cmd_memory_write_node, NULL },
};

const struct cmd_node cmd_disassemble_node = {
	.name = "disassemble", .summary = "Disassemble instructions of the current target.",
	.syntax = "",
	.min_args = 0, .max_args = 0, .exec = exec_disassemble,
	.details = "Without options, disassembles the function of the selected frame.  "
		"Works without a process, reading the executable's file.  The selected frame's pc "
		"is marked with '->'.",
	.opts = (const struct cmd_opt[]){
		{ 'n', "name", OPT_STRING, "function", "Disassemble the function with this name." },
		{ 's', "start-address", OPT_STRING, "address", "Disassemble from this address "
			"(32 bytes unless -e or -c is given)." },
		{ 'e', "end-address", OPT_STRING, "address", "Stop before this address (with -s)." },
		{ 'c', "count", OPT_UINT, "num-lines", "The number of instructions to show." },
		{ 'a', "address", OPT_STRING, "address", "Disassemble the function holding this "
			"address." },
		{ 'f', "frame", OPT_FLAG, NULL, "Disassemble the function of the selected frame "
			"(the default)." },
		{ 'p', "pc", OPT_FLAG, NULL, "Disassemble a few instructions from the selected "
			"frame's pc." },
		{ 'b', "bytes", OPT_FLAG, NULL, "Show the bytes of each instruction." },
		{ 0 } },
};

static const struct cmd_node image_list_node = {
	.name = "list", .summary = "List the modules of the target with their load addresses.",
	.syntax = "", .min_args = 0, .max_args = 0, .exec = exec_image_list,
};

static const struct cmd_node image_lookup_node = {
	.name = "lookup", .summary = "Look up an address or a function name in the modules.",
	.syntax = "", .min_args = 0, .max_args = 0, .flags = CMD_ARGS_SYMBOLS,
	.exec = exec_image_lookup,
	.details = "Give exactly one of -a and -n.",
	.opts = (const struct cmd_opt[]){
		{ 'a', "address", OPT_STRING, "address", "Show the module, file address and "
			"symbol of this address." },
		{ 'n', "name", OPT_STRING, "function", "Find the functions with this name." },
		{ 0 } },
};

const struct cmd_node cmd_image_node = {
	.name = "image", .summary = "Commands for accessing the modules of the target.",
	.children = (const struct cmd_node *const[]){ &image_list_node, &image_lookup_node, NULL },
};

static const struct cmd_node source_list_node = {
	.name = "list", .summary = "List source code of the target.",
	.syntax = "",
	.min_args = 0, .max_args = 0, .exec = exec_source_list,
	.details = "Without options, lists around the selected frame's line, or around main "
		"before the process runs; repeating it continues after the last line shown.",
	.opts = (const struct cmd_opt[]){
		{ 'f', "file", OPT_STRING, "filename", "The source file (a path, or a name "
			"matched against the line tables)." },
		{ 'l', "line", OPT_UINT, "linenum", "List around this line." },
		{ 'n', "name", OPT_STRING, "symbol", "List around the start of this function." },
		{ 'c', "count", OPT_UINT, "count", "The number of lines to show (default 10)." },
		{ 0 } },
};

const struct cmd_node cmd_source_node = {
	.name = "source", .summary = "Commands for examining source code of the target.",
	.children = (const struct cmd_node *const[]){ &source_list_node, NULL },
};
