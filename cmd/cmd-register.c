/* cmd/cmd-register.c: "register read", and the address expressions of the
 * data commands (numbers, $registers, function names, +/- offsets). */
#include "cmd/complete.h"
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "core/data/expr.h"
#include "core/data/value.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	GPR("rsp", "esp", "sp", "spl", rsp),
	GPR("r8", "r8d", "r8w", "r8l", r8),
	GPR("r9", "r9d", "r9w", "r9l", r9),
	GPR("r10", "r10d", "r10w", "r10l", r10),
	GPR("r11", "r11d", "r11w", "r11l", r11),
	GPR("r12", "r12d", "r12w", "r12l", r12),
	GPR("r13", "r13d", "r13w", "r13l", r13),
	GPR("r14", "r14d", "r14w", "r14l", r14),
	GPR("r15", "r15d", "r15w", "r15l", r15),
	{ "rip", UR(rip), 8, 0 },
	{ "rflags", UR(eflags), 8, 0 },
	{ "cs", UR(cs), 8, 0 }, { "fs", UR(fs), 8, 0 }, { "gs", UR(gs), 8, 0 },
	{ "ss", UR(ss), 8, 0 }, { "ds", UR(ds), 8, 0 }, { "es", UR(es), 8, 0 },
	/* lldb-16 on Linux has no eflags, fs_base, gs_base nor orig_rax */
	{ NULL, 0, 0, 0 },
};

/* register read -a: the sub-registers after the set's own, in lldb-16's
 * order */
static const char *const sub_order[] = {
	"eax", "ebx", "ecx", "edx", "edi", "esi", "ebp", "esp",
	"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d",
	"ax", "bx", "cx", "dx", "di", "si", "bp", "sp",
	"r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w",
	"ah", "bh", "ch", "dh", "al", "bl", "cl", "dl", "dil", "sil", "bpl", "spl",
	"r8l", "r9l", "r10l", "r11l", "r12l", "r13l", "r14l", "r15l", NULL,
};

static const char *const gpr_order[] = {
	"rax", "rbx", "rcx", "rdx", "rdi", "rsi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	"rip", "rflags", "cs", "fs", "gs", "ss", "ds", "es", NULL,
};

static const char *const generic[][2] = {
	{ "pc", "rip" }, { "sp", "rsp" }, { "fp", "rbp" }, { "flags", "rflags" },
	{ "arg1", "rdi" }, { "arg2", "rsi" }, { "arg3", "rdx" }, { "arg4", "rcx" },
	{ "arg5", "r8" }, { "arg6", "r9" }, { NULL, NULL },
};

void cmd_register_names(cmd_add_fn add, void *ctx)
{
	for (const struct reg_def *r = regs; r->name; r++)
		add(ctx, r->name);
	for (int i = 0; generic[i][0]; i++)
		add(ctx, generic[i][0]);
}

/* The generic names, exactly so (lldb-16: "PC" is no register), before
 * the registers' own names, whose case does not matter ("RIP", and "Sp"
 * is the low 16 bits of rsp). */
static const char *reg_alias(const char *name)
{
	for (int i = 0; generic[i][0]; i++)
		if (!strcmp(name, generic[i][0]))
			return generic[i][1];
	return name;
}

