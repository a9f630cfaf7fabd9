/* cmd/dis-comment.c: see dis-comment.h. */
#include "cmd/dis-comment.h"
#include "core/session/dbg.h"
#include "core/symbols/sym_file.h"
#include "disasm/disasm.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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

/* LLVM's printer (lldb-16's disassembler) notes an immediate operand
 * over 255 or under -256 as "; imm = 0x3E8". */
static void imm_comment(const char *ops, char *buf, size_t n)
{
	for (const char *p = strchr(ops, '$'); p; p = strchr(p + 1, '$')) {
		const char *q = p + 1;
		int neg = *q == '-';
		char *end;
		uint64_t v;
		int64_t sv;

		q += neg;
		if (!isdigit((unsigned char)*q))
			continue;
		v = strtoull(q, &end, 0);
		sv = neg ? -(int64_t)v : (int64_t)v;
		if (sv > 255 || sv < -256) {
			snprintf(buf, n, "; imm = 0x%" PRIX64, (uint64_t)sv);
			return;
		}
	}
}

/* A RIP-relative operand ("0x2c35(%rip)") whose address a data symbol
 * holds: "; prog", as lldb-16 notes it.  -1 when there is none. */
static int rip_comment(struct dbg *d, const struct disasm_insn *in, char *buf, size_t n)
{
	const char *rip = strstr(in->operands, "(%rip)"), *p, *name;
	struct dbg_module *m;
	uint64_t target, off;
	int64_t disp;

	if (!rip)
		return -1;
	for (p = rip; p > in->operands && p[-1] != ' ' && p[-1] != ','; p--)
		;
	disp = p == rip ? 0 : strtoll(p, NULL, 0);
	target = in->addr + in->len + (uint64_t)disp;
	m = dbg_module_for(d, target);
	if (!m || !m->sym || sym_data_at(m->sym, target, &name, &off) < 0)
		return -1;
	if (off)
		snprintf(buf, n, "; %s + %" PRIu64, name, off);
	else
		snprintf(buf, n, "; %s", name);
	return 0;
}

void cmd_dis_comment(struct dbg *d, const struct disasm_insn *in, uint64_t func_addr,
		     char *buf, size_t n)
{
	struct dbg_module *m;
	struct sym_loc loc;
	const char *base;

	buf[0] = 0;
	if (!in->has_target) {
		if (rip_comment(d, in, buf, n) < 0)
			imm_comment(in->operands, buf, n);
		return;
	}
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
		if (loc.column)	/* lldb-16: ":line:column" where the row has one */
			snprintf(buf + len, n - len, " at %s:%u:%u", base ? base + 1 : loc.file,
				 loc.line, loc.column);
		else
			snprintf(buf + len, n - len, " at %s:%u", base ? base + 1 : loc.file, loc.line);
	}
}

const char *cmd_dis_func_name(const char *func, char *buf, size_t n)
{
	size_t len = strlen(func), cut = len, start = 0;
	int depth = 0;

	/* the parameter list: the last top-level "(...)" when the name ends
	 * with it or with its qualifiers */
	if (len && (func[len - 1] == ')' || strstr(func, ") const"))) {
		for (size_t i = len; i-- > 0;) {
			if (func[i] == ')' || func[i] == '>')
				depth++;
			else if ((func[i] == '(' || func[i] == '<') && --depth == 0 && func[i] == '(') {
				cut = i;
				break;
			}
		}
	}
	/* a return type: what precedes the last space outside <> and () */
	depth = 0;
	for (size_t i = 0; i < cut; i++) {
		if (func[i] == '<' || func[i] == '(')
			depth++;
		else if ((func[i] == '>' || func[i] == ')') && depth > 0)
			depth--;
		else if (func[i] == ' ' && !depth)
			start = i + 1;
	}
	snprintf(buf, n, "%.*s", (int)(cut - start), func + start);
	return buf;
}
