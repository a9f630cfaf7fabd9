/* tests/unit/test-cmd.c: word splitting, lookup, option parsing, completion
 * and help generation of the command tree. */
#include "tests/unit/test.h"
#include "cmd/cmd.h"
#include "cmd/builtin.h"
#include "core/session/session.h"

#include <malloc.h>
#include <stdlib.h>

/* the command tree, as main.c hands it to the dispatcher */
__attribute__((constructor)) static void hand_tree(void)
{
	cmd_set_tree(cmd_builtin_root(), cmd_builtin_aliases());
}

TEST(split_plain)
{
	char **v;
	const char *e;

	CHECK_INT(cmd_split("  thread   trace start ", &v, &e), 3);
	CHECK_STR(v[0], "thread");
	CHECK_STR(v[2], "start");
	CHECK(v[3] == NULL);
	cmd_argv_free(v);
}

TEST(split_quotes)
{
	char **v;
	const char *e;

	CHECK_INT(cmd_split("set prompt '(x) ' \"a\\\"b\" c\\ d", &v, &e), 5);
	CHECK_STR(v[1], "prompt");
	CHECK_STR(v[2], "(x) ");
	CHECK_STR(v[3], "a\"b");
	CHECK_STR(v[4], "c d");
	cmd_argv_free(v);
	CHECK_INT(cmd_split("x c\\ d ''", &v, &e), 3);
	CHECK_STR(v[1], "c d");
	CHECK_STR(v[2], "");
	cmd_argv_free(v);
}

TEST(split_unterminated)
{
	char **v = NULL;
	const char *e = NULL;

	CHECK_INT(cmd_split("help 'oops", &v, &e), -1);
	CHECK(e != NULL);
}

static const struct cmd_node *look(const char *line, int *used, char *path, char *msg)
{
	char **v;
	const char *e;
	int n = cmd_split(line, &v, &e);
	const struct cmd_node *node = cmd_lookup(v, n, used, path, 256, msg, 512);

	cmd_argv_free(v);
	return node;
}

TEST(lookup_exact_and_prefix)
{
	char path[256], msg[512];
	int used;
	const struct cmd_node *n = look("sett sh", &used, path, msg);

	CHECK(n != NULL);
	CHECK_STR(path, "settings show");
	CHECK_INT(used, 2);
	n = look("help settings", &used, path, msg);
	CHECK_STR(n->name, "help");
	CHECK_INT(used, 1);
}

TEST(lookup_unknown)
{
	char path[256], msg[512];
	int used;

	CHECK(look("bogus", &used, path, msg) == NULL);
	CHECK_STR(msg, "'bogus' is not a valid command.");
	CHECK(look("settings frob", &used, path, msg) == NULL);
	CHECK_STR(msg, "'settings' does not have a subcommand named 'frob'. Try 'help settings'.");
}

TEST(lookup_ambiguous)
{
	char path[256], msg[512];
	int used;

	CHECK(look("settings s", &used, path, msg) == NULL);
	CHECK_STR(msg, "ambiguous command 's'. Possible matches: set show");
}

static const struct cmd_opt test_opts[] = {
	{ 'c', "count", OPT_UINT, "count", "How many." },
	{ 'f', "forwards", OPT_FLAG, NULL, "Forwards." },
	{ 'a', "all", OPT_FLAG, NULL, "All." },
	{ 's', "size", OPT_SIZE, "size", "Size." },
	{ 0, "backend", OPT_STRING, "name", "Backend." },
	{ 0 },
};
static const struct cmd_node test_leaf = {
	.name = "leaf", .summary = "A test leaf.", .syntax = "[<index> ...]",
	.opts = test_opts, .min_args = 0, .max_args = 2,
};

/* The words of the last parse: option values point into them. */
static char **parsed_words;

static int parse(const char *line, struct cmd_args *a, char *msg)
{
	const char *e;
	int n, rc;

	cmd_argv_free(parsed_words);
	n = cmd_split(line, &parsed_words, &e);
	rc = cmd_parse_args(&test_leaf, parsed_words, n, a, msg, 512);
	if (rc < 0)
		free(a->argv);
	return rc;
}

TEST(parse_options)
{
	struct cmd_args a;
	char msg[512];

	CHECK_INT(parse("-c 5 -fa 2", &a, msg), 0);
	CHECK_STR(cmd_opt(&test_leaf, &a, "count"), "5");
	CHECK(cmd_opt_given(&test_leaf, &a, "forwards"));
	CHECK(cmd_opt_given(&test_leaf, &a, "all"));
	CHECK_INT(a.argc, 1);
	CHECK_STR(a.argv[0], "2");
	free(a.argv);
	CHECK_INT(parse("--count=7 -c8 --backend software", &a, msg), 0);
	CHECK_STR(cmd_opt(&test_leaf, &a, "count"), "8");
	CHECK_STR(cmd_opt(&test_leaf, &a, "backend"), "software");
	free(a.argv);
}

