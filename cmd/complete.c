/* cmd/complete.c: Tab completion of command arguments by what the
 * command's syntax names: setting names, help paths, variables and their
 * members (p p->ne<Tab>), register names, breakpoint and watchpoint ids,
 * thread indexes, signal names (see complete.h). */
#include "cmd/complete.h"
#include "cmd/cmd.h"
#include "core/session/session.h"
#include "core/session/watch.h"
#include "core/data/value.h"
#include "core/tracing/trace_info.h"
#include "target/target.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum arg_kind {
	ARG_NONE, ARG_SETTING, ARG_CMD, ARG_VAR, ARG_REG, ARG_BP, ARG_WATCH,
	ARG_THREAD, ARG_SIGNAL,
};

static const struct {
	const char *name;	/* as the syntax writes it, between < > */
	enum arg_kind kind;
	int repeats;		/* every positional word, not only the first */
} kinds[] = {
	{ "setting-name", ARG_SETTING, 0 }, { "cmd-name", ARG_CMD, 1 },
	{ "variable-path", ARG_VAR, 1 }, { "variable-name", ARG_VAR, 0 }, { "expr", ARG_VAR, 1 },
	{ "reg-name", ARG_REG, 1 }, { "register-name", ARG_REG, 0 },
	{ "breakpoint-id", ARG_BP, 1 }, { "watchpoint-id", ARG_WATCH, 1 },
	{ "thread-index", ARG_THREAD, 1 }, { "signal-name", ARG_SIGNAL, 1 },
};

/* What the syntax's first <name> is. */
static enum arg_kind arg_kind(const struct cmd_node *node, int nargs)
{
	const char *lt = node->syntax ? strchr(node->syntax, '<') : NULL;

	for (; lt; lt = strchr(lt + 1, '<')) {
		const char *gt = strchr(lt, '>');

		if (!gt)
			break;
		if (lt - node->syntax >= 3 && lt[-1] == ' ' && isalnum((unsigned char)lt[-2]) &&
		    lt[-3] == '-')
			continue;	/* an option's value: "-f <format>" */
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (strlen(kinds[i].name) == (size_t)(gt - lt - 1) &&
			    !strncmp(lt + 1, kinds[i].name, (size_t)(gt - lt - 1)))
				return nargs == 0 || kinds[i].repeats ? kinds[i].kind : ARG_NONE;
		return ARG_NONE;	/* another kind of argument comes first */
	}
	return ARG_NONE;
}

static void add_prefixed(cmd_add_fn add, void *ctx, const char *word, const char *cand)
{
	if (!strncmp(cand, word, strlen(word)))
		add(ctx, cand);
}

/* help's words: the command path so far, the next word's candidates. */
static void complete_help(char **args, int nargs, const char *word, cmd_add_fn add, void *ctx)
{
	const struct cmd_node *node = cmd_root();

	for (int i = 0; i < nargs; i++) {
		const struct cmd_node *hit = NULL;

		for (const struct cmd_node *const *k = node->children; k && *k; k++)
			if (!strcmp((*k)->name, args[i]))
				hit = *k;
		if (!hit && i == 0)
			for (const struct cmd_alias *al = cmd_aliases(); al->name; al++)
				if (!strcmp(al->name, args[i]))
					return;	/* an alias: nothing after it */
		if (!hit)
			return;
		node = hit;
	}
	for (const struct cmd_node *const *k = node->children; k && *k; k++)
		add_prefixed(add, ctx, word, (*k)->name);
	if (nargs == 0)
		for (const struct cmd_alias *al = cmd_aliases(); al->name; al++)
			add_prefixed(add, ctx, word, al->name);
}

/* Where the variable path being typed starts in word: after the last
 * character that cannot be in one (p a+b->ne: at 'b'). */
static size_t path_start(const char *word)
{
	size_t i = strlen(word);

	while (i > 0) {
		char c = word[i - 1];

		if (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '[' || c == ']')
			i--;
		else if (c == '>' && i > 1 && word[i - 2] == '-')
			i -= 2;
		else
			break;
	}
	while (word[i] == '[' || word[i] == '.')
		i++;
	return i;
}

/* Variables of the selected frame, or the members of the struct a path
 * names (p->ne: p's members after "->"), each the whole word. */
