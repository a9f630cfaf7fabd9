/* disasm/disasm.h: x86-64 instruction decoding for ptdb.
 * Wraps capstone (AT&T by default, Intel on request) and falls back to Zydis
 * for encodings capstone 4 rejects.  Every decoded instruction carries its
 * length, its control-flow kind, the target of a direct branch, and the
 * operand of an indirect branch so a tracer can compute where it goes.
 * Library code: never prints, never exits; failures fill a struct ptdb_err. */
#ifndef PTDB_DISASM_DISASM_H
#define PTDB_DISASM_DISASM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum disasm_flavor { DISASM_ATT, DISASM_INTEL };

/* Control-flow kind, decided by instruction id (not capstone groups, which
 * miss loop*, ud2 and prefixed forms such as "repz ret"/"notrack jmp"). */
enum disasm_kind {
	DISASM_KIND_OTHER,	/* falls through to addr + len */
	DISASM_KIND_JCC,	/* jcc rel: target or fall through */
	DISASM_KIND_JMP,	/* direct near jmp */
	DISASM_KIND_JMP_IND,	/* jmp *reg / *mem */
	DISASM_KIND_CALL,	/* direct near call */
	DISASM_KIND_CALL_IND,	/* call *reg / *mem */
	DISASM_KIND_RET,	/* near ret, ret $imm (any prefixes) */
	DISASM_KIND_JRCXZ,	/* jrcxz / jecxz */
	DISASM_KIND_LOOP,	/* loop / loope / loopne */
	DISASM_KIND_SYSCALL,	/* syscall, sysenter */
	DISASM_KIND_INT,	/* int3, int $n, int1, into */
	DISASM_KIND_FAR,	/* far jmp/call/ret, iret, sysret, sysexit */
	DISASM_KIND_HLT,	/* hlt */
	DISASM_KIND_UD,		/* ud0, ud1, ud2: always traps */
	DISASM_KIND_COUNT_
};

/* Register numbers used in struct disasm_insn.ind: the field index in
 * Linux struct user_regs_struct (offsetof(struct user_regs_struct, X) / 8),
 * so a tracer can index its register array directly; -1 means none. */
enum disasm_reg {
	DISASM_REG_NONE = -1,
	DISASM_REG_R15 = 0, DISASM_REG_R14, DISASM_REG_R13, DISASM_REG_R12,
	DISASM_REG_RBP, DISASM_REG_RBX, DISASM_REG_R11, DISASM_REG_R10,
	DISASM_REG_R9, DISASM_REG_R8, DISASM_REG_RAX, DISASM_REG_RCX,
	DISASM_REG_RDX, DISASM_REG_RSI, DISASM_REG_RDI, DISASM_REG_ORIG_RAX,
	DISASM_REG_RIP, DISASM_REG_CS, DISASM_REG_EFLAGS, DISASM_REG_RSP,
	DISASM_REG_SS, DISASM_REG_FS_BASE, DISASM_REG_GS_BASE, DISASM_REG_DS,
	DISASM_REG_ES, DISASM_REG_FS, DISASM_REG_GS
};

/* Segment override of an indirect memory operand (ind.seg_fs_gs). */
enum disasm_seg { DISASM_SEG_NONE = 0, DISASM_SEG_FS = 1, DISASM_SEG_GS = 2 };

