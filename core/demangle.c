/* core/demangle.c: C++ name demangling for the symbol files (libiberty's
 * cplus_demangle, so no libstdc++ dependency). */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "core/sym.h"

char *sym_demangle(const char *name)
{
	if (!name || strncmp(name, "_Z", 2) != 0)
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}
