/* core/dbg_int.h: what core/dbg*.c share; not for use elsewhere. */
#ifndef PTDB_CORE_DBG_INT_H
#define PTDB_CORE_DBG_INT_H

#include "core/dbg.h"
#include "disasm/disasm.h"

void dbg_resolve_all(struct dbg *d);
/* Counts a hit if addr is a planted enabled user location. */
int dbg_bp_hit(struct dbg *d, uint64_t addr, unsigned *id, unsigned *loc);
struct disasm *dbg_disasm(struct dbg *d);

#endif
