/* cmd/dap-mem.c: the DAP requests over code and memory — disassemble
 * (instruction boundaries found from the function's start, so that a
 * window before an address is exact), readMemory and writeMemory (base64),
 * modules, loadedSources and source. */
#include "cmd/dap.h"
#include "disasm/disasm.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) (snprintf(msg, n, __VA_ARGS__), -1)

static struct dbg *D(struct dap *dp)
{
	return &dp->s->dbg;
}

static void add_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *b64_encode(const uint8_t *p, size_t len)
{
	char *out = malloc(4 * ((len + 2) / 3) + 1), *o = out;

	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < len ? p[i + 2] : 0);

		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	*o = 0;
	return out;
}

static size_t b64_decode(const char *s, uint8_t *out, size_t max)
{
	uint32_t v = 0;
	int bits = 0;
	size_t n = 0;

	for (; *s && *s != '='; s++) {
		const char *c = strchr(b64, *s);

		if (!c || !*s)
			continue;
		v = v << 6 | (uint32_t)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n < max)
				out[n++] = (uint8_t)(v >> bits);
		}
	}
	return n;
}

static uint64_t mem_ref(struct json_object *args)
{
	const char *r = dap_str(args, "memoryReference");

	return (r ? strtoull(r, NULL, 0) : 0) + (uint64_t)dap_int(args, "offset", 0);
}

/* ---- disassemble ---- */

#define DIS_MAX 4096

/* Instruction addresses from start up to past end; the count. */
static int walk(struct dap *dp, uint64_t start, uint64_t end, uint64_t *out, int max)
{
	struct disasm *ds = dbg_disasm(D(dp));
	int k = 0;

	while (start < end && k < max) {
		uint8_t b[16];
		size_t got = dbg_read_some(D(dp), start, b, sizeof(b));
		int len = got && ds ? disasm_len(ds, b, got, start) : -1;

		out[k++] = start;
		start += len > 0 ? (uint64_t)len : 1;
	}
	return k;
}

