/* cmd/cmd-expr.c: "expression" (aliases p, print, expr, call) — a C
 * expression evaluated over the selected frame, its result kept as $N:
 * "(int) $0 = 3".  The expression is read from the raw line, so quotes
 * and dashes in it reach the evaluator as typed. */
#include "cmd/builtin.h"
#include "cmd/data.h"
#include "cmd/report.h"
#include "core/data/expr.h"
#include "core/session/session.h"

#include <ctype.h>
#include <string.h>

static int format_char(const char *f, char *out)
{
	static const char *const names[][2] = {
		{ "x", "x" }, { "hex", "x" }, { "d", "d" }, { "decimal", "d" }, { "u", "u" },
		{ "unsigned", "u" }, { "c", "c" }, { "char", "c" }, { "b", "b" }, { "binary", "b" },
		{ "t", "b" }, { "o", "o" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(f, names[i][0])) {
			*out = names[i][1][0];
			return 0;
		}
	return -1;
}

/* Splits the raw line into the format and the expression text. */
static int split_line(struct cmd_ctx *ctx, char *buf, size_t n, char *fmt, int *dyn,
		      const char **text)
{
	const char *p = ctx->line ? ctx->line : "";
	char f[32] = "";

	while (isspace((unsigned char)*p))
		p++;
	{
		const char *w = p;

		while (*p && !isspace((unsigned char)*p))
			p++;
		{
			const char *slash = memchr(w, '/', (size_t)(p - w));

			if (slash)
				snprintf(f, sizeof(f), "%.*s", (int)(p - slash - 1), slash + 1);
		}
	}
	while (isspace((unsigned char)*p))
		p++;
	if (p[0] == '-' && p[1] == '-' && (!p[2] || isspace((unsigned char)p[2]))) {
		p += 2;	/* "expression -- EXPR": no options */
		while (isspace((unsigned char)*p))
			p++;
	} else if (p[0] == '-' && isalpha((unsigned char)p[1])) {
		const char *dd = strstr(p, " --");

		if (dd && (!dd[3] || isspace((unsigned char)dd[3]))) {
			/* options before "--": -f FMT / --format FMT */
			char opts[256], *tok, *save;

			snprintf(opts, sizeof(opts), "%.*s", (int)(dd - p), p);
			for (tok = strtok_r(opts, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
				if (!strcmp(tok, "-d") || !strcmp(tok, "--dynamic-type")) {
					tok = strtok_r(NULL, " \t", &save);
					if (!tok) {
						cmd_error(ctx, "missing argument for option '-d'");
						return -1;
					}
					if (cmd_dynamic_option(ctx, tok, dyn) < 0)
						return -1;
				} else if (!strcmp(tok, "-f") || !strcmp(tok, "--format")) {
					tok = strtok_r(NULL, " \t", &save);
					if (!tok) {
						cmd_error(ctx, "missing argument for option '-f'");
						return -1;
					}
					snprintf(f, sizeof(f), "%s", tok);
				} else {
					cmd_error(ctx, "unknown or ambiguous option '%s'", tok);
					return -1;
				}
			}
			p = dd + 3;
			while (isspace((unsigned char)*p))
				p++;
		}
	}
	*fmt = 0;
	if (f[0] && format_char(f, fmt) < 0) {
		cmd_error(ctx, "Invalid format character or name '%s'. Valid values are: x, d, u, c, b", f);
		return -1;
	}
	snprintf(buf, n, "%s", p);
	*text = buf;
	return 0;
}

static enum cmd_status exec_expression(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct dbg *d = &ctx->s->dbg;
	struct frame_ctx fc;
	struct value v;
	struct ptdb_err err;
	struct value_fmt o;
	char buf[4096], name[32];
	const char *text;

	(void)a;
	memset(&o, 0, sizeof(o));
	o.dynamic = !d->no_dynamic;
	if (split_line(ctx, buf, sizeof(buf), &o.format, &o.dynamic, &text) < 0)
		return CMD_ERROR;
	if (!*text)
		return cmd_error(ctx, "no expression given: expression [-f <format> --] <expr>");
	if (dbg_alive(d) && dbg_live_state(d)) {
		if (frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
			return cmd_error(ctx, "%s", err.msg);
	} else {
		memset(&fc, 0, sizeof(fc));
		fc.d = d;
		fc.env = &d->env;
		fc.no_data = !dbg_live_state(d) ? "the trace holds no data: memory, variables and "
						  "registers other than the pc are not known while replaying"
						: "no process: only literals can be evaluated (launch with 'run')";
		fc.no_process = o.no_process = dbg_live_state(d);
	}
	if (expr_eval(&fc, &d->results, text, &v, &err) < 0) {
		frame_ctx_close(&fc);
		return cmd_error(ctx, "%s", err.msg);
	}
	frame_ctx_close(&fc);
	if (v.type && v.type->kind == SYM_T_VOID) {
		value_release(&v);
		return CMD_OK;	/* LLDB prints nothing for a void result */
	}
	{	/* an earlier result alone ("p $1") is shown as itself, not
		 * kept again, as in LLDB */
		size_t k = 1;

		while (text[0] == '$' && isdigit((unsigned char)text[k]))
			k++;
		if (k > 1 && !text[k + strspn(text + k, " \t")] && k < sizeof(name))
			snprintf(name, sizeof(name), "%.*s", (int)k, text);
		else
			snprintf(name, sizeof(name), "$%u", expr_keep(&d->results, d, &v));
	}
	value_print(ctx->out, &d->env, name, &v, &o);
	value_release(&v);
	return CMD_OK;
}

const struct cmd_node cmd_expression_node = {
	.name = "expression", .summary = "Evaluate a C expression in the selected frame and show its value as $N.",
	.syntax = "[-f <format>] [-d <dynamic-type>] -- <expr>",
	.details = "Literals, variables, members (. and ->), [], unary * & - ! ~, arithmetic, "
		   "comparison and logical operators, ?:, casts to C and DWARF types, sizeof, "
		   "registers ($rax, $pc, $sp), earlier results ($0) and assignment (=, +=, ...) "
		   "to variables, registers and memory.  p/x, p/d, p/u, p/c, p/b, p/o format the "
		   "result.  A pointer to a C++ object with virtual functions shows the object's "
		   "own class (-d no-dynamic-values: its declared one; target.prefer-dynamic-value).  "
		   "Functions of the process cannot be called.",
	.min_args = 0, .max_args = -1, .flags = CMD_RAW_ARGS, .exec = exec_expression,
};
