#pragma once
/* What every child this tool starts (the pager, the browser, a --stdio
 * server) gets from it, prepared the one way: our environment without the
 * token (CATALYST_TOKEN; for the browser, without any CATALYST_*), with
 * defaults added only where the user set none, and no descriptor of ours
 * but standard input, output and error (libcurl's sockets are opened
 * without close-on-exec). */

#include <stdbool.h>

/* The child's environment, made before fork (the child may not
 * allocate): pointers into environ and into defaults ("NAME=VALUE", NULL
 * ended, each added when NAME is unset), NULL-terminated; free() the
 * array only. drop_all: every CATALYST_* variable goes, not only the
 * token. NULL when memory ran out. */
char **child_environment(bool drop_all, const char *const *defaults);

/* The descriptor limit, read before fork for child_exec_prepare. */
long child_fd_limit(void);

/* In the child, before exec (async-signal-safe only): every descriptor
 * from 3 up closed on exec, the signal mask emptied, SIGPIPE back to its
 * default, and env made the environment exec passes on. */
void child_exec_prepare(long fd_limit, char **env);
