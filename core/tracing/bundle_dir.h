/* core/tracing/bundle_dir.h: the folder a bundle is written into, safely.
 * Everything is written into a fresh temporary folder (created by mkdtemp:
 * no symlink in it that ptdb did not make) next to the target, or inside it
 * when it exists, each file created with O_EXCL | O_NOFOLLOW; the commit
 * renames it into place (the target absent) or moves its entries into the
 * target (empty, or --force: a file or symlink of the same name is
 * replaced, never written through), trace.json last.  An abort removes the temporary folder: a failed save
 * leaves nothing that looks saved. */
#ifndef PTDB_CORE_BUNDLE_DIR_H
#define PTDB_CORE_BUNDLE_DIR_H

#include <limits.h>
#include <stddef.h>

#include "base/err.h"

struct bundle_dir {
	char target[PATH_MAX];	/* the folder the user named, resolved */
	char tmp[PATH_MAX];	/* where the files are written until the commit */
	int exists;		/* target existed (force: merged into) */
};

/* Checks target (absent, an empty folder, or with force any folder),
 * creates its parents and the temporary folder. */
int bundle_dir_begin(struct bundle_dir *bd, const char *target, int force, struct ptdb_err *err);

/* Writes a new file at path (under bd->tmp), creating its folders. */
int bundle_dir_write(const char *path, const void *data, size_t n, struct ptdb_err *err);

/* A module's copy, relative to the bundle: "modules/" and the components
 * of the path it was loaded from, without "", "." and ".." (so it never
 * leaves modules/); heap. */
char *bundle_dir_module_rel(const char *system_path);

/* Moves the written files into the target (trace.json last). */
int bundle_dir_commit(struct bundle_dir *bd, struct ptdb_err *err);

/* Removes the temporary folder and all it holds. */
void bundle_dir_abort(struct bundle_dir *bd);

#endif
