/* Fixture: C strings in memory for memory read -f s (x/s): escapes, a
 * byte over 0x7f, an array with no NUL running into the next one. */
#include <string.h>

char odd[] = "a\xe9\x1b\x01\"\\'b\n\t\x7f";
char nonul[4] = { 'a', 'b', 'c', 'd' };
char after[] = "zz";
const char *greeting = "hello";

int main(void)
{
	char buf[16];

	strcpy(buf, "world");
	return (int)strlen(odd) + (int)strlen(greeting) + buf[0];
}
