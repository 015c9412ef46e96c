/* Process-wide setup, once, from main(). */

#include "process.h"

#include "secret.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

/* Each of 0, 1, 2 that is closed gets /dev/null: open() takes the lowest
 * free descriptor, so going up in order fills exactly the missing one. */
static int check_fds(struct err *e)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int got = open("/dev/null", (fd == 0 ? O_RDONLY : O_WRONLY));
		if (got != fd) {
			if (got >= 0)
				close(got);
			return err_set(e, ERR_INTERNAL, "descriptor %d is closed and /dev/null cannot take it",
				       fd);
		}
	}
	return 0;
}

/* The process holds the bearer token (CATALYST_TOKEN, the store's, a
 * refreshed one) from start to end: a core file would keep a copy. Not
 * dumpable also keeps other processes of the user from reading its memory
 * through /proc or ptrace. */
static int no_core_dumps(struct err *e)
{
	struct rlimit none = {0, 0};
	if (setrlimit(RLIMIT_CORE, &none) < 0)
		return err_set(e, ERR_INTERNAL, "cannot turn core dumps off: %s", strerror(errno));
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return err_set(e, ERR_INTERNAL, "cannot turn core dumps off: %s", strerror(errno));
	return 0;
}

/* The one file this program maps is the history `file` reads: a bus error
 * means it was cut short (truncated) while being read. Said, and exit 6
 * as for any input that cannot be parsed, instead of dying silently. Only
 * async-signal-safe calls here. */
static void on_sigbus(int sig)
{
	(void)sig;
	static const char m[] = "catalyst-audit: error: the input file was cut short while it was read "
				"(a bus error): read it again once nothing writes it\n";
	ssize_t unused = write(STDERR_FILENO, m, sizeof m - 1);
	(void)unused;
	_exit(ERR_INPUT);
}

int process_setup(struct err *e)
{
	if (check_fds(e) < 0 || no_core_dumps(e) < 0)
		return -1;
	struct sigaction sa = {.sa_handler = on_sigbus};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	return 0;
}

static bool network_ready;

int process_network_setup(struct err *e)
{
	if (network_ready)
		return 0;
	CURLcode c = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK)
		return err_set(e, ERR_INTERNAL, "curl_global_init: %s", curl_easy_strerror(c));
	network_ready = true;
	return 0;
}

void process_malloc_setup(void)
{
#ifdef M_MMAP_THRESHOLD
	/* Any value set turns the threshold's adjustment off: glibc's own. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

void process_teardown(void)
{
	secret_forget_all();
	if (network_ready)
		curl_global_cleanup();
	network_ready = false;
}
