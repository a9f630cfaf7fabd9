/* tests/fuzz/fuzz_bundle.c: arbitrary bytes as a bundle's trace.json,
 * loaded with 'trace load' from a directory that also holds the files the
 * seed descriptions name (a raw code image, a hand-made Intel PT stream, a
 * copy of the trace_loop fixture); when it loads, the thread list, image
 * list and the trace figures are shown. */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* mov $3,%ecx; dec %ecx; jnz -4; nop (as tests/bundle_test.py) */
static const uint8_t code[] = { 0xb9, 0x03, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0x90 };
static const uint8_t stream[] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x99, 0x01, 0x02, 0x23, 0x99, 0x01,
	0x71, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,	/* TIP.PGE 0x100000 */
	0x1c, 0x3d, 0x0a, 0x00, 0x01,			/* TNT; FUP; TIP.PGD */
};

static void setup(void)
{
	static int done;
	char path[4200], *buf;
	FILE *f;
	long n;

	if (done)
		return;
	done = 1;
	fuzz_write("code.bin", code, sizeof(code));
	snprintf(path, sizeof(path), "%s/traces", fuzz_dir());
	mkdir(path, 0700);
	fuzz_write("traces/t1.trace", stream, sizeof(stream));
	f = fopen(FUZZ_ROOT "/tests/programs/trace_loop", "rb");
	if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0) {
		perror(FUZZ_ROOT "/tests/programs/trace_loop");
		exit(1);
	}
	rewind(f);
	buf = malloc((size_t)n);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(1);
	fclose(f);
	fuzz_write("prog", buf, (size_t)n);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const then[] = { "thread list", "image list", "thread trace dump info all",
		"thread trace dump instructions all -c 50", "target list", "target select 1",
		"thread trace dump instructions all -c 50", NULL };
	char line[4200];

	setup();
	fuzz_write("trace.json", data, size);
	snprintf(line, sizeof(line), "trace load -v '%s'", fuzz_dir());
	fuzz_session(line, then);
	return 0;
}
