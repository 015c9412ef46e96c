/* --web: $BROWSER run with fork/exec, no shell between it and the link. */

#include "browser.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_COMMANDS 8
#define MAX_WORDS 32

struct command {
	char *argv[MAX_WORDS + 2];
};

/* Splits a copy of $BROWSER (held by *text, freed by the caller) into
 * commands; returns how many. */
static size_t parse_browser(char *text, const char *url, struct command *cmds)
{
	size_t n = 0;
	char *save_cmd = NULL;
	for (char *c = strtok_r(text, ":", &save_cmd); c && n < MAX_COMMANDS; c = strtok_r(NULL, ":", &save_cmd)) {
		struct command *cmd = &cmds[n];
		size_t w = 0;
		bool placed = false;
		char *save_word = NULL;
		for (char *word = strtok_r(c, " \t", &save_word); word && w < MAX_WORDS;
		     word = strtok_r(NULL, " \t", &save_word)) {
			if (strcmp(word, "%s") == 0) {
				cmd->argv[w++] = (char *)url;
				placed = true;
			} else {
				cmd->argv[w++] = word;
			}
		}
		if (w == 0)
			continue;
		if (!placed)
			cmd->argv[w++] = (char *)url;
		cmd->argv[w] = NULL;
		n++;
	}
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int browser_open(const char *browser, const char *url, long wait_ms, struct err *e)
{
	if (!browser || !*browser)
		return err_set(e, ERR_USAGE, "$BROWSER is not set");
	char *text = strdup(browser);
	if (!text)
		return err_oom(e);
	struct command cmds[MAX_COMMANDS];
	size_t n = parse_browser(text, url, cmds);
	int rc = -1;
	int fds[2] = {-1, -1};
	if (n == 0) {
		err_set(e, ERR_USAGE, "$BROWSER names no command");
		goto out;
	}
	/* The child reports a failed exec through a pipe that a successful
	 * one closes: EOF means the browser is running. */
	if (pipe2(fds, O_CLOEXEC) < 0) {
		err_set(e, ERR_USAGE, "cannot start $BROWSER: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		err_set(e, ERR_USAGE, "cannot start $BROWSER: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		int first_errno = 0;
		for (size_t i = 0; i < n; i++) {
			execvp(cmds[i].argv[0], cmds[i].argv);
			if (!first_errno)
				first_errno = errno;
		}
		ssize_t unused = write(fds[1], &first_errno, sizeof first_errno);
		(void)unused;
		_exit(127);
	}
	close(fds[1]);
	fds[1] = -1;
	int child_errno = 0;
	ssize_t got;
	while ((got = read(fds[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	if (got > 0) {
		waitpid(pid, NULL, 0);
		err_set(e, ERR_USAGE, "cannot run $BROWSER (%s): %s", cmds[0].argv[0], strerror(child_errno));
		goto out;
	}
	int status = 0;
	pid_t done = 0;
	for (long waited = 0; waited <= wait_ms; waited += 50) {
		done = waitpid(pid, &status, WNOHANG);
		if (done != 0)
			break;
		sleep_ms(50);
	}
	if (done == pid && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
		err_set(e, ERR_USAGE, "$BROWSER (%s) exited with status %d", cmds[0].argv[0], WEXITSTATUS(status));
		goto out;
	}
	if (done == pid && WIFSIGNALED(status)) {
		err_set(e, ERR_USAGE, "$BROWSER (%s) was killed by signal %d", cmds[0].argv[0], WTERMSIG(status));
		goto out;
	}
	rc = 0;
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(text);
	return rc;
}
