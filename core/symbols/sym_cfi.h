/* core/symbols/sym_cfi.h: internal to sym_cfi.c and sym_unwind.c — a frame
 * section's parsed CIEs and FDEs and the byte reader both use. */
#ifndef PTDB_CORE_SYM_CFI_H
#define PTDB_CORE_SYM_CFI_H

#include "core/symbols/sym_int.h"

struct sym_cie {
	size_t off;		/* section offset of the entry */
	size_t ins, ins_end;	/* initial instructions, section offsets */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;		/* return address column */
	uint8_t fde_enc, has_z, addr_size, ok;
};

struct sym_fde {
	uint64_t lo, hi;	/* link addresses */
	size_t ins, ins_end;	/* instructions, section offsets */
	size_t cie;		/* index into cfi->cie (stable after parsing) */
	size_t cie_off;
};

struct uw_rd {
	const uint8_t *p, *end;
	int bad;
};

uint64_t uw_fixed(struct uw_rd *r, int n);
uint64_t uw_uleb(struct uw_rd *r);
int64_t uw_sleb(struct uw_rd *r);
/* A pointer in encoding enc (DW_EH_PE_*), relative to c's section. */
uint64_t uw_enc(struct uw_rd *r, const struct sym_cfi *c, uint8_t enc);
/* Parses c's section of m (.eh_frame when is_eh, else .debug_frame) once:
 * c->state 1 with FDEs, -1 without. */
void uw_load(struct sym_module *m, struct sym_cfi *c, int is_eh);
/* The FDE covering link address pc, or NULL. */
const struct sym_fde *uw_find_fde(struct sym_cfi *c, uint64_t pc);

#endif