TEST(parse_errors)
{
	struct cmd_args a;
	char msg[512];

	CHECK_INT(parse("-z", &a, msg), -1);
	CHECK_STR(msg, "invalid option: '-z'");
	CHECK_INT(parse("--bogus", &a, msg), -1);
	CHECK_STR(msg, "invalid option: '--bogus'");
	CHECK_INT(parse("-c", &a, msg), -1);
	CHECK_STR(msg, "option '-c' requires a value <count>");
	CHECK_INT(parse("--count abc", &a, msg), -1);
	CHECK_STR(msg, "invalid value for option '--count': invalid number: \"abc\"");
	CHECK_INT(parse("--size -1", &a, msg), -1);
	CHECK_INT(parse("--size 99999999999TB", &a, msg), -1);
	CHECK_STR(msg, "invalid value for option '--size': size too large: \"99999999999TB\"");
	CHECK_INT(parse("1 2 3", &a, msg), -1);
	CHECK_STR(msg, "'leaf' takes at most 2 arguments");
	CHECK_INT(parse("--forwards=1", &a, msg), -1);
}

TEST(parse_double_dash)
{
	struct cmd_args a;
	char msg[512];

	CHECK_INT(parse("-- -c 5", &a, msg), 0);
	CHECK_INT(a.argc, 2);
	CHECK_STR(a.argv[0], "-c");
	CHECK(!cmd_opt_given(&test_leaf, &a, "count"));
	free(a.argv);
	/* A negative number is a positional, not an option. */
	CHECK_INT(parse("-5", &a, msg), 0);
	CHECK_STR(a.argv[0], "-5");
	free(a.argv);
}

TEST(usage_generated)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cmd_usage(&test_leaf, "thread leaf", f);
	fclose(f);
	CHECK_STR(buf, "thread leaf [-c <count>] [-f] [-a] [-s <size>] [--backend <name>] [<index> ...]\n");
	free(buf);
}

TEST(help_lists_groups)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cmd_help_all(f);
	fclose(f);
	CHECK(strstr(buf, "Debugger commands:\n") != NULL);
	/* the name column is as wide as the longest name */
	CHECK(strstr(buf, "\n  settings ") != NULL);
	CHECK(strstr(buf, " -- Commands for managing debugger settings.\n") != NULL);
	CHECK(strstr(buf, "\n  q ") != NULL);
	CHECK(strstr(buf, " -- ('quit')\n") != NULL);
	free(buf);
}

static int complete(const char *line, char ***m, size_t *wl)
{
	return cmd_complete(line, m, wl);
}

TEST(complete_commands)
{
	char **m;
	size_t wl;

	CHECK_INT(complete("sett", &m, &wl), 1);
	CHECK_STR(m[0], "settings");
	CHECK_INT(wl, 4);
	cmd_argv_free(m);
	CHECK_INT(complete("settings s", &m, &wl), 2);
	CHECK_STR(m[0], "set");
	CHECK_STR(m[1], "show");
	cmd_argv_free(m);
	CHECK_INT(complete("zzz", &m, &wl), 0);
}

TEST(complete_options_and_files)
{
	char **m;
	size_t wl;

	CHECK_INT(complete("help --a", &m, &wl), 1);
	CHECK_STR(m[0], "--all");
	cmd_argv_free(m);
	CHECK_INT(complete("command source tests/unit/test.", &m, &wl), 1);
	CHECK_STR(m[0], "tests/unit/test.h");
	cmd_argv_free(m);
}

/* The value of an option that is not the node's last option, being typed:
 * the option scan stepped onto the word past the end ('image lookup -n
 * wo<Tab>' crashed once image lookup had -s after -n). */
TEST(complete_option_value_being_typed)
{
	static const char *const lines[] = {
		"image lookup -n wo", "image lookup -a 0x1 -n wo", "image lookup --name ",
		"disassemble -n ma", "breakpoint set -n ma", "memory read -c ", "frame variable -f ",
	};
	char **m;
	size_t wl;

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		CHECK(complete(lines[i], &m, &wl) >= 0);
		cmd_argv_free(m);
	}
}

TEST(run_line_status)
{
	struct session s;
	char *ob = NULL, *eb = NULL;
	size_t ol = 0, el = 0;
	FILE *out = open_memstream(&ob, &ol), *err = open_memstream(&eb, &el);

	session_init(&s);
	CHECK_INT(cmd_run_line(&s, "version", out, err), CMD_OK);
	CHECK_INT(cmd_run_line(&s, "bogus", out, err), CMD_ERROR);
	CHECK_INT(cmd_run_line(&s, "q", out, err), CMD_EXIT);
	CHECK_INT(cmd_run_line(&s, "   ", out, err), CMD_OK);
	CHECK_INT(cmd_run_line(&s, "settings set prompt '(x) '", out, err), CMD_OK);
	CHECK_STR(settings_get(&s.settings, SETTING_PROMPT), "(x) ");
	fclose(out);
	fclose(err);
	CHECK(strstr(ob, "ptdb version") != NULL);
	CHECK_STR(eb, "error: 'bogus' is not a valid command.\n");
	free(ob);
	free(eb);
	session_release(&s);
}