static void complete_vars(struct dbg *d, const char *word, cmd_add_fn add, void *ctx)
{
	size_t start = path_start(word), cut, len;
	const char *member;
	struct frame_ctx fc;
	struct ptdb_err err;
	char cand[512];

	if (!d || !d->sel_tid || frame_ctx_open(d, d->sel_tid, d->sel_frame, &fc, &err) < 0)
		return;
	/* the last . or -> before the name being typed */
	cut = strlen(word);
	while (cut > start && (isalnum((unsigned char)word[cut - 1]) || word[cut - 1] == '_'))
		cut--;
	member = word + cut;
	len = strlen(member);
	if (cut == start) {
		for (int i = 0; i < fc.nvars; i++)
			if (fc.vars[i].name && !strncmp(fc.vars[i].name, member, len)) {
				snprintf(cand, sizeof(cand), "%.*s%s", (int)start, word, fc.vars[i].name);
				add(ctx, cand);
			}
	} else if (word[cut - 1] == '.' || (cut >= 2 && word[cut - 1] == '>' && word[cut - 2] == '-')) {
		size_t base_end = word[cut - 1] == '.' ? cut - 1 : cut - 2;
		char *base = strndup(word + start, base_end - start);
		struct value v;
		const struct sym_type *t;

		memset(&v, 0, sizeof(v));
		if (base && frame_path_value(&fc, base, &v, &err) == 0 && (t = sym_type_strip(v.type))) {
			if (word[cut - 1] == '>' && (t->kind == SYM_T_POINTER || t->kind == SYM_T_REF))
				t = sym_type_strip(t->target);
			for (int i = 0; t && (t->kind == SYM_T_STRUCT || t->kind == SYM_T_UNION ||
					      t->kind == SYM_T_CLASS) && i < t->nmem; i++)
				if (t->mem[i].name && !strncmp(t->mem[i].name, member, len)) {
					snprintf(cand, sizeof(cand), "%.*s%s", (int)cut, word, t->mem[i].name);
					add(ctx, cand);
				}
			value_release(&v);
		}
		free(base);
	}
	frame_ctx_close(&fc);
}

static void complete_ids(struct dbg *d, enum arg_kind k, const char *word, cmd_add_fn add, void *ctx)
{
	char buf[32];

	if (!d)
		return;
	if (k == ARG_BP) {
		for (int i = 0; i < d->nbps; i++) {
			snprintf(buf, sizeof(buf), "%u", d->bps[i].id);
			add_prefixed(add, ctx, word, buf);
		}
	} else if (k == ARG_WATCH) {
		int n = 0;
		struct dbg_watchpoint *w = d->watch ? dbg_watch_all(d, &n) : NULL;

		for (int i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%u", w[i].id);
			add_prefixed(add, ctx, word, buf);
		}
	} else {
		int n = 0;
		struct target_thread_info *ti = dbg_thread_list(d, 1, &n);

		for (int i = 0; i < n; i++) {
			snprintf(buf, sizeof(buf), "%u", ti[i].index);
			add_prefixed(add, ctx, word, buf);
		}
		free(ti);
	}
}

struct filter {
	cmd_add_fn add;
	void *ctx;
	const char *word;
};

static void add_filtered(void *ctx, const char *cand)
{
	struct filter *f = ctx;

	add_prefixed(f->add, f->ctx, f->word, cand);
}

int cmd_complete_arg(const struct cmd_node *node, struct dbg *d, char **args, int nargs,
		     const char *word, cmd_add_fn add, void *ctx)
{
	enum arg_kind k = arg_kind(node, nargs);
	struct filter f = { add, ctx, word };

	switch (k) {
	case ARG_NONE:
		return 0;
	case ARG_SETTING: {
		size_t n;
		const struct setting_def *defs = settings_defs(&n);

		for (size_t i = 0; i < n; i++)
			add_prefixed(add, ctx, word, defs[i].name);
		break;
	}
	case ARG_CMD:
		complete_help(args, nargs, word, add, ctx);
		break;
	case ARG_VAR:
		complete_vars(d, word, add, ctx);
		break;
	case ARG_REG:
		cmd_register_names(add_filtered, &f);
		break;
	case ARG_SIGNAL:
		for (int s = 1; s < 65; s++)
			if (target_signal_name(s))
				add_prefixed(add, ctx, word, target_signal_name(s));
		break;
	default:
		complete_ids(d, k, word, add, ctx);
		break;
	}
	return 1;
}
