/* core/symbols/source.h: LLDB-style source listings ("-> 2      int ret = 0;")
 * written to a stream the caller gives. */
#ifndef PTDB_CORE_SOURCE_H
#define PTDB_CORE_SOURCE_H

#include <stdio.h>

#include "base/err.h"

/* Lists path around line (3 before, 3 after; 7 lines near the top, cut at
 * the end of the file), marking line with "->" and, when column != 0, a
 * caret under that column on the next output line.  Error: "cannot read
 * source file 'PATH'". */
int source_list(FILE *out, const char *path, unsigned line, unsigned column,
		struct ptdb_err *err);

/* Lists lines [first, last] without a marker (last cut at end of file);
 * returns the number of lines shown. */
int source_list_range(FILE *out, const char *path, unsigned first,
		      unsigned last, struct ptdb_err *err);

/* Lines [first, last] as lldb-16's mixed disassembly shows a line's
 * source: each marked "->" when pc_in (the pc is in that line's code),
 * else the last alone, "**". */
int source_list_mixed(FILE *out, const char *path, unsigned first, unsigned last,
		      int pc_in, struct ptdb_err *err);

/* target.source-map (core/symbols/source_map.c): pairs is "OLD NEW [OLD NEW ...]".
 * source_map_check: -1 (error: "target.source-map takes pairs of paths:
 * OLD NEW [OLD NEW ...]") for an odd count.  source_map_apply rewrites a
 * DWARF path under the first OLD that holds it to NEW (into buf, returned),
 * source_map_reverse a path under NEW to OLD; both return path itself when
 * no pair applies. */
int source_map_check(const char *pairs, struct ptdb_err *err);
const char *source_map_apply(const char *pairs, const char *path, char *buf, size_t n);
const char *source_map_reverse(const char *pairs, const char *path, char *buf, size_t n);

#endif
