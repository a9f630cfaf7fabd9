/* disasm/disasm.c: the capstone wrapper behind disasm.h.
 * One detail-enabled capstone handle decodes and formats; a second,
 * detail-free handle serves length-only queries.  Debian's capstone 4.0.2
 * rejects some AVX-512/EVEX and mask-register encodings that glibc uses
 * (e.g. kmovd, vptestnmb in __strchrnul_evex), so on failure we retry with
 * Zydis 4, which then supplies length, kind and text.  Classification is by
 * instruction id because capstone's groups miss loop*, ud2 and prefixed
 * branches.  A direct-mapped cache keyed by address makes repeated decodes
 * (stepping, tracing loops) cheap. */
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>
#include <Zydis/Zydis.h>

/* 4096 entries * ~250 bytes = ~1 MiB: enough for the hot code of a traced
 * program, bounded so a long trace cannot grow memory without limit. */
#define CACHE_BITS 12
#define CACHE_SIZE (1u << CACHE_BITS)

struct cache_ent {
	int valid;
	struct disasm_insn insn;
};

struct disasm {
	csh cs;			/* detail on, flavor syntax */
	csh cs_len;		/* detail off: length-only fast path */
	cs_insn *ci;		/* reusable buffers for cs_disasm_iter */
	cs_insn *ci_len;
	ZydisDecoder zdec;
	ZydisFormatter zfmt;
	enum disasm_flavor flavor;
	struct cache_ent *cache;
	uint64_t hits, misses;
};

/* ---- register names -> user_regs_struct indices ---- */

static const char *const reg64_names[] = {
	"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10",
	"r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax",
	"rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds",
	"es", "fs", "gs",
};

/* Legacy 32/16/8-bit names and the 64-bit register they live in. */
static const struct { const char *name; int reg, width; } reg_alias[] = {
	{ "eax", DISASM_REG_RAX, 32 }, { "ecx", DISASM_REG_RCX, 32 },
	{ "edx", DISASM_REG_RDX, 32 }, { "ebx", DISASM_REG_RBX, 32 },
	{ "esp", DISASM_REG_RSP, 32 }, { "ebp", DISASM_REG_RBP, 32 },
	{ "esi", DISASM_REG_RSI, 32 }, { "edi", DISASM_REG_RDI, 32 },
	{ "eip", DISASM_REG_RIP, 32 },
	{ "ax", DISASM_REG_RAX, 16 }, { "cx", DISASM_REG_RCX, 16 },
	{ "dx", DISASM_REG_RDX, 16 }, { "bx", DISASM_REG_RBX, 16 },
	{ "sp", DISASM_REG_RSP, 16 }, { "bp", DISASM_REG_RBP, 16 },
	{ "si", DISASM_REG_RSI, 16 }, { "di", DISASM_REG_RDI, 16 },
	{ "ip", DISASM_REG_RIP, 16 },
	{ "al", DISASM_REG_RAX, 8 }, { "cl", DISASM_REG_RCX, 8 },
	{ "dl", DISASM_REG_RDX, 8 }, { "bl", DISASM_REG_RBX, 8 },
	{ "spl", DISASM_REG_RSP, 8 }, { "bpl", DISASM_REG_RBP, 8 },
	{ "sil", DISASM_REG_RSI, 8 }, { "dil", DISASM_REG_RDI, 8 },
};

/* Both decoders name registers in lowercase AT&T-free form ("rax",
 * "r8d"), so one name-based map serves capstone and Zydis alike instead of
 * two enum tables that would drift. */
