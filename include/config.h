#pragma once
/* The config file: defaults for the options a user sets once (server,
 * project, formats...), as `key = value` lines. It never holds a secret.
 * Only the CLI reads it; library code sees the resolved request. */

#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* Bigger than any honest config file: a mistaken path, refused. */
#define CONFIG_MAX_BYTES (64 * 1024)

struct config_entry {
	char *key;
	char *value;
	unsigned line; /* 1-based */
};

struct config {
	char *path; /* the file read, for messages; NULL when none was */
	struct config_entry *entries;
	size_t n;
	/* The command line's positional words a request borrows as a list (file's
	 * paths, stats' report paths): the CLI hands them here, config_finish frees
	 * the list. */
	char **kept_args;
};

void config_init(struct config *c);
void config_finish(struct config *c);

/* Parses text (len bytes, from path) into c. A line is blank, a comment
 * (first non-blank character `#`) or `key = value`: blanks around key and
 * value are dropped, a value in matching single or double quotes is
 * unquoted, and a `#` after a blank ends the value (a `#` inside a word,
 * as in a URL, is kept). keys lists the allowed keys (NULL-ended). Errors
 * (ERR_USAGE) read "PATH:LINE: ...": not `key = value`, an empty value, a
 * key given twice, a key that names a secret (token, secret, password),
 * an unknown key (with the nearest known one). */
int config_parse(struct config *c, const char *path, const char *text, size_t len, const char *const *keys,
		 struct err *e);

/* Reads path and parses it. A file that does not exist is no error unless
 * must_exist (c->path stays NULL then). */
int config_load(struct config *c, const char *path, bool must_exist, const char *const *keys, struct err *e);

/* Where the config file is looked for: <xdg_config_home>/catalyst-audit/config
 * when that is an absolute path (the XDG rule: a relative one is ignored),
 * else <home>/.config/catalyst-audit/config; NULL when neither is usable.
 * The values are passed in (the caller reads the environment). malloc'd. */
char *config_default_path(const char *xdg_config_home, const char *home);
