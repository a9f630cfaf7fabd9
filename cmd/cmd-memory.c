/* cmd/cmd-memory.c: "memory read" of the process, a loaded trace's
 * modules, or the executable's file. */
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/session/session.h"
#include "disasm/disasm.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MEM_READ_SOFT_MAX 1024		/* without --force */
#define MEM_READ_HARD_MAX (1024 * 1024)

/* ---- memory read ---- */

static void mem_char(FILE *out, uint8_t c)
{
	switch (c) {
	case 0: fputs("\\0", out); break;
	case '\n': fputs("\\n", out); break;
	case '\t': fputs("\\t", out); break;
	case '\r': fputs("\\r", out); break;
	case '\a': fputs("\\a", out); break;
	case '\b': fputs("\\b", out); break;
	case '\f': fputs("\\f", out); break;
	case '\v': fputs("\\v", out); break;
	default:
		if (c >= 0x20 && c < 0x7f)
			fputc(c, out);
		else
			fprintf(out, "\\x%02x", c);
	}
}

/* -f's letter: x, d, u, c, s, i or Y (the default: Y, x with -s).  -1 after
 * the error. */
static int mem_format(struct cmd_ctx *ctx, const char *fmt, int sized, char *f)
{
	static const char *const names[][3] = {
		{ "x", "hex", "x" }, { "d", "decimal", "d" }, { "u", "unsigned", "u" },
		{ "c", "char", "c" }, { "i", "instruction", "i" }, { "Y", "bytes", "Y" },
		{ "s", "c-string", "s" },
	};

	if (!fmt) {
		*f = sized ? 'x' : 'Y';
		return 0;
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(fmt, names[k][0]) || !strcmp(fmt, names[k][1])) {
			*f = names[k][2][0];
			return 0;
		}
	cmd_error(ctx, "invalid format '%s': use x, d, u, c, s, i or Y", fmt);
	return -1;
}

/* One line of up to 16 bytes at addr in format f, items of size bytes. */
static void mem_line(FILE *out, uint64_t addr, const uint8_t *buf, size_t line,
		     char f, unsigned size)
{
	fprintf(out, "0x%08" PRIx64 ":", addr);	/* lldb-16: at least 8 digits */
	if (f == 'Y') {
		for (size_t i = 0; i < 16; i++)
			if (i < line)
				fprintf(out, " %02x", buf[i]);
			else
				fputs("   ", out);	/* as lldb-16 pads a short line */
		fputs("  ", out);
		for (size_t i = 0; i < line; i++)
			fputc(isprint(buf[i]) ? buf[i] : '.', out);
	} else if (f == 'c') {
		fputc(' ', out);
		for (size_t i = 0; i < line; i++)
			mem_char(out, buf[i]);
	} else {
		for (size_t i = 0; i < line; i += size) {
			uint64_t v = 0;

			memcpy(&v, buf + i, size);
			if (f == 'x')
				fprintf(out, " 0x%0*" PRIx64, (int)size * 2, v);
			else if (f == 'u')
				fprintf(out, " %" PRIu64, v);
			else {
				int64_t sv = size == 1 ? (int8_t)v : size == 2 ? (int16_t)v :
					     size == 4 ? (int32_t)v : (int64_t)v;

				fprintf(out, " %" PRId64, sv);
			}
		}
	}
	fputc('\n', out);
}

/* memory read -f i: instructions from addr (below end when given). */
static enum cmd_status mem_insns(struct cmd_ctx *ctx, uint64_t addr, uint64_t end, unsigned count)
{
	struct cmd_dis_opts o = { 0, 1, 1 };
	struct disasm *ds = cmd_dis_new(ctx);
	int caller, r;

	if (!ds)
		return CMD_ERROR;
	o.mark = cmd_selected_pc(&ctx->s->dbg, &caller);
	r = cmd_dis_range(ctx, ds, addr, end, count, 0, &o);
	disasm_free(ds);
	return r < 0 ? CMD_ERROR : CMD_OK;
}