static int reg_from_name(const char *name, int *width)
{
	int w = 64, n;
	char suffix = 0;

	if (width)
		*width = 0;
	if (!name || !*name)
		return DISASM_REG_NONE;
	if (name[0] == '%')
		name++;
	for (size_t i = 0; i < sizeof(reg64_names) / sizeof(reg64_names[0]); i++)
		if (!strcmp(name, reg64_names[i])) {
			if (width)
				*width = 64;
			return (int)i;
		}
	for (size_t i = 0; i < sizeof(reg_alias) / sizeof(reg_alias[0]); i++)
		if (!strcmp(name, reg_alias[i].name)) {
			if (width)
				*width = reg_alias[i].width;
			return reg_alias[i].reg;
		}
	/* r8..r15 with d/w/b suffix. */
	if (name[0] == 'r' && sscanf(name + 1, "%d%c", &n, &suffix) >= 1 &&
	    n >= 8 && n <= 15) {
		if (suffix == 'd')
			w = 32;
		else if (suffix == 'w')
			w = 16;
		else if (suffix == 'b' || suffix == 'l')
			w = 8;
		if (width)
			*width = w;
		/* r8 is index 9, r15 index 0: descending. */
		return n <= 9 ? (n == 8 ? DISASM_REG_R8 : DISASM_REG_R9)
			      : DISASM_REG_R10 - (n - 10);
	}
	return DISASM_REG_NONE;
}

const char *disasm_reg_name(int reg)
{
	if (reg < 0 || (size_t)reg >= sizeof(reg64_names) / sizeof(reg64_names[0]))
		return "?";
	return reg64_names[reg];
}

/* ---- lifecycle ---- */

static void zydis_set_style(struct disasm *d)
{
	ZydisFormatterInit(&d->zfmt, d->flavor == DISASM_INTEL ?
			   ZYDIS_FORMATTER_STYLE_INTEL : ZYDIS_FORMATTER_STYLE_ATT);
	/* Match capstone/objdump: lowercase hex, no zero padding. */
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_DISP_PADDING,
				  ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&d->zfmt, ZYDIS_FORMATTER_PROP_IMM_PADDING,
				  ZYDIS_PADDING_DISABLED);
}

struct disasm *disasm_new(struct ptdb_err *err)
{
	struct disasm *d = xcalloc(1, sizeof(*d));

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		ptdb_err_set(err, "cannot initialise capstone");
		return NULL;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs_len) != CS_ERR_OK) {
		cs_close(&d->cs);
		free(d);
		ptdb_err_set(err, "cannot initialise capstone");
		return NULL;
	}
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(d->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->ci = cs_malloc(d->cs);
	d->ci_len = cs_malloc(d->cs_len);
	if (!d->ci || !d->ci_len ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&d->zdec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64))) {
		disasm_free(d);
		ptdb_err_set(err, "cannot initialise the disassembler");
		return NULL;
	}
	d->flavor = DISASM_ATT;
	zydis_set_style(d);
	d->cache = xcalloc(CACHE_SIZE, sizeof(*d->cache));
	return d;
}

void disasm_free(struct disasm *d)
{
	if (!d)
		return;
	if (d->ci)
		cs_free(d->ci, 1);
	if (d->ci_len)
		cs_free(d->ci_len, 1);
	if (d->cs)
		cs_close(&d->cs);
	if (d->cs_len)
		cs_close(&d->cs_len);
	free(d->cache);
	free(d);
}

