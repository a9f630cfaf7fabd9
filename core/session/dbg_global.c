/* core/session/dbg_global.c: a global variable by the name an expression
 * gives it: its own ("level"), the nearest to the frame's function's
 * scope winning as lldb-16 finds it, or qualified by its namespaces and
 * classes ("app::flags::limit", "app::Counter::made", "::level"). */
#include <string.h>

#include "core/session/dbg.h"
#include "core/session/dbg_int.h"
#include "core/data/value.h"

/* Whether global g is called name: its own name, or qualified by its
 * scope ("testing::FLAGS_gtest_filter"). */
static int scoped_is(const char *scope, const char *vname, const char *name)
{
	size_t ls = scope ? strlen(scope) : 0;

	return ls && !strncmp(name, scope, ls) && !strcmp(name + ls, vname);
}

static int global_is(const struct sym_var *g, const char *name)
{
	if (!strstr(name, "::"))
		return !strcmp(g->name, name);
	return scoped_is(g->scope, g->name, name) || scoped_is(g->scope_raw, g->name, name);
}

/* The scope the frame's function is declared in ("testing::TestSuite::"
 * for testing::TestSuite::Run, "" for main). */
static void func_scope(struct frame_ctx *fc, char *buf, size_t n)
{
	struct sym_loc loc;
	size_t cut = 0;
	int depth = 0;

	buf[0] = 0;
	if (!fc->mod || !fc->mod->sym || sym_lookup_addr(fc->mod->sym, fc->look, &loc) < 0 ||
	    !loc.func)
		return;
	frame_strip_params(loc.func, buf, n);
	for (size_t i = 0; buf[i]; i++)
		if (buf[i] == '<')
			depth++;
		else if (buf[i] == '>')
			depth--;
		else if (!depth && buf[i] == ':' && buf[i + 1] == ':')
			cut = i + 2;
	buf[cut] = 0;
}

/* How near global g is to the function's scope fs: the length of g's
 * scope when fs lies in it (the nearest wins, as lldb-16 finds "level"
 * in main as ::level and in app::run as app::level), else -1. */
static int scope_fit(const struct sym_var *g, const char *fs)
{
	const char *s = g->scope_raw && *g->scope_raw ? g->scope_raw : g->scope ? g->scope : "";
	size_t ls = strlen(s);

	return strncmp(fs, s, ls) ? -1 : (int)ls;
}

int frame_global_named(struct frame_ctx *fc, const char *name, struct value *out)
{
	struct dbg *d = fc->d;
	char fs[512];

	func_scope(fc, fs, sizeof(fs));
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < d->nmods; k++) {
			struct sym_module *m = d->mods[k].sym;
			struct sym_var *g;
			const char *cu;
			int n;

			if (!m || !d->mods[k].end || (pass == 0 && &d->mods[k] != fc->mod))
				continue;
			n = sym_global_vars(m, pass == 0 ? fc->look : 0,
					    &cu, &g, NULL);
			{
				int best = -1, fit = -2;

				for (int i = 0; i < n; i++)
					if (global_is(&g[i], name) && scope_fit(&g[i], fs) > fit) {
						best = i;
						fit = scope_fit(&g[i], fs);
					}
				if (best >= 0) {
					frame_var_value(fc, m, &g[best], out);
					sym_vars_free(g, n);
					return 0;
				}
			}
			if (n > 0)
				sym_vars_free(g, n);
		}
	return -1;
}