/* What an empty line after a memory read runs (LLDB reads on from where
 * the last read ended); empty until a read showed something. */
static char next_read[128];

static const char *memory_read_repeat(const char *line, char *buf, size_t n)
{
	if (!next_read[0])
		return line;
	snprintf(buf, n, "%s", next_read);
	return buf;
}

/* One C string's character as lldb-16's format s shows it: printable
 * ones as they are (quotes and backslashes too), the usual escapes, \e,
 * and \xNN (lldb-16 sign-extends bytes over 0x7f: \xffffffe9, which ptdb
 * does not copy). */
static void mem_cstr_char(FILE *out, uint8_t c)
{
	static const char esc[] = "\033e\aa\bb\ff\nn\rr\tt\vv";
	const char *e = c ? memchr(esc, c, sizeof(esc) - 1) : NULL;

	if (c >= 0x20 && c < 0x7f)
		fputc(c, out);
	else if (e && (e - esc) % 2 == 0)
		fprintf(out, "\\%c", e[1]);
	else
		fprintf(out, "\\x%02x", c);
}

/* memory read -f s: count C strings from addr, each of at most max - 1
 * characters (LLDB's -s for this format: the longest read; x/s and
 * without -s, 1024), one a line, as lldb-16 shows them.  A string that
 * reaches max ends the read with lldb-16's warning. */
static enum cmd_status mem_cstrings(struct cmd_ctx *ctx, uint64_t start, unsigned count,
				    unsigned max)
{
	uint8_t *buf = xmalloc((size_t)max + 1);
	uint64_t addr = start;
	int cut = 0;

	for (unsigned k = 0; k < count && !cut; k++) {
		size_t got = cmd_data_read(&ctx->s->dbg, addr, buf, (size_t)max + 1), len;

		if (!got) {
			free(buf);
			return cmd_error(ctx, "failed to read memory from 0x%" PRIx64 ".", start);
		}
		for (len = 0; len < got && len < max && buf[len]; len++)
			;
		if (len == max) {	/* no NUL in reach: one character less, as lldb-16 */
			cut = 1;
			len--;
		}
		fprintf(ctx->out, "0x%08" PRIx64 ": \"", addr);
		for (size_t i = 0; i < len; i++)
			mem_cstr_char(ctx->out, buf[i]);
		fputs("\"\n", ctx->out);
		fflush(ctx->out);	/* the warning after the string, as lldb-16 */
		if (cut)
			fprintf(ctx->err, "warning: unable to find a NULL terminated string at 0x%" PRIx64
				". Consider increasing the maximum read length.\n", addr);
		addr += len + 1;	/* after a cut too, as lldb-16 goes on */
	}
	free(buf);
	snprintf(next_read, sizeof(next_read), "memory read -f s -s %u -c %u 0x%" PRIx64,
		 max, count, addr);
	ctx->s->mem_next_ok = 1;
	ctx->s->mem_next = addr;
	ctx->s->mem_fmt = 's';
	ctx->s->mem_size = max;
	ctx->s->mem_count = count;
	return CMD_OK;
}

/* While replaying, only the code the trace kept is known (as it ran at
 * the cursor): 1 (error said) when [addr, addr + n) is not all such code. */
static int replay_refused(struct cmd_ctx *ctx, uint64_t addr, size_t n)
{
	if (!dbg_replaying(&ctx->s->dbg) || dbg_trace_code_kept(&ctx->s->dbg, addr, n))
		return 0;
	cmd_error(ctx, "memory is not recorded in the trace; 'thread trace goto end' returns to "
		  "the live process");
	return 1;
}

