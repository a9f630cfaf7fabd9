/* core/tracing/bundle_write.c: writing trace.json (bundle_write, see
 * bundle.h); reading and checking it is bundle.c. */
#include "core/tracing/bundle.h"

#include <json-c/json.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* path relative to dir when inside it, else as is. */
static struct json_object *path_json(const struct bundle *b, const char *path)
{
	size_t n = strlen(b->dir);

	if (!strncmp(path, b->dir, n) && path[n] == '/')
		return json_object_new_string(path + n + 1);
	return json_object_new_string(path);
}

static struct json_object *hex_json(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_object_new_string(buf);
}

int bundle_write(const struct bundle *b, struct ptdb_err *err)
{
	struct json_object *root = json_object_new_object(), *ci = json_object_new_object();
	struct json_object *procs = json_object_new_array();
	FILE *f;
	int bad, fd;

	json_object_object_add(root, "type", json_object_new_string("intel-pt"));
	json_object_object_add(ci, "vendor", json_object_new_string(b->vendor));
	json_object_object_add(ci, "family", json_object_new_int64((int64_t)b->family));
	json_object_object_add(ci, "model", json_object_new_int64((int64_t)b->model));
	json_object_object_add(ci, "stepping", json_object_new_int64((int64_t)b->stepping));
	json_object_object_add(root, "cpuInfo", ci);
	for (int i = 0; i < b->nprocs; i++) {
		const struct bundle_process *p = &b->procs[i];
		struct json_object *po = json_object_new_object(), *th = json_object_new_array();
		struct json_object *mods = json_object_new_array();

		json_object_object_add(po, "pid", json_object_new_int((int)p->pid));
		if (p->triple)
			json_object_object_add(po, "triple", json_object_new_string(p->triple));
		for (int k = 0; k < p->nthreads; k++) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "tid", json_object_new_int((int)p->threads[k].tid));
			if (p->threads[k].trace)
				json_object_object_add(t, "iptTrace", path_json(b, p->threads[k].trace));
			if (p->threads[k].wrapped) {
				json_object_object_add(t, "wrapped", json_object_new_boolean(1));
				json_object_object_add(t, "bytesWritten",
						       json_object_new_uint64(p->threads[k].written));
			}
			json_object_array_add(th, t);
		}
		for (int k = 0; k < p->nmods; k++) {
			const struct bundle_module *m = &p->mods[k];
			struct json_object *mo = json_object_new_object();

			json_object_object_add(mo, "systemPath", json_object_new_string(m->system_path));
			if (m->file)
				json_object_object_add(mo, "file", path_json(b, m->file));
			json_object_object_add(mo, "loadAddress", hex_json(m->load_addr));
			if (m->uuid && m->uuid[0])
				json_object_object_add(mo, "uuid", json_object_new_string(m->uuid));
			json_object_array_add(mods, mo);
		}
		json_object_object_add(po, "threads", th);
		json_object_object_add(po, "modules", mods);
		if (p->code_pages)
			json_object_object_add(po, "codePages", path_json(b, p->code_pages));
		json_object_array_add(procs, po);
	}
	json_object_object_add(root, "processes", procs);
	if (b->ncpus) {
		struct json_object *cpus = json_object_new_array();

		for (int i = 0; i < b->ncpus; i++) {
			struct json_object *c = json_object_new_object();

			json_object_object_add(c, "id", json_object_new_int(b->cpus[i].id));
			json_object_object_add(c, "iptTrace", path_json(b, b->cpus[i].trace));
			json_object_object_add(c, "contextSwitchTrace", path_json(b, b->cpus[i].context_switch));
			json_object_array_add(cpus, c);
		}
		json_object_object_add(root, "cpus", cpus);
	}
	if (b->kernel_file) {
		struct json_object *k = json_object_new_object();

		json_object_object_add(k, "file", path_json(b, b->kernel_file));
		json_object_object_add(k, "loadAddress", hex_json(b->kernel_load));
		json_object_object_add(root, "kernel", k);
	}
	if (b->tsc.valid) {
		struct json_object *t = json_object_new_object();
		char zero[24];

		json_object_object_add(t, "timeMult", json_object_new_int64(b->tsc.mult));
		json_object_object_add(t, "timeShift", json_object_new_int(b->tsc.shift));
		/* a decimal string, as LLDB writes it */
		snprintf(zero, sizeof(zero), "%" PRIu64, b->tsc.zero);
		json_object_object_add(t, "timeZero", json_object_new_string(zero));
		json_object_object_add(root, "tscPerfZeroConversion", t);
	}
	/* a new file: never written through a symlink or over another */
	fd = open(b->json, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		json_object_put(root);
		return ptdb_err_errno(err, "cannot write '%s'", b->json);
	}
	fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_SPACED |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		json_object_put(root);
		return ptdb_err_errno(err, "cannot write '%s'", b->json);
	}
	json_object_put(root);
	return 0;
}
