/* The one preparation of a child's environment and descriptors (child.h). */
#include "child.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

extern char **environ;

static bool set_in(char *const *env, size_t n, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t k = eq ? (size_t)(eq - entry) + 1 : strlen(entry);
	for (size_t i = 0; i < n; i++)
		if (strncmp(env[i], entry, k) == 0)
			return true;
	return false;
}

char **child_environment(bool drop_all, const char *const *defaults)
{
	size_t n = 0, d = 0;
	while (environ && environ[n])
		n++;
	while (defaults && defaults[d])
		d++;
	char **env = calloc(n + d + 1, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool ours = drop_all ? strncmp(environ[i], "CATALYST_", 9) == 0
				     : strncmp(environ[i], "CATALYST_TOKEN=", 15) == 0;
		if (!ours)
			env[k++] = environ[i];
	}
	size_t inherited = k;
	for (size_t i = 0; i < d; i++)
		if (!set_in(env, inherited, defaults[i]))
			env[k++] = (char *)defaults[i];
	env[k] = NULL;
	return env;
}

long child_fd_limit(void)
{
	struct rlimit lim = {1024, 1024};
	getrlimit(RLIMIT_NOFILE, &lim);
	return lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur > 65536 ? 65536 : (long)lim.rlim_cur;
}

void child_exec_prepare(long fd_limit, char **env)
{
#ifdef CLOSE_RANGE_CLOEXEC
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
#endif
		for (long fd = 3; fd < fd_limit; fd++)
			fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (env)
		environ = env;
}
