/* tests/unit/test-value.c: the DWARF expression machine (frame base,
 * registers, pieces, computed and implicit values, entry values, and its
 * error paths), LLDB's float digits, and DWARF types and type names read
 * from tests/programs/vars. */
#include <dwarf.h>
#include <stdint.h>
#include <string.h>

#include "core/symbols/sym_var.h"
#include "core/data/value.h"
#include "tests/unit/test.h"

static uint8_t memory[64];	/* at address 0x1000 */

static int t_reg(void *ctx, unsigned r, uint64_t *v)
{
	(void)ctx;
	if (r == 1)	/* rdx is not available */
		return -1;
	*v = 0x1000 + r;	/* rbp (6) = 0x1006 ... */
	return 0;
}

static int t_mem(void *ctx, uint64_t a, void *buf, size_t n)
{
	(void)ctx;
	if (a < 0x1000 || a + n > 0x1000 + sizeof(memory))
		return -1;
	memcpy(buf, memory + (a - 0x1000), n);
	return 0;
}

static int t_entry(void *ctx, unsigned r, uint64_t *v)
{
	(void)ctx;
	if (r != 5)
		return -1;
	*v = 77;
	return 0;
}

static struct sym_expr_env env(void)
{
	struct sym_expr_env e;

	memset(&e, 0, sizeof(e));
	e.reg = t_reg;
	e.mem = t_mem;
	e.have_cfa = 1;
	e.cfa = 0x1010;
	e.bias = 0x100;
	return e;
}

