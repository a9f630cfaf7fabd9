/* cmd/json-stream.h: a JSON array written item by item as it is made
 * (dump -j/-J), so a dump's memory does not grow with its length. */
#ifndef CMD_JSON_STREAM_H
#define CMD_JSON_STREAM_H

#include <stdio.h>

struct json_object;

struct cmd_jstream {
	FILE *out;
	int pretty;		/* -J: indented, "key": value */
	unsigned long long n;	/* items written */
};

/* Heap object; "[" is written with the first item or at the end. */
struct cmd_jstream *cmd_jstream_new(FILE *out, int pretty);
/* Writes item (taking it: it is freed) after a separator. */
void cmd_jstream_add(struct cmd_jstream *js, struct json_object *item);
/* A plain item the caller writes itself ("{...}"): 0 if it is the first
 * (write "[" before it), else 1 (write ","). */
int cmd_jstream_next(struct cmd_jstream *js);
/* Closes the array ("]") and frees js; also after an interruption, so
 * what was written stays valid JSON. */
void cmd_jstream_end(struct cmd_jstream *js);

/* Drops js: nothing written if no item was, else the array is closed. */
void cmd_jstream_free(struct cmd_jstream *js);

#endif
