/* core/data/fmt_cxx.h: the C++ standard library's values (libstdc++) as
 * LLDB's formatters show them — a summary ("size=3", "0x4240b0",
 * "nullptr", the pointee of a shared_ptr) and synthetic children ([0],
 * [1], ... of a vector, map, set, list, unordered_map; "pointer" of a
 * unique_ptr, "_M_ptr" of a shared_ptr/weak_ptr).  value_fmt.c prints
 * them; std::string's text stays there. */
#ifndef PTDB_CORE_FMT_CXX_H
#define PTDB_CORE_FMT_CXX_H

#include <stdint.h>
#include <stddef.h>

#include "core/data/value.h"
#include "core/symbols/sym_var.h"

#define CXX_MAX_KIDS 256

struct cxx_kid {
	char name[24];
	const struct sym_type *type;
	uint64_t addr;		/* in memory at addr, or ... */
	uint8_t inline_bytes[8];	/* ... these bytes when addr is 0 */
	uint8_t *bytes;		/* ... or these (larger; inside kids' block) */
};

struct cxx_view {
	char summary[256];	/* "" none */
	int container;		/* children listed as [i]; "{}" when empty */
	struct cxx_kid *kids;	/* heap */
	int nkids;
};

/* 1 when t (typedefs stripped) is a library type with a formatter, and
 * v filled from its bytes b (size bytes); 0 otherwise. */
int cxx_view(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
	     struct cxx_view *v);
void cxx_view_free(struct cxx_view *v);

/* The i-th element of a vector, array-like or ordered container value:
 * its type and address (p v[1]); -1 with a reason in why. */
int cxx_index(const struct value_env *env, const struct sym_type *t, const uint8_t *b, size_t size,
	      uint64_t i, const struct sym_type **et, uint64_t *addr, const char **why);
/* The same in an expression (p v[1]): typed as the class's operator[]
 * returns it, as LLDB calls it ("__gnu_cxx::__alloc_traits<std::allocator<
 * int> >::value_type"; frame variable's v[1] is the element's type). */
int cxx_index_expr(const struct value_env *env, const struct sym_type *t, const uint8_t *b,
		   size_t size, uint64_t i, const struct sym_type **et, uint64_t *addr,
		   const char **why);

#endif