void disasm_set_flavor(struct disasm *d, enum disasm_flavor f)
{
	if (!d || d->flavor == f)
		return;
	d->flavor = f;
	cs_option(d->cs, CS_OPT_SYNTAX,
		  f == DISASM_INTEL ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	zydis_set_style(d);
	disasm_cache_clear(d);
}

enum disasm_flavor disasm_get_flavor(const struct disasm *d)
{
	return d ? d->flavor : DISASM_ATT;
}

/* ---- common helpers ---- */

static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void ind_reset(struct disasm_insn *o)
{
	memset(&o->ind, 0, sizeof(o->ind));
	o->ind.reg = o->ind.base = o->ind.index = DISASM_REG_NONE;
}

static int kind_is_ind(enum disasm_kind k)
{
	return k == DISASM_KIND_JMP_IND || k == DISASM_KIND_CALL_IND ||
	       k == DISASM_KIND_FAR;
}


/* Capstone 4 prints values below 10 in decimal ("$0, -4(%rbp)") where
 * objdump and LLDB print hex ("$0x0, -0x4(%rbp)"): rewrite those, leaving
 * scales and %st(N) alone, so text matches the references. */
static void hexify(char *s, size_t cap)
{
	char buf[sizeof(((struct disasm_insn *)0)->operands)];
	size_t o = 0;
	int depth = 0;

	for (const char *p = s; *p && o + 4 < sizeof(buf); p++) {
		char prev = p == s ? ' ' : p[-1];
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if (*p >= '0' && *p <= '9' && !(p[1] == 'x') && depth == 0 &&
		    strchr(" ,$-:[*+", prev) &&
		    /* '*' is AT&T's indirect marker only at operand start;
		     * elsewhere (Intel "rcx*8") it precedes a scale. */
		    (prev != '*' || p - s < 2 || p[-2] == ' ') &&
		    !(p[1] >= '0' && p[1] <= '9')) {
			buf[o++] = '0';
			buf[o++] = 'x';
		}
		buf[o++] = *p;
	}
	buf[o] = '\0';
	copy_str(s, cap, buf);
}

/* ---- capstone path ---- */

static enum disasm_kind cs_kind(unsigned id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG: case X86_INS_JLE:
	case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO: case X86_INS_JNP:
	case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP: case X86_INS_JS:
		return DISASM_KIND_JCC;
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JRCXZ:
		return DISASM_KIND_JRCXZ;
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return DISASM_KIND_LOOP;
	case X86_INS_JMP:
		return DISASM_KIND_JMP;	/* refined to JMP_IND by operand */
	case X86_INS_CALL:
		return DISASM_KIND_CALL;
	case X86_INS_RET:
		return DISASM_KIND_RET;
	case X86_INS_RETF: case X86_INS_RETFQ: case X86_INS_IRET:
	case X86_INS_IRETD: case X86_INS_IRETQ: case X86_INS_LJMP:
	case X86_INS_LCALL: case X86_INS_SYSRET: case X86_INS_SYSEXIT:
		return DISASM_KIND_FAR;
	case X86_INS_SYSCALL: case X86_INS_SYSENTER:
		return DISASM_KIND_SYSCALL;
	case X86_INS_INT: case X86_INS_INT1: case X86_INS_INT3: case X86_INS_INTO:
		return DISASM_KIND_INT;
	case X86_INS_HLT:
		return DISASM_KIND_HLT;
	case X86_INS_UD0: case X86_INS_UD2: case X86_INS_UD2B:
		return DISASM_KIND_UD;
	default:
		return DISASM_KIND_OTHER;
	}
}

static int cs_reg(struct disasm *d, unsigned r, int *width)
{
	if (r == X86_REG_INVALID)
		return DISASM_REG_NONE;
	return reg_from_name(cs_reg_name(d->cs, r), width);
}

static void cs_fill(struct disasm *d, const cs_insn *ci, struct disasm_insn *o)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *op = x->op_count ? &x->operands[0] : NULL;

	o->kind = cs_kind(ci->id);
	copy_str(o->mnemonic, sizeof(o->mnemonic), ci->mnemonic);
	copy_str(o->operands, sizeof(o->operands), ci->op_str);
	hexify(o->operands, sizeof(o->operands));

	switch (o->kind) {
	case DISASM_KIND_JCC: case DISASM_KIND_JRCXZ: case DISASM_KIND_LOOP:
	case DISASM_KIND_JMP: case DISASM_KIND_CALL: case DISASM_KIND_FAR:
		if (op && op->type == X86_OP_IMM && o->kind != DISASM_KIND_FAR) {
			/* capstone already resolved rel8/rel32 to an absolute address. */
			o->has_target = 1;
			o->target = (uint64_t)op->imm;
		} else if (op && (op->type == X86_OP_REG || op->type == X86_OP_MEM)) {
			if (o->kind == DISASM_KIND_JMP)
				o->kind = DISASM_KIND_JMP_IND;
			else if (o->kind == DISASM_KIND_CALL)
				o->kind = DISASM_KIND_CALL_IND;
			if (op->type == X86_OP_REG) {
				o->ind.reg = cs_reg(d, op->reg, &o->ind.reg_width);
			} else {
				o->ind.is_mem = 1;
				o->ind.base = cs_reg(d, op->mem.base, NULL);
				o->ind.index = cs_reg(d, op->mem.index, NULL);
				o->ind.scale = op->mem.index != X86_REG_INVALID ? op->mem.scale : 0;
				o->ind.disp = op->mem.disp;
				o->ind.addr32 = x->addr_size == 4;
				if (op->mem.segment == X86_REG_FS)
					o->ind.seg_fs_gs = DISASM_SEG_FS;
				else if (op->mem.segment == X86_REG_GS)
					o->ind.seg_fs_gs = DISASM_SEG_GS;
			}
		}
		break;
	case DISASM_KIND_RET:
		if (op && op->type == X86_OP_IMM)
			o->ret_imm = (uint16_t)op->imm;
		break;
	default:
		break;
	}
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && (x->operands[i].mem.base == X86_REG_RIP ||
							 x->operands[i].mem.base == X86_REG_EIP)) {
			o->riprel_off = x->encoding.disp_offset;
			o->riprel_odd = x->operands[i].mem.base != X86_REG_RIP ||
					x->encoding.disp_size != 4 || !x->encoding.disp_offset;
		}
}