static struct json_object *insn_json(struct dap *dp, uint64_t addr, const char **last_file,
				     unsigned *last_line)
{
	struct json_object *o = json_object_new_object();
	struct disasm *ds = dbg_disasm(D(dp));
	struct disasm_insn in;
	uint8_t b[16];
	size_t got = dbg_read_some(D(dp), addr, b, sizeof(b));
	char a[32], text[256], bytes[64] = "", sym[512];
	const char *file;
	unsigned line, col;

	snprintf(a, sizeof(a), "0x%016" PRIx64, addr);
	add_str(o, "address", a);
	if (!got || !ds || disasm_insn(ds, b, got, addr, &in, NULL) < 0) {
		add_str(o, "instruction", "<unavailable>");
		add_str(o, "presentationHint", "invalid");
		return o;
	}
	snprintf(text, sizeof(text), "%s%s%s", in.mnemonic, in.operands[0] ? " " : "", in.operands);
	add_str(o, "instruction", text);
	for (unsigned i = 0; i < in.len && i < 15; i++)
		snprintf(bytes + 3 * i, sizeof(bytes) - 3 * i, "%02x ", in.bytes[i]);
	if (bytes[0])
		bytes[strlen(bytes) - 1] = 0;
	add_str(o, "instructionBytes", bytes);
	add_str(o, "symbol", dbg_format_addr(D(dp), addr, sym, sizeof(sym)));
	if (dbg_addr_line(D(dp), addr, &file, &line, &col) == 0 &&
	    (file != *last_file || line != *last_line)) {
		struct json_object *src = json_object_new_object();
		char mapped[4096];
		const char *p = dbg_source_path(D(dp), file, mapped, sizeof(mapped));

		add_str(src, "name", strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
		add_str(src, "path", p);
		json_object_object_add(o, "location", src);
		json_object_object_add(o, "line", json_object_new_int((int)line));
		*last_file = file;
		*last_line = line;
	}
	return o;
}

static int disassemble(struct dap *dp, struct json_object *args, struct json_object **body,
		       char *msg, size_t n)
{
	static uint64_t addrs[DIS_MAX];
	uint64_t addr = mem_ref(args), from = addr;
	int64_t ioff = dap_int(args, "instructionOffset", 0), count = dap_int(args, "instructionCount", 0);
	struct dbg_module *m = dbg_module_for(D(dp), addr);
	struct json_object *arr = json_object_new_array();
	struct sym_loc loc;
	const char *lf = NULL;
	unsigned ll = 0;
	int k, at = 0;

	if (count <= 0 || count > DIS_MAX / 4) {
		json_object_put(arr);
		return FAIL("instructionCount must be 1 to %d", DIS_MAX / 4);
	}
	if (ioff < -DIS_MAX || ioff > DIS_MAX) {
		json_object_put(arr);
		return FAIL("instructionOffset must be -%d to %d", DIS_MAX, DIS_MAX);
	}
	/* the boundaries before addr: from its function's start when near */
	if (ioff < 0 && m && m->sym && sym_lookup_addr(m->sym, addr, &loc) == 0 && loc.func_addr &&
	    loc.func_addr <= addr && addr - loc.func_addr < 64 * 1024)
		from = loc.func_addr;
	k = walk(dp, from, addr + (uint64_t)(count + (ioff > 0 ? ioff : 0)) * 16, addrs, DIS_MAX);
	while (at < k && addrs[at] < addr)
		at++;
	for (int64_t i = 0; i < count; i++) {
		int64_t j = at + ioff + i;

		if (j < 0 || j >= k) {
			struct json_object *o = json_object_new_object();
			char a[32];

			snprintf(a, sizeof(a), "0x%016" PRIx64, j < 0 ? from + (uint64_t)j : addrs[k - 1] + 1);
			add_str(o, "address", a);
			add_str(o, "instruction", "<unavailable>");
			add_str(o, "presentationHint", "invalid");
			json_object_array_add(arr, o);
			continue;
		}
		json_object_array_add(arr, insn_json(dp, addrs[j], &lf, &ll));
	}
	*body = json_object_new_object();
	json_object_object_add(*body, "instructions", arr);
	return 0;
}

/* ---- memory ---- */

static int read_memory(struct dap *dp, struct json_object *args, struct json_object **body,
		       char *msg, size_t n)
{
	uint64_t addr = mem_ref(args);
	int64_t count = dap_int(args, "count", 0);
	uint8_t *buf;
	size_t got;
	char *data, a[32];

	if (count < 0 || count > (1 << 20))
		return FAIL("count must be 0 to 1 MiB");
	buf = malloc((size_t)count + 1);
	got = count ? dbg_read_some(D(dp), addr, buf, (size_t)count) : 0;
	data = b64_encode(buf, got);
	*body = json_object_new_object();
	snprintf(a, sizeof(a), "0x%" PRIx64, addr);
	add_str(*body, "address", a);
	add_str(*body, "data", data);
	if ((int64_t)got < count)
		json_object_object_add(*body, "unreadableBytes", json_object_new_int64(count - (int64_t)got));
	free(data);
	free(buf);
	return 0;
}

static int write_memory(struct dap *dp, struct json_object *args, struct json_object **body,
			char *msg, size_t n)
{
	const char *data = dap_str(args, "data");
	uint64_t addr = mem_ref(args);
	struct ptdb_err err;
	uint8_t *buf;
	size_t len;

	if (!data)
		return FAIL("writeMemory needs 'data'");
	if (!dbg_live_state(D(dp)))
		return FAIL("memory can be written only in a live process (not while replaying)");
	buf = malloc(strlen(data) + 1);
	len = b64_decode(data, buf, strlen(data));
	if (len && target_write_mem(D(dp)->proc, addr, buf, len, &err) < 0) {
		free(buf);
		return FAIL("%s", err.msg);
	}
	free(buf);
	*body = json_object_new_object();
	json_object_object_add(*body, "bytesWritten", json_object_new_int64((int64_t)len));
	return 0;
}

/* ---- modules and sources ---- */

static int modules(struct dap *dp, struct json_object *args, struct json_object **body,
		   char *msg, size_t n)
{
	struct json_object *arr = json_object_new_array();
	struct dbg *d = D(dp);

	(void)args;
	(void)msg;
	(void)n;
	for (int i = 0; i < d->nmods; i++) {
		struct json_object *o = json_object_new_object();
		const char *p = d->mods[i].path ? d->mods[i].path : "?";
		char range[64];

		json_object_object_add(o, "id", json_object_new_int(i + 1));
		add_str(o, "name", strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
		add_str(o, "path", p);
		if (d->mods[i].start || d->mods[i].end) {
			snprintf(range, sizeof(range), "0x%" PRIx64 "-0x%" PRIx64, d->mods[i].start,
				 d->mods[i].end);
			add_str(o, "addressRange", range);
		}
		add_str(o, "symbolStatus", d->mods[i].sym && sym_module_has_debug(d->mods[i].sym)
			? "Symbols loaded." : "No debug information.");
		json_object_array_add(arr, o);
	}
	*body = json_object_new_object();
	json_object_object_add(*body, "modules", arr);
	json_object_object_add(*body, "totalModules", json_object_new_int(d->nmods));
	return 0;
}

static int loaded_sources(struct dap *dp, struct json_object *args, struct json_object **body,
			  char *msg, size_t n)
{
	struct json_object *arr = json_object_new_array();
	struct dbg *d = D(dp);

	(void)args;
	(void)msg;
	(void)n;
	for (int i = 0; i < d->nmods; i++) {
		const char *f = d->mods[i].sym ? sym_main_file(d->mods[i].sym) : NULL;
		struct json_object *o;
		char mapped[4096];
		const char *p;

		if (!f)
			continue;
		p = dbg_source_path(d, f, mapped, sizeof(mapped));
		o = json_object_new_object();
		add_str(o, "name", strrchr(p, '/') ? strrchr(p, '/') + 1 : p);
		add_str(o, "path", p);
		json_object_array_add(arr, o);
	}
	*body = json_object_new_object();
	json_object_object_add(*body, "sources", arr);
	return 0;
}

static int source(struct dap *dp, struct json_object *args, struct json_object **body, char *msg,
		  size_t n)
{
	(void)dp;
	(void)args;
	(void)body;
	return FAIL("sources are given by path: open the file");
}

dap_handler dap_mem_handler(const char *c)
{
	static const struct {
		const char *name;
		dap_handler fn;
	} tab[] = {
		{ "disassemble", disassemble }, { "readMemory", read_memory },
		{ "writeMemory", write_memory }, { "modules", modules },
		{ "loadedSources", loaded_sources }, { "source", source },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(tab[i].name, c))
			return tab[i].fn;
	return NULL;
}