static const struct reg_def *reg_find(const char *name)
{
	const char *a = reg_alias(name);

	for (const struct reg_def *r = regs; r->name; r++)
		if (a != name ? !strcmp(r->name, a) : !strcasecmp(r->name, name))
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

/* One register; in a set's listing (set != 0) two columns further in, as
 * lldb-16 indents a set's registers. */
/* register read -f: 'x' (hex, the default), 'd' or 'u' (decimal), 'b' (binary) */
static char read_fmt;

static void reg_print_in(struct cmd_ctx *ctx, int set, const char *name, int size, uint64_t v)
{
	struct dbg *d = &ctx->s->dbg;
	struct dbg_module *m;
	struct sym_loc loc;
	char buf[512];

	if (read_fmt == 'd' || read_fmt == 'u') {	/* -f d|u: the number alone */
		int64_t sv = size == 8 ? (int64_t)v : size == 4 ? (int32_t)v :
			     size == 2 ? (int16_t)v : (int8_t)v;

		if (read_fmt == 'd')
			fprintf(ctx->out, "%s%8s = %" PRId64 "\n", set ? "  " : "", name, sv);
		else
			fprintf(ctx->out, "%s%8s = %" PRIu64 "\n", set ? "  " : "", name, v);
		return;
	}
	if (read_fmt == 'b') {	/* -f b: every bit of the register */
		fprintf(ctx->out, "%s%8s = 0b", set ? "  " : "", name);
		for (int i = size * 8 - 1; i >= 0; i--)
			fputc(v >> i & 1 ? '1' : '0', ctx->out);
	} else {
		fprintf(ctx->out, "%s%8s = 0x%0*" PRIx64, set ? "  " : "", name, size * 2, v);
	}
	if (size == 8 && (m = dbg_module_for(d, v)) && m->sym && !cmd_module_is_interp(d, m)) {
		if (cmd_module_code(m, v) && sym_lookup_addr(m->sym, v, &loc) == 0 && loc.func)
			fprintf(ctx->out, "  %s", dbg_format_addr(d, v, buf, sizeof(buf)));
		else if (sym_reg_name(m->sym, v, buf, sizeof(buf)) == 0)
			fprintf(ctx->out, "  %s", buf);	/* a data symbol's: as lldb-16 */
	}
	fputc('\n', ctx->out);
}

static void reg_print(struct cmd_ctx *ctx, const char *name, int size, uint64_t v)
{
	reg_print_in(ctx, 0, name, size, v);
}

static void vec_print(FILE *out, const char *ind, const char *name, const void *p, int n)
{
	const uint8_t *b = p;

	fprintf(out, "%s%8s = {", ind, name);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s0x%02x", i ? " " : "", b[i]);
	fputs("}\n", out);
}

/* The x87 tag word as lldb-16 shows it: the full one (2 bits a register:
 * 0 valid, 1 zero, 2 special, 3 empty) from FXSAVE's abridged one. */
static unsigned full_ftag(const struct user_fpregs_struct *f)
{
	unsigned top = (f->swd >> 11) & 7, tw = 0;

	for (unsigned i = 0; i < 8; i++) {
		const uint8_t *st = (const uint8_t *)f->st_space + 16 * ((i - top) & 7);
		unsigned exp = (st[9] & 0x7f) << 8 | st[8], tag;
		uint64_t man;

		memcpy(&man, st, 8);
		if (!(f->ftw >> i & 1))
			tag = 3;
		else if (exp == 0x7fff)
			tag = 2;
		else if (exp == 0)
			tag = man ? 2 : 1;
		else
			tag = man >> 63 ? 0 : 2;
		tw |= tag << (2 * i);
	}
	return tw;
}

/* Floating point names, in lldb-16's order: fctrl fstat ftag fop fiseg
 * fioff fip foseg fooff fdp mxcsr mxcsrmask st0-7 mm0-7 xmm0-15 (any
 * case).  Returns 0 if name is one of them (printed); NULL: all. */
static int fpreg_print(struct cmd_ctx *ctx, const struct user_fpregs_struct *f, const char *name)
{
	FILE *out = ctx->out;
	char nm[16];
	int all = name == NULL;
	const char *ind = all ? "  " : "";	/* a set's listing: further in */

#define FP(n, w, v) \
	if (all || !strcasecmp(name, n)) { \
		fprintf(out, "%s%8s = 0x%0*" PRIx64 "\n", ind, n, w, (uint64_t)(v)); \
		if (!all) return 0; \
	}
	FP("fctrl", 4, f->cwd);
	FP("fstat", 4, f->swd);
	FP("ftag", 4, full_ftag(f));
	FP("fop", 4, f->fop);
	FP("fiseg", 8, f->rip >> 32);
	FP("fioff", 8, f->rip & 0xffffffff);
	if (all || !strcasecmp(name, "fip")) {	/* code: with its symbol */
		reg_print_in(ctx, all, "fip", 8, f->rip);
		if (!all)
			return 0;
	}
	FP("foseg", 8, f->rdp >> 32);
	FP("fooff", 8, f->rdp & 0xffffffff);
	FP("fdp", 16, f->rdp);
	FP("mxcsr", 8, f->mxcsr);
	FP("mxcsrmask", 8, f->mxcr_mask);
#undef FP
	for (int i = 0; i < 8; i++) {
		snprintf(nm, sizeof(nm), "st%d", i);
		if (all || !strcasecmp(name, nm)) {
			vec_print(out, ind, nm, (const char *)f->st_space + 16 * i, 10);
			if (!all)
				return 0;
		}
	}
	for (int i = 0; i < 8; i++) {	/* mm: st's low 64 bits */
		uint64_t mm;

		snprintf(nm, sizeof(nm), "mm%d", i);
		memcpy(&mm, (const char *)f->st_space + 16 * i, 8);
		if (all || !strcasecmp(name, nm)) {
			fprintf(out, "%s%8s = 0x%016" PRIx64 "\n", ind, nm, mm);
			if (!all)
				return 0;
		}
	}
	for (int i = 0; i < 16; i++) {
		snprintf(nm, sizeof(nm), "xmm%d", i);
		if (all || !strcasecmp(name, nm)) {
			vec_print(out, ind, nm, (const char *)f->xmm_space + 16 * i, 16);
			if (!all)
				return 0;
		}
	}
	return all ? 0 : -1;
}

/* ymm0-15 from the XSAVE area (its AVX part at 576; absent, zero), as
 * lldb-16's "Advanced Vector Extensions"; name NULL: all.  0 printed. */
static int avx_print(struct cmd_ctx *ctx, const char *name)
{
	struct dbg *d = &ctx->s->dbg;
	static uint8_t xs[16384];
	size_t len = sizeof(xs);
	uint64_t bv = 0;
	char nm[16];
	int n = -1;

	if (name && (strncasecmp(name, "ymm", 3) || sscanf(name + 3, "%d", &n) != 1 ||
		     n < 0 || n > 15))
		return -1;
	if (target_get_xstate(d->proc, d->sel_tid, xs, &len, NULL) < 0 || len < 576 + 256)
		return -1;
	memcpy(&bv, xs + 512, 8);
	for (int i = 0; i < 16; i++) {
		uint8_t y[32];

		if (name && i != n)
			continue;
		memcpy(y, xs + 160 + 16 * i, 16);
		if (bv & 4)
			memcpy(y + 16, xs + 576 + 16 * i, 16);
		else
			memset(y + 16, 0, 16);
		snprintf(nm, sizeof(nm), "ymm%d", i);
		vec_print(ctx->out, name ? "" : "  ", nm, y, 32);
	}
	return 0;
}

static int fpreg_known(const char *name)
{
	static const char *const fixed[] = { "fctrl", "fstat", "ftag", "fop", "fioff", "fiseg",
					     "fip", "fooff", "foseg", "fdp", "mxcsr", "mxcsrmask" };
	int n;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcasecmp(name, fixed[i]))
			return 1;
	return (sscanf(name, "%*1[sS]%*1[tT]%d", &n) == 1 && n >= 0 && n < 8) ||
	       (sscanf(name, "%*1[mM]%*1[mM]%d", &n) == 1 && n >= 0 && n < 8) ||
	       (sscanf(name, "%*1[xX]%*1[mM]%*1[mM]%d", &n) == 1 && n >= 0 && n < 16) ||
	       (sscanf(name, "%*1[yY]%*1[mM]%*1[mM]%d", &n) == 1 && n >= 0 && n < 16);
}