/* ---- Zydis fallback ---- */

static enum disasm_kind zy_kind(const ZydisDecodedInstruction *zi)
{
	int far = zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_JB: case ZYDIS_MNEMONIC_JBE: case ZYDIS_MNEMONIC_JL:
	case ZYDIS_MNEMONIC_JLE: case ZYDIS_MNEMONIC_JNB: case ZYDIS_MNEMONIC_JNBE:
	case ZYDIS_MNEMONIC_JNL: case ZYDIS_MNEMONIC_JNLE: case ZYDIS_MNEMONIC_JNO:
	case ZYDIS_MNEMONIC_JNP: case ZYDIS_MNEMONIC_JNS: case ZYDIS_MNEMONIC_JNZ:
	case ZYDIS_MNEMONIC_JO: case ZYDIS_MNEMONIC_JP: case ZYDIS_MNEMONIC_JS:
	case ZYDIS_MNEMONIC_JZ:
		return DISASM_KIND_JCC;
	case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JRCXZ:
		return DISASM_KIND_JRCXZ;
	case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
		return DISASM_KIND_LOOP;
	case ZYDIS_MNEMONIC_JMP:
		return far ? DISASM_KIND_FAR : DISASM_KIND_JMP;
	case ZYDIS_MNEMONIC_CALL:
		return far ? DISASM_KIND_FAR : DISASM_KIND_CALL;
	case ZYDIS_MNEMONIC_RET:
		return far ? DISASM_KIND_FAR : DISASM_KIND_RET;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT:
		return DISASM_KIND_FAR;
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
		return DISASM_KIND_SYSCALL;
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
		return DISASM_KIND_INT;
	case ZYDIS_MNEMONIC_HLT:
		return DISASM_KIND_HLT;
	case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2:
		return DISASM_KIND_UD;
	default:	/* (xbegin, xend, xabort: no branch kind, as capstone) */
		return DISASM_KIND_OTHER;
	}
}

static int zy_reg(ZydisRegister r, int *width)
{
	if (r == ZYDIS_REGISTER_NONE)
		return DISASM_REG_NONE;
	return reg_from_name(ZydisRegisterGetString(r), width);
}

/* Zydis formats prefixes inline ("rep stosq", "notrack jmp *%rax"); keep
 * them in the mnemonic, as capstone does, so "operands" is operands only. */
static int is_prefix_word(const char *w, size_t n)
{
	static const char *const pfx[] = {
		"lock", "rep", "repe", "repz", "repne", "repnz", "bnd",
		"notrack", "xacquire", "xrelease", "data16", "addr32",
	};
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (strlen(pfx[i]) == n && !strncmp(w, pfx[i], n))
			return 1;
	return 0;
}

