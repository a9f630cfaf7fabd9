/* tests/fuzz/fuzz_elf.c: arbitrary bytes as an executable (seeded with the
 * fixture programs) through 'file', 'b main', 'image lookup', 'image list',
 * 'disassemble' and 'source list': ELF headers, sections, symbols, DWARF
 * line tables and DIEs from a hostile file, with no process started. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	char line[4200];
	const char *path = fuzz_write("prog", data, size);

	session_init(&s);
	s.batch = 1;
	snprintf(line, sizeof(line), "file '%s'", path);
	if (fuzz_run(&s, line) == 0) {
		fuzz_run(&s, "b main");
		fuzz_run(&s, "b trace_loop.c:5");
		fuzz_run(&s, "image lookup -n main");
		fuzz_run(&s, "image lookup -a 0x401126");
		fuzz_run(&s, "image list");
		fuzz_run(&s, "breakpoint list");
		fuzz_run(&s, "disassemble -n main");
		fuzz_run(&s, "source list -n main");
	}
	session_release(&s);
	return 0;
}
