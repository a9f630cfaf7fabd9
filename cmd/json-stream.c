/* cmd/json-stream.c: a JSON array streamed item by item with json-c per
 * item; the same text json-c gives for the whole array when plain, and an
 * equivalent indented layout with -J. */
#include "cmd/json-stream.h"
#include "base/err.h"

#include <json.h>
#include <stdlib.h>

struct cmd_jstream *cmd_jstream_new(FILE *out, int pretty)
{
	struct cmd_jstream *js = xmalloc(sizeof(*js));

	js->out = out;
	js->pretty = pretty;
	js->n = 0;
	return js;
}

void cmd_jstream_add(struct cmd_jstream *js, struct json_object *item)
{
	const char *s = json_object_to_json_string_ext(item, (js->pretty ?
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN) |
		JSON_C_TO_STRING_NOSLASHESCAPE);

	fputc(js->n++ ? ',' : '[', js->out);
	if (js->pretty) {
		/* one level in: every line of the item indented by two */
		fputs("\n  ", js->out);
		for (; *s; s++) {
			fputc(*s, js->out);
			if (*s == '\n')
				fputs("  ", js->out);
		}
	} else {
		fputs(s, js->out);
	}
	json_object_put(item);
}

int cmd_jstream_next(struct cmd_jstream *js)
{
	return js->n++ != 0;
}

void cmd_jstream_end(struct cmd_jstream *js)
{
	if (!js->n)
		fputc('[', js->out);
	if (js->pretty && js->n)
		fputc('\n', js->out);
	fputs("]\n", js->out);
	free(js);
}

void cmd_jstream_free(struct cmd_jstream *js)
{
	if (js && js->n)
		cmd_jstream_end(js);	/* items are out: close the array */
	else
		free(js);
}