/* count items of size bytes at addr, in format f. */
static enum cmd_status mem_show(struct cmd_ctx *ctx, const struct cmd_args *a, uint64_t addr,
				unsigned count, unsigned size, char f)
{
	size_t total = (size_t)count * size, got, per;
	uint8_t *buf;

	if (total > MEM_READ_HARD_MAX)
		return cmd_error(ctx, "memory read of %zu bytes exceeds the maximum of 1 MiB", total);
	if (total > MEM_READ_SOFT_MAX && !cmd_opt_given(ctx->node, a, "force")) {
		cmd_error(ctx, "Normally, 'memory read' will not read over %d bytes of data.",
			  MEM_READ_SOFT_MAX);
		fputs("error: Please use --force to override this restriction just this once.\n", ctx->err);
		return CMD_ERROR;
	}
	if (replay_refused(ctx, addr, total))
		return CMD_ERROR;
	buf = xmalloc(total);
	got = cmd_data_read(&ctx->s->dbg, addr, buf, total);
	got -= got % size;
	if (!got) {
		free(buf);
		return cmd_error(ctx, "memory read failed for 0x%" PRIx64, addr);
	}
	/* bytes per line as lldb-16 has them: 16 (Y, x), 8 bytes as x, 32
	 * chars, one decimal number */
	per = f == 'Y' ? 16 : f == 'c' ? 32 : f == 'x' ? (size == 1 ? 8 : 16) : size;
	for (size_t off = 0; off < got; off += per)
		mem_line(ctx->out, addr + off, buf + off, got - off < per ? got - off : per, f, size);
	free(buf);
	/* an empty line reads on from here, in the same format */
	snprintf(next_read, sizeof(next_read), "memory read -f %c -s %u -c %u%s 0x%" PRIx64,
		 f, size, count, cmd_opt_given(ctx->node, a, "force") ? " --force" : "", addr + got);
	/* 'memory read' (or Enter) goes on after it */
	ctx->s->mem_next_ok = 1;
	ctx->s->mem_next = addr + got;
	ctx->s->mem_fmt = f;
	ctx->s->mem_size = size;
	ctx->s->mem_count = count;
	if (got < total)
		return cmd_error(ctx, "memory read failed for 0x%" PRIx64, addr + got);
	return CMD_OK;
}

/* The address a read starts at: its first argument, or where the last
 * read ended.  0, or -1 (error said). */
static int mem_start(struct cmd_ctx *ctx, const struct cmd_args *a, uint64_t *addr)
{
	if (a->argc > 0)
		return cmd_eval_addr(ctx, a->argv[0], addr);
	*addr = ctx->s->mem_next;
	return 0;
}

/* memory read -f s [-s max] [-c count] address [end]: one string unless
 * -c says more (an end address does not), as lldb-16 reads them. */
static enum cmd_status mem_read_cstrings(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	unsigned count, max;
	uint64_t addr, end;

	if (cmd_data_opt_uint(ctx, a, "size", 1024, &max) < 0 ||
	    cmd_data_opt_uint(ctx, a, "count", 1, &count) < 0)
		return CMD_ERROR;
	if (max == 0 || max > MEM_READ_HARD_MAX)
		return cmd_error(ctx, "invalid byte size %u for format s: use 1 to 1048576", max);
	if (count == 0)
		return cmd_error(ctx, "count must be greater than 0");
	if (mem_start(ctx, a, &addr) < 0)
		return CMD_ERROR;
	if (a->argc > 1 && cmd_eval_addr(ctx, a->argv[1], &end) < 0)
		return CMD_ERROR;
	if (replay_refused(ctx, addr, 1))
		return CMD_ERROR;
	return mem_cstrings(ctx, addr, count, max);
}

