/* tests/unit/test-core.c: size parsing and formatting, settings, errors. */
#include "tests/unit/test.h"
#include "core/session/size.h"
#include "core/session/settings.h"
#include "trace/tsc.h"

#include <errno.h>
#include <stdlib.h>

TEST(size_units)
{
	uint64_t v;
	struct ptdb_err e;

	CHECK_INT(size_parse("4096", 1, &v, &e), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(size_parse("4", 1024, &v, &e), 0);	/* bare KiB */
	CHECK_INT(v, 4096);
	CHECK_INT(size_parse("4KB", 1, &v, &e), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(size_parse("16KiB", 1, &v, &e), 0);
	CHECK_INT(v, 16384);
	CHECK_INT(size_parse("1MB", 1, &v, &e), 0);
	CHECK_INT(v, 1048576);
	CHECK_INT(size_parse("2gib", 1, &v, &e), 0);
	CHECK_INT(v, 2147483648LL);
	CHECK_INT(size_parse("7b", 1024, &v, &e), 0);
	CHECK_INT(v, 7);
}

TEST(size_errors)
{
	uint64_t v;
	struct ptdb_err e;

	CHECK_INT(size_parse("-1", 1, &v, &e), -1);
	CHECK_STR(e.msg, "invalid size: \"-1\"");
	CHECK_INT(size_parse("12XB", 1, &v, &e), -1);
	CHECK(strstr(e.msg, "invalid size: \"12XB\"") == e.msg);
	CHECK_INT(size_parse("99999999999TB", 1, &v, &e), -1);
	CHECK_STR(e.msg, "size too large: \"99999999999TB\"");
	CHECK_INT(size_parse("99999999999999999999999", 1, &v, &e), -1);
	CHECK_INT(size_parse("", 1, &v, &e), -1);
	CHECK_INT(size_parse(" 4", 1, &v, &e), -1);
}

TEST(uint_values)
{
	uint64_t v;
	struct ptdb_err e;

	CHECK_INT(uint_parse("0x10", &v, &e), 0);
	CHECK_INT(v, 16);
	CHECK_INT(uint_parse("20", &v, &e), 0);
	CHECK_INT(v, 20);
	CHECK_INT(uint_parse("-3", &v, &e), -1);
	CHECK_STR(e.msg, "invalid number: \"-3\"");
	CHECK_INT(uint_parse("3x", &v, &e), -1);
}

TEST(size_format_text)
{
	char b[32];

	CHECK_STR(size_format(12, b, sizeof(b)), "12 bytes");
	CHECK_STR(size_format(4096, b, sizeof(b)), "4 KiB");
	CHECK_STR(size_format(1536 * 1024, b, sizeof(b)), "1.50 MiB");
}

TEST(settings_types)
{
	struct settings s;
	struct ptdb_err e;

	settings_init(&s);
	CHECK_STR(settings_get(&s, SETTING_DISASSEMBLY_FLAVOR), "att");
	CHECK_INT(settings_set(&s, "disassembly-flavor", "intel", &e), 0);
	CHECK_STR(settings_get(&s, SETTING_DISASSEMBLY_FLAVOR), "intel");
	CHECK_INT(settings_set(&s, "disassembly-flavor", "bogus", &e), -1);
	CHECK_STR(e.msg, "invalid value 'bogus' for 'disassembly-flavor': valid values are att|intel");
	CHECK_INT(settings_set(&s, "stop-on-error", "1", &e), 0);
	CHECK(settings_get_bool(&s, SETTING_STOP_ON_ERROR));
	CHECK_INT(settings_set(&s, "stop-on-error", "maybe", &e), -1);
	CHECK_INT(settings_set(&s, "no-such", "x", &e), -1);
	CHECK_STR(e.msg, "invalid setting: 'no-such' (see 'settings show')");
	settings_release(&s);
}

TEST(settings_show_text)
{
	struct settings s;
	struct ptdb_err e;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	settings_init(&s);
	CHECK_INT(settings_show(&s, "stop-on-error", f, &e), 0);
	CHECK_INT(settings_show(&s, "nope", f, &e), -1);
	fclose(f);
	CHECK_STR(buf, "stop-on-error (boolean) = false\n");
	free(buf);
	settings_release(&s);
}

TEST(err_errno)
{
	struct ptdb_err e;

	errno = ENOENT;
	CHECK_INT(ptdb_err_errno(&e, "cannot open '%s'", "x"), -1);
	CHECK_STR(e.msg, "cannot open 'x': No such file or directory");
	CHECK_INT(ptdb_err_set(NULL, "no buffer"), -1);
	CHECK_INT(e.code, PTDB_E_GENERIC);
}

TEST(err_codes)
{
	struct ptdb_err e;

	ptdb_err_clear(&e);
	CHECK_INT(e.code, PTDB_E_OK);
	CHECK_STR(e.msg, "");
	CHECK_INT(ptdb_err_code(&e, PTDB_E_LIMIT, "limit %d", 4), -1);
	CHECK_INT(e.code, PTDB_E_LIMIT);
	CHECK_STR(e.msg, "limit 4");
	CHECK_INT(ptdb_err_set(&e, "plain"), -1);
	CHECK_INT(e.code, PTDB_E_GENERIC);
	CHECK_INT(ptdb_err_code(NULL, PTDB_E_CANCELLED, "x"), -1);
}


TEST(tsc_conversion)
{
	/* 1 GHz TSC: mult = 2^shift; 3 GHz: mult/2^shift = 1/3 */
	struct trace_tsc_conv c = { .mult = 1u << 10, .shift = 10, .zero = 1000, .valid = 1 };

	CHECK_INT(trace_tsc_to_ns(&c, 0), 1000);
	CHECK_INT(trace_tsc_to_ns(&c, 12345), 13345);
	c.mult = 1398101;	/* round(2^22 / 3) */
	c.shift = 22;
	c.zero = 0;
	CHECK_INT(trace_tsc_to_ns(&c, 3000000000ULL), 999999761);
	/* no overflow for the largest TSC: the split keeps products in range */
	c.mult = 0xffffffffu;
	c.shift = 31;
	CHECK(trace_tsc_to_ns(&c, UINT64_MAX) > (UINT64_MAX >> 1));
}

TEST_MAIN(err_codes, size_units, size_errors, uint_values, size_format_text, settings_types,
	settings_show_text, err_errno, tsc_conversion)
