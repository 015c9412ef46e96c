#pragma once
/* The shell completions' cache of what the server answered (`__complete`):
 * a tab pressed twice within a minute does not call the server again. One
 * file per question (server, project, what is completed), private (0600 in
 * a 0700 folder, through file_out), holding the candidates only: never a
 * token. A file older than COMPLETE_CACHE_MAX_AGE_S, not ours, readable by
 * others or for another question is a miss. Prints nothing. */

#include <stddef.h>
#include <time.h>

#define COMPLETE_CACHE_MAX_AGE_S 60
/* A cached answer larger than this is not read (nor written). */
#define COMPLETE_CACHE_MAX_BYTES (256 * 1024)

/* <xdg_cache_home>/catalyst-audit when that is absolute (the XDG rule),
 * else <home>/.cache/catalyst-audit when home is absolute (malloc'd);
 * NULL when neither is usable (then nothing is cached). The values are
 * passed in: this module reads no environment variable. */
char *complete_cache_dir(const char *xdg_cache_home, const char *home);

/* The answer to key stored at most COMPLETE_CACHE_MAX_AGE_S before now:
 * 1 with *text (malloc'd), 0 on a miss. */
int complete_cache_read(const char *dir, const char *key, time_t now, char **text);

/* Stores text as the answer to key (the folder made 0700 when missing);
 * 0, or -1 when it could not be (the answer is given anyway). */
int complete_cache_write(const char *dir, const char *key, const char *text);