static enum cmd_status exec_memory_read(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *fmt = cmd_opt(ctx->node, a, "format");
	unsigned count, size;
	uint64_t addr, end = 0;
	char f;

	next_read[0] = '\0';	/* an instruction read repeats as typed */
	if (!d->exe_path && !dbg_alive(d)) {
		need_target(ctx);
		return CMD_ERROR;
	}
	if (a->argc == 0 && !ctx->s->mem_next_ok) {
		cmd_error(ctx, "memory read takes a start address expression with an optional end "
			  "address expression.");
		fputs("warning: Expressions should be quoted if they contain spaces or other special "
		      "characters.\n", ctx->err);
		return CMD_ERROR;
	}
	if (a->argc == 0 && !fmt && !cmd_opt_given(ctx->node, a, "size") &&
	    !cmd_opt_given(ctx->node, a, "count")) {
		/* on from the last read, as it was read */
		f = ctx->s->mem_fmt;
		if (f == 's')
			return mem_cstrings(ctx, ctx->s->mem_next, ctx->s->mem_count,
					    ctx->s->mem_size);
		return mem_show(ctx, a, ctx->s->mem_next, ctx->s->mem_count, ctx->s->mem_size, f);
	}
	if (mem_format(ctx, fmt, cmd_opt(ctx->node, a, "size") != NULL, &f) < 0)
		return CMD_ERROR;
	if (f == 's')
		return mem_read_cstrings(ctx, a);
	if (cmd_data_opt_uint(ctx, a, "size", f == 'Y' || f == 'c' || f == 'i' ? 1 : 4, &size) < 0)
		return CMD_ERROR;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return cmd_error(ctx, "invalid byte size %u: use 1, 2, 4 or 8", size);
	if ((f == 'Y' || f == 'c') && size != 1)
		return cmd_error(ctx, "format '%s' needs a byte size of 1", fmt ? fmt : "Y");
	if (cmd_data_opt_uint(ctx, a, "count", f == 'i' ? 8 : 32 / size, &count) < 0)
		return CMD_ERROR;
	if (count == 0)
		return cmd_error(ctx, "count must be greater than 0");
	if (mem_start(ctx, a, &addr) < 0)
		return CMD_ERROR;
	if (a->argc > 1) {
		if (cmd_eval_addr(ctx, a->argv[1], &end) < 0)
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
		if (replay_refused(ctx, addr, 1))
			return CMD_ERROR;
		ctx->s->mem_next_ok = 0;
		return mem_insns(ctx, addr, end, count);
	}
	return mem_show(ctx, a, addr, count, size, f);
}

static const struct cmd_node memory_read_node = {
	.repeat = memory_read_repeat,
	.name = "read", .summary = "Read and show memory of the process or the executable.",
	.syntax = "[<address-expression> [<end-address-expression>]]",
	.min_args = 0, .max_args = 2, .exec = exec_memory_read,
	.details = "An address is an expression of the selected frame whose value is a pointer "
		"or an integer (buf, &len, &buf[4], $rsp), or a function name, optionally followed "
		"by +N or -N.  'x/NFU' (GDB's count, format and unit b, h, w or g) sets -c, -f "
		"and -s.  Without an address (or Enter after it), reading goes on after the "
		"last read, with its options unless new ones are given.  Without a process, memory is read from the "
		"executable's file.  The default shows 32 bytes as hex with an ASCII column.",
	.opts = (const struct cmd_opt[]){
		{ 'c', "count", OPT_UINT, "count", "The number of items (or instructions) to show." },
		{ 's', "size", OPT_UINT, "byte-size", "The size of one item in bytes: 1, 2, 4 or 8." },
		{ 'f', "format", OPT_STRING, "format", "x (hex), d (signed decimal), u (unsigned), "
			"c (chars), s (C strings: -s is the longest read, 1024 by default; one "
			"string unless -c says more), i (instructions) or Y (bytes with ASCII, "
			"the default)." },
		{ 0, "force", OPT_FLAG, NULL, "Allow reading more than 1024 bytes (up to 1 MiB)." },
		{ 0 } },
};

const struct cmd_node cmd_memory_node = {
	.name = "memory", .summary = "Commands for reading and writing the memory of the current target.",
	.children = (const struct cmd_node *const[]){ &memory_read_node, &cmd_memory_write_node,
							      &cmd_memory_region_node, NULL },
};
