/* `catalyst-audit __complete WORD... CURRENT`: what the bash, zsh and fish
 * completions (completions/gen-completions.c) call for the values only the
 * server knows: after --project the projects, after --app / --app-id and
 * `run` the apps, after `run APP` the app's latest runs, one line each,
 * "VALUE<TAB>DESCRIPTION". It never prompts and never waits long: with
 * --no-login on the line, --stdio, or no token (CATALYST_TOKEN or a stored
 * one) it asks no one; otherwise each request has 2 s and the whole answer
 * COMPLETE_DEADLINE_S. An answer is kept a minute (complete_cache.h). Any
 * failure completes nothing and prints nothing: a tab key must not write
 * over the user's line. Hidden: not in the option or command tables. */
#include "cli_complete.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "cli.h"
#include "cli_options.h"
#include "complete_cache.h"
#include "config.h"
#include "oauth.h"

/* The longest a tab may wait: the session's requests have 2 s each, and
 * a stuck one is cut here (SIGALRM's default action ends the process, with
 * nothing printed). */
#define COMPLETE_DEADLINE_S 5

/* The options whose values the completion answers with the server's
 * names: the rows marked .remote. */
static int what_of_option(const char *word, enum audit_complete_what *what)
{
	const struct cli_option *o = strncmp(word, "--", 2) == 0 ? cli_option_by_name(word + 2) : NULL;
	if (!o || o->remote == CLI_REMOTE_NONE)
		return 0;
	*what = o->remote == CLI_REMOTE_PROJECT ? AUDIT_COMPLETE_PROJECTS : AUDIT_COMPLETE_APPS;
	return 1;
}

/* Whether the word is an option that takes its value in the next word. */
static bool takes_next(const char *w)
{
	const struct cli_option *o = NULL;
	if (w[0] == '-' && w[1] == '-' && w[2] && !strchr(w, '='))
		o = cli_option_by_name(w + 2);
	else if (w[0] == '-' && w[1] && w[1] != '-' && !w[2])
		o = cli_option_by_short(w[1]);
	return o && o->metavar;
}

/* The words before the one completed, read for what they set: the
 * connection and project options go to cli_parse (through `stats`, which
 * takes them all), the command and its operands are counted. */
struct line {
	const char *argv[64];
	int argc;
	bool refuse; /* --no-login or --stdio: no server is asked */
	const char *command;
	const char *operands[4];
	int n_operands;
	const char *app_id; /* --app-id's value */
};

static void read_line(int n, char **w, struct line *l)
{
	static const char *const passed[] = {"--server",     "--cacert",    "--config", "--project",
					     "--project-id", "--client-id", NULL};
	l->argv[l->argc++] = "catalyst-audit";
	l->argv[l->argc++] = "stats";
	for (int i = 0; i < n; i++) {
		const char *word = w[i];
		if (strcmp(word, "--no-login") == 0 || strncmp(word, "--stdio", 7) == 0)
			l->refuse = true;
		if (word[0] == '-' && word[1]) {
			const char *value = NULL;
			size_t nl = strcspn(word, "=");
			if (word[nl] == '=')
				value = word + nl + 1;
			else if (takes_next(word) && i + 1 < n)
				value = w[++i];
			else if (takes_next(word))
				break; /* its value is the word completed */
			for (int k = 0; passed[k] && value; k++)
				if (strlen(passed[k]) == nl && strncmp(word, passed[k], nl) == 0 &&
				    l->argc + 2 < (int)(sizeof l->argv / sizeof *l->argv)) {
					l->argv[l->argc++] = passed[k];
					l->argv[l->argc++] = value;
				}
			if (value && strncmp(word, "--app-id", nl) == 0 && nl == 8)
				l->app_id = value;
			continue;
		}
		if (!l->command)
			l->command = word;
		else if (l->n_operands < 4)
			l->operands[l->n_operands++] = word;
	}
}

/* What the word being completed is, from the words before it; 0 when it
 * is nothing the server knows (the shell's own tables complete it). */
