/* The pager: a report piped to a shell command, as git's pager is. */

#include "pager.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

int pager_write(const char *pager, const char *data, size_t len, struct err *e)
{
	int fds[2];
	fflush(stdout);
	/* git's defaults, only where the user set none; never the token */
	static const char *const defaults[] = {"LESS=FRX", "LV=-c", NULL};
	char **env = child_environment(false, defaults);
	long max_fd = child_fd_limit();
	if (!env || pipe2(fds, O_CLOEXEC) < 0) {
		free(env);
		goto direct;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(env);
		goto direct;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls until exec. */
		dup2(fds[0], STDIN_FILENO); /* dup2 clears close-on-exec on 0 */
		child_exec_prepare(max_fd, env);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	free(env);
	close(fds[0]);
	/* A reader that quits before the end (q in less) closes the pipe:
	 * EPIPE, not a signal that would kill us before the exit status. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	(void)write_all(fds[1], data, len);
	close(fds[1]);
	sigaction(SIGPIPE, &old, NULL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!(WIFEXITED(status) && (WEXITSTATUS(status) == 126 || WEXITSTATUS(status) == 127)))
		return 0;
direct:
	if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)
		return err_set(e, ERR_USAGE, "cannot write the report: %s", strerror(errno));
	return 0;
}
