/* core/symbols/demangle.c: C++ name demangling for the symbol files (libiberty's
 * cplus_demangle, so no libstdc++ dependency). */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "core/symbols/sym.h"

char *sym_demangle(const char *name)
{
	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	char *d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI), *w = d;

	/* C++11 spelling, as LLDB prints it: "tuple<int>>", not "> >" */
	for (const char *r = d; r && *r; r++) {
		if (r[0] == ' ' && r > d && r[-1] == '>' && r[1] == '>')
			continue;
		*w++ = *r;
	}
	if (w)
		*w = 0;
	return d;
}