static int decide(int n, char **w, const char *cur, const struct line *l, enum audit_complete_what *what,
		  const char **app)
{
	*app = NULL;
	size_t nl = strcspn(cur, "=");
	if (cur[0] == '-' && cur[nl] == '=') {
		char opt[32];
		snprintf(opt, sizeof opt, "%.*s", (int)nl, cur);
		return what_of_option(opt, what);
	}
	if (cur[0] == '-')
		return 0;
	const char *prev = n > 0 ? w[n - 1] : "";
	/* bash splits --project=x at the '=' (COMP_WORDBREAKS) */
	if (strcmp(prev, "=") == 0 && n > 1)
		return what_of_option(w[n - 2], what);
	if (what_of_option(prev, what))
		return 1;
	const struct cli_command *c = l->command ? cli_command_by_name(l->command) : NULL;
	if (takes_next(prev) || !c || !c->remote_operands)
		return 0;
	int operands = l->n_operands + (l->app_id ? 1 : 0);
	if (operands == 0) {
		*what = AUDIT_COMPLETE_APPS;
		return 1;
	}
	if (operands == 1) {
		*what = AUDIT_COMPLETE_RUNS;
		*app = l->app_id ? l->app_id : l->operands[0];
		return 1;
	}
	return 0;
}

/* A token to send: CATALYST_TOKEN, or one stored for this server. Only
 * whether there is one is asked here: the session reads it again. */
static bool have_token(const struct audit_request *rq)
{
	if (rq->env_token)
		return true;
	struct oauth_tokens t = {0};
	struct err e;
	err_clear(&e);
	bool found = rq->token_dir && oauth_store_load(rq->token_dir, NULL, NULL, rq->server, &t, &e) == 1;
	oauth_tokens_finish(&t);
	return found;
}

static void print_answer(const char *text)
{
	fputs(text, stdout);
	fflush(stdout);
}

int cli_complete(int n, char **words)
{
	/* Nothing but candidates on stdout, ever: stderr goes nowhere, so
	 * no line of a library or of curl can reach the user's prompt. */
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDERR_FILENO);
		close(devnull);
	}
	alarm(COMPLETE_DEADLINE_S);
	if (n < 1)
		return 0;
	const char *cur = words[n - 1];
	struct line l = {.argc = 0};
	read_line(n - 1, words, &l);
	enum audit_complete_what what;
	const char *app;
	if (l.refuse || !decide(n - 1, words, cur, &l, &what, &app))
		return 0;
	l.argv[l.argc++] = "--timeout";
	l.argv[l.argc++] = "2";
	l.argv[l.argc++] = "--no-login";
	l.argv[l.argc++] = "--quiet";
	l.argv[l.argc] = NULL;

	struct audit_request rq;
	static struct config cfg;
	struct err e;
	err_clear(&e);
	int action = cli_parse(l.argc, (char **)l.argv, &rq, &cfg, &e);
	if (action != CLI_ACTION_RUN || rq.stdio_cmd || !rq.server || !have_token(&rq)) {
		config_finish(&cfg);
		return 0;
	}
	rq.no_login = true;
	rq.may_prompt = false;
	rq.warn = rq.notice = NULL;
	rq.progress = NULL;

	char key[2048];
	snprintf(key, sizeof key, "v1\n%s\n%s:%s\n%d\n%s", rq.server, rq.project.as_uid ? "uid" : "name",
		 rq.project.value ? rq.project.value : "", (int)what, app ? app : "");
	char *cache = complete_cache_dir(getenv("XDG_CACHE_HOME"), getenv("HOME"));
	char *text = NULL;
	if (complete_cache_read(cache, key, time(NULL), &text) == 1) {
		print_answer(text);
	} else if (audit_complete(&rq, what, app, &text, &e) == 0) {
		complete_cache_write(cache, key, text);
		print_answer(text);
	}
	free(text);
	free(cache);
	config_finish(&cfg);
	return 0;
}
