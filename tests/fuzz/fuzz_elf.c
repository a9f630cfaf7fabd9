/* tests/fuzz/fuzz_elf.c: arbitrary bytes as an executable (seeded with the
 * fixture programs) through 'file', 'b main', 'image lookup', 'image list',
 * 'disassemble' and 'source list': ELF headers, sections, symbols, DWARF
 * line tables and DIEs from a hostile file, with no process started. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const then[] = { "b main", "b trace_loop.c:5", "image lookup -n main",
		"image lookup -a 0x401126", "image list", "breakpoint list", "disassemble -n main",
		"source list -n main", NULL };
	char line[4200];

	snprintf(line, sizeof(line), "file '%s'", fuzz_write("prog", data, size));
	fuzz_session(line, then);
	return 0;
}
