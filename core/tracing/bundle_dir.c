/* core/tracing/bundle_dir.c: writing a bundle's folder safely (see bundle_dir.h). */
#include "core/tracing/bundle_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates path and its missing parents (the user's target's parents). */
static int mkdirs(char *path, struct ptdb_err *err)
{
	for (char *s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			ptdb_err_errno(err, "cannot create '%s'", path);
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	if (path[0] && mkdir(path, 0755) < 0 && errno != EEXIST)
		return ptdb_err_errno(err, "cannot create '%s'", path);
	return 0;
}

/* 1 if the folder fd holds anything but . and .. (closes fd). */
static int fd_nonempty(int fd)
{
	DIR *dp = fdopendir(fd);
	struct dirent *e;
	int any = 0;

	if (!dp) {
		close(fd);
		return 0;
	}
	while (!any && (e = readdir(dp)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(dp);
	return any;
}

int bundle_dir_begin(struct bundle_dir *bd, const char *target, int force, struct ptdb_err *err)
{
	char parent[PATH_MAX], real[PATH_MAX], *slash;
	const char *base;
	struct stat st;
	size_t n;

	memset(bd, 0, sizeof(*bd));
	n = strlen(target);
	if (!n || n >= sizeof(parent))
		return ptdb_err_set(err, "invalid bundle folder '%s'", target);
	if (stat(target, &st) == 0 && !S_ISDIR(st.st_mode))
		return ptdb_err_set(err, "'%s' exists and is not a directory", target);
	if (stat(target, &st) == 0) {
		int fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0 && fd_nonempty(fd) && !force)
			return ptdb_err_set(err, "'%s' is not empty; use --force to write the bundle into it",
					    target);
		if (!realpath(target, bd->target))
			return ptdb_err_errno(err, "cannot use '%s'", target);
		bd->exists = 1;
	} else {
		/* its parents are made; the folder itself comes at the commit */
		snprintf(parent, sizeof(parent), "%s", target);
		while (n > 1 && parent[n - 1] == '/')
			parent[--n] = 0;
		slash = strrchr(parent, '/');
		base = slash ? slash + 1 : parent;
		if (!strcmp(base, ".") || !strcmp(base, ".."))
			return ptdb_err_set(err, "invalid bundle folder '%s'", target);
		if (slash == parent)
			snprintf(real, sizeof(real), "/");
		else if (slash) {
			*slash = 0;
			if (mkdirs(parent, err) < 0)
				return -1;
			if (!realpath(parent, real))
				return ptdb_err_errno(err, "cannot use '%s'", parent);
		} else if (!getcwd(real, sizeof(real)))
			return ptdb_err_errno(err, "cannot use '%s'", target);
		if (snprintf(bd->target, sizeof(bd->target), "%s/%s", strcmp(real, "/") ? real : "",
			     base) >= (int)sizeof(bd->target))
			return ptdb_err_set(err, "'%s': the path is too long", target);
	}
	/* next to a folder to be made (renamed into place at once), inside
	 * one that exists (its parent may not be writable: a mount point) */
	snprintf(parent, sizeof(parent), "%s", bd->target);
	slash = strrchr(parent, '/');
	*slash = 0;
	if ((bd->exists ? snprintf(bd->tmp, sizeof(bd->tmp), "%s/.ptdb-save-XXXXXX",
				   strcmp(bd->target, "/") ? bd->target : "")
			: snprintf(bd->tmp, sizeof(bd->tmp), "%s/.%.64s.ptdb-save-XXXXXX", parent, slash + 1)) >=
	    (int)sizeof(bd->tmp) || !mkdtemp(bd->tmp)) {
		int e = errno;

		bd->tmp[0] = 0;
		errno = e;
		return ptdb_err_errno(err, "cannot write into '%s'",
				      bd->exists ? bd->target : parent[0] ? parent : "/");
	}
	return 0;
}

int bundle_dir_write(const char *path, const void *data, size_t n, struct ptdb_err *err)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;
	size_t done = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return ptdb_err_set(err, "cannot write '%s': the path is too long", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdirs(dir, err) < 0)
			return -1;
	}
	/* in the fresh folder: a name that exists already is refused, and
	 * a symlink is never followed */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return ptdb_err_errno(err, "cannot write '%s'", path);
	while (done < n) {
		ssize_t w = write(fd, (const uint8_t *)data + done, n - done);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return ptdb_err_errno(err, "cannot write '%s'", path);
		}
		done += (size_t)w;
	}
	if (close(fd) < 0)
		return ptdb_err_errno(err, "cannot write '%s'", path);
	return 0;
}