struct disasm_insn {
	uint64_t addr;
	uint8_t len;
	uint8_t bytes[16];
	enum disasm_kind kind;
	int has_target;		/* direct jmp/call/jcc/loop/jrcxz */
	uint64_t target;
	uint16_t ret_imm;	/* ret $imm: bytes popped after the return address */
	/* Operand of an indirect jmp/call (kind *_IND, or FAR via memory).
	 * Register form: is_mem = 0, target = value of reg.
	 * Memory form: is_mem = 1, target = load64(seg base + base + index*scale + disp),
	 * where base = DISASM_REG_RIP (and rip_rel = 1) means addr + len: for that case
	 * rip_ea already holds addr + len + disp.  addr32 = 1 (0x67 prefix) means
	 * base/index are 32-bit registers and the address is truncated to 32 bits;
	 * reg_width is the width in bits of reg (64 normally). */
	struct {
		int is_mem;
		int reg, reg_width;
		int base, index, scale;
		int64_t disp;
		int rip_rel;
		uint64_t rip_ea;
		int seg_fs_gs;	/* enum disasm_seg */
		int addr32;
	} ind;
	int from_zydis;		/* 1 when capstone failed and Zydis decoded it */
	/* Any RIP-relative memory operand (not only a branch's): the offset of
	 * its 32-bit displacement in bytes (0: none); riprel_odd = 1 when the
	 * form is one a code copier cannot move (EIP-relative, no disp32). */
	uint8_t riprel_off, riprel_odd;
	char mnemonic[32];	/* "movl", "repz ret", "kmovd" */
	char operands[160];	/* "$0x0, -0x4(%rbp)"; "" when none */
};

struct disasm;

/* Returns a decoder (AT&T flavor, empty cache) or NULL with err filled. */
struct disasm *disasm_new(struct ptdb_err *err);
void disasm_free(struct disasm *d);
/* Changing flavor empties the cache, since cached text is flavor-specific. */
void disasm_set_flavor(struct disasm *d, enum disasm_flavor f);
enum disasm_flavor disasm_get_flavor(const struct disasm *d);

/* Decodes one instruction from bytes[0..n) at addr into *out.  Returns 0, or
 * -1 with err "cannot decode instruction at 0x..." (invalid or truncated). */
int disasm_insn(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		struct disasm_insn *out, struct ptdb_err *err);

/* What a code copier needs, without the text: addr, len, bytes, kind,
 * has_target/target, ret_imm, riprel_off/riprel_odd, and the bare
 * mnemonic ("xbegin"; no prefixes, operands empty, ind not filled).  Many
 * times cheaper than disasm_insn.  Returns 0, or -1 (invalid). */
int disasm_flow(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		struct disasm_insn *out);

/* Instruction length only (uses the cache, else a detail-free decode).
 * Returns 1..15, or -1 if bytes[0..n) do not start a valid instruction. */
int disasm_len(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr);

/* Like disasm_insn but served from a bounded address-keyed cache; an entry
 * is used only if its bytes equal bytes[0..len), so patched code (e.g.
 * breakpoints written by the caller) is re-decoded, not served stale. */
int disasm_cached(struct disasm *d, uint64_t addr, const uint8_t *bytes, size_t n,
		  struct disasm_insn *out, struct ptdb_err *err);
/* Drops every cache entry (e.g. after exec or unmapping code). */
void disasm_cache_clear(struct disasm *d);
/* Cache counters since disasm_new (either pointer may be NULL). */
void disasm_cache_stats(const struct disasm *d, uint64_t *hits, uint64_t *misses);

/* "rax", "r15", "rip", ... for a DISASM_REG_* number; "?" if out of range. */
const char *disasm_reg_name(int reg);

/* A memory access of an instruction (explicit operands and the hidden
 * ones: the stack of push/pop/call/ret/leave, the strings of movs/stos),
 * for software watchpoints; from Zydis, whose read/write actions are
 * exact where capstone 4's are not.
 * The address is seg base + base + index*scale + disp (base/index
 * DISASM_REG_*, rip-relative already folded into disp with base NONE);
 * access DISASM_MEM_READ and/or DISASM_MEM_WRITE. */
enum { DISASM_MEM_READ = 1, DISASM_MEM_WRITE = 2 };
struct disasm_mem {
	int base, index, scale;
	int64_t disp;
	int seg_fs_gs;		/* enum disasm_seg */
	int addr32;
	unsigned size;		/* bytes accessed */
	int access;
};
/* Fills up to max accesses of the instruction at bytes[0..n) (address
 * addr); returns their count, or -1 when capstone cannot decode it. */
int disasm_mem_access(struct disasm *d, const uint8_t *bytes, size_t n, uint64_t addr,
		      struct disasm_mem *out, int max);

#endif
