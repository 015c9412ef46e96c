/* libFuzzer harness for the option parsers: the bytes are a command line,
 * its arguments split at NUL bytes (at most 40), given to cli_parse the way
 * main() does (durations, sizes, enums, repeated scalars, `--opt=value`,
 * commands and their operands); and each argument, also, to the
 * --since/--until parser. Invariants: no crash, no leak; cli_parse gives an
 * action, or -1 with a usage error (2) and a message; a time argument is
 * refused with a usage error, or comes out as RFC 3339 UTC that reads
 * back. The environment is emptied of everything the parser reads, so a
 * finding replays anywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalyst.h"
#include "cli.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	static const char *const unset[] = {"CATALYST_AUDIT_CONFIG",
					    "CATALYST_MCP_URL",
					    "CATALYST_PROJECT",
					    "CATALYST_PROJECT_ID",
					    "CATALYST_TOKEN",
					    "CATALYST_PAGER",
					    "PAGER",
					    "CATALYST_LOGIN_TIMEOUT",
					    "CATALYST_AUDIT_THREADS",
					    "BROWSER",
					    NULL};
	for (size_t i = 0; unset[i]; i++)
		unsetenv(unset[i]);
	/* No config or token folder of the machine's is read. */
	setenv("HOME", "/nonexistent", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent", 1);
	setenv("CI", "true", 1);
	return 0;
}

static void time_arg(const char *s)
{
	char out[32];
	struct err e;
	err_clear(&e);
	const time_t now = 1796083200; /* 2026-12-01T00:00:00Z */
	if (catalyst_time_arg("--since", s, now, out, &e) < 0) {
		if (e.code != ERR_USAGE || !*e.msg)
			abort();
		return;
	}
	time_t back;
	if (strlen(out) != 20 || out[19] != 'Z' || catalyst_time_parse(out, &back) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	char *argv[42] = {"catalyst-audit"};
	int argc = 1;
	for (char *p = copy; p <= copy + size && argc < 41;) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	for (int i = 1; i < argc; i++)
		time_arg(argv[i]);
	struct audit_request rq;
	struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse(argc, argv, &rq, &cfg, &e);
	if (action < 0 ? !*e.msg || e.code == ERR_NONE
		       : action != CLI_ACTION_RUN && action != CLI_ACTION_HELP && action != CLI_ACTION_VERSION)
		abort();
	config_finish(&cfg);
	free(copy);
	return 0;
}
