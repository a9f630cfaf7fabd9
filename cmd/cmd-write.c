/* cmd/cmd-write.c: changing the program's state by hand — "register
 * write" (frame 0's registers) and "memory write" (values of 1, 2, 4 or 8
 * bytes at an address given as an expression), in LLDB's words. */
#include "cmd/builtin.h"
#include "cmd/report.h"
#include "core/tracing/cursor.h"
#include "core/data/expr.h"
#include "core/session/session.h"
#include "target/target.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int parse_unsigned(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int need_frame0(struct cmd_ctx *ctx, struct frame_ctx *fc)
{
	struct dbg *d = &ctx->s->dbg;
	struct ptdb_err err;

	if (!dbg_live_state(d)) {
		cmd_error(ctx, "the trace holds no data: registers and memory cannot be written "
			  "while replaying a trace");
		return -1;
	}
	if (need_process(ctx) < 0)
		return -1;
	if (frame_ctx_open(d, d->sel_tid, d->sel_frame, fc, &err) < 0) {
		cmd_error(ctx, "%s", err.msg);
		return -1;
	}
	return 0;
}

static enum cmd_status exec_register_write(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *name = a->argv[0][0] == '$' ? a->argv[0] + 1 : a->argv[0];
	struct frame_ctx fc;
	struct ptdb_err err;
	uint64_t v;
	int rc;

	if (!expr_register_known(name))
		return cmd_error(ctx, "Register not found for '%s'.", name);
	if (parse_unsigned(a->argv[1], 0, &v) < 0)
		return cmd_error(ctx, "Failed to write register '%s' with value '%s': '%s' is not a "
				 "valid unsigned integer string value", name, a->argv[1], a->argv[1]);
	if (need_frame0(ctx, &fc) < 0)
		return CMD_ERROR;
	rc = expr_register_write(&fc, &d->results, name, v, &err);
	frame_ctx_close(&fc);
	if (rc < 0)
		return cmd_error(ctx, "Failed to write register '%s' with value '%s': %s", name,
				 a->argv[1], err.msg);
	return CMD_OK;
}

/* One value of size bytes in format f ('x', 'd', 'u') into out. */
static int write_value(struct cmd_ctx *ctx, const char *s, char f, unsigned size, uint8_t *out)
{
	uint64_t u;
	const char *kind = f == 'd' ? "signed" : "unsigned";

	if (f == 'd') {
		char *end;
		long long sv;

		errno = 0;
		sv = strtoll(s, &end, 10);
		if (!*s || errno || *end)
			return cmd_error(ctx, "'%s' is not a valid signed decimal value.", s), -1;
		if (size < 8 && (sv < -(1ll << (size * 8 - 1)) || sv >= (1ll << (size * 8 - 1))))
			return cmd_error(ctx, "Value %lld is too large to fit in a %u byte %s integer value.",
					 sv, size, kind), -1;
		u = (uint64_t)sv;
	} else {
		if (parse_unsigned(s, f == 'x' ? 16 : 10, &u) < 0)
			return cmd_error(ctx, "'%s' is not a valid %s value.", s,
					 f == 'x' ? "hex" : "unsigned decimal"), -1;
		if (size < 8 && u >> (size * 8))
			return cmd_error(ctx, "Value 0x%" PRIx64 " is too large to fit in a %u byte %s "
					 "integer value.", u, size, kind), -1;
	}
	memcpy(out, &u, size);
	return 0;
}

static enum cmd_status exec_memory_write(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	const char *fs = cmd_opt(ctx->node, a, "format"), *ss = cmd_opt(ctx->node, a, "size");
	char f = 'x';
	uint64_t size = 1, addr;
	struct frame_ctx fc;
	struct value v;
	struct ptdb_err err;
	uint8_t *buf;
	size_t n;

	if (fs && (!strcmp(fs, "x") || !strcmp(fs, "hex")))
		f = 'x';
	else if (fs && (!strcmp(fs, "d") || !strcmp(fs, "decimal")))
		f = 'd';
	else if (fs && (!strcmp(fs, "u") || !strcmp(fs, "unsigned")))
		f = 'u';
	else if (fs)
		return cmd_error(ctx, "Invalid format '%s': memory write takes x, d or u", fs);
	if (ss && (parse_unsigned(ss, 0, &size) < 0 || (size != 1 && size != 2 && size != 4 && size != 8)))
		return cmd_error(ctx, "invalid byte size '%s': 1, 2, 4 or 8", ss);
	if (need_frame0(ctx, &fc) < 0)
		return CMD_ERROR;
	if (expr_eval(&fc, &d->results, a->argv[0], &v, &err) < 0) {
		frame_ctx_close(&fc);
		return cmd_error(ctx, "invalid address expression '%s': %s", a->argv[0], err.msg);
	}
	frame_ctx_close(&fc);
	{
		const struct sym_type *t = sym_type_strip(v.type);

		if (!t || (t->kind != SYM_T_POINTER && t->kind != SYM_T_BASE && t->kind != SYM_T_ENUM)) {
			value_release(&v);
			return cmd_error(ctx, "invalid address expression '%s': not an address", a->argv[0]);
		}
		addr = 0;
		memcpy(&addr, v.bytes, v.size < 8 ? v.size : 8);
		value_release(&v);
	}
	n = (size_t)(a->argc - 1) * size;
	buf = xcalloc(n, 1);
	for (int i = 1; i < a->argc; i++)
		if (write_value(ctx, a->argv[i], f, (unsigned)size, buf + (size_t)(i - 1) * size) < 0) {
			free(buf);
			return CMD_ERROR;
		}
	if (target_write_mem(d->proc, addr, buf, n, &err) < 0) {
		free(buf);
		return cmd_error(ctx, "%s", err.msg);
	}
	dbg_icache_free(d);	/* the code may have changed */
	free(buf);
	return CMD_OK;
}

const struct cmd_node cmd_register_write_node = {
	.name = "write", .summary = "Modify a single register value of the selected thread's frame 0.",
	.syntax = "<register-name> <value>", .min_args = 2, .max_args = 2,
	.needs = CMD_NEEDS_PROCESS, .exec = exec_register_write,
};

const struct cmd_node cmd_memory_write_node = {
	.name = "write", .summary = "Write values to the memory of the process.",
	.syntax = "<address> <value> [<value> ...]",
	.details = "The address is an expression (&x, p->next, 0x601040).  Each value is "
		   "written in --size bytes (1 by default), read as hex unless --format says d "
		   "or u, as LLDB's memory write does; a breakpoint under the bytes stays planted.",
	.min_args = 2, .max_args = -1, .needs = CMD_NEEDS_PROCESS, .exec = exec_memory_write,
	.opts = (const struct cmd_opt[]){
		{ 'f', "format", OPT_STRING, "format", "How the values are written: x (hex, the default), d or u." },
		{ 's', "size", OPT_STRING, "byte-size", "The size of each value: 1, 2, 4 or 8 bytes." },
		{ 0 } },
};
