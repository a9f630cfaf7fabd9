/* target/target_pty.c: the pseudo-terminal a launched program gets when
 * ptdb runs on a terminal (as LLDB gives one): ptdb keeps the master and
 * relays what the program writes; the slave is the program's stdio and
 * controlling terminal, so the terminal's Ctrl-C reaches ptdb only. */
#include "target/target_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

int target_pty_open(int like, int *master, int *slave, struct ptdb_err *err)
{
	struct termios t;
	struct winsize ws;
	int m, s;

	*master = *slave = -1;
	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return ptdb_err_errno(err, "pseudo-terminal");
	if (grantpt(m) < 0 || unlockpt(m) < 0 || !ptsname(m)) {
		ptdb_err_errno(err, "pseudo-terminal");
		close(m);
		return -1;
	}
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		ptdb_err_errno(err, "pseudo-terminal %s", ptsname(m));
		close(m);
		return -1;
	}
	if (like >= 0 && tcgetattr(like, &t) == 0)
		tcsetattr(s, TCSANOW, &t);
	if (like >= 0 && ioctl(like, TIOCGWINSZ, &ws) == 0)
		ioctl(s, TIOCSWINSZ, &ws);
	*master = m;
	*slave = s;
	return 0;
}
