/* core/session/size.h: parsing sizes with unit suffixes ("4096", "4KB", "16KiB", "1MB"). */
#ifndef PTDB_CORE_SIZE_H
#define PTDB_CORE_SIZE_H

#include <stdint.h>
#include "base/err.h"

/* Parses s into *out bytes.  A bare number is multiplied by bare_unit (1 for
 * bytes, 1024 for KiB).  Suffixes B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB
 * (case-insensitive, all powers of 1024, as LLDB reads them).  Rejects
 * negatives, garbage and overflow with a message naming the text. */
int size_parse(const char *s, uint64_t bare_unit, uint64_t *out, struct ptdb_err *err);

/* Parses a non-negative decimal (or 0x hex) integer that fits in uint64_t. */
int uint_parse(const char *s, uint64_t *out, struct ptdb_err *err);

/* Formats bytes as LLDB does in summaries: "4 KiB", "1.50 MiB", "12 bytes". */
char *size_format(uint64_t bytes, char *buf, size_t n);

/* The memory this machine has available for new work: /proc/meminfo's
 * MemAvailable (PTDB_MEM_AVAILABLE, a size, stands in for it in tests).
 * -1 if unknown. */
int mem_available(uint64_t *bytes);

#endif