static void split_text(const char *text, struct disasm_insn *o)
{
	const char *p = text, *end;
	size_t n;

	for (;;) {
		end = strchr(p, ' ');
		if (!end || !is_prefix_word(p, (size_t)(end - p)))
			break;
		p = end + 1;
	}
	n = end ? (size_t)(end - text) : strlen(text);
	if (n >= sizeof(o->mnemonic))
		n = sizeof(o->mnemonic) - 1;
	memcpy(o->mnemonic, text, n);
	o->mnemonic[n] = '\0';
	copy_str(o->operands, sizeof(o->operands), end ? end + 1 : "");
}

static int zy_decode(struct disasm *d, const uint8_t *bytes, size_t n,
		     uint64_t addr, struct disasm_insn *o)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const ZydisDecodedOperand *op;
	char text[256];

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zdec, bytes, n, &zi, ops)))
		return -1;
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&d->zfmt, &zi, ops,
			zi.operand_count_visible, text, sizeof(text), addr, NULL)))
		return -1;
	o->len = zi.length;
	o->from_zydis = 1;
	o->kind = zy_kind(&zi);
	split_text(text, o);
	for (int i = 0; i < zi.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && (ops[i].mem.base == ZYDIS_REGISTER_RIP ||
								 ops[i].mem.base == ZYDIS_REGISTER_EIP)) {
			o->riprel_off = zi.raw.disp.offset;
			o->riprel_odd = ops[i].mem.base != ZYDIS_REGISTER_RIP || zi.raw.disp.size != 32 ||
					!zi.raw.disp.offset;
		}
	op = zi.operand_count_visible ? &ops[0] : NULL;
	if (!op)
		return 0;
	switch (o->kind) {
	case DISASM_KIND_JCC: case DISASM_KIND_JRCXZ: case DISASM_KIND_LOOP:
	case DISASM_KIND_JMP: case DISASM_KIND_CALL: case DISASM_KIND_FAR:
		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && o->kind != DISASM_KIND_FAR) {
			ZyanU64 t;
			if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, op, addr, &t))) {
				o->has_target = 1;
				o->target = t;
			}
		} else if (op->type == ZYDIS_OPERAND_TYPE_REGISTER ||
			   op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			if (o->kind == DISASM_KIND_JMP)
				o->kind = DISASM_KIND_JMP_IND;
			else if (o->kind == DISASM_KIND_CALL)
				o->kind = DISASM_KIND_CALL_IND;
			if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
				o->ind.reg = zy_reg(op->reg.value, &o->ind.reg_width);
			} else {
				o->ind.is_mem = 1;
				o->ind.base = zy_reg(op->mem.base, NULL);
				o->ind.index = zy_reg(op->mem.index, NULL);
				o->ind.scale = op->mem.index != ZYDIS_REGISTER_NONE ? op->mem.scale : 0;
				o->ind.disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
				o->ind.addr32 = zi.address_width == 32;
				if (op->mem.segment == ZYDIS_REGISTER_FS)
					o->ind.seg_fs_gs = DISASM_SEG_FS;
				else if (op->mem.segment == ZYDIS_REGISTER_GS)
					o->ind.seg_fs_gs = DISASM_SEG_GS;
			}
		}
		break;
	case DISASM_KIND_RET:
		if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			o->ret_imm = (uint16_t)op->imm.value.u;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- public decode ---- */

int disasm_insn(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		struct disasm_insn *out, struct ptdb_err *err)
{
	const uint8_t *code = bytes;
	size_t size = n > 16 ? 16 : n;
	uint64_t a = addr;

	memset(out, 0, sizeof(*out));
	out->addr = addr;
	ind_reset(out);
	if (!d || !bytes || n == 0)
		return ptdb_err_set(err, "cannot decode instruction at 0x%" PRIx64, addr);
	if (cs_disasm_iter(d->cs, &code, &size, &a, d->ci)) {
		out->len = (uint8_t)d->ci->size;
		cs_fill(d, d->ci, out);
	} else if (zy_decode(d, bytes, n > 16 ? 16 : n, addr, out) < 0) {
		memset(out, 0, sizeof(*out));
		out->addr = addr;
		ind_reset(out);
		return ptdb_err_set(err, "cannot decode instruction at 0x%" PRIx64, addr);
	}
	memcpy(out->bytes, bytes, out->len);
	if (kind_is_ind(out->kind) && out->ind.is_mem && out->ind.base == DISASM_REG_RIP) {
		/* rip-relative: the effective address is fixed at decode time. */
		out->ind.rip_rel = 1;
		out->ind.rip_ea = addr + out->len + (uint64_t)out->ind.disp;
		if (out->ind.addr32)
			out->ind.rip_ea &= 0xffffffffu;
	}
	return 0;
}

