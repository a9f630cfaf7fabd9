/* core/symbols/sym_var.h: the program's data as DWARF describes it — types
 * (sym_type.c), the variables in scope at an address and the globals of a
 * compile unit with their location expressions (sym_var.c), and the
 * evaluation of DWARF expressions (sym_expr.c, no libdwarf).
 * Types and variables are owned by the module and live until
 * sym_module_free. */
#ifndef PTDB_CORE_SYM_VAR_H
#define PTDB_CORE_SYM_VAR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "core/symbols/sym.h"

enum sym_tkind {
	SYM_T_VOID, SYM_T_BASE, SYM_T_POINTER, SYM_T_REF, SYM_T_RVREF,
	SYM_T_STRUCT, SYM_T_UNION, SYM_T_CLASS, SYM_T_ARRAY, SYM_T_ENUM,
	SYM_T_TYPEDEF, SYM_T_CONST, SYM_T_VOLATILE, SYM_T_FUNC,
	SYM_T_MEMBER_PTR,	/* C++ "int Foo::*", "void (Foo::*)(int)" */
};

struct sym_type;

/* Set while LLDB's raw output (frame variable -R) is printed: C++ type
 * names keep their inline namespaces ("std::__cxx11::basic_string<...>"),
 * as LLDB's qualified type names do; its display names leave them out. */
extern int sym_tname_raw;

struct sym_member {
	const char *name;	/* NULL: an anonymous member */
	uint64_t off;		/* byte offset */
	unsigned bit_size;	/* 0: not a bitfield */
	unsigned bit_off;	/* bits from the storage's least significant bit */
	int is_base;		/* a C++ base class */
	struct sym_type *type;
};

struct sym_enumerator {
	const char *name;
	int64_t value;
};

struct sym_type {
	enum sym_tkind kind;
	const char *name;	/* DWARF's name (NULL: anonymous) */
	uint64_t size;		/* bytes (arrays: the whole array) */
	int enc;		/* SYM_T_BASE: DW_ATE_* */
	int is_cxx;		/* from a C++ unit */
	int declaration;	/* an incomplete type */
	int by_ref;		/* C++: a destructor, a copy or move constructor
				 * or a virtual function of its own: passed and
				 * returned by invisible reference (Itanium C++
				 * ABI; its members' and bases' not included) */
	struct sym_type *target;	/* pointee, element, aliased, qualified,
					 * return type (NULL: void) */
	struct sym_member *mem;	/* members, or function parameter types */
	int nmem;
	uint64_t *dims;		/* SYM_T_ARRAY: counts (0: unknown/flexible) */
	int ndims;
	struct sym_enumerator *enums;
	int nenums;
	int unsigned_enum;
	struct sym_type *row;	/* an array of ndims > 1: the array of the other
				 * dimensions (owned) */
	struct sym_type *ptr_to;	/* a pointer to this type, made on demand
					 * (sym_type_pointer_to; owned) */
	struct sym_type *ref_to;	/* a reference to it, the same way */
	int dynamic;		/* C++: a vtable pointer or a virtual base of
				 * its own (its bases' not included) */
	struct sym_type *cls;	/* SYM_T_MEMBER_PTR: the class (its target the
				 * member's type: data or function) */
	struct sym_module *mod;	/* the module and DIE it was read from (NULL: */
	uint64_t die;		/* made up), for sym_type_method_ret and, in
				 * C++, its name as clang prints it (sym_tname.c) */
	int const_this;		/* SYM_T_FUNC made for &Foo::f: a const method */
	int restrict_q;		/* a transparent SYM_T_TYPEDEF made of C's
				 * restrict: named "T *__restrict" as clang */
	struct sym_type *made;	/* a class: the types sym_type_method_ptr made
				 * for it, a chain through made (owned) */
	/* C++: the name as clang prints it, made when first printed
	 * (lldb_name, NULL when it is name) */
	char *lldb_name[2];	/* [1]: with inline namespaces (sym_tname_raw) */
	int lldb_done[2];
	int scoped_enum;	/* an enum class (DW_AT_enum_class) */
	int anon_member;	/* an unnamed struct or union that is an
				 * unnamed member: "(anonymous union)" */
	int variadic;		/* SYM_T_FUNC: its parameters end in "..." */
};

/* One DWARF expression operation as libdwarf decodes it. */
struct sym_op {
	uint8_t atom;
	uint64_t op1, op2, op3;
	const uint8_t *block;	/* DW_OP_implicit_value/entry_value bytes */
};

struct sym_var {
	const char *name;
	struct sym_type *type;
	int is_param;
	int artificial;		/* DW_AT_artificial: a method's this */
	int global;		/* a global or static (DW_OP_addr) variable */
	/* SYM_VL_*: the location at the address asked about */
	int loc;
	struct sym_op *ops;
	int nops;
	const uint8_t *const_val;	/* SYM_VL_CONST: DW_AT_const_value bytes */
	uint64_t const_size;
	int64_t const_sval;
	unsigned decl_line, decl_col;
	const char *decl_file;	/* DW_AT_decl_file's path (the unit's file
				 * table, owned by the module), or NULL */
	/* a C++ global's scope: as clang prints it ("testing::"; inline
	 * namespaces left out, "" in a class) and as DWARF names it
	 * ("app::Counter::"); NULL or "" at the top */
	const char *scope, *scope_raw;
};

/* SYM_VL_ABSENT: no DW_AT_location at all (an inlined call's optimized
 * out variable) */
enum { SYM_VL_EXPR, SYM_VL_NONE, SYM_VL_NOT_HERE, SYM_VL_CONST, SYM_VL_ABSENT };