int cmd_frame_registers(struct dbg *d, pid_t tid, unsigned frame,
			void (*fn)(void *ctx, const char *name, int size, uint64_t v), void *ctx,
			struct ptdb_err *err)
{
	struct frame_regs fr;
	struct frame_ctx fc;
	int gone = 0;

	memset(&fr, 0, sizeof(fr));
	if (frame_ctx_open(d, tid, frame, &fc, err) < 0)
		return -1;
	fr.ur = fc.regs;
	fr.known = fc.known;
	fr.outer = !fc.all_regs;
	frame_ctx_close(&fc);
	for (int i = 0; gpr_order[i]; i++) {
		const struct reg_def *r = reg_find(gpr_order[i]);

		if (reg_avail(&fr, r))
			fn(ctx, r->name, r->size, reg_value(r, &fr.ur));
		else
			gone++;
	}
	return gone;
}

/* register read in a caller frame: only what the unwinder recovered, as
 * LLDB shows it ("16 registers were unavailable."). */
static enum cmd_status register_read_outer(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct frame_regs fr;
	int failed = 0, gone = 0;

	if (frame_regs_get(ctx, &fr) < 0)
		return CMD_ERROR;
	if (a->argc == 0) {
		fprintf(ctx->out, "General Purpose Registers:\n");
		for (int i = 0; gpr_order[i]; i++) {
			const struct reg_def *r = reg_find(gpr_order[i]);

			if (reg_avail(&fr, r))
				reg_print_in(ctx, 1, r->name, r->size, reg_value(r, &fr.ur));
			else
				gone++;
		}
		fprintf(ctx->out, "%d registers were unavailable.\n\n", gone);
		if (cmd_opt_given(ctx->node, a, "all"))
			fprintf(ctx->out, "Floating Point Registers: not recovered in a caller frame\n");
		return CMD_OK;
	}
	for (int i = 0; i < a->argc; i++) {
		const char *name = a->argv[i][0] == '$' ? a->argv[i] + 1 : a->argv[i];
		const struct reg_def *r = reg_find(name);

		if (r && reg_avail(&fr, r)) {
			reg_print(ctx, r->name, r->size, reg_value(r, &fr.ur));
			continue;
		}
		if (r || fpreg_known(name)) {
			/* not recovered here: said on the output, as lldb-16 (no error) */
			fprintf(ctx->out, "%-12s = error: unavailable\n", r ? r->name : name);
			continue;
		}
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
	const char *f = cmd_opt(ctx->node, a, "format");

	read_fmt = 'x';
	if (f && (!strcmp(f, "d") || !strcmp(f, "decimal")))
		read_fmt = 'd';
	else if (f && (!strcmp(f, "u") || !strcmp(f, "unsigned")))
		read_fmt = 'u';
	else if (f && (!strcmp(f, "b") || !strcmp(f, "binary")))
		read_fmt = 'b';
	else if (f && strcmp(f, "x") && strcmp(f, "hex"))
		return cmd_error(ctx, "invalid format '%s': use x, d, u or b", f);
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

			reg_print_in(ctx, 1, r->name, r->size, reg_value(r, &ur));
		}
		if (!cmd_opt_given(ctx->node, a, "all")) {
			fputc('\n', ctx->out);	/* lldb-16 ends a set with a blank line */
			return CMD_OK;
		}
		for (int i = 0; sub_order[i]; i++) {
			const struct reg_def *r = regs;

			while (strcmp(r->name, sub_order[i]))	/* "sp": rsp's low 16 */
				r++;

			reg_print_in(ctx, 1, r->name, r->size, reg_value(r, &ur));
		}
		if (target_get_fpregs(d->proc, d->sel_tid, &fr, &err) < 0)
			return cmd_error(ctx, "%s", err.msg);
		fprintf(ctx->out, "\nFloating Point Registers:\n");
		fpreg_print(ctx, &fr, NULL);
		fprintf(ctx->out, "\nAdvanced Vector Extensions:\n");
		avx_print(ctx, NULL);
		fputc('\n', ctx->out);
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
		if (have_fp && fpreg_print(ctx, &fr, name) == 0)
			continue;
		if (avx_print(ctx, name) == 0)
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

/* One term: number, $reg, or function name.  Prints the error (lldb-16's
 * words, naming whole, the expression the term is part of). */
static int eval_term(struct cmd_ctx *ctx, const char *s, const char *whole, uint64_t *out)
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

		if (cmd_module_usable(d, &d->mods[i]) &&
		    sym_lookup_func(d->mods[i].sym, s, &entry, NULL, 1) > 0) {
			*out = entry;
			return 0;
		}
	}
	cmd_error(ctx, "address expression \"%s\" evaluation failed", whole);
	return -1;
}

