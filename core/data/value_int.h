/* core/data/value_int.h: shared by core/data/value_*.c (not for use
 * outside core/data/). */
#ifndef PTDB_CORE_DATA_VALUE_INT_H
#define PTDB_CORE_DATA_VALUE_INT_H

#include <stddef.h>
#include <stdint.h>

struct sym_type;
struct sym_member;

/* A member named name of t or of its base classes (libstdc++ keeps a
 * vector's pointers two bases down); its offset from t into *off.  depth:
 * 0 at the first call. */
const struct sym_member *value_member_deep(const struct sym_type *t, const char *name,
					   uint64_t *off, int depth);

/* libstdc++'s std::vector (not of bool) in b (size bytes): its element
 * count into *count; 0, or -1 when t is none. */
int value_std_vector_size(const struct sym_type *t, const uint8_t *b, size_t size,
			  uint64_t *count);

#endif