/* The control-flow facts only (see disasm.h): Zydis without its
 * formatter, the operands decoded only where a branch target or a
 * RIP-relative operand needs them; what Zydis rejects goes through
 * disasm_insn (capstone first). */
int disasm_flow(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		struct disasm_insn *out)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	int need;

	if (!d || !bytes || n == 0)
		return -1;
	if (n > 16)
		n = 16;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->zdec, &ctx, bytes, n, &zi)))
		return disasm_insn(d, bytes, n, addr, out, NULL);
	out->addr = addr;
	out->len = zi.length;
	out->kind = zy_kind(&zi);
	out->has_target = 0;
	out->target = 0;
	out->ret_imm = 0;
	out->riprel_off = out->riprel_odd = 0;
	out->from_zydis = 1;
	out->operands[0] = 0;
	ind_reset(out);
	copy_str(out->mnemonic, sizeof(out->mnemonic), ZydisMnemonicGetString(zi.mnemonic));
	memcpy(out->bytes, bytes, zi.length);
	/* (a memory operand with base rip/eip has ModRM mod 00, r/m 101) */
	need = out->kind != DISASM_KIND_OTHER ||
	       ((zi.attributes & ZYDIS_ATTRIB_HAS_MODRM) && zi.raw.modrm.mod == 0 && zi.raw.modrm.rm == 5);
	if (!need)
		return 0;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&d->zdec, &ctx, &zi, ops, zi.operand_count)))
		return disasm_insn(d, bytes, n, addr, out, NULL);
	for (int i = 0; i < zi.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && (ops[i].mem.base == ZYDIS_REGISTER_RIP ||
								 ops[i].mem.base == ZYDIS_REGISTER_EIP)) {
			out->riprel_off = zi.raw.disp.offset;
			out->riprel_odd = ops[i].mem.base != ZYDIS_REGISTER_RIP || zi.raw.disp.size != 32 ||
					  !zi.raw.disp.offset;
		}
	if (!zi.operand_count_visible)
		return 0;
	switch (out->kind) {
	case DISASM_KIND_JCC: case DISASM_KIND_JRCXZ: case DISASM_KIND_LOOP:
	case DISASM_KIND_JMP: case DISASM_KIND_CALL: {
		ZyanU64 t;

		if (ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			if (out->kind == DISASM_KIND_JMP)
				out->kind = DISASM_KIND_JMP_IND;
			else if (out->kind == DISASM_KIND_CALL)
				out->kind = DISASM_KIND_CALL_IND;
		} else if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&zi, &ops[0], addr, &t))) {
			out->has_target = 1;
			out->target = t;
		}
		break;
	}
	case DISASM_KIND_RET:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			out->ret_imm = (uint16_t)ops[0].imm.value.u;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- cache ---- */

static struct cache_ent *cache_slot(struct disasm *d, uint64_t addr)
{
	/* Fibonacci hashing: spreads nearby addresses across slots. */
	return &d->cache[(addr * 0x9E3779B97F4A7C15ull) >> (64 - CACHE_BITS)];
}

static const struct disasm_insn *cache_lookup(struct disasm *d, uint64_t addr,
					      const uint8_t *bytes, size_t n)
{
	struct cache_ent *e = cache_slot(d, addr);

	/* The decode depends only on the instruction's own bytes, so equal
	 * bytes[0..len) means an identical result. */
	if (e->valid && e->insn.addr == addr && n >= e->insn.len &&
	    !memcmp(e->insn.bytes, bytes, e->insn.len)) {
		d->hits++;
		return &e->insn;
	}
	d->misses++;
	return NULL;
}