TEST(expr_fbreg_cfa)
{
	struct sym_op fb[] = { { DW_OP_call_frame_cfa, 0, 0, 0, NULL } };
	struct sym_op ops[] = { { DW_OP_fbreg, (uint64_t)-8, 0, 0, NULL } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	int32_t v = 0;

	memset(memory, 0, sizeof(memory));
	memory[8] = 42;	/* 0x1010 - 8 */
	e.frame_base = fb;
	e.nframe_base = 1;
	CHECK_INT(sym_expr_eval(ops, 1, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 42);
	CHECK(res.in_mem);
	CHECK_INT(res.addr, 0x1008);
}

TEST(expr_reg_and_breg)
{
	struct sym_op reg[] = { { DW_OP_reg0 + 6, 0, 0, 0, NULL } };
	struct sym_op breg[] = { { DW_OP_breg0 + 6, 2, 0, 0, NULL } };
	struct sym_op bad[] = { { DW_OP_reg1, 0, 0, 0, NULL } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	uint64_t v = 0;

	CHECK_INT(sym_expr_eval(reg, 1, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 0x1006);
	CHECK_INT(res.in_reg, 6);
	memset(memory, 0, sizeof(memory));
	memory[8] = 7;	/* rbp + 2 = 0x1008 */
	CHECK_INT(sym_expr_eval(breg, 1, &e, &v, 1, &res), SYM_EXPR_OK);
	CHECK_INT(v & 0xff, 7);
	CHECK_INT(sym_expr_eval(bad, 1, &e, &v, sizeof(v), &res), SYM_EXPR_NO_REG);
	CHECK_INT(res.bad_reg, 1);
	CHECK_STR(sym_dwreg_name(res.bad_reg), "rdx");
}

TEST(expr_addr_bias_and_values)
{
	struct sym_op addr[] = { { DW_OP_addr, 0xf00, 0, 0, NULL } };
	struct sym_op val[] = { { DW_OP_lit0 + 5, 0, 0, 0, NULL }, { DW_OP_lit0 + 3, 0, 0, 0, NULL },
				{ DW_OP_mul, 0, 0, 0, NULL }, { DW_OP_stack_value, 0, 0, 0, NULL } };
	static const uint8_t blk[4] = { 1, 2, 3, 4 };
	struct sym_op imp[] = { { DW_OP_implicit_value, 4, 0, 0, blk } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	uint32_t v = 0;

	memset(memory, 0, sizeof(memory));
	memory[0] = 9;	/* 0xf00 + bias 0x100 = 0x1000 */
	CHECK_INT(sym_expr_eval(addr, 1, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 9);
	CHECK_INT(sym_expr_eval(val, 4, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 15);
	CHECK(!res.in_mem);
	CHECK_INT(sym_expr_eval(imp, 1, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 0x04030201);
}

TEST(expr_pieces)
{
	/* low 4 bytes in rax (0x1000), high 4 optimized out, then whole */
	struct sym_op ops[] = { { DW_OP_reg0, 0, 0, 0, NULL }, { DW_OP_piece, 4, 0, 0, NULL },
				{ DW_OP_lit0 + 1, 0, 0, 0, NULL }, { DW_OP_stack_value, 0, 0, 0, NULL },
				{ DW_OP_piece, 4, 0, 0, NULL } };
	struct sym_op gap[] = { { DW_OP_reg0, 0, 0, 0, NULL }, { DW_OP_piece, 4, 0, 0, NULL },
				{ DW_OP_piece, 4, 0, 0, NULL } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	uint32_t v[2] = { 0, 0 };

	CHECK_INT(sym_expr_eval(ops, 5, &e, v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v[0], 0x1000);
	CHECK_INT(v[1], 1);
	CHECK_INT(sym_expr_eval(gap, 3, &e, v, sizeof(v), &res), SYM_EXPR_EMPTY);
}

TEST(expr_entry_value)
{
	static const uint8_t rdi[1] = { DW_OP_reg5 }, rsi[1] = { DW_OP_reg4 };
	struct sym_op ops[] = { { DW_OP_entry_value, 1, 0, 0, rdi }, { DW_OP_stack_value, 0, 0, 0, NULL } };
	struct sym_op other[] = { { DW_OP_entry_value, 1, 0, 0, rsi }, { DW_OP_stack_value, 0, 0, 0, NULL } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	uint64_t v = 0;

	CHECK_INT(sym_expr_eval(ops, 2, &e, &v, sizeof(v), &res), SYM_EXPR_EMPTY);	/* no caller */
	e.entry_value = t_entry;
	CHECK_INT(sym_expr_eval(ops, 2, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
	CHECK_INT(v, 77);
	CHECK_INT(sym_expr_eval(other, 2, &e, &v, sizeof(v), &res), SYM_EXPR_EMPTY);
}

TEST(expr_errors)
{
	struct sym_op unread[] = { { DW_OP_addr, 0, 0, 0, NULL } };
	struct sym_op underflow[] = { { DW_OP_plus, 0, 0, 0, NULL } };
	struct sym_op div0[] = { { DW_OP_lit0 + 1, 0, 0, 0, NULL }, { DW_OP_lit0, 0, 0, 0, NULL },
				 { DW_OP_div, 0, 0, 0, NULL } };
	struct sym_op nofb[] = { { DW_OP_fbreg, 0, 0, 0, NULL } };
	struct sym_expr_env e = env();
	struct sym_expr_res res;
	uint64_t v;

	CHECK_INT(sym_expr_eval(unread, 1, &e, &v, sizeof(v), &res), SYM_EXPR_MEM);
	CHECK_INT(sym_expr_eval(underflow, 1, &e, &v, sizeof(v), &res), SYM_EXPR_BAD);
	CHECK_INT(sym_expr_eval(div0, 3, &e, &v, sizeof(v), &res), SYM_EXPR_BAD);
	CHECK_INT(sym_expr_eval(nofb, 1, &e, &v, sizeof(v), &res), SYM_EXPR_BAD);
	{	/* INT64_MIN / -1 from a hostile file: no trap */
		struct sym_op ovf[] = { { DW_OP_const8s, (uint64_t)INT64_MIN, 0, 0, NULL },
					{ DW_OP_consts, (uint64_t)-1, 0, 0, NULL },
					{ DW_OP_div, 0, 0, 0, NULL }, { DW_OP_stack_value, 0, 0, 0, NULL } };

		CHECK_INT(sym_expr_eval(ovf, 4, &e, &v, sizeof(v), &res), SYM_EXPR_OK);
		CHECK(v == (uint64_t)INT64_MIN);
	}
	CHECK_INT(sym_expr_eval(NULL, 0, &e, &v, sizeof(v), &res), SYM_EXPR_EMPTY);
}

TEST(float_digits)
{
	char b[64];

	value_float_str(1.1, 53, b, sizeof(b));
	CHECK_STR(b, "1.1000000000000001");
	value_float_str(10 / 3.0, 53, b, sizeof(b));
	CHECK_STR(b, "3.3333333333333335");
	value_float_str(1e7, 53, b, sizeof(b));
	CHECK_STR(b, "1.0E+7");
	value_float_str(1000000, 53, b, sizeof(b));
	CHECK_STR(b, "1000000");
	value_float_str(2.5, 24, b, sizeof(b));
	CHECK_STR(b, "2.5");
	value_float_str((float)9.10844002e-44, 24, b, sizeof(b));
	CHECK_STR(b, "9.10844002E-44");
	value_float_str(0.00001, 53, b, sizeof(b));	/* lldb-16 prints these */
	CHECK_STR(b, "0.000010000000000000001");
	value_float_str(0.0000001, 53, b, sizeof(b));
	CHECK_STR(b, "9.9999999999999995E-8");
	value_float_str(12345678.0, 53, b, sizeof(b));
	CHECK_STR(b, "12345678");
	value_float_str(123.456f, 24, b, sizeof(b));
	CHECK_STR(b, "123.456001");
	value_float_str(0.001, 53, b, sizeof(b));
	CHECK_STR(b, "0.001");
	value_float_str(-0.0, 53, b, sizeof(b));
	CHECK_STR(b, "-0");
}

TEST(types_and_names)
{
	struct ptdb_err err;
	struct sym_module *m = sym_module_open("tests/programs/vars", &err);
	struct sym_var *g;
	const char *cu;
	char name[256];
	int n, seen = 0;

	CHECK(m);
	n = sym_global_vars(m, 0, &cu, &g, &err);
	CHECK(n >= 4);
	for (int i = 0; i < n; i++) {
		sym_type_name(g[i].type, name, sizeof(name));
		if (!strcmp(g[i].name, "greeting"))
			seen += !strcmp(name, "const char *");
		if (!strcmp(g[i].name, "total"))
			seen += !strcmp(name, "long");
		if (!strcmp(g[i].name, "origin"))
			seen += !strcmp(name, "point") && g[i].type->nmem == 2 &&
				g[i].type->mem[1].off == 4;
	}
	sym_vars_free(g, n);
	CHECK_INT(seen, 3);
	{
		struct sym_type *rec = sym_type_named(m, "record");
		const struct sym_type *s = sym_type_strip(rec);

		CHECK(rec && s && s->kind == SYM_T_STRUCT);
		for (int i = 0; i < s->nmem; i++) {
			sym_type_name(s->mem[i].type, name, sizeof(name));
			if (!strcmp(s->mem[i].name, "grid"))
				CHECK_STR(name, "int[2][3]");
			if (!strcmp(s->mem[i].name, "op"))
				CHECK_STR(name, "int (*)(int, int)");
			if (!strcmp(s->mem[i].name, "mode"))
				CHECK_INT(s->mem[i].bit_size, 5);
		}
		CHECK(!sym_type_named(m, "nosuch_type"));
	}
	sym_module_free(m);
}

static const struct sym_member *member(const struct sym_type *s, const char *name)
{
	for (int i = 0; i < s->nmem; i++)
		if (s->mem[i].name && !strcmp(s->mem[i].name, name))
			return &s->mem[i];
	return NULL;
}

/* A value's children as data (the DAP front end's variables tree): names,
 * members, rows of a two-dimensional array, bitfields. */
TEST(value_children)
{
	struct ptdb_err err;
	struct sym_module *m = sym_module_open("tests/programs/vars", &err);
	const struct sym_type *s;
	struct value v = { 0 }, c, row, cell;
	char name[64], text[256];
	uint8_t bytes[256] = { 0 };
	int k;

	CHECK(m);
	s = sym_type_strip(sym_type_named(m, "record"));
	CHECK(s && s->size <= sizeof(bytes));
	bytes[member(s, "pts")->off + 12] = 40;			/* pts[1].y */
	bytes[member(s, "grid")->off + (1 * 3 + 2) * 4] = 9;	/* grid[1][2] */
	bytes[member(s, "flags")->off] = 5 | 17 << 3;		/* flags : 3, mode : 5 */
	v.type = s;
	v.bytes = bytes;
	v.size = (size_t)s->size;
	v.in_mem = 1;
	v.addr = 0x1000;
	v.in_reg = -1;
	CHECK_INT(value_nchildren(&v), s->nmem);
	CHECK_INT(value_child(NULL, &v, s->nmem, name, sizeof(name), &c), -1);
	for (int i = 0; i < s->nmem; i++) {
		CHECK_INT(value_child(NULL, &v, i, name, sizeof(name), &c), 0);
		if (!strcmp(name, "mode")) {
			value_brief(NULL, &c, text, sizeof(text));
			CHECK_STR(text, "17");
		} else if (!strcmp(name, "pts")) {
			CHECK_INT(value_nchildren(&c), 2);
			CHECK_INT(value_child(NULL, &c, 1, name, sizeof(name), &row), 0);
			CHECK_STR(name, "[1]");
			CHECK_INT(c.addr, 0x1000 + member(s, "pts")->off);
			CHECK_INT(value_child(NULL, &row, 1, name, sizeof(name), &cell), 0);
			CHECK_STR(name, "y");
			value_brief(NULL, &cell, text, sizeof(text));
			CHECK_STR(text, "40");
			value_release(&cell);
			value_release(&row);
		} else if (!strcmp(name, "grid")) {
			k = value_nchildren(&c);
			CHECK_INT(k, 2);
			CHECK_INT(value_child(NULL, &c, 1, name, sizeof(name), &row), 0);
			CHECK_INT(value_nchildren(&row), 3);
			CHECK_INT(value_child(NULL, &row, 2, name, sizeof(name), &cell), 0);
			CHECK_STR(name, "[2]");
			value_brief(NULL, &cell, text, sizeof(text));
			CHECK_STR(text, "9");
			value_release(&cell);
			value_release(&row);
		}
		value_release(&c);
	}
	sym_module_free(m);
}

/* Pointers to members (DW_TAG_ptr_to_member_type, tests/programs/member_ptr):
 * their class, their size (the Itanium C++ ABI's), their names and their
 * values (bytes) as lldb-16 prints them. */
TEST(member_pointers)
{
	struct ptdb_err err;
	struct sym_module *m = sym_module_open("tests/programs/member_ptr", &err);
	const struct sym_type *s, *pm, *pmf;
	struct value v = { 0 };
	uint8_t bytes[64] = { 0 };
	char name[256], text[512];

	CHECK(m);
	s = sym_type_strip(sym_type_named(m, "Holder"));
	CHECK(s && s->nmem == 3 && s->size <= sizeof(bytes));
	pm = s->mem[0].type;
	pmf = s->mem[1].type;
	CHECK(pm->kind == SYM_T_MEMBER_PTR && pmf->kind == SYM_T_MEMBER_PTR);
	CHECK(pm->cls && pm->cls->name && !strcmp(pm->cls->name, "Foo"));
	CHECK_INT(pm->size, 8);
	CHECK_INT(pmf->size, 16);
	CHECK_INT(s->mem[1].off, 8);
	CHECK_STR(sym_type_name(pm, name, sizeof(name)), "int Foo::*");
	CHECK_STR(sym_type_name(pmf, name, sizeof(name)), "void (Foo::*)(int)");
	bytes[0] = 4;
	bytes[8] = 0x14;
	bytes[9] = 0x12;
	bytes[24] = 3;
	v.type = s;
	v.bytes = bytes;
	v.size = (size_t)s->size;
	v.in_reg = -1;
	value_brief(NULL, &v, text, sizeof(text));
	CHECK_STR(text, "(pm = 04 00 00 00 00 00 00 00, pmf = 14 12 00 00 00 00 00 00 00 00 00 00 00 "
		  "00 00 00, n = 3)");
	sym_module_free(m);
}

/* A char array's text as lldb-16's string summaries print it, read as
 * UTF-8: control characters and DEL as \U%08x, valid sequences as they
 * are, a C1 control as \U, bytes that start no valid sequence (a
 * surrogate's encoding among them) as \x; ptdb printed every byte outside
 * ASCII's printable range as \x ("\x01", "\xc3\xa9"). */
TEST(string_summary_utf8)
{
	static const char text_in[] = "a\x01" "b\x7f" "c\xc3\xa9" "d\xe9\xff" "e\x1b\n"
				      "f\xe2\x82\xac" "g\xc2\x80" "h\xed\xa0\x80" "i\xf0\x9f\x98\x80";
	struct sym_type ch = { 0 }, arr = { 0 };
	uint64_t dims[1] = { sizeof(text_in) };
	struct value v = { 0 };
	char text[256];

	ch.kind = SYM_T_BASE;
	ch.name = "char";
	ch.size = 1;
	ch.enc = DW_ATE_signed_char;
	arr.kind = SYM_T_ARRAY;
	arr.target = &ch;
	arr.dims = dims;
	arr.ndims = 1;
	arr.size = sizeof(text_in);
	v.type = &arr;
	v.bytes = (uint8_t *)text_in;
	v.size = sizeof(text_in);
	v.in_reg = -1;
	value_brief(NULL, &v, text, sizeof(text));
	CHECK_STR(text, "\"a\\U00000001b\\U0000007fc\xc3\xa9" "d\\xe9\\xffe\\U0000001b\\nf\xe2\x82\xac"
		  "g\\U00000080h\\xed\\xa0\\x80i\xf0\x9f\x98\x80\"");
}

TEST_MAIN(expr_fbreg_cfa, expr_reg_and_breg, expr_addr_bias_and_values, expr_pieces,
	  expr_entry_value, expr_errors, float_digits, types_and_names, value_children,
	  member_pointers, string_summary_utf8)