/* "expr", "expr+N", "expr-N" (one word). */
/* An expression of the selected frame whose value is a pointer or an
 * integer (src, &len, &buf[4], $rsp + 8), as LLDB evaluates an address
 * expression: 0, or -1 (nothing said) when it is none. */
static int eval_addr_expr(struct cmd_ctx *ctx, const char *s, uint64_t *out)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct value v;
	struct ptdb_err err;
	int ok = 0;

	if (!dbg_alive(d) || dbg_replaying(d) ||
	    frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
		return -1;
	if (expr_eval(&fc, &d->results, s, &v, &err) == 0) {
		const struct sym_type *t = sym_type_strip(v.type);

		if (t && (t->kind == SYM_T_POINTER || t->kind == SYM_T_BASE ||
			  t->kind == SYM_T_ENUM) && v.bytes && v.size) {
			uint64_t lit;

			*out = 0;
			memcpy(out, v.bytes, v.size < 8 ? v.size : 8);
			ok = 1;
			/* kept as $N, as LLDB keeps every expression's
			 * result (a number is read as one, not evaluated) */
			if (parse_u64(s, &lit) < 0)
				expr_keep(&d->results, d, &v);
		}
		value_release(&v);
	}
	frame_ctx_close(&fc);
	return ok ? 0 : -1;
}

