/* tests/unit/test-bundle.c: core/tracing/bundle.c's build-id text, which must
 * take LLDB's dashed form (dashes after bytes 4, 6, 8, 10 and 16 of a
 * 20-byte GNU build id), plain hex and either case, as the same bytes, and
 * refuse anything else. */
#include "tests/unit/test.h"
#include "core/tracing/bundle.h"

static const uint8_t id[20] = { 0x07, 0x99, 0xc2, 0x1a, 0x38, 0xd3, 0x3a, 0xd1, 0x05, 0x6a,
				0x44, 0x71, 0x02, 0xf6, 0x9b, 0x0e, 0x16, 0xad, 0x58, 0xc7 };

TEST(uuid_forms_are_bytes)
{
	const char *forms[] = { "0799C21A-38D3-3AD1-056A-447102F69B0E-16AD58C7",
				"0799c21a-38d3-3ad1-056a-447102f69b0e-16ad58c7",
				"0799c21a38d33ad1056a447102f69b0e16ad58c7",
				"0799C21A38D33AD1056A447102F69B0E16AD58C7",
				"0799c21a-38D33AD1056a447102F69B0E16ad58c7" };
	uint8_t out[64];

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		CHECK_INT(bundle_uuid_bytes(forms[i], out, sizeof(out)), 20);
		CHECK(!memcmp(out, id, 20));
		CHECK(bundle_uuid_equal(forms[i], forms[0]));
	}
	/* a 4-byte id (LLDB's CRC form) is not a prefix match */
	CHECK_INT(bundle_uuid_bytes("0799C21A", out, sizeof(out)), 4);
	CHECK(!bundle_uuid_equal("0799C21A", forms[0]));
	CHECK(!bundle_uuid_equal("0799C21A-38D3-3AD1-056A-447102F69B0E-16AD58C6", forms[0]));
}

TEST(uuid_malformed_is_refused)
{
	const char *bad[] = { "", "-", "0799C21A-", "-0799C21A", "0799--C21A", "0799C21", "0799C21G",
			      "0x0799C21A", "0799 C21A", "07-9" };
	uint8_t out[64], small[2];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (bundle_uuid_bytes(bad[i], out, sizeof(out)) != -1) {
			printf("#   accepted \"%s\"\n", bad[i]);
			CHECK(0);
		}
		CHECK(!bundle_uuid_equal(bad[i], bad[i]));
	}
	CHECK_INT(bundle_uuid_bytes("0799C21A", small, sizeof(small)), -1);	/* no room */
}

TEST_MAIN(uuid_forms_are_bytes, uuid_malformed_is_refused)
