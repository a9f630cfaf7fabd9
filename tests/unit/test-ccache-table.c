/* tests/unit/test-ccache-table.c: which slot of a region's lookup table a
 * new entry takes (core/collectors/dbg_cache_mem.c dbg_cache_table_put).
 * The dispatcher probes two slots, the one of the target's low 16 bits
 * and the next: a target a lookup missed must not evict another such
 * target while an entry no lookup ever asked for (entered only because
 * its block was translated) holds the other slot, else two hot targets
 * whose low bits agree evict each other at every call, each lookup a
 * round trip to ptdb.  And the entries queued for a region mapped in
 * ptdb too are written through that mapping, not the process. */
#include "core/collectors/dbg_cache_int.h"
#include "tests/unit/test.h"

/* What the table's mirror (as ptdb keeps it) holds in slot s. */
static uint32_t key(const struct region *g, uint32_t s)
{
	return g->tkey ? g->tkey[s] : 0;
}

/* What it holds there for pc (dbg_cache_mem.c tkey_of: the bits above
 * the 16 that index it, and whether s is the second probe). */
static uint32_t mirror(uint64_t pc, uint32_t s)
{
	return (uint32_t)(pc >> 16) << 1 | ((pc & 0xffff) != (s & 0xffff));
}

/* Whether pc is in one of its two slots. */
static int holds(const struct region *g, uint64_t pc)
{
	uint32_t s = (uint32_t)(pc & 0xffff);

	return key(g, s) == mirror(pc, s) || key(g, s + 1) == mirror(pc, s + 1);
}

static void tear_down(struct dbg_cache *c)
{
	for (int i = 0; i < c->nreg; i++) {
		dbg_cache_zfree(c->reg[i].tkey, TKEY_BYTES);
		dbg_cache_zfree(c->reg[i].tage, TAGE_BYTES);
	}
	free(c->tq);
	free(c);
}

TEST(fill_evicts_cold_entry_first)
{
	struct dbg_cache *c = xcalloc(1, sizeof(*c));
	struct region *g = &c->reg[c->nreg++];
	uint64_t cold = 0x40b988, b = 0xb1b988, d = 0x10eb988, e = 0x20eb988;

	g->addr = 0x3000000;
	/* translated only: the first slot */
	dbg_cache_table_put(c, g, cold, 0x3102100, 0);
	CHECK(key(g, 0xb988) == mirror(cold, 0xb988));
	/* a lookup of b missed: the second */
	dbg_cache_table_put(c, g, b, 0x3102200, 1);
	CHECK(holds(g, b) && holds(g, cold));
	/* one of d: the cold entry goes, b stays */
	dbg_cache_table_put(c, g, d, 0x3102300, 1);
	CHECK(holds(g, b));
	CHECK(holds(g, d));
	CHECK(!holds(g, cold));
	/* b and d asked for again: both stay where they are */
	for (int i = 0; i < 4; i++) {
		dbg_cache_table_put(c, g, b, 0x3102200, 1);
		dbg_cache_table_put(c, g, d, 0x3102300, 1);
		CHECK(holds(g, b) && holds(g, d));
	}
	/* a third: the one filled longer ago (b) goes */
	dbg_cache_table_put(c, g, e, 0x3102400, 1);
	CHECK(holds(g, e) && holds(g, d) && !holds(g, b));
	/* an entry only translated never evicts one a lookup asked for */
	dbg_cache_table_put(c, g, 0x50b988, 0x3102500, 0);
	CHECK(holds(g, e) && holds(g, d) && !holds(g, 0x50b988));
	/* every entry queued for the inferior: its slot, -pc, the block */
	CHECK(c->ntq >= 4);
	CHECK_INT(c->tq[0].addr, g->addr + CCACHE_TABLE_OFF + 0xb988 * 16ull);
	CHECK_INT(c->tq[0].e[0], (uint64_t)0 - cold);
	CHECK_INT(c->tq[0].e[1], 0x3102100);
	tear_down(c);
}

TEST(reset_forgets_ages)
{
	struct dbg_cache *c = xcalloc(1, sizeof(*c));
	struct region *g = &c->reg[c->nreg++];

	g->addr = 0x3000000;
	dbg_cache_table_put(c, g, 0x10eb988, 0x3102300, 1);
	dbg_cache_table_reset(c);
	CHECK(!holds(g, 0x10eb988));
	CHECK(g->tage && g->tage[0xb988] == 0 && g->tage[0xb989] == 0);
	CHECK_INT(c->ntq, 0);
	tear_down(c);
}

TEST(entries_stored_through_mapping)
{
	struct dbg_cache *c = xcalloc(1, sizeof(*c));
	struct region *g = &c->reg[c->nreg++], *h = &c->reg[c->nreg++];
	uint64_t *e;

	g->addr = 0x3000000;
	h->addr = 0x5000000;	/* (not mapped here: left for the process) */
	g->map = dbg_cache_zalloc(REGION_SIZE);
	CHECK(g->map);
	dbg_cache_table_put(c, g, 0x40b988, 0x3102100, 1);
	dbg_cache_table_put(c, h, 0x40b988, 0x5102100, 1);
	dbg_cache_table_store_mapped(c);
	e = (uint64_t *)(void *)(g->map + CCACHE_TABLE_OFF + 0xb988 * 16);
	CHECK(e[0] == (uint64_t)0 - 0x40b988 && e[1] == 0x3102100);
	CHECK_INT(c->ntq, 1);
	CHECK_INT(c->tq[0].addr, h->addr + CCACHE_TABLE_OFF + 0xb988 * 16ull);
	dbg_cache_zfree(g->map, REGION_SIZE);
	tear_down(c);
}

TEST_MAIN(fill_evicts_cold_entry_first, reset_forgets_ages, entries_stored_through_mapping)
