/* tests/fuzz/fuzz_decode.c: arbitrary bytes as a thread's raw Intel PT
 * buffer, decoded against a small fixed image (the trace_loop fixture at its
 * link address, a 10-byte raw code image at 0x100000 and 'jmp .' at
 * 0x200000, code that loops without packets; not 'call .': its quarter
 * million nested calls make 'dump function-calls' print tens of GB of
 * indentation) through the path
 * of a loaded bundle: 'trace load', then 'thread trace dump instructions -a'
 * and 'thread trace dump info' (which must terminate whatever the bytes). */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <sys/stat.h>

static const uint8_t code[] = { 0xb9, 0x03, 0x00, 0x00, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0x90 };
static const uint8_t loops[] = { 0xeb, 0xfe };

static void setup(void)
{
	static int done;
	char path[4200], json[8192];
	int n;

	if (done)
		return;
	done = 1;
	fuzz_write("code.bin", code, sizeof(code));
	fuzz_write("loops.bin", loops, sizeof(loops));
	snprintf(path, sizeof(path), "%s/traces", fuzz_dir());
	mkdir(path, 0700);
	n = snprintf(json, sizeof(json),
		"{\"type\": \"intel-pt\",\n"
		" \"cpuInfo\": {\"vendor\": \"GenuineIntel\", \"family\": 6, \"model\": 85, \"stepping\": 4},\n"
		" \"processes\": [{\"pid\": 1000,\n"
		"   \"threads\": [{\"tid\": 1001, \"iptTrace\": \"traces/t1.trace\"}],\n"
		"   \"modules\": [{\"systemPath\": \"%s/tests/programs/trace_loop\", \"loadAddress\": \"0x400000\"},\n"
		"               {\"systemPath\": \"/fw/code.bin\", \"file\": \"code.bin\", \"loadAddress\": \"0x100000\"},\n"
		"               {\"systemPath\": \"/fw/loops.bin\", \"file\": \"loops.bin\", \"loadAddress\": \"0x200000\"}]}]}\n",
		FUZZ_ROOT);
	fuzz_write("trace.json", json, (size_t)n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const then[] = { "thread trace dump instructions -a -e",
		"thread trace dump info -v", "thread trace dump function-calls", NULL };
	char line[4200];

	setup();
	fuzz_write("traces/t1.trace", data, size);
	/* the fixture program is read where it lies, outside the bundle */
	snprintf(line, sizeof(line), "trace load --allow-outside '%s'", fuzz_dir());
	fuzz_session(line, then);
	return 0;
}