int cmd_eval_addr(struct cmd_ctx *ctx, const char *s, uint64_t *out)
{
	const char *op = NULL;
	uint64_t off;
	char base[256];

	if (eval_addr_expr(ctx, s, out) == 0)
		return 0;

	for (const char *p = *s ? s + 1 : s; *p; p++)	/* (an empty s: none) */
		if (*p == '+' || *p == '-')
			op = p;
	if (op && parse_u64(op + 1, &off) == 0 && (size_t)(op - s) < sizeof(base)) {
		size_t n = (size_t)(op - s);

		while (n && s[n - 1] == ' ')	/* "main + 4" */
			n--;
		memcpy(base, s, n);
		base[n] = 0;
		if (eval_term(ctx, base, s, out) < 0)
			return -1;
		*out = *op == '+' ? *out + off : *out - off;
		return 0;
	}
	return eval_term(ctx, s, s, out);
}

static const struct cmd_node register_read_node = {
	.name = "read", .summary = "Show the values of registers of the selected thread.",
	.syntax = "[<reg-name> ...]", .min_args = 0, .max_args = -1, .exec = exec_register_read,
	.details = "Without names, shows the general purpose registers; code addresses are "
		"followed by their symbol.  Names include sub-registers (eax, ax, al, ah, r8d, ...), "
		"LLDB's generic pc, sp, fp, flags and arg1..arg6, the x87 registers (fctrl, ftag, "
		"fip, st0..st7, mm0..mm7), xmm0..xmm15 and ymm0..ymm15, as lldb-16 names them "
		"(any case but the generic names').",
	.opts = (const struct cmd_opt[]){
		{ 'a', "all", OPT_FLAG, NULL, "Also show the sub-registers, the floating point "
			"and SSE registers and the AVX ones." },
		{ 'f', "format", OPT_STRING, "format", "Show the values in this format: x (hex, "
			"the default), d (signed decimal), u (unsigned decimal) or b (binary: 0b and every bit)." },
		{ 0 } },
};

const struct cmd_node cmd_register_node = {
	.name = "register", .summary = "Commands to access registers of the selected thread.",
	.children = (const struct cmd_node *const[]){ &register_read_node, &cmd_register_write_node, NULL },
};
