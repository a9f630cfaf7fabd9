/* core/source.h: LLDB-style source listings ("-> 2      int ret = 0;")
 * written to a stream the caller gives. */
#ifndef PTDB_CORE_SOURCE_H
#define PTDB_CORE_SOURCE_H

#include <stdio.h>

#include "core/err.h"

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

#endif