int disasm_cached(struct disasm *d, uint64_t addr, const uint8_t *bytes, size_t n,
		  struct disasm_insn *out, struct ptdb_err *err)
{
	const struct disasm_insn *hit;
	struct cache_ent *e;

	if (!d || !bytes)
		return disasm_insn(d, bytes, n, addr, out, err);
	hit = cache_lookup(d, addr, bytes, n);
	if (hit) {
		*out = *hit;
		return 0;
	}
	if (disasm_insn(d, bytes, n, addr, out, err) < 0)
		return -1;
	e = cache_slot(d, addr);
	e->insn = *out;
	e->valid = 1;
	return 0;
}

void disasm_cache_clear(struct disasm *d)
{
	if (d && d->cache)
		memset(d->cache, 0, CACHE_SIZE * sizeof(*d->cache));
}

void disasm_cache_stats(const struct disasm *d, uint64_t *hits, uint64_t *misses)
{
	if (hits)
		*hits = d ? d->hits : 0;
	if (misses)
		*misses = d ? d->misses : 0;
}

int disasm_len(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr)
{
	const struct disasm_insn *hit;
	const uint8_t *code = bytes;
	size_t size = n > 16 ? 16 : n;
	uint64_t a = addr;
	ZydisDecodedInstruction zi;

	if (!d || !bytes || n == 0)
		return -1;
	hit = cache_lookup(d, addr, bytes, n);
	if (hit)
		return hit->len;
	if (cs_disasm_iter(d->cs_len, &code, &size, &a, d->ci_len))
		return (int)d->ci_len->size;
	if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d->zdec, NULL, bytes,
						       n > 16 ? 16 : n, &zi)))
		return zi.length;
	return -1;
}

/* ---- memory accesses (software watchpoints) ----
 * From Zydis, whose operand actions are exact (capstone 4 marks many
 * stores as reads: movups, movdqa, movq, stos, movnti, EVEX moves) and
 * which lists the hidden operands: the stack of push/pop/call/ret/leave,
 * the strings of movs/stos/cmps/scas.  A masked access counts whole. */

int disasm_mem_access(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		      struct disasm_mem *out, int max)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	int k = 0;

	if (!d || !bytes || !n ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->zdec, bytes, n > 16 ? 16 : n, &zi, ops)))
		return -1;
	/* nops and prefetches name memory they do not access */
	if (zi.meta.category == ZYDIS_CATEGORY_NOP || zi.meta.category == ZYDIS_CATEGORY_WIDENOP ||
	    zi.meta.category == ZYDIS_CATEGORY_PREFETCH)
		return 0;
	for (int i = 0; i < zi.operand_count && k < max; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		struct disasm_mem *m = &out[k];

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM)
			continue;
		memset(m, 0, sizeof(*m));
		m->base = zy_reg(op->mem.base, NULL);
		m->index = zy_reg(op->mem.index, NULL);
		m->scale = op->mem.index != ZYDIS_REGISTER_NONE ? op->mem.scale : 0;
		m->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		m->addr32 = zi.address_width == 32;
		if (m->base == DISASM_REG_RIP) {
			m->base = DISASM_REG_NONE;
			m->disp += (int64_t)(addr + zi.length);
		}
		if (op->mem.segment == ZYDIS_REGISTER_FS)
			m->seg_fs_gs = DISASM_SEG_FS;
		else if (op->mem.segment == ZYDIS_REGISTER_GS)
			m->seg_fs_gs = DISASM_SEG_GS;
		m->size = op->size >= 8 ? op->size / 8u : 1;
		m->access = (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ ? DISASM_MEM_READ : 0) |
			    (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE ? DISASM_MEM_WRITE : 0);
		if (!m->access)
			m->access = DISASM_MEM_READ | DISASM_MEM_WRITE;
		/* Zydis gives a push's stack slot at rsp: it is written below */
		if (op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN && m->base == DISASM_REG_RSP &&
		    m->index == DISASM_REG_NONE && !m->disp && m->access == DISASM_MEM_WRITE)
			m->disp = -(int64_t)m->size;
		k++;
	}
	return k;
}