/* Typed options: parsed once, the value read with cmd_opt_num. */
static const struct cmd_opt typed_opts[] = {
	{ 'c', "count", OPT_UINT, "count", "How many." },
	{ 's', "size", OPT_SIZE_KIB, "size", "KiB when bare." },
	{ 0, "buffer-size", OPT_SIZE, "size", "Bytes when bare." },
	{ 0, "backend", OPT_ENUM, "name", "Backend." },
	{ 0 },
};
static const struct cmd_node typed_leaf = {
	.name = "typed", .summary = "A typed leaf.", .syntax = "",
	.opts = typed_opts, .min_args = 0, .max_args = 0,
	.choices = (const struct cmd_choices[]){
		{ "backend", (const char *const[]){ "intel-pt", "software", "other", NULL } },
		{ 0 } },
};
static const struct cmd_node named_leaf = {
	.name = "named", .summary = "Named errors.", .syntax = "",
	.opts = typed_opts, .min_args = 0, .max_args = 0, .flags = CMD_NAMED_ERRORS,
};

static int parse_on(const struct cmd_node *node, const char *line, struct cmd_args *a, char *msg)
{
	const char *e;
	int n, rc;

	cmd_argv_free(parsed_words);
	n = cmd_split(line, &parsed_words, &e);
	rc = cmd_parse_args(node, parsed_words, n, a, msg, 512);
	if (rc < 0)
		free(a->argv);
	return rc;
}

TEST(parse_typed_values)
{
	struct cmd_args a;
	char msg[512];
	uint64_t v = 12345;

	CHECK_INT(parse_on(&typed_leaf, "-c 0x10 -s 4 --buffer-size 2KiB --backend software", &a, msg), 0);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "count", &v), 1);
	CHECK_INT(v, 16);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "size", &v), 1);
	CHECK_INT(v, 4096);
	CHECK_STR(cmd_opt(&typed_leaf, &a, "size"), "4");
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "buffer-size", &v), 1);
	CHECK_INT(v, 2048);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "backend", &v), 1);
	CHECK_INT(v, 1);
	free(a.argv);
	v = 12345;
	CHECK_INT(parse_on(&typed_leaf, "--buffer-size 3", &a, msg), 0);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "count", &v), 0);
	CHECK_INT(v, 12345);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "buffer-size", &v), 1);
	CHECK_INT(v, 3);
	CHECK_INT(cmd_opt_num(&typed_leaf, &a, "no-such", &v), 0);
	free(a.argv);
}

TEST(parse_typed_errors)
{
	struct cmd_args a;
	char msg[512];

	CHECK_INT(parse_on(&typed_leaf, "--backend foo", &a, msg), -1);
	CHECK_STR(msg, "invalid backend 'foo': expected intel-pt, software or other");
	CHECK_INT(parse_on(&typed_leaf, "-s lots", &a, msg), -1);
	CHECK_STR(msg, "invalid value for option '-s': invalid size: \"lots\"");
	CHECK_INT(parse_on(&named_leaf, "-s lots", &a, msg), -1);
	CHECK_STR(msg, "invalid --size: invalid size: \"lots\"");
	CHECK_INT(parse_on(&named_leaf, "--buffer-size -1", &a, msg), -1);
	CHECK_STR(msg, "invalid --buffer-size: invalid size: \"-1\"");
	/* no choices on the node: nothing is accepted */
	CHECK_INT(parse_on(&named_leaf, "--backend software", &a, msg), -1);
}

TEST(parse_cleanup)
{
	cmd_argv_free(parsed_words);
	parsed_words = NULL;
}

/* An invalid number literal ('p 1k') frees the value it had begun, and a
 * negated double its first value: a few thousand of them leave the heap as
 * it was (they leaked 4 and 8 bytes each). */
TEST(bad_literals_free)
{
	static const char *const bad[] = { "p 1k", "p 0x1g", "p 2.5q", "p 7uz" };
	/* negated, then refused: nothing kept as a result */
	static const char *const neg[] = { "p -2.5 + 1k", "p -(1.0/3) * 2q" };
	struct session s;
	FILE *null = fopen("/dev/null", "w");
	size_t before;

	session_init(&s);
	for (int i = 0; i < 100; i++)	/* warm-up: lasting allocations */
		cmd_run_line(&s, bad[i % 4], null, null);
	before = mallinfo2().uordblks;
	for (int i = 0; i < 4000; i++)
		CHECK_INT(cmd_run_line(&s, bad[i % 4], null, null), CMD_ERROR);
	CHECK(mallinfo2().uordblks < before + 16384);
	before = mallinfo2().uordblks;
	for (int i = 0; i < 4000; i++)
		CHECK_INT(cmd_run_line(&s, neg[i % 2], null, null), CMD_ERROR);
	CHECK(mallinfo2().uordblks < before + 16384);
	session_release(&s);
	fclose(null);
}

TEST_MAIN(split_plain, split_quotes, split_unterminated, lookup_exact_and_prefix,
	lookup_unknown, lookup_ambiguous, parse_options, parse_errors, parse_double_dash,
	usage_generated, help_lists_groups, complete_commands, complete_options_and_files,
	complete_option_value_being_typed,
	run_line_status, parse_typed_values, parse_typed_errors, parse_cleanup, bad_literals_free)
