/* $BROWSER, then xdg-open, run with fork/exec: no shell between them and
 * the address, and nothing of ours handed over. */

#include "browser.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

#define MAX_COMMANDS 8
#define MAX_WORDS 32

struct command {
	char *argv[MAX_WORDS + 2];
};

/* Splits a copy of $BROWSER (held by *text, freed by the caller) into
 * commands, then xdg-open; returns how many. */
static size_t parse_browser(char *text, const char *url, struct command *cmds)
{
	size_t n = 0;
	char *save_cmd = NULL;
	for (char *c = text ? strtok_r(text, ":", &save_cmd) : NULL; c && n < MAX_COMMANDS - 1;
	     c = strtok_r(NULL, ":", &save_cmd)) {
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
	cmds[n] = (struct command){{"xdg-open", (char *)url, NULL}};
	return n + 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Waits up to wait_ms for the opener: 0 when it is still running or ended
 * well, else -1 with e set. */
static int judge(pid_t pid, long wait_ms, struct err *e)
{
	int status = 0;
	pid_t done = 0;
	for (long waited = 0; waited <= wait_ms; waited += 50) {
		done = waitpid(pid, &status, WNOHANG);
		if (done != 0 || wait_ms == 0)
			break;
		sleep_ms(50);
	}
	if (done == pid && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return err_set(e, ERR_USAGE, "the browser exited with status %d", WEXITSTATUS(status));
	if (done == pid && WIFSIGNALED(status))
		return err_set(e, ERR_USAGE, "the browser was killed by signal %d", WTERMSIG(status));
	return 0;
}

int browser_open(const char *browser, const char *url, long wait_ms, struct err *e)
{
	char *text = browser && *browser ? strdup(browser) : NULL;
	char **env = child_environment(true, NULL);
	struct command cmds[MAX_COMMANDS];
	int rc = -1, fds[2] = {-1, -1}, null = -1;
	if ((browser && *browser && !text) || !env) {
		err_oom(e);
		goto out;
	}
	size_t n = parse_browser(text, url, cmds);
	long max_fd = child_fd_limit();
	/* The child reports a failed exec through a pipe that a successful
	 * one closes: EOF means the browser is running. */
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null < 0 || pipe2(fds, O_CLOEXEC) < 0) {
		err_set(e, ERR_USAGE, "cannot start a browser: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		err_set(e, ERR_USAGE, "cannot start a browser: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls until exec. */
		dup2(null, STDIN_FILENO);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		child_exec_prepare(max_fd, env); /* execvp searches the PATH kept in env */
		int err[MAX_COMMANDS] = {0};
		size_t i;
		for (i = 0; i < n; i++) {
			execvp(cmds[i].argv[0], cmds[i].argv);
			err[i] = errno;
		}
		ssize_t unused = write(fds[1], err, sizeof err);
		(void)unused;
		_exit(127);
	}
	close(fds[1]);
	fds[1] = -1;
	int child_err[MAX_COMMANDS] = {0};
	ssize_t got;
	while ((got = read(fds[0], child_err, sizeof child_err)) < 0 && errno == EINTR)
		;
	if (got > 0) {
		waitpid(pid, NULL, 0);
		if (n == 1)
			err_set(e, ERR_USAGE, "no browser to open it with: $BROWSER is not set and xdg-open: %s",
				strerror(child_err[0]));
		else
			err_set(e, ERR_USAGE, "cannot run $BROWSER (%s: %s), nor xdg-open (%s)", cmds[0].argv[0],
				strerror(child_err[0]), strerror(child_err[n - 1]));
		goto out;
	}
	rc = judge(pid, wait_ms, e);
out:
	if (null >= 0)
		close(null);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(env);
	free(text);
	return rc;
}
