/* core/symbols/source_map.c: target.source-map — pairs of path prefixes "OLD NEW"
 * (as the setting stores them, words separated by spaces) that rewrite a
 * source path found in DWARF (OLD...) into where the tree is now (NEW...),
 * and back for breakpoints given with the new path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/source.h"

/* The words of pairs, at most max (heap copy in *copy). */
static int map_words(const char *pairs, char **copy, char **w, int max)
{
	char *save = NULL;
	int n = 0;

	*copy = xstrdup(pairs ? pairs : "");
	for (char *t = strtok_r(*copy, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

int source_map_check(const char *pairs, struct ptdb_err *err)
{
	char *copy, *w[64];
	int n = map_words(pairs, &copy, w, 64);

	free(copy);
	if (n % 2)
		return ptdb_err_set(err, "target.source-map takes pairs of paths: OLD NEW [OLD NEW ...]");
	if (n >= 64)
		return ptdb_err_set(err, "target.source-map takes at most 31 pairs of paths");
	return 0;
}

/* 1 if path is prefix or lies under it (component boundary). */
static size_t map_prefix(const char *path, const char *prefix)
{
	size_t l = strlen(prefix);

	while (l > 1 && prefix[l - 1] == '/')
		l--;
	if (strncmp(path, prefix, l) || (path[l] && path[l] != '/'))
		return 0;
	return l;
}

static const char *map_apply(const char *pairs, const char *path, char *buf, size_t n, int back)
{
	char *copy, *w[64];
	int nw = map_words(pairs, &copy, w, 64);
	const char *r = path;

	for (int i = 0; path && i + 1 < nw; i += 2) {
		const char *from = w[i + back], *to = w[i + 1 - back];
		size_t l = map_prefix(path, from);

		if (!l)
			continue;
		snprintf(buf, n, "%s%s", to, path + l);
		r = buf;
		break;
	}
	free(copy);
	return r;
}

const char *source_map_apply(const char *pairs, const char *path, char *buf, size_t n)
{
	return map_apply(pairs, path, buf, n, 0);
}

const char *source_map_reverse(const char *pairs, const char *path, char *buf, size_t n)
{
	return map_apply(pairs, path, buf, n, 1);
}
