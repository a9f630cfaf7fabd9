/* cmd/dis-comment.c: see dis-comment.h. */
#include "cmd/dis-comment.h"
#include "core/session/dbg.h"
#include "core/symbols/sym_file.h"
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* addr in an executable segment of m (symbols without a size, such as
 * _fini, would otherwise claim the data after them) */
static int in_code(const struct dbg_module *m, uint64_t addr)
{
	if (m->end && (addr < m->start || addr >= m->end))
		return 0;
	if (sym_module_is_raw(m->sym))
		return m->end != 0;
	return sym_file_code(m->sym, addr);
}

void cmd_dis_comment(struct dbg *d, const struct disasm_insn *in, uint64_t func_addr,
		     char *buf, size_t n)
{
	struct dbg_module *m;
	struct sym_loc loc;
	const char *base;

	buf[0] = 0;
	if (!in->has_target)
		return;
	m = dbg_module_for(d, in->target);
	memset(&loc, 0, sizeof(loc));
	if (!m || !m->sym || sym_lookup_addr(m->sym, in->target, &loc) < 0 || !loc.func ||
	    !in_code(m, in->target))
		return;
	if (loc.func_addr == func_addr)
		snprintf(buf, n, "; <+%" PRIu64 ">", in->target - func_addr);
	else if (in->target == loc.func_addr)
		snprintf(buf, n, "; %s", loc.func);
	else
		snprintf(buf, n, "; %s + %" PRIu64, loc.func, in->target - loc.func_addr);
	if (loc.file && loc.line) {
		size_t len = strlen(buf);

		base = strrchr(loc.file, '/');
		snprintf(buf + len, n - len, " at %s:%u", base ? base + 1 : loc.file, loc.line);
	}
}