/* The function around runtime address pc: name (no parameters), its frame
 * base expression, and the parameters and locals in scope at pc (outer
 * blocks first, DWARF order).  inl > 0: those of the inl-th nested inlined
 * call holding pc instead (DW_TAG_inlined_subroutine; 1 the outermost),
 * the function's frame base kept.  Returns the count (>= 0) and a heap array
 * (free with sym_vars_free); -1 when no DWARF function covers pc. */
struct sym_func_scope {
	const char *func;		/* DW_AT_name */
	struct sym_op *frame_base;	/* NULL: none */
	int nframe_base;
	struct sym_type *ret;		/* the return type (NULL: void) */
	int is_cxx;
	int variadic;			/* its parameters end in "..." */
};
int sym_scope_vars(struct sym_module *m, uint64_t pc, int inl, struct sym_func_scope *sc,
		   struct sym_var **out, struct ptdb_err *err);
/* The globals and file statics of the compile unit holding runtime pc
 * (pc 0: of every unit), DWARF order; *cu_name the unit's name. */
int sym_global_vars(struct sym_module *m, uint64_t pc, const char **cu_name,
		    struct sym_var **out, struct ptdb_err *err);
void sym_vars_free(struct sym_var *v, int n);
/* DW_OP_entry_value's answer: in the caller, the call returning to
 * runtime address ret_pc records (DW_TAG_call_site_parameter) how the
 * value passed in DWARF register reg was computed.  Returns the count of
 * ops of that DW_AT_call_value expression (heap array in *ops), -1 when
 * the call site or the parameter is not described. */
int sym_call_site_value(struct sym_module *m, uint64_t ret_pc, unsigned reg,
			struct sym_op **ops, struct ptdb_err *err);

/* C type name as LLDB prints it: "int", "node *", "const char *",
 * "point[2]", "int (*)(int, int)". */
char *sym_type_name(const struct sym_type *t, char *buf, size_t n);
/* The struct, union, class, enum, typedef or base type called name in
 * the module's DWARF (a definition, not a declaration), or NULL. */
struct sym_type *sym_type_named(struct sym_module *m, const char *name);
/* A pointer to t ("&x" in a variable path), made once and owned by t. */
const struct sym_type *sym_type_pointer_to(struct sym_type *t);
/* The return type of the member function name as class cls declares it
 * in *ret, NULL for void (of the overload for a const object when
 * is_const, else for a non-const one, else the first so named): 0, or -1
 * when cls has no DWARF declaration of it.  A call of a library's method
 * without DWARF of its own ("s.size()") is typed by it, as LLDB types it. */
int sym_type_method_ret(const struct sym_type *cls, const char *name, int is_const,
			struct sym_type **ret);
/* &Class::name for a member function of cls: its pointer-to-member type
 * ("void (Foo::*)(int)", "int (Foo::*)() const"; owned by cls) in *type
 * and its vtable slot in *vslot (-1: not virtual), as the class declares
 * it.  0, or -1 when cls declares no such function. */
int sym_type_method_ptr(struct sym_type *cls, const char *name, const struct sym_type **type,
			int *vslot);
/* Whether t is const-qualified (through typedefs). */
int sym_type_is_const(const struct sym_type *t);
/* A reference to t (a dynamic type's), made once and owned by t. */
const struct sym_type *sym_type_ref_to(struct sym_type *t);
/* Typedefs and cv-qualifiers stripped. */
const struct sym_type *sym_type_strip(const struct sym_type *t);
/* What kind of scalar t is (typedefs and qualifiers stripped): 's' a
 * signed integer, 'u' an unsigned one (a pointer, an enum, a bool too),
 * 'f' a floating-point number, 0 none of these (a struct, an array). */
int sym_type_scalar_class(const struct sym_type *t);

/* ---- sym_expr.c: evaluating a location ---- */

/* What the expression needs from the frame.  reg returns 0 with *val, or
 * -1 when the register is not available in this frame. */
struct sym_expr_env {
	int (*reg)(void *ctx, unsigned dwreg, uint64_t *val);
	int (*mem)(void *ctx, uint64_t addr, void *buf, size_t n);
	void *ctx;
	int have_cfa;
	uint64_t cfa;
	const struct sym_op *frame_base;
	int nframe_base;
	uint64_t bias;		/* added to DW_OP_addr */
	int have_tls;
	uint64_t tls_base;	/* the module's TLS block */
	/* DW_OP_entry_value(DW_OP_regN): the register's value when the
	 * function was entered (NULL or -1: not known) */
	int (*entry_value)(void *ctx, unsigned dwreg, uint64_t *val);
};

enum sym_expr_err {
	SYM_EXPR_OK = 0,
	SYM_EXPR_NO_REG = -1,	/* a register not available; *bad_reg says which */
	SYM_EXPR_MEM = -2,	/* memory could not be read */
	SYM_EXPR_BAD = -3,	/* an operation not understood or malformed */
	SYM_EXPR_EMPTY = -4,	/* an empty piece: optimized out */
};

/* The value's bytes (size of them, zero-filled beyond what the location
 * gives) from ops.  *addr and *in_mem tell where a value living in memory
 * is (for -L and for taking addresses); *in_reg the DWARF register of a
 * value held whole in one.  Returns SYM_EXPR_*. */
struct sym_expr_res {
	int in_mem;
	uint64_t addr;
	int in_reg;		/* -1: not in a register */
	unsigned bad_reg;	/* SYM_EXPR_NO_REG */
};
int sym_expr_eval(const struct sym_op *ops, int nops,
		  const struct sym_expr_env *env, void *buf, size_t size,
		  struct sym_expr_res *res);
/* "rdx" for DWARF register 1; NULL when unknown. */
const char *sym_dwreg_name(unsigned dwreg);

#endif
