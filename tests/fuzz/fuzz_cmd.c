/* tests/fuzz/fuzz_cmd.c: arbitrary bytes as REPL lines (up to 8, split at
 * newlines) through the command tree of a fresh session with no target and
 * no process: splitting and quoting, alias expansion, lookup by prefix,
 * option and size parsing, the needs checks and the handlers that run
 * without a process.  Commands that would start or attach to a process,
 * read arbitrary files or write files are not run: the fuzzer must not
 * touch the machine (their argument parsing is still fuzzed through
 * cmd_parse_args). */
#include "tests/fuzz/fuzz.h"
#include "cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

static const char *const unsafe[] = {
	"file", "command source", "process attach", "process launch",
	"trace load", "trace save", "thread trace export", NULL,
};

/* Whether line resolves to a command the harness must not run; its
 * arguments are parsed anyway. */
static int is_unsafe(const char *line)
{
	char **words, **w, path[256], msg[1024];
	const char *errmsg, *exp = NULL;
	const struct cmd_node *node;
	const struct cmd_alias *al;
	int n, used, bad = 0;

	n = cmd_split(line, &words, &errmsg);
	if (n <= 0) {
		if (n == 0)
			cmd_argv_free(words);
		return 0;
	}
	for (al = cmd_aliases(); al->name; al++)
		if (!strcmp(al->name, words[0]))
			exp = al->expansion;
	w = words;
	if (exp) {
		char **ew;
		int ne = cmd_split(exp, &ew, &errmsg);

		node = ne > 0 ? cmd_lookup(ew, ne, &used, path, sizeof(path), msg, sizeof(msg)) : NULL;
		if (ne >= 0)
			cmd_argv_free(ew);
		w = words + 1;
		n--;
		used = 0;
	} else {
		node = cmd_lookup(words, n, &used, path, sizeof(path), msg, sizeof(msg));
	}
	if (node) {
		for (int i = 0; unsafe[i]; i++)
			if (!strncmp(path, unsafe[i], strlen(unsafe[i])))
				bad = 1;
		if (bad && node->exec) {
			struct cmd_args args;

			cmd_parse_args(node, w + used, n - used, &args, msg, sizeof(msg));
			free(args.argv);
		}
	}
	cmd_argv_free(words);
	return bad;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *line = text, *nl;
	struct session s;

	session_init(&s);
	s.batch = 1;
	for (int i = 0; i < 8 && line; i++, line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = 0;
		if (is_unsafe(line))
			continue;
		if (fuzz_run(&s, line) == CMD_EXIT)
			break;
	}
	session_release(&s);
	free(text);
	return 0;
}
