/* core/session/settings.c: typed settings with defaults, checked on set. */
#include "core/session/settings.h"

#include <string.h>
#include <stdlib.h>

static const struct setting_def defs[SETTING_COUNT_] = {
	[SETTING_STOP_ON_ERROR] = { "stop-on-error", SETTING_BOOL, "false", NULL,
		"Stop running a command script (-s, command source) at the first command that fails." },
	[SETTING_DISASSEMBLY_FLAVOR] = { "disassembly-flavor", SETTING_ENUM, "att", "att|intel",
		"The syntax of disassembled instructions: AT&T or Intel." },
	[SETTING_PROMPT] = { "prompt", SETTING_STRING, "(ptdb) ", NULL,
		"The debugger command line prompt." },
	[SETTING_RUN_ARGS] = { "target.run-args", SETTING_STRING, "", NULL,
		"Arguments given to the program when it is launched (split like a command line)." },
	[SETTING_DISABLE_ASLR] = { "target.disable-aslr", SETTING_BOOL, "true", NULL,
		"Launch the program with address space layout randomization disabled." },
	[SETTING_TRACE_STEPPING] = { "trace.software.stepping", SETTING_ENUM, "block", "block|single",
		"How the software trace backend runs a traced thread: by blocks up to the next state-dependent control transfer, or one instruction at a time (the correctness reference)." },
	[SETTING_FOLLOW_FORK] = { "target.follow-fork", SETTING_ENUM, "parent", "parent|child",
		"Which process to go on debugging when the process forks: the parent (the child, its breakpoints removed, runs on alone) or the child (the parent, its breakpoints removed, runs on alone; a single-threaded parent that is not traced)." },
	[SETTING_DEBUG_FILE_PATHS] = { "target.debug-file-search-paths", SETTING_STRING, "", NULL,
		"Directories (separated by spaces) searched, before /usr/lib/debug, for the separate debug files of modules opened afterwards: by build ID (DIR/.build-id/xx/yyyy.debug) and by .gnu_debuglink name (DIR/NAME, DIR/<module's directory>/NAME)." },
	[SETTING_SOURCE_MAP] = { "target.source-map", SETTING_STRING, "", NULL,
		"Pairs of paths OLD NEW (separated by spaces): a source file whose DWARF path starts with OLD is read from NEW instead (stop listings, source list, trace dumps with -m), and a breakpoint given with a NEW path is set in the OLD file." },
	[SETTING_TRACE_ENGINE] = { "trace.software.engine", SETTING_ENUM, "cache", "ptrace|cache",
		"Which engine the software trace backend records with in block stepping: cache, the default (the threads run natively out of a code cache in their own memory and record which blocks ran; the traced threads take turns in it, one at a time; system calls and code it cannot translate run under ptrace) or ptrace (one stop per state-dependent transfer; the reference, and the cache engine's fallback).  Software watchpoint checking (target.hardware-watchpoints false, or no debug-register traps) runs out of the code cache too with cache, and single-steps every instruction with ptrace." },
	[SETTING_HW_WATCH] = { "target.hardware-watchpoints", SETTING_BOOL, "true", NULL,
		"Check watchpoints with the x86 debug registers where the machine delivers their traps; false checks them by single-stepping every thread (exact, slow), as where it does not." },
	[SETTING_BUNDLE_OUTSIDE] = { "trace.load-outside-files", SETTING_BOOL, "false", NULL,
		"Let 'trace load' read the files a bundle names outside its own directory (absolute paths, .., symlinks), as 'trace load --allow-outside' does; each is listed in a warning.  Off, such a bundle is refused." },
	[SETTING_STEP_AVOID] = { "target.process.thread.step-avoid-regexp", SETTING_STRING, "^std::", NULL,
		"'step' does not stop in a function whose name (without its parameters) matches this extended regular expression: it runs the call to its return and steps on, as LLDB does (the C++ standard library's by default; empty: none)." },
	[SETTING_DYNAMIC] = { "target.prefer-dynamic-value", SETTING_ENUM, "no-run-target",
		"no-dynamic-values|no-run-target|run-target",
		"Show a pointer or reference to a C++ object with virtual functions (or a void * to one) with the object's own class, found by its vtable's symbol, as LLDB does: 'frame variable', 'expression' and frame lines (run-target is no-run-target: ptdb never runs the program's code for it)." },
};

const struct setting_def *settings_defs(size_t *n)
{
	*n = SETTING_COUNT_;
	return defs;
}

void settings_init(struct settings *s)
{
	for (int i = 0; i < SETTING_COUNT_; i++)
		s->values[i] = xstrdup(defs[i].defval);
}

void settings_release(struct settings *s)
{
	for (int i = 0; i < SETTING_COUNT_; i++) {
		free(s->values[i]);
		s->values[i] = NULL;
	}
}

int settings_find(const char *name)
{
	for (int i = 0; i < SETTING_COUNT_; i++)
		if (!strcmp(defs[i].name, name))
			return i;
	return -1;
}

static int enum_has(const char *values, const char *v)
{
	size_t len = strlen(v);
	const char *p = values;

	while (p && *p) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);

		if (l == len && !strncmp(p, v, len))
			return 1;
		p = bar ? bar + 1 : NULL;
	}
	return 0;
}

int settings_set(struct settings *s, const char *name, const char *value, struct ptdb_err *err)
{
	int id = settings_find(name);
	const struct setting_def *d;

	if (id < 0)
		return ptdb_err_set(err, "invalid setting: '%s' (see 'settings show')", name);
	d = &defs[id];
	if (d->type == SETTING_BOOL) {
		if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "on"))
			value = "true";
		else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "off"))
			value = "false";
		else
			return ptdb_err_set(err, "invalid boolean value '%s' for '%s': use true or false",
				value, name);
	} else if (d->type == SETTING_ENUM && !enum_has(d->values, value)) {
		return ptdb_err_set(err, "invalid value '%s' for '%s': valid values are %s",
			value, name, d->values);
	}
	free(s->values[id]);
	s->values[id] = xstrdup(value);
	return 0;
}

const char *settings_get(const struct settings *s, enum setting_id id)
{
	return s->values[id];
}

int settings_get_bool(const struct settings *s, enum setting_id id)
{
	return !strcmp(s->values[id], "true");
}

static void show_one(const struct settings *s, int i, FILE *out)
{
	static const char *const types[] = { "boolean", "enum", "string" };

	if (defs[i].type == SETTING_STRING)
		fprintf(out, "%s (%s) = \"%s\"\n", defs[i].name, types[defs[i].type], s->values[i]);
	else
		fprintf(out, "%s (%s) = %s\n", defs[i].name, types[defs[i].type], s->values[i]);
}

int settings_show(const struct settings *s, const char *name, FILE *out, struct ptdb_err *err)
{
	if (name) {
		int id = settings_find(name);

		if (id < 0)
			return ptdb_err_set(err, "invalid setting: '%s' (see 'settings show')", name);
		show_one(s, id, out);
		return 0;
	}
	for (int i = 0; i < SETTING_COUNT_; i++)
		show_one(s, i, out);
	return 0;
}