char *bundle_dir_module_rel(const char *sp)
{
	size_t cap = strlen(sp) + 16, len = 0;
	char *out = xmalloc(cap);
	const char *c = sp;

	len = (size_t)snprintf(out, cap, "modules");
	while (*c) {
		size_t k;

		while (*c == '/')
			c++;
		k = strcspn(c, "/");
		if (!k)
			break;
		if (!(k == 1 && c[0] == '.') && !(k == 2 && c[0] == '.' && c[1] == '.')) {
			/* each name within NAME_MAX */
			size_t keep = k > 200 ? 200 : k;

			out[len++] = '/';
			memcpy(out + len, c, keep);
			len += keep;
			out[len] = 0;
		}
		c += k;
	}
	if (!strcmp(out, "modules"))
		snprintf(out, cap, "modules/module");
	return out;
}

/* ---- removing and moving, never through a symlink ---- */

static void rm_at(int dfd, const char *name)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		DIR *dp;
		struct dirent *e;

		if (fd >= 0 && (dp = fdopendir(fd))) {
			while ((e = readdir(dp)))
				if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
					rm_at(dirfd(dp), e->d_name);
			closedir(dp);
		} else if (fd >= 0)
			close(fd);
		unlinkat(dfd, name, AT_REMOVEDIR);
	} else {
		unlinkat(dfd, name, 0);
	}
}

void bundle_dir_abort(struct bundle_dir *bd)
{
	if (bd->tmp[0])
		rm_at(AT_FDCWD, bd->tmp);
	bd->tmp[0] = 0;
}

/* The names in folder fd (but . and ..), heap, NULL-terminated. */
static char **names_of(int fd)
{
	int dup_fd = dup(fd);
	DIR *dp = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	char **v = xcalloc(1, sizeof(*v));
	size_t n = 0;

	if (!dp) {
		if (dup_fd >= 0)
			close(dup_fd);
		return v;
	}
	rewinddir(dp);
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = xstrdup(e->d_name);
		v[n] = NULL;
	}
	closedir(dp);
	return v;
}

static void free_names(char **v)
{
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/* Moves every entry of folder sfd into folder tfd (shown as where):
 * folders merge, files and symlinks of the same name are replaced. */
static int merge(int sfd, int tfd, const char *where, int top, struct ptdb_err *err)
{
	char **names = names_of(sfd);
	int r = 0;

	for (char **p = names; *p && r == 0; p++) {
		struct stat ss, ts;

		if (top && !strcmp(*p, "trace.json"))
			continue;	/* last, by the caller */
		if (fstatat(sfd, *p, &ss, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (fstatat(tfd, *p, &ts, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISDIR(ss.st_mode) && S_ISDIR(ts.st_mode)) {
				int s2 = openat(sfd, *p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				int t2 = openat(tfd, *p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				char sub[PATH_MAX];

				snprintf(sub, sizeof(sub), "%s/%s", where, *p);
				if (s2 < 0 || t2 < 0)
					r = ptdb_err_errno(err, "cannot write '%s'", sub);
				else
					r = merge(s2, t2, sub, 0, err);
				if (s2 >= 0)
					close(s2);
				if (t2 >= 0)
					close(t2);
				continue;
			}
			if (S_ISDIR(ts.st_mode)) {
				r = ptdb_err_set(err, "cannot replace the folder '%s/%s' with a file", where, *p);
				continue;
			}
			if (S_ISDIR(ss.st_mode) && unlinkat(tfd, *p, 0) < 0) {
				r = ptdb_err_errno(err, "cannot replace '%s/%s'", where, *p);
				continue;
			}
		}
		if (renameat(sfd, *p, tfd, *p) < 0)
			r = ptdb_err_errno(err, "cannot write '%s/%s'", where, *p);
	}
	free_names(names);
	return r;
}

int bundle_dir_commit(struct bundle_dir *bd, struct ptdb_err *err)
{
	mode_t um = umask(0);
	int sfd, tfd, r;
	struct stat st;

	umask(um);
	chmod(bd->tmp, 0777 & ~um);
	/* absent: one rename, all or nothing */
	if (!bd->exists) {
		if (rename(bd->tmp, bd->target) < 0)
			return ptdb_err_errno(err, "cannot write '%s'", bd->target);
		bd->tmp[0] = 0;
		return 0;
	}
	/* a folder that exists (empty, or --force): entry by entry, the
	 * description removed first and put back last */
	tfd = open(bd->target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0)
		return ptdb_err_errno(err, "cannot write into '%s'", bd->target);
	sfd = open(bd->tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sfd < 0) {
		close(tfd);
		return ptdb_err_errno(err, "cannot write into '%s'", bd->target);
	}
	r = 0;
	if (fstatat(tfd, "trace.json", &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			r = ptdb_err_set(err, "'%s/trace.json' is a folder", bd->target);
		else if (unlinkat(tfd, "trace.json", 0) < 0)
			r = ptdb_err_errno(err, "cannot replace '%s/trace.json'", bd->target);
	}
	if (r == 0)
		r = merge(sfd, tfd, bd->target, 1, err);
	if (r == 0 && renameat(sfd, "trace.json", tfd, "trace.json") < 0)
		r = ptdb_err_errno(err, "cannot write '%s/trace.json'", bd->target);
	close(sfd);
	close(tfd);
	if (r == 0)
		bundle_dir_abort(bd);	/* the emptied folders */
	return r;
}
