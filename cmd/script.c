/* cmd/script.c: echo-and-run of command scripts, LLDB batch style. */
#include "cmd/script.h"
#include "core/session/session.h"
#include "base/err.h"

#include <stdlib.h>
#include <string.h>

enum cmd_status script_run_line(struct session *s, const char *line, FILE *out, FILE *err, int *failed)
{
	const char *p = line;
	enum cmd_status st;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return CMD_OK;
	fprintf(out, "%s%s\n", settings_get(&s->settings, SETTING_PROMPT), p);
	fflush(out);
	st = cmd_run_line(s, p, out, err);
	if (st == CMD_ERROR)
		*failed = 1;
	return st;
}

enum cmd_status script_run_file(struct session *s, FILE *in, FILE *out, FILE *err, int *failed)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum cmd_status st = CMD_OK;

	while (!s->term_signal && (len = getline(&line, &cap, in)) >= 0) {
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		st = script_run_line(s, line, out, err, failed);
		if (st == CMD_EXIT)
			break;
		if (st == CMD_ERROR && settings_get_bool(&s->settings, SETTING_STOP_ON_ERROR))
			break;
		st = CMD_OK;
	}
	free(line);
	return st;
}
